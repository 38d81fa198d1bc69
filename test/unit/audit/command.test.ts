import {describe, expect, it} from 'vitest'
import {run} from '../helpers.js'

// Usage errors are found before any connection is made (no cluster needed): exit 2, the bad value named.
describe('audit command: usage errors exit 2', () => {
  it('--fail-on with an unknown kind', async () => {
    const r = await run(['audit', '-b', '127.0.0.1:1', '--fail-on', 'drift,bogus'])
    expect(r.exitCode).toBe(2)
    expect(r.error?.message).toMatch(/"bogus"/)
  })

  it('--type with an unknown group type', async () => {
    const r = await run(['audit', '-b', '127.0.0.1:1', '--type', 'consumer,nope'])
    expect(r.exitCode).toBe(2)
    expect(r.error?.message).toMatch(/"nope"/)
  })

  it('--history-retention that is not a duration', async () => {
    const r = await run(['audit', '-b', '127.0.0.1:1', '--history-retention', 'forever'])
    expect(r.exitCode).toBe(2)
    expect(r.error?.message).toMatch(/"forever"/)
  })

  it('--json and --ndjson together', async () => {
    const r = await run(['audit', '-b', '127.0.0.1:1', '--json', '--ndjson'])
    expect(r.exitCode).toBe(2)
  })

  it('an unreachable cluster is a runtime error: exit 1', async () => {
    const r = await run(['audit', '-b', '127.0.0.1:1', '--timeout', '2000', '--no-record'])
    expect(r.exitCode).toBe(1)
  })
})
