/**
 * The fast parity pass, run on every Kafka minor version the tool supports (scripts/test-all.sh runs this file
 * alone on the versions of KAFKA_PARITY_VERSIONS, and with the rest of the suite on the main versions):
 * a consumer group (names), a broker-side regex group, a share group and a streams group on one cluster; one
 * metadata bump made with Kafka's own TopicCommand; for each group, the MetadataHash that Kafka's DumpLogSegments
 * reads from __consumer_offsets equals the hash our core computes from the live metadata, and equals what
 * `group explain --json` (our own decoder, over the network) reports as stored.
 * On Kafka 4.0 (no metadata hash; streams groups do not exist, share groups are early access and off) the consumer
 * and regex groups are checked under 4.0's rules instead: the subscription metadata record DumpLogSegments reads
 * equals the one our core computes from live metadata, and `group explain` says rules 4.0, no hash, in sync.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TopicHasher} from '../../src/core/hash.js'
import {subscriptionMetadataFromLive} from '../../src/core/replay/index.js'
import {buildOnce, cli} from './adapter-cli.js'
import {explain} from './explain-lib.js'
import {clusterSh, versionAtLeast, waitFor} from './lib/cluster.js'
import type {GroupKind} from './lib/offsets-log.js'
import {ensureBaseline, Probe} from './lib/probe.js'
import {RawMember} from './lib/raw-member.js'

let probe: Probe

/** The minor release under test (4.4.0 → 4.4): what every broker's ApiVersions must tell. */
const minor = (process.env.KAFKA_VERSION ?? '4.4.0').split('.').slice(0, 2).join('.')

beforeAll(async () => {
  probe = await Probe.start('parity')
  await ensureBaseline(probe)
  await buildOnce()
})
afterAll(async () => {
  await probe?.close()
})

const version = process.env.KAFKA_VERSION ?? '4.4.0'
const IS_40 = version.startsWith('4.0.')

describe.skipIf(!IS_40)(`parity pass, 4.0 rules (Kafka ${version})`, () => {
  it('consumer and regex groups: stored subscription metadata = ours = group explain, before and after TopicCommand --alter', async () => {
    const d = probe.driver
    const env = probe.env
    await d.cmd('create-topic pp-orders --assign 1:2,2:3,3:1')
    const groups = [
      {id: 'it-pp-consumer', member: 'pp1', how: 'names pp-orders'},
      {id: 'it-pp-regex', member: 'pp2', how: 'regex pp-ord.*'},
    ]
    for (const g of groups) await d.cmd(`consumer ${g.member} ${g.id} ${g.how}`)
    /** The group's last ConsumerGroupPartitionMetadata record (DumpLogSegments) once it holds `partitions` for pp-orders. */
    const storedRecord = (id: string, partitions: number) =>
      waitFor(
        `${id}: pp-orders at ${partitions} partitions in the subscription metadata record`,
        async () => {
          const rec = (await probe.records(id)).filter(r => r.type === 4 && r.value !== null).at(-1)
          const topics = (rec?.value as {topics?: Array<{topicId: string; topicName: string; numPartitions: number}>} | undefined)?.topics
          return topics?.some(t => t.topicName === 'pp-orders' && t.numPartitions === partitions) ? topics : undefined
        },
        {timeoutMs: 90_000, intervalMs: 700},
      )
    const check = async (what: string, partitions: number) => {
      const out: Record<string, number> = {}
      for (const g of groups) {
        const topics = await storedRecord(g.id, partitions)
        const settled = await probe.settled(g.id, 'consumer')
        const {md} = await probe.metadata()
        const ours = [...subscriptionMetadataFromLive(['pp-orders'], md).values()]
        expect(
          topics.map(t => ({topicId: t.topicId, topicName: t.topicName, numPartitions: t.numPartitions})),
          `${g.id} ${what}: ours vs DumpLogSegments`,
        ).toEqual(ours)
        expect(settled.metadataHash, `${g.id}: a 4.0 coordinator stores no hash`).toBe(0n)
        const report = await explain(env, g.id)
        expect(report, `${g.id} ${what}`).toMatchObject({type: 'consumer', groupEpoch: settled.epoch, rules: '4.0', storedMetadataHash: null, inSync: true})
        // the release its coordinator runs, told from its ApiVersions: this cluster's minor
        expect((report as unknown as {releases: {coordinator: {atLeast: string}; mixed: boolean}}).releases, g.id).toMatchObject({
          coordinator: {atLeast: minor},
          mixed: false,
        })
        out[g.id] = settled.epoch
      }
      return out
    }
    const before = await check('before', 3)
    await clusterSh(
      env,
      'tool',
      'org.apache.kafka.tools.TopicCommand',
      '--bootstrap-server',
      env.bootstrap,
      '--alter',
      '--topic',
      'pp-orders',
      '--partitions',
      '4',
    )
    const after = await check('after', 4)
    for (const g of groups) expect(after[g.id], `${g.id}: the epoch moved`).toBeGreaterThan(before[g.id])
    console.log(`[kafka-it] parity ${version} (4.0 rules): ${JSON.stringify(Object.fromEntries(groups.map(g => [g.id, [before[g.id], after[g.id]]])))}`)
    for (const g of groups) await d.cmd(`stop ${g.member}`)
  })
})

