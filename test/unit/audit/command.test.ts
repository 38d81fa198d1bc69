import {describe, expect, it} from 'vitest'
import {mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
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

  it("--prometheus after a failed run: the file holds the failure (up 0, exit code 1, this run's time), the cluster id of the file it replaced", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-prom-'))
    const prom = join(dir, 'rd.prom')
    // the file of an earlier good run
    writeFileSync(
      prom,
      '# TYPE rebalance_doctor_up gauge\nrebalance_doctor_up{cluster_id="K-1"} 1\nrebalance_doctor_audit_exit_code{cluster_id="K-1"} 0\nrebalance_doctor_audit_last_run_timestamp_seconds{cluster_id="K-1"} 1\n',
    )
    const before = Date.now() / 1000
    const r = await run(['audit', '-b', '127.0.0.1:1', '--timeout', '1s', '--no-record', '--prometheus', prom])
    expect(r.exitCode).toBe(1)
    const text = readFileSync(prom, 'utf8')
    expect(text).toMatch(/^rebalance_doctor_up\{cluster_id="K-1"\} 0$/m)
    expect(text).toMatch(/^rebalance_doctor_audit_exit_code\{cluster_id="K-1"\} 1$/m)
    expect(text).toMatch(/^rebalance_doctor_audit_error\{cluster_id="K-1",code="[A-Z_]+"\} 1$/m)
    const ts = Number(/^rebalance_doctor_audit_last_run_timestamp_seconds\{cluster_id="K-1"\} ([\d.]+)$/m.exec(text)?.[1])
    expect(ts).toBeGreaterThanOrEqual(Math.floor(before) - 1)
    // no per-group series of the earlier run survive; no temp file left
    expect(text).not.toMatch(/rebalance_doctor_group_/)
    expect(readdirSync(dir)).toEqual(['rd.prom'])
    // without an earlier file: cluster_id="" and the file's name (no other file in the directory holds these series)
    const fresh = join(dir, 'fresh.prom')
    expect((await run(['audit', '-b', '127.0.0.1:1', '--timeout', '1s', '--no-record', '--prometheus', fresh])).exitCode).toBe(1)
    expect(readFileSync(fresh, 'utf8')).toMatch(/^rebalance_doctor_up\{cluster_id="",file="fresh.prom"\} 0$/m)
  }, 30_000)

  it('--prometheus after a usage error in the run: exit code 2 in the file', async () => {
    const prom = join(mkdtempSync(join(tmpdir(), 'rd-prom-')), 'rd.prom')
    expect((await run(['audit', '-b', '127.0.0.1:1', '--fail-on', 'bogus', '--prometheus', prom])).exitCode).toBe(2)
    expect(readFileSync(prom, 'utf8')).toMatch(/^rebalance_doctor_audit_exit_code\{cluster_id="",file="rd.prom"\} 2$/m)
  })
})

describe('audit --watch without a cluster', () => {
  it('a failing pass is reported on stderr and retried, the watch never exits for it; SIGTERM ends it with exit 0', async () => {
    const timer = setTimeout(() => process.emit('SIGTERM', 'SIGTERM'), 3000)
    const prom = join(mkdtempSync(join(tmpdir(), 'rd-prom-')), 'rd.prom')
    const r = await run(['audit', '-b', '127.0.0.1:1', '--timeout', '500', '--watch', '200ms', '--no-record', '--prometheus', prom])
    clearTimeout(timer)
    expect(r.exitCode, r.stderr).toBe(0)
    expect((r.stderr.match(/--watch cycle \d+ failed \(retrying in 200ms\)/g) ?? []).length, r.stderr).toBeGreaterThanOrEqual(2)
    expect(r.stderr).toMatch(/SIGTERM: stopping after this cycle/)
    expect(r.stdout).toBe('')
    // each failed pass rewrote the --prometheus file with its failure
    expect(readFileSync(prom, 'utf8')).toMatch(/^rebalance_doctor_up\{cluster_id="",file="rd.prom"\} 0$/m)
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
