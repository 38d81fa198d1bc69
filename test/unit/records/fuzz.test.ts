import {describe, expect, it} from 'vitest'
import {fuzz} from './fuzz.js'

// The quick run on every test invocation; fuzz-million.test.ts runs the full million.
describe('codec fuzzing (quick)', () => {
  it('100,000 random, truncated and bit-flipped records end in a result or a RecordDecodeError', () => {
    const stats = fuzz(100_000, 7)
    expect(stats.cases).toBe(100_000)
    // The mutations must reach both outcomes in quantity, or the fuzzer is not exercising much.
    expect(stats.errors).toBeGreaterThan(10_000)
    expect(stats.decoded).toBeGreaterThan(10_000)
    console.log(`fuzz quick: ${JSON.stringify(stats)}`)
  })
})
