/**
 * `audit --watch 2s --ndjson` on a real cluster: running while a consumer joins a group and a partition is added
 * to its topic, each bump appears once with its cause (member joined; metadata hash changed), and SIGTERM ends
 * the watch with exit code 0 after the running pass.
 */
import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce, tempDir} from './adapter-cli.js'
import {REPO_ROOT, waitFor} from './lib/cluster.js'
import {Probe} from './lib/probe.js'

let probe: Probe
const P = `wa${Date.now().toString(36).slice(-5)}`

beforeAll(async () => {
  probe = await Probe.start('watch')
  await buildOnce()
})
afterAll(async () => {
  await probe?.close()
})

interface Bump {
  schema: {name: string; version: number}
  group: string
  epoch: number
  offset: string
  causes: Array<{kind: string; confidence: string; message: string}>
  cost?: {epoch: number; offset: string; groupType: string; movedCount: number; unownedPartitionMs: number; convergence: {status: string}}
}

describe(`audit --watch (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('prints a consumer joining and a partition added once each, with causes; SIGTERM exits 0', async () => {
    const d = probe.driver
    await d.cmd(`create-topic ${P}-t --assign 1:2,2:3`)
    await d.cmd(`consumer c1 ${P}-g names ${P}-t`)
    await probe.settled(`${P}-g`, 'consumer')

    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REBALANCE_DOCTOR_') && k !== 'DEBUG'))
    const w = spawn(
      process.execPath,
      [
        join(REPO_ROOT, 'bin', 'run.js'),
        'audit',
        '-b',
        probe.env.bootstrap,
        '--watch',
        '2s',
        '--ndjson',
        '--group',
        `${P}-*`,
        '--history-dir',
        tempDir(),
        '--debug',
      ],
      {env: clean, cwd: REPO_ROOT},
    )
    let stdout = ''
    let stderr = ''
    w.stdout.on('data', x => (stdout += x))
    w.stderr.on('data', x => (stderr += x))
    const exited = new Promise<number | null>(resolve => w.on('close', code => resolve(code)))
    const bumps = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map(l => JSON.parse(l) as Bump)
    // the same for one group: the report, then a line per new bump
    const g = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'group', 'explain', `${P}-g`, '-b', probe.env.bootstrap, '--watch', '2s'], {
      env: clean,
      cwd: REPO_ROOT,
    })
    let gout = ''
    let gerr = ''
    g.stdout.on('data', x => (gout += x))
    g.stderr.on('data', x => (gerr += x))
    const gExited = new Promise<number | null>(resolve => g.on('close', code => resolve(code)))
    try {
      // the first pass is the baseline: wait for the second
      await waitFor('two watch passes', async () => /--watch cycle 2:/.test(stderr), {timeoutMs: 60_000, intervalMs: 300})
      expect(bumps()).toEqual([])

      await d.cmd(`consumer c2 ${P}-g names ${P}-t`)
      await waitFor('the join printed', async () => bumps().some(b => b.causes.some(c => c.kind === 'member-joined')), {timeoutMs: 60_000, intervalMs: 500})
      await d.cmd(`add-partitions ${P}-t 3 --assign 3:1`)
      await waitFor('the metadata bump printed', async () => bumps().some(b => b.causes.some(c => c.kind === 'metadata-hash-changed')), {
        timeoutMs: 60_000,
        intervalMs: 500,
      })
      // two more passes: nothing is printed twice
      const n = Number(/--watch cycle (\d+):[^\n]*$/.exec(stderr.trimEnd())?.[1] ?? 0)
      await waitFor('two more passes', async () => new RegExp(`--watch cycle ${n + 2}:`).test(stderr), {timeoutMs: 30_000, intervalMs: 300})
      await waitFor('group explain --watch printed both bumps', async () => (gout.match(/ epoch \d+ → \d+: /g) ?? []).length >= 2, {
        timeoutMs: 20_000,
        intervalMs: 500,
      })
    } finally {
      w.kill('SIGTERM')
      g.kill('SIGTERM')
    }
    expect(await exited, stderr.slice(-3000)).toBe(0)
    expect(await gExited, gerr.slice(-3000)).toBe(0)
    const lines = gout.split('\n').filter(l => / epoch \d+ → \d+: /.test(l))
    console.log(`group explain --watch:\n${lines.join('\n')}\naudit --watch --ndjson:\n${stdout}`)
    expect(
      lines.some(l => /joined/.test(l)),
      gout,
    ).toBe(true)
    expect(new Set(lines).size).toBe(lines.length)
    const all = bumps()
    expect(all.every(b => b.schema.name === 'rebalance-doctor/bump' && b.group === `${P}-g`)).toBe(true)
    const keys = all.map(b => `${b.group}:${b.epoch}:${b.offset}`)
    expect(new Set(keys).size, keys.join(' ')).toBe(keys.length)
    // each bump with what it cost so far (the pass that printed it may come before it converged)
    for (const b of all) {
      expect(b.cost, JSON.stringify(b)).toMatchObject({epoch: b.epoch, offset: b.offset, groupType: 'consumer'})
      expect(b.cost!.unownedPartitionMs).toBeGreaterThanOrEqual(0)
      expect(['converged', 'superseded', 'not-converged']).toContain(b.cost!.convergence.status)
    }
    const epochs = all.map(b => b.epoch)
    expect(epochs).toEqual([...epochs].sort((a, b) => a - b))
    // the history recorded every pass names the metadata change exactly (the passes before and after it)
    const meta = all.flatMap(b => b.causes).find(c => c.kind === 'metadata-hash-changed')!
    expect(meta.confidence).toBe('exact')
    expect(meta.message).toContain(`${P}-t: 2 → 3 partitions`)
    expect(stderr).toMatch(/SIGTERM: stopping after this cycle/)
    expect(stderr).not.toMatch(/cycle \d+ failed/)
    // memory per pass (--debug): printed for the note, not asserted (a timed/measured figure belongs in bench/)
    console.log(
      [...stderr.matchAll(/--watch cycle (\d+):[^\n]*rss (\d+) MB, heap (\d+) MB/g)].map(m => `cycle ${m[1]}: rss ${m[2]} MB heap ${m[3]} MB`).join('\n'),
    )
  }, 150_000)
})