describe.skipIf(IS_40)(`parity pass (Kafka ${version})`, () => {
  it('consumer, regex, share and streams groups: stored hash = ours = group explain, before and after TopicCommand --alter', async () => {
    const d = probe.driver
    const env = probe.env
    await d.cmd('create-topic pp-orders --assign 1:2,2:3,3:1')
    await d.cmd('create-topic pp-sink 1 3')
    await d.cmd('produce pp-orders 10')

    const app = 'it-pp-streams'
    const groups: Array<{id: string; kind: GroupKind; topics: () => Promise<string[]>}> = [
      {id: 'it-pp-consumer', kind: 'consumer', topics: async () => ['pp-orders']},
      {id: 'it-pp-regex', kind: 'consumer', topics: async () => ['pp-orders']},
      {id: 'it-pp-share', kind: 'share', topics: async () => ['pp-orders']},
      // source, repartition and changelog topics (the coordinator creates the internal ones)
      {id: app, kind: 'streams', topics: async () => ['pp-orders', `${app}-counts-repartition`, `${app}-counts-changelog`]},
    ]
    await d.cmd('consumer pp1 it-pp-consumer names pp-orders')
    await d.cmd('consumer pp2 it-pp-regex regex pp-ord.*')
    await d.cmd('share pp3 it-pp-share pp-orders')
    await d.cmd(`streams pp4 ${app} pp-orders pp-sink`)
    await waitFor(
      'the streams internal topics',
      async () => {
        const {md} = await probe.metadata()
        return [`${app}-counts-repartition`, `${app}-counts-changelog`].every(t => md.topics.some(x => x.name === t))
      },
      {timeoutMs: 90_000, intervalMs: 1000},
    )

    const check = async (what: string) => {
      const out: Record<string, {epoch: number; hash: bigint}> = {}
      for (const g of groups) {
        const stored = await probe.waitStored(g.id, g.kind, `a non-zero hash (${what})`, r => r.metadataHash !== 0n)
        const settled = await probe.settled(g.id, g.kind)
        expect(settled.epoch, `${g.id} ${what}`).toBeGreaterThanOrEqual(stored.epoch)
        const {md} = await probe.metadata()
        expect(new TopicHasher(md).groupHash(await g.topics()), `${g.id} ${what}: ours vs DumpLogSegments`).toBe(settled.metadataHash)
        const report = await explain(env, g.id)
        expect(report.type, g.id).toBe(g.kind)
        expect(report.groupEpoch, `${g.id} ${what}: group explain epoch`).toBe(settled.epoch)
        expect(report.storedMetadataHash, `${g.id} ${what}: group explain stored hash`).toBe(String(settled.metadataHash))
        // the release its coordinator runs, told from its ApiVersions: this cluster's minor
        expect((report as unknown as {releases: {coordinator: {atLeast: string}; mixed: boolean}}).releases, g.id).toMatchObject({
          coordinator: {atLeast: minor},
          mixed: false,
        })
        out[g.id] = {epoch: settled.epoch, hash: settled.metadataHash}
      }
      return out
    }

    const before = await check('before')
    // the bump, made with Kafka's own tool class (not our driver)
    await clusterSh(
      env,
      'tool',
      'org.apache.kafka.tools.TopicCommand',
      '--bootstrap-server',
      env.bootstrap,
      '--alter',
      '--topic',
      'pp-orders',
      '--partitions',
      '4',
    )
    for (const g of groups) await probe.waitStored(g.id, g.kind, 'a new epoch after TopicCommand --alter', r => r.epoch > before[g.id].epoch)
    const after = await check('after')
    for (const g of groups) expect(after[g.id].hash, `${g.id}: the hash moved`).not.toBe(before[g.id].hash)
    console.log(`[kafka-it] parity ${version}: ${JSON.stringify(Object.fromEntries(Object.entries(after).map(([k, v]) => [k, [before[k].epoch, v.epoch]])))}`)
    for (const m of ['pp1', 'pp2', 'pp3', 'pp4']) await d.cmd(`stop ${m}`)
  })
})

