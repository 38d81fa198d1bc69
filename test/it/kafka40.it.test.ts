/**
 * Kafka 4.0's rules on a real 4.0.x cluster (KAFKA_VERSION=4.0.2; skipped on other versions). A 4.0 coordinator keeps
 * no metadata hash: it stores the group's subscription metadata (ConsumerGroupPartitionMetadata) and bumps when the
 * subscription metadata it computes differs. With real KIP-848 consumers:
 *   1. a group on two topics: group explain IN_SYNC under rules 4.0 (stored hash null, never 0); audit exit 0, no drift;
 *   2. impact before a partition increase made with Kafka's TopicCommand, then the observed bumps within its range
 *      and the bump attributed exactly (subscription-metadata-changed, the record's partition count 3 -> 5);
 *   3. a broker restarted with another rack: what the coordinator did (DumpLogSegments) is what the tool says;
 *   4. audit --metadata-log claims nothing for these groups (no hash to attribute).
 */
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseMetadataDocument} from '../../src/core/metadata.js'
import {buildOnce, cli, tempDir} from './adapter-cli.js'
import {afterBump, kinds, runTag, settled, since} from './explain-lib.js'
import {clusterSh, killBroker, REPO_ROOT, startBroker, waitFor} from './lib/cluster.js'
import {groupAwayFrom, Probe} from './lib/probe.js'

const VERSION = process.env.KAFKA_VERSION ?? '4.4.0'
const IS_40 = VERSION.startsWith('4.0.')
if (!IS_40) console.log(`[kafka40] skipped: Kafka ${VERSION} is not 4.0.x (run with KAFKA_VERSION=4.0.2)`)

let probe: Probe
const R = runTag()

beforeAll(async () => {
  if (!IS_40) return
  const [p] = await Promise.all([Probe.start('kafka40'), buildOnce()])
  probe = p
})
afterAll(async () => {
  await probe?.close()
})

const topicCommand = (...args: string[]) =>
  clusterSh(probe.env, 'tool', 'org.apache.kafka.tools.TopicCommand', '--bootstrap-server', probe.env.bootstrap, ...args)

interface AuditRow {
  group: string
  verdict: {code: string}
  inSync: boolean | null
  rules?: string | null
  storedMetadataHash: string | null
  drift: unknown[]
  findings: string[]
  driftFromLog?: unknown
}
async function audit(group: string, ...args: string[]): Promise<{code: number; row: AuditRow}> {
  const r = await cli(['audit', '-b', probe.env.bootstrap, '--no-record', '--group', group, '--json', ...args])
  expect([0, 3], `exit ${r.code}: ${r.stderr}`).toContain(r.code)
  const doc = JSON.parse(r.stdout) as {groups: AuditRow[]}
  return {code: r.code, row: doc.groups.find(g => g.group === group)!}
}

/** The group's ConsumerGroupPartitionMetadata records as DumpLogSegments --offsets-decoder prints them. */
async function subscriptionRecords(
  group: string,
): Promise<Array<{offset: number; topics: Array<{topicName: string; numPartitions: number; partitionMetadata: unknown[]}>}>> {
  return (await probe.records(group)).filter(r => r.type === 4 && r.value !== null).map(r => ({offset: r.offset, topics: (r.value as {topics: any[]}).topics}))
}

