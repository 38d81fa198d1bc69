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

  it('--metadata-log naming no metadata log: exit 2 before connecting', async () => {
    const r = await run(['audit', '-b', '127.0.0.1:1', '--timeout', '60000', '--metadata-log', '/nonexistent/rd-no-such-dir'])
    expect(r.exitCode).toBe(2)
    expect(r.error?.message).toContain('/nonexistent/rd-no-such-dir')
  })

  it('an unreachable cluster is a runtime error: exit 1', async () => {
    const r = await run(['audit', '-b', '127.0.0.1:1', '--timeout', '2000', '--no-record'])
    expect(r.exitCode).toBe(1)
  })
})

describe('audit --watch without a cluster', () => {
  it('a failing pass is reported on stderr and retried, the watch never exits for it; SIGTERM ends it with exit 0', async () => {
    const timer = setTimeout(() => process.emit('SIGTERM', 'SIGTERM'), 3000)
    const r = await run(['audit', '-b', '127.0.0.1:1', '--timeout', '500', '--watch', '200ms', '--no-record'])
    clearTimeout(timer)
    expect(r.exitCode, r.stderr).toBe(0)
    expect((r.stderr.match(/--watch cycle \d+ failed \(retrying in 200ms\)/g) ?? []).length, r.stderr).toBeGreaterThanOrEqual(2)
    expect(r.stderr).toMatch(/SIGTERM: stopping after this cycle/)
    expect(r.stdout).toBe('')
    // the handlers are gone after the watch
    expect(process.listeners('SIGTERM').length).toBe(0)
  }, 30_000)

  it.each([
    [['audit', '--watch', '10'], /--watch "10" is not a duration/],
    [['audit', '--watch', '10ms'], /too short/],
    [['group', 'explain', 'g', '--watch', '1x'], /--watch "1x" is not a duration/],
  ])('usage errors before any read: %s', async (args, named) => {
    const r = await run([...args, '-b', '127.0.0.1:1'])
    expect(r.exitCode).toBe(2)
    expect(r.error?.message).toMatch(named)
  })

  it('--watch with --json is a usage error (NDJSON lines are --ndjson)', async () => {
    expect((await run(['audit', '-b', '127.0.0.1:1', '--watch', '5s', '--json'])).exitCode).toBe(2)
    expect((await run(['group', 'explain', 'g', '-b', '127.0.0.1:1', '--watch', '5s', '--json'])).exitCode).toBe(2)
  })
})
