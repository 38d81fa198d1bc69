/**
 * `audit` on a real cluster: groups of each new type in different states, checked in every output format with
 * the exit code following the findings; and history recorded around a partition increase of two topics at
 * once (which hypothesis testing cannot separate) lets `group explain` name both topics and their old and new
 * partition counts.
 *
 * The drifted group: its only member runs in a second driver JVM that is killed (SIGKILL) after the group
 * settled; partitions are added; within the session timeout (30 s for that group) no heartbeat comes, so
 * the coordinator still holds the old hash and the dead member: stored ≠ live, a rebalance pending.
 */
import type {ChildProcess} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TopicHasher} from '../../src/core/hash.js'
import {buildOnce, cli, tempDir} from './adapter-cli.js'
import {clusterSh, waitFor} from './lib/cluster.js'
import {Driver} from './lib/driver.js'
import {Probe} from './lib/probe.js'

let probe: Probe
/** a fresh prefix per run: topics and groups of earlier runs on the same cluster do not interfere */
const P = `au${Date.now().toString(36).slice(-5)}`
let victim: Driver | undefined
let bs: string
const hist = tempDir()
const audit = (...args: string[]) => cli(['audit', '-b', bs, '--history-dir', hist, ...args])

interface Row {
  group: string
  type: string
  verdict: {code: string}
  inSync: boolean | null
  storedMetadataHash: string | null
  liveMetadataHash: string | null
  drift: Array<{kind: string; topic: string | null}>
  missingTopics: string[]
  members: number
  findings: string[]
}

/** The row's cost (core/audit/cost.ts), as much as is asserted. */
interface Cost {
  reason: string | null
  last: {epoch: number; status: string; afterMs: number | null; partitionsWithoutOwner: number} | null
  total: {partitionsMoved: number} | null
}

const rowsOf = (json: string) => (JSON.parse(json) as {groups: Row[]}).groups
const row = (rows: Row[], g: string) => {
  const r = rows.find(x => x.group === g)
  if (!r) throw new Error(`no row for ${g} in ${rows.map(x => x.group).join(', ')}`)
  return r
}

/** A dynamic group config (KIP-848), set with Kafka's own ConfigCommand (4.1: kafka.admin, later: tools). */
async function groupConfig(group: string, config: string): Promise<void> {
  const args = ['--bootstrap-server', bs, '--alter', '--entity-type', 'groups', '--entity-name', group, '--add-config', config]
  await clusterSh(probe.env, 'tool', 'org.apache.kafka.tools.ConfigCommand', ...args).catch((error: Error) => {
    if (!/ClassNotFoundException/.test(error.message)) throw error
    return clusterSh(probe.env, 'tool', 'kafka.admin.ConfigCommand', ...args)
  })
}

beforeAll(async () => {
  probe = await Probe.start('audit')
  bs = probe.env.bootstrap
  await buildOnce()
})
afterAll(async () => {
  await victim?.close()
  await probe?.close()
})

