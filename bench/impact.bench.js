#!/usr/bin/env node
// impact core at scale: GROUPS replayed groups (default 10,000) over a synthetic cluster of TOPICS topics x 12
// partitions (6 brokers, 3 racks), and a reassignment of REASSIGN partitions (default 1,000: every partition of
// the first topics moved one broker along, changing racks), parsed from its kafka-reassign-partitions JSON and
// predicted for every group (phases, per-group simulation over every path, hashes at each step). Groups subscribe
// to one or two topics; a third of them also to a topic of the reassignment. The groups' replay state is built
// before the clock starts (as `audit` would have read it); what is measured is parse + predictImpact.
//
//   npm run build && node bench/impact.bench.js          (BENCH_GROUPS, BENCH_TOPICS, BENCH_REASSIGN)
// Prints one JSON line.
const dist = new URL('../dist/', import.meta.url)
const {encodeRecord, decodeRecord} = await import(new URL('core/records/index.js', dist).href)
const {replayGroup} = await import(new URL('core/replay/index.js', dist).href)
const {parseReassignmentJson, predictImpact} = await import(new URL('core/impact/index.js', dist).href)
const {parseMetadataDocument} = await import(new URL('core/metadata.js', dist).href)
const {TopicHasher} = await import(new URL('core/hash.js', dist).href)
const {syntheticCluster} = await import('./synthetic.js')

const GROUPS = Number(process.env.BENCH_GROUPS ?? 10_000)
const TOPICS = Number(process.env.BENCH_TOPICS ?? 1000)
const REASSIGN = Number(process.env.BENCH_REASSIGN ?? 1000)
const PARTITIONS = 12

const doc = syntheticCluster({topics: TOPICS, partitions: PARTITIONS, rf: 3, brokers: 6, racks: 3})
const md = parseMetadataDocument(doc)
const hasher = new TopicHasher(md)
const ids = new Map(doc.topics.map(t => [t.name, t.topicId]))

function group(g) {
  const id = `service-${g}-consumer`
  const topics = [`bench-topic-${g % TOPICS}`, ...(g % 3 === 0 ? [`bench-topic-${(g * 7) % Math.ceil(REASSIGN / PARTITIONS)}`] : [])]
  const records = [
    {
      type: 5,
      key: {GroupId: id, MemberId: 'm1'},
      value: {
        InstanceId: null,
        RackId: null,
        ClientId: 'c',
        ClientHost: '/10.0.0.1',
        SubscribedTopicNames: topics,
        SubscribedTopicRegex: null,
        RebalanceTimeoutMs: 300000,
        ServerAssignor: null,
        ClassicMemberMetadata: null,
      },
    },
    {type: 3, key: {GroupId: id}, value: {Epoch: 5, MetadataHash: hasher.groupHash(topics)}},
    {
      type: 8,
      key: {GroupId: id, MemberId: 'm1'},
      value: {
        MemberEpoch: 5,
        PreviousMemberEpoch: 4,
        State: 0,
        AssignedPartitions: [{TopicId: ids.get(topics[0]), Partitions: [0, 1, 2], AssignmentEpochs: null}],
        PartitionsPendingRevocation: [],
      },
    },
  ]
  const logged = records.map((r, i) => {
    const e = encodeRecord(r)
    return {offset: BigInt(i), timestamp: 1_764_000_000_000 + i, batchBaseOffset: 0n, record: decodeRecord(e.key, e.value, BigInt(i))}
  })
  return [id, replayGroup(id, logged)]
}
const groups = Array.from({length: GROUPS}, (_, g) => group(g))

const partitions = []
for (const t of doc.topics) {
  for (const p of t.partitions) {
    if (partitions.length >= REASSIGN) break
    partitions.push({topic: t.name, partition: p.partition, replicas: p.replicas.map(r => (r % 6) + 1), log_dirs: p.replicas.map(() => 'any')})
  }
}
const json = JSON.stringify({version: 1, partitions})

globalThis.gc?.()
const cpu0 = process.cpuUsage()
const t0 = performance.now()
const change = parseReassignmentJson(json)
const report = predictImpact(md, groups, [change], {failOnRebalance: 0})
const ms = performance.now() - t0
const cpu = process.cpuUsage(cpu0)

console.log(
  JSON.stringify({
    bench: 'impact-core (in-memory, no network)',
    node: process.version,
    groups: report.summary.groups,
    topics: TOPICS,
    reassignedPartitions: change.partitions.length,
    touched: report.summary.touched,
    rebalancing: report.summary.rebalancing,
    certain: report.summary.certain,
    possible: report.summary.possible,
    ms: Math.round(ms),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    targetMs: 5000,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    loadAverage1m: (await import('node:os')).loadavg()[0].toFixed(1),
  }),
)
