import {describe, expect, it} from 'vitest'
import {run} from '../helpers.js'

// Usage errors are found before any connection is made (no cluster needed): exit 2, the bad value named.
describe('audit command: usage errors exit 2', () => {
  it.each([
    ['--fail-on with an unknown kind', ['--fail-on', 'drift,bogus'], /"bogus"/],
    ['--type with an unknown group type', ['--type', 'consumer,nope'], /"nope"/],
    ['--history-retention that is not a duration', ['--history-retention', 'forever'], /"forever"/],
    ['--stuck-after that is a time, not a duration', ['--stuck-after', '2026-12-01'], /--stuck-after "2026-12-01" is not a duration/],
  ])('%s', async (_what, args, named) => {
    const r = await run(['audit', '-b', '127.0.0.1:1', ...args])
    expect(r.exitCode).toBe(2)
    expect(r.error?.message).toMatch(named)
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
