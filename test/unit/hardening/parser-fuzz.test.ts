/**
 * Fuzzing the parsers (fast subset; the full run is `node scripts/fuzz-parsers.js`, ≥1,000,000 inputs per parser):
 * the metadata-file parser and the properties/JAAS parser end every generated input in a result or an input
 * error, never another exception, and never echo the marker secrets. Runs the built code (npm run build).
 */
import {describe, expect, it, vi} from 'vitest'
// @ts-expect-error a plain JS script without type declarations
import {edgeCases, run} from '../../../scripts/fuzz-parsers.js'

vi.setConfig({testTimeout: 300_000})

describe('parser fuzzing (subset)', () => {
  it('2,000 generated inputs per parser: no crash, no secret echoed', () => {
    // a fixed seed keeps the suite's verdict the same on every run; `node scripts/fuzz-parsers.js --seed N` explores
    const {stats} = run({cases: 2000, seed: 20261206})
    for (const s of Object.values(stats) as Array<{cases: number; ok: number; rejected: number}>) {
      expect(s.cases).toBe(2000)
      expect(s.ok + s.rejected).toBe(2000)
      // the generators reach both outcomes (a generator that only makes garbage would test little)
      expect(s.ok).toBeGreaterThan(50)
      expect(s.rejected).toBeGreaterThan(50)
    }
  })

  it('edge cases: 200,000 brokers (overflowed the stack in the rack table), 100,000-deep nesting, partition id 2^31-1', () => {
    expect(edgeCases(['deep nesting 100000', '200000 brokers', 'partition id 2147483647'])).toEqual({
      'deep nesting 100000': 'rejected',
      '200000 brokers': 'ok',
      'partition id 2147483647': 'rejected',
    })
  })
})