describe.skipIf(IS_40)(`KAFKA-19899: a member's regex going from non-empty to empty (Kafka ${version})`, () => {
  // 4.1.2's maybeUpdateRegularExpressions bumps when a member drops its regex (`else if (isNotEmpty(oldRegex))`);
  // 4.1.0 and 4.1.1 only did when the group's topic set changed. Here it does not: the member keeps the topic by name.
  const fixed = versionAtLeast(version, '4.1.2')
  const claim = fixed
    ? 'bumps the epoch; group explain names the regex change and the deleted resolution, exact'
    : 'does not bump the epoch; group explain says in sync, and that the 4.1 patch release decides'
  it(claim, async () => {
    const G = 'it-pp-19899'
    const T = 'pp-k19899'
    await probe.driver.cmd(`create-topic ${T} 1 3`)
    const member = await RawMember.join(probe.env.bootstrap, G, [T], `${T}.*`)
    try {
      const regexRecords = async () => (await probe.records(G)).filter(r => r.type === 16)
      await waitFor('the regex resolution record', async () => (await regexRecords()).some(r => r.value !== null), {timeoutMs: 60_000, intervalMs: 700})
      const before = await probe.settled(G, 'consumer', 2500)
      await member.beat([T], '')
      await waitFor('the regex tombstone', async () => (await regexRecords()).some(r => r.value === null), {timeoutMs: 60_000, intervalMs: 700})
      const after = await probe.settled(G, 'consumer', 2500)
      expect(after.metadataHash, 'the topic set did not change').toBe(before.metadataHash)
      expect(after.epoch, `DumpLogSegments: group epoch after the regex was dropped (Kafka ${version})`).toBe(before.epoch + (fixed ? 1 : 0))
      const report = await explain(probe.env, G)
      expect(report).toMatchObject({groupEpoch: after.epoch, inSync: true})
      const bump = report.timeline.find(e => e.epoch === before.epoch + 1)
      if (fixed) {
        expect(
          bump?.causes.map(c => [c.kind, c.confidence]),
          JSON.stringify(bump),
        ).toEqual([
          ['regex-changed', 'exact'],
          ['regex-resolution-deleted', 'exact'],
        ])
        expect(bump?.causes[1].details).toMatchObject({regex: `${T}.*`, topics: [T]})
      } else {
        expect(bump, 'no bump on 4.1.0 and 4.1.1').toBeUndefined()
      }
      const notes = JSON.stringify((report as unknown as {releases: unknown}).releases)
      if (version.startsWith('4.1.')) expect(notes, 'a 4.1 coordinator: the note names KAFKA-19899').toContain('KAFKA-19899')
      console.log(`[kafka-it] KAFKA-19899 ${version}: epoch ${before.epoch} -> ${after.epoch}`)
    } finally {
      await member.leave()
    }
  })
})

describe(`finalized features (Kafka ${version})`, () => {
  it("the finalized feature levels group explain reports are those Kafka's FeatureCommand describes", async () => {
    const env = probe.env
    // (any group id: the releases and features are read whether or not the group exists)
    const r = await cli(['group', 'explain', 'pp-features-none', '-b', env.bootstrap, '--json'])
    const features = (JSON.parse(r.stdout) as {releases: {features: Record<string, number> | null}}).releases.features
    const text = await clusterSh(env, 'tool', 'org.apache.kafka.tools.FeatureCommand', '--bootstrap-server', env.bootstrap, 'describe')
    const kafka: Record<string, number> = {}
    // (metadata.version is printed as its release name, 4.4-IV2: ours is its level number, checked to be there)
    for (const m of text.matchAll(/Feature:\s*(\S+)\s.*?FinalizedVersionLevel:\s*(\d+)\s/g)) if (Number(m[2]) > 0) kafka[m[1]] = Number(m[2])
    expect(text).toMatch(/Feature:\s*metadata\.version\s.*FinalizedVersionLevel:\s*\d+\.\d+-IV\d+/)
    expect(features?.['metadata.version'], JSON.stringify(features)).toBeGreaterThan(0)
    const ours = Object.fromEntries(Object.entries(features ?? {}).filter(([k, v]) => v > 0 && k !== 'metadata.version'))
    expect(ours, text).toEqual(kafka)
    expect(Object.keys(ours), text).toContain('group.version')
    console.log(`[kafka-it] finalized features ${version}: ${JSON.stringify(features)}`)
  })
})