describe(`audit (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('consumer, share and streams groups in sync, a missing topic, and a drifted group with a killed member: every output format and exit code', async () => {
    const d = probe.driver
    await d.cmd(`create-topic ${P}-a --assign 1:2,2:3,3:1`)
    await d.cmd(`create-topic ${P}-s --assign 2:3,3:1`)
    await d.cmd(`create-topic ${P}-grow --assign 1:2,2:3`)
    await d.cmd(`create-topic ${P}-grow2 --assign 3:1,1:2,2:3`)
    await d.cmd(`create-topic ${P}-src --assign 1:2,2:3`)
    await d.cmd(`create-topic ${P}-sink 1 3`)
    await d.cmd(`produce ${P}-src 10`)
    await d.cmd(`consumer c1 ${P}-ok names ${P}-a`)
    await d.cmd(`consumer c2 ${P}-missing names ${P}-a,${P}-nope`)
    await d.cmd(`share s1 ${P}-share ${P}-s`)
    await d.cmd(`streams k1 ${P}-streams ${P}-src ${P}-sink`)
    // the drifted group's session timeout is raised to 30 s so that the window between the member's death and its
    // fencing holds the audits and the join even on a loaded machine (7.6 s at a load average of 27; the test waits
    // the window out before it runs group explain). The victim's JVM starts while ConfigCommand's runs (a JVM start
    // each: 2-5 s on a loaded machine)
    await Promise.all([groupConfig(`${P}-drift`, 'consumer.session.timeout.ms=30000'), Driver.start(probe.env, 'audit-victim').then(v => (victim = v))])
    await victim!.cmd(`consumer v1 ${P}-drift names ${P}-grow,${P}-grow2`)
    // the groups settle side by side: their quiet periods overlap (4 s and more each, one after another before)
    const [, , , before] = await Promise.all([
      probe.settled(`${P}-ok`, 'consumer'),
      probe.settled(`${P}-missing`, 'consumer'),
      probe.settled(`${P}-share`, 'share'),
      probe.settled(`${P}-drift`, 'consumer'),
      waitFor(
        'streams group settled',
        async () => {
          const r = await audit('--json', '--no-record', '--group', `${P}-streams`)
          const s = rowsOf(r.stdout)[0]
          return s?.verdict.code === 'IN_SYNC' ? s : undefined
        },
        {timeoutMs: 120_000, intervalMs: 2000},
      ),
    ])

    // history before the change; everything in sync except the missing topic
    // (the four runs side by side: only the first records history)
    const [clean, onlyOk, notCovered, shareOnly] = await Promise.all([
      audit('--json', '--group', `${P}-*`),
      audit('--group', `/^${P}-(ok|share|streams)$/`, '--no-record'),
      audit('--group', `${P}-*`, '--fail-on', 'drift,stuck', '--no-record'),
      audit('--json', '--type', 'share', '--group', `${P}-*`, '--no-record'),
    ])
    expect(clean.code, clean.stderr).toBe(3)
    const rows0 = rowsOf(clean.stdout)
    for (const g of [`${P}-ok`, `${P}-share`, `${P}-streams`, `${P}-drift`]) {
      expect(row(rows0, g).verdict.code, g).toBe('IN_SYNC')
      expect(row(rows0, g).findings, g).toEqual([])
    }
    expect(row(rows0, `${P}-share`).type).toBe('share')
    expect(row(rows0, `${P}-streams`).type).toBe('streams')
    expect(row(rows0, `${P}-drift`).storedMetadataHash).toBe(before.metadataHash.toString())
    expect(row(rows0, `${P}-missing`)).toMatchObject({missingTopics: [`${P}-nope`], findings: ['missing-topics'], inSync: true})
    // only groups in sync selected: exit 0; the same with findings but --fail-on not covering them: 0
    expect(onlyOk.code, onlyOk.stderr + onlyOk.stdout).toBe(0)
    expect(notCovered.code, notCovered.stderr + notCovered.stdout).toBe(0)
    expect(rowsOf(shareOnly.stdout).map(r => r.group)).toEqual([`${P}-share`])

    // the member's JVM dies; both topics grow; no heartbeat within the session timeout
    ;(victim as unknown as {proc: ChildProcess}).proc.kill('SIGKILL')
    await d.cmd(`add-partitions ${P}-grow 4 --assign 3:1,1:2`)
    await d.cmd(`add-partitions ${P}-grow2 5 --assign 1:3,2:1`)
    const prom = join(tempDir(), 'rd.prom')
    const [json, ndjson, table] = await Promise.all([
      audit('--json', '--group', `${P}-*`),
      audit('--ndjson', '--group', `${P}-*`, '--prometheus', prom, '--no-record'),
      audit('--group', `${P}-*`, '--no-record'),
    ])
    // a new member joins still within the session timeout: its heartbeat bumps the epoch with the new hash
    // (the dead member is still there, so the subscribed topic set is unchanged: a metadata-hash change)
    await d.cmd(`consumer c3 ${P}-drift names ${P}-grow,${P}-grow2`)
    const {md} = await probe.metadata()
    const live = new TopicHasher(md).groupHash([`${P}-grow`, `${P}-grow2`])

    expect(json.code, json.stderr).toBe(3)
    expect(Object.keys(JSON.parse(json.stdout))).toEqual(['schema', 'summary', 'groups', 'warnings'])
    expect(JSON.parse(json.stdout).schema).toEqual({name: 'rebalance-doctor/audit', version: 1})
    const drift = row(rowsOf(json.stdout), `${P}-drift`)
    expect(drift).toMatchObject({
      inSync: false,
      members: 1,
      findings: ['drift'],
      storedMetadataHash: before.metadataHash.toString(),
      liveMetadataHash: live.toString(),
    })
    // two topics changed at once: named as one change of both, not an unexplained HASH_DIFFERS
    expect(drift.verdict.code).toBe('REBALANCE_PENDING')
    expect(drift.drift.map(x => x.kind)).toEqual(['combined'])
    expect(JSON.stringify(drift.drift)).toContain(`${P}-grow2`)
    expect(row(rowsOf(json.stdout), `${P}-ok`).verdict.code).toBe('IN_SYNC')
    // what its rebalances cost: the one member took the topic's three partitions (from nobody), and converged
    const ok = row(rowsOf(json.stdout), `${P}-ok`) as unknown as Row & {groupEpoch: number; cost: Cost}
    expect(ok.cost.reason).toBeNull()
    expect(ok.cost.last).toMatchObject({epoch: ok.groupEpoch, status: 'converged', partitionsWithoutOwner: 0})
    expect(ok.cost.last!.afterMs).toBeGreaterThanOrEqual(0)
    expect(ok.cost.last!.afterMs).toBeLessThan(60_000)
    expect(ok.cost.total!.partitionsMoved).toBeGreaterThanOrEqual(3)
    expect((row(rowsOf(json.stdout), `${P}-share`) as unknown as {cost: Cost}).cost.last?.status).toBe('not-measured')
    // KIP-848 groups' offsets read by OffsetFetch at their coordinators: a lag for each, no error, no warning about it
    for (const r of rowsOf(json.stdout) as unknown as Array<{type: string; lag: {error: string | null} | null}>)
      if (r.type === 'consumer') expect(r.lag).toMatchObject({error: null})
    expect(JSON.stringify(JSON.parse(json.stdout).warnings)).not.toContain('lag not read')

    expect(ndjson.code, ndjson.stderr).toBe(3)
    const lines = ndjson.stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as Row & {schema: {name: string; version: number}; warnings?: unknown[]; findings: Record<string, number> | string[]})
    expect(lines.at(-1)!.schema).toEqual({name: 'rebalance-doctor/audit-summary', version: 1})
    expect(Object.keys(lines.at(-1)!).at(-1)).toBe('warnings')
    const nd = lines.filter(l => l.schema.name === 'rebalance-doctor/audit-group')
    expect(nd.map(l => l.group).sort()).toEqual([`${P}-drift`, `${P}-missing`, `${P}-ok`, `${P}-share`, `${P}-streams`])
    expect(nd.find(l => l.group === `${P}-drift`)).toMatchObject({inSync: false, verdict: {code: 'REBALANCE_PENDING'}})

    const text = readFileSync(prom, 'utf8')
    // every series carries the run's cluster id
    const CLUSTER_ID = (lines.at(-1) as unknown as {clusterId: string}).clusterId
    expect(CLUSTER_ID).toMatch(/^[\w-]{22}$/)
    expect(text).toContain(`rebalance_doctor_group_metadata_hash_in_sync{cluster_id="${CLUSTER_ID}",group="${P}-drift",type="consumer"} 0`)
    expect(text).toContain(`rebalance_doctor_group_metadata_hash_in_sync{cluster_id="${CLUSTER_ID}",group="${P}-ok",type="consumer"} 1`)
    expect(text).toContain(`rebalance_doctor_group_metadata_hash_in_sync{cluster_id="${CLUSTER_ID}",group="${P}-share",type="share"} 1`)
    expect(text).toContain(`rebalance_doctor_group_metadata_hash_in_sync{cluster_id="${CLUSTER_ID}",group="${P}-streams",type="streams"} 1`)
    expect(text).toContain(`rebalance_doctor_group_missing_topics{cluster_id="${CLUSTER_ID}",group="${P}-missing",type="consumer"} 1`)
    expect(text).toContain(`rebalance_doctor_audit_exit_code{cluster_id="${CLUSTER_ID}"} 3`)
    expect(text).toContain(`rebalance_doctor_up{cluster_id="${CLUSTER_ID}"} 1`)
    expect(text).toMatch(
      new RegExp(`^rebalance_doctor_group_last_rebalance_convergence_seconds\\{cluster_id="${CLUSTER_ID}",group="${P}-ok",type="consumer"\\} [\\d.]+$`, 'm'),
    )
    expect(text).toContain(`rebalance_doctor_group_last_rebalance_not_converged{cluster_id="${CLUSTER_ID}",group="${P}-ok",type="consumer"} 0`)
    expect(nd.find(l => l.group === `${P}-ok`)).toMatchObject({cost: {reason: null, last: {status: 'converged'}}})

    expect(table.code, table.stderr).toBe(3)
    expect(table.stdout).toMatch(new RegExp(`${P}-drift .*REBALANCE_PENDING`))
    expect(table.stdout).toMatch(new RegExp(`${P}-missing .*missing topics: ${P}-nope`, 's'))
    expect(table.stdout).not.toMatch(new RegExp(`${P}-ok `))
    expect(table.stdout).toMatch(/5 groups .*with findings: drift 1, missing-topics 1/)

    const bumped = await probe.waitStored(`${P}-drift`, 'consumer', 'epoch after the join', r => r.metadataHash === live)
    expect(bumped.epoch).toBeGreaterThan(before.epoch)
    // recorded after the change; then the dead member is fenced after its session timeout
    const recorded = await audit('--json', '--group', `${P}-drift`, '--fail-on', 'drift')
    expect(recorded.code, recorded.stderr).toBe(0)
    expect(row(rowsOf(recorded.stdout), `${P}-drift`)).toMatchObject({inSync: true, liveMetadataHash: live.toString()})
    await waitFor(
      'the dead member fenced',
      async () => {
        const r = row(rowsOf((await audit('--json', '--no-record', '--group', `${P}-drift`, '--fail-on', 'none')).stdout), `${P}-drift`)
        return r.members === 1 && r.inSync ? r : undefined
      },
      {timeoutMs: 180_000, intervalMs: 1000},
    )

    // group explain: the bump names both topics exactly from history; without history, inferred from the hashes
    const explained = await cli(['group', 'explain', `${P}-drift`, '-b', bs, '--json', '--history-dir', hist])
    expect(explained.code, explained.stderr).toBe(0)
    type Cause = {
      kind: string
      message: string
      confidence: string
      details: {history?: {changes: Array<{topic: string; kind: string; before: {partitions: number}; after: {partitions: number}}>}}
    }
    const causes = (JSON.parse(explained.stdout) as {timeline: Array<{causes: Cause[]}>}).timeline
      .flatMap(e => e.causes)
      .filter(c => c.kind === 'metadata-hash-changed')
    const fromHistory = causes.find(c => c.details.history)
    expect(fromHistory, JSON.stringify(causes)).toBeDefined()
    expect(fromHistory!.details.history!.changes.map(c => [c.topic, c.kind, c.before.partitions, c.after.partitions])).toEqual([
      [`${P}-grow`, 'partitions', 2, 4],
      [`${P}-grow2`, 'partitions', 3, 5],
    ])
    expect(fromHistory!.message).toMatch(new RegExp(`${P}-grow: 2 → 4 partitions, first seen at \\d{4}-`))
    expect(fromHistory!.confidence).toBe('exact')
    const noHistory = await cli(['group', 'explain', `${P}-drift`, '-b', bs, '--json', '--history-dir', tempDir()])
    const plain = (JSON.parse(noHistory.stdout) as {timeline: Array<{causes: Cause[]}>}).timeline
      .flatMap(e => e.causes)
      .filter(c => c.kind === 'metadata-hash-changed')
    expect(plain.length).toBeGreaterThan(0)
    expect(
      plain.every(c => !c.details.history),
      JSON.stringify(plain),
    ).toBe(true)
    // both topics' partition counts, as one inferred change, never worded as exact
    const both = plain.find(c => c.confidence.startsWith('inferred') && c.message.includes(`${P}-grow2`))
    expect(both, JSON.stringify(plain)).toBeDefined()
    expect(both!.message).toMatch(/inferred/)

    for (const m of ['c1', 'c2', 'c3', 's1', 'k1']) await d.cmd(`stop ${m}`)
  }, 600_000) // ~1-4 min: a streams group settling, a 30 s session timeout, a dozen CLI runs
})