describe.skipIf(!IS_40)(`Kafka 4.0 rules (Kafka ${VERSION})`, () => {
  it('two topics: in sync under 4.0 rules; a partition increase predicted and attributed exactly; a rack change as the coordinator did', async () => {
    const d = probe.driver
    const env = probe.env
    const A = `${R}-40a`
    const B = `${R}-40b`
    // every partition of A has a replica on broker 3 (the one restarted with another rack below)
    await d.cmd(`create-topic ${A} --assign 1:3,2:3,3:1`)
    await d.cmd(`create-topic ${B} 2 2`)
    const G = await groupAwayFrom(probe, `${R}-40g`, 3)
    await d.cmd(`consumer ${R}c1 ${G} names ${A},${B}`)

    // 1. healthy: in sync, no hash, audit exit 0
    const ok = await settled(env, G)
    expect(ok).toMatchObject({rules: '4.0', storedMetadataHash: null, liveMetadataHash: null, inSync: true})
    expect(ok.timeline.every(e => e.metadataHash === null)).toBe(true)
    const a1 = await audit(G)
    expect(a1.code).toBe(0)
    expect(a1.row).toMatchObject({rules: '4.0', inSync: true, storedMetadataHash: null, drift: [], findings: []})
    // what the 4.0 coordinator wrote: the two topics, no partition racks
    const recs = await subscriptionRecords(G)
    expect(
      recs
        .at(-1)!
        .topics.map(t => [t.topicName, t.numPartitions])
        .sort(),
    ).toEqual([
      [A, 3],
      [B, 2],
    ])
    expect(recs.every(r => r.topics.every(t => (t.partitionMetadata ?? []).length === 0))).toBe(true)

    // 2. impact, then the partition increase with Kafka's TopicCommand
    const e1 = ok.groupEpoch!
    const imp = await cli(['impact', '-b', env.bootstrap, '--json', '--add-partitions', `${A}=5`])
    expect(imp.code, imp.stderr).toBe(0)
    const predicted = (JSON.parse(imp.stdout) as {groups: Array<{group: string; rules: string; bumps: {min: number; max: number}}>}).groups.find(
      g => g.group === G,
    )!
    expect(predicted.rules).toBe('4.0')
    await topicCommand('--alter', '--topic', A, '--partitions', '5')
    const up = await afterBump(env, G, e1, 'a bump after the partition increase')
    const bumps = since(up, e1)
    expect(bumps.length).toBeGreaterThanOrEqual(predicted.bumps.min)
    expect(bumps.length).toBeLessThanOrEqual(predicted.bumps.max)
    const attributed = bumps.flatMap(e => e.causes).filter(c => c.kind === 'subscription-metadata-changed')
    expect(attributed).toHaveLength(1)
    expect(attributed[0].confidence).toBe('exact')
    expect(attributed[0].details.changes).toEqual([expect.objectContaining({kind: 'partition-count', topic: A, then: '3', now: '5'})])
    expect(bumps.flatMap(e => e.causes).map(c => c.kind)).not.toContain('unexplained')
    // the records say the same: the last subscription metadata record has A at 5
    expect((await subscriptionRecords(G)).at(-1)!.topics.find(t => t.topicName === A)!.numPartitions).toBe(5)
    expect((await audit(G)).code).toBe(0)

    // 3. broker 3 restarted with another rack: the tool agrees with what the coordinator did
    const e2 = up.groupEpoch!
    const before = (await subscriptionRecords(G)).length
    let rack3 = 'rack-b'
    try {
      await killBroker(env, 3)
      await d.cmd('wait-broker 3 fenced 60000')
      await startBroker(env, 3, 'rack-c')
      rack3 = 'rack-c'
      await d.cmd('wait-broker 3 unfenced 60000')
      // broker 3 back in the ISR of A's partitions: a topic change the coordinator is told about
      await waitFor(
        'broker 3 back in the ISR of every partition of A',
        async () => {
          for (let p = 0; p < 3; p++) if (!((await d.cmd(`partition ${A} ${p}`)).isr as number[]).includes(3)) return undefined
          return true
        },
        {timeoutMs: 60_000, intervalMs: 500},
      )
      const after = await settled(env, G)
      const stored = await subscriptionRecords(G)
      const storedEpochs = (await probe.history(G, 'consumer')).map(r => r.epoch)
      // the tool's timeline is the coordinator's: same epochs as the records DumpLogSegments decodes
      expect(after.timeline.map(e => e.epoch)).toEqual(storedEpochs.filter((x, i, all) => all.indexOf(x) === i))
      if (after.groupEpoch === e2) {
        // no bump: no new subscription metadata record either, and the tool says in sync
        expect(stored.length).toBe(before)
        expect(after.verdict.code).toBe('IN_SYNC')
      } else {
        // a bump: the tool names its cause from the records, never a rack (racks are not in 4.0's subscription metadata)
        for (const e of since(after, e2)) expect(kinds(e)).not.toContain('unexplained')
      }
      console.log(`[kafka40] rack change: epoch ${e2} -> ${after.groupEpoch}, subscription metadata records ${before} -> ${stored.length}`)
      const a3 = await audit(G)
      expect(a3.code).toBe(0)
      expect(a3.row.inSync).toBe(true)
    } finally {
      if (rack3 !== 'rack-b') {
        await killBroker(env, 3)
        await d.cmd('wait-broker 3 fenced 60000')
        await startBroker(env, 3, 'rack-b').catch((error: Error) => console.warn(`[kafka40] start-broker 3: ${error.message}`))
      }
      await d.cmd('wait-broker 3 unfenced 120000')
    }

    // 4. --metadata-log: no hash to attribute, nothing claimed
    const ctrl = env.raw.CONTROLLER_LOG_DIR
    const withLog = await audit(G, '--metadata-log', `${ctrl}/__cluster_metadata-0`)
    expect(withLog.code).toBe(0)
    expect(withLog.row.driftFromLog).toBeUndefined()
    await d.cmd(`stop ${R}c1`)
  })

  it('audit --watch with --prometheus under 4.0 rules: a TopicCommand partition increase printed once, exact; the metrics in sync', async () => {
    const d = probe.driver
    const T = `${R}-w`
    const G = `${R}-wg`
    await d.cmd(`create-topic ${T} --assign 1:2,2:3`)
    await d.cmd(`consumer ${R}w1 ${G} names ${T}`)
    await settled(probe.env, G)
    const prom = join(tempDir(), 'rd.prom')
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REBALANCE_DOCTOR_') && k !== 'DEBUG'))
    const args = ['audit', '-b', probe.env.bootstrap, '--watch', '2s', '--ndjson', '--group', G, '--history-dir', tempDir(), '--prometheus', prom]
    const w = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), ...args, '--debug'], {env: clean, cwd: REPO_ROOT})
    let stdout = ''
    let stderr = ''
    w.stdout.on('data', x => (stdout += x))
    w.stderr.on('data', x => (stderr += x))
    const exited = new Promise<number | null>(resolve => w.on('close', code => resolve(code)))
    type Bump = {schema: {name: string}; group: string; epoch: number; offset: string; causes: Array<{kind: string; confidence: string; message: string}>}
    const bumps = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map(l => JSON.parse(l) as Bump)
        .filter(b => b.schema.name === 'rebalance-doctor/bump')
    const series = (name: string) => new RegExp(`^rebalance_doctor_${name}\\{[^}]*group="${G}"[^}]*\\} (\\S+)$`, 'm').exec(readFileSync(prom, 'utf8'))?.[1]
    try {
      await waitFor('two watch passes', async () => /--watch cycle 2:/.test(stderr), {timeoutMs: 60_000, intervalMs: 300})
      expect(bumps()).toEqual([])
      expect(series('group_metadata_hash_in_sync')).toBe('1')
      await topicCommand('--alter', '--topic', T, '--partitions', '3')
      await waitFor('the partition increase printed', async () => bumps().some(b => b.causes.some(c => c.kind === 'subscription-metadata-changed')), {
        timeoutMs: 60_000,
        intervalMs: 500,
      })
      const n = Number(/--watch cycle (\d+):[^\n]*$/.exec(stderr.trimEnd())?.[1] ?? 0)
      await waitFor('two more passes', async () => new RegExp(`--watch cycle ${n + 2}:`).test(stderr), {timeoutMs: 30_000, intervalMs: 300})
    } finally {
      w.kill('SIGTERM')
    }
    expect(await exited, stderr.slice(-3000)).toBe(0)
    console.log(`[kafka40] audit --watch --ndjson:\n${stdout}`)
    const all = bumps()
    const keys = all.map(b => `${b.epoch}:${b.offset}`)
    expect(new Set(keys).size, keys.join(' ')).toBe(keys.length)
    // every bump printed is one the coordinator wrote (DumpLogSegments), and the partition increase is exact
    const stored = new Set((await probe.history(G, 'consumer')).map(r => r.epoch))
    for (const b of all) expect(stored.has(b.epoch), `epoch ${b.epoch}`).toBe(true)
    const meta = all.flatMap(b => b.causes).filter(c => c.kind === 'subscription-metadata-changed')
    expect(meta).toHaveLength(1)
    expect(meta[0].confidence).toBe('exact')
    expect(meta[0].message).toContain(T)
    expect(all.flatMap(b => b.causes).map(c => c.kind)).not.toContain('unexplained')
    // the last pass's metrics: in sync under 4.0's rules, no finding
    expect(series('group_metadata_hash_in_sync')).toBe('1')
    expect(readFileSync(prom, 'utf8')).toMatch(new RegExp(`^rebalance_doctor_group_verdict\\{[^}]*group="${G}"[^}]*verdict="IN_SYNC"[^}]*\\} 1$`, 'm'))
    await d.cmd(`stop ${R}w1`)
  })

  it('a share group (early access in 4.0): listed through ShareGroupDescribe v0, in sync under 4.0 rules, a partition increase attributed exactly', async () => {
    const d = probe.driver
    const env = probe.env
    const S = `${R}-40s`
    const G = `${R}-40sg`
    await topicCommand('--create', '--topic', S, '--replica-assignment', '1:2,2:3')
    await d.cmd(`share ${R}s1 ${G} ${S}`)
    // what the 4.0 coordinator wrote (DumpLogSegments): ShareGroupMetadata without a hash, ShareGroupPartitionMetadata
    const first = await probe.settled(G, 'share')
    expect(first.metadataHash).toBe(0n)
    const partitionMetadata = () => probe.records(G).then(rs => rs.filter(r => r.type === 9 && r.value !== null).at(-1)?.value as {topics: any[]} | undefined)
    expect((await partitionMetadata())?.topics.map(t => [t.topicName, t.numPartitions])).toEqual([[S, 2]])

    const list = await cli(['group', 'list', '-b', env.bootstrap, '--json'])
    expect(list.code, list.stderr).toBe(0)
    const listed = (JSON.parse(list.stdout) as {groups: Array<Record<string, unknown>>}).groups.find(g => g.group === G)
    expect(listed).toMatchObject({type: 'share', groupEpoch: first.epoch, members: 1})
    expect(listed?.describeError).toBeUndefined()

    const ok = await settled(env, G)
    expect(ok).toMatchObject({type: 'share', rules: '4.0', storedMetadataHash: null, inSync: true, verdict: {code: 'IN_SYNC'}})
    const notes = ((ok as unknown as {releases?: {notes: string[]}}).releases?.notes ?? []).join(' ')
    expect(notes).toContain('early access')
    expect(notes).not.toContain('finalized share.version')
    expect((await audit(G)).code).toBe(0)

    const imp = await cli(['impact', '-b', env.bootstrap, '--json', '--add-partitions', `${S}=3`])
    expect(imp.code, imp.stderr).toBe(0)
    const predicted = (JSON.parse(imp.stdout) as {groups: Array<{group: string; rules: string; bumps: {min: number; max: number}}>}).groups.find(
      g => g.group === G,
    )!
    expect(predicted.rules).toBe('4.0')
    await topicCommand('--alter', '--topic', S, '--partitions', '3')
    const up = await afterBump(env, G, first.epoch, 'a bump after the partition increase')
    const bumps = since(up, first.epoch).length
    expect(bumps).toBeGreaterThanOrEqual(predicted.bumps.min)
    expect(bumps).toBeLessThanOrEqual(predicted.bumps.max)
    const attributed = since(up, first.epoch)
      .flatMap(e => e.causes)
      .filter(c => c.kind === 'subscription-metadata-changed')
    expect(attributed).toHaveLength(1)
    expect(attributed[0]).toMatchObject({confidence: 'exact'})
    expect(attributed[0].details.changes).toEqual([expect.objectContaining({kind: 'partition-count', topic: S, then: '2', now: '3'})])
    expect((await partitionMetadata())?.topics.map(t => [t.topicName, t.numPartitions])).toEqual([[S, 3]])
    await d.cmd(`stop ${R}s1`)
  })

  it("cluster snapshot = the Admin client's view = the controller's metadata image (topic hashes from its log)", async () => {
    const B = probe.env.bootstrap
    const T = `${R}-snap`
    await topicCommand('--create', '--topic', T, '--replica-assignment', '1:2,2:3,3:1')
    const snap = await cli(['cluster', 'snapshot', '-b', B, '--json'])
    expect(snap.code, snap.stderr).toBe(0)
    const ours = parseMetadataDocument(JSON.parse(snap.stdout))
    // Kafka's own Admin client (the driver's describeCluster + describeTopics), capture times aside
    const {md: java} = await probe.metadata()
    const strip = (m: typeof ours) => ({
      brokers: m.brokers,
      clusterId: m.clusterId,
      topics: m.topics.map(t => ({...t, topicId: t.topicId.bytes.toString()})).sort((a, b) => (a.name < b.name ? -1 : 1)),
    })
    expect(strip(ours)).toEqual(strip(java))
    // the controller's image (its KRaft metadata log, read to the end) hashes every topic as the live metadata does
    const names = ours.topics.map(t => t.name)
    const log = join(probe.env.raw.CONTROLLER_LOG_DIR, '__cluster_metadata-0')
    const [live, image] = await Promise.all([
      cli(['topic-hash', 'compute', ...names, '-b', B, '--json']),
      cli(['topic-hash', 'compute', ...names, '--metadata-log', log, '--json']),
    ])
    expect(image.code, image.stderr).toBe(0)
    const rows = (r: typeof live) => (JSON.parse(r.stdout) as {topics: Array<{name: string; hash: string}>}).topics.map(t => [t.name, t.hash])
    expect(rows(image)).toEqual(rows(live))
    expect(rows(live).length).toBe(names.length)
  })
})
