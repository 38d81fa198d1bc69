/** Stdin is read only where `--metadata-file -` asks for it, never taken as an argument. */
import {describe, expect, it, vi} from 'vitest'
import {tempFile, WORKED} from '../helpers.js'
import {cli} from './cli.js'

// child processes: a hang bound, not a speed check (the machine may be loaded)
vi.setConfig({testTimeout: 300_000})

describe('--metadata-file - and stdin', () => {
  const good = JSON.stringify(WORKED)
  const file = tempFile('worked.json', WORKED)

  it('compute -f - < good.json reads the metadata from stdin (no TOPIC given)', () => {
    const r = cli(['topic-hash', 'compute', '-f', '-', '--json'], {input: good})
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({topics: [{name: 'orders', hash: '-1384072001678043178'}], missing: []})
  })

  it('piped stdin is not a TOPIC when -f names a file', () => {
    const r = cli(['topic-hash', 'compute', '-f', file, '--json'], {input: 'zzz\n'})
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).missing).toEqual([])
  })

  it('bytes TOPIC -f - reads stdin', () => {
    const r = cli(['topic-hash', 'bytes', 'orders', '-f', '-', '--json'], {input: good})
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).hash).toBe('-1384072001678043178')
  })

  it('stdin over the size bound is refused too', () => {
    const r = cli(['topic-hash', 'compute', '-f', '-'], {input: ' '.repeat(2 * 1024 * 1024), env: {REBALANCE_DOCTOR_MAX_METADATA_BYTES: String(1024 * 1024)}})
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('stdin is larger than 1048576 bytes')
  })
})
