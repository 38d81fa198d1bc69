#!/usr/bin/env node
// `group explain` core at scale: one consumer group subscribed to TOPICS topics (default 1,000; 12 partitions,
// RF 3, 6 brokers on 3 racks) with BUMPS epoch bumps (default 50): member joins and leaves, and metadata changes
// made to a synthetic cluster one at a time, walking back from today's metadata: partitions added to a topic, a
// topic created, a broker's rack changed, a single replica moved (a reassignment; 1 in 8) and, oldest, one bump with
// two topic changes at once (the full single, placement and capped pair search runs without a match; the partition
// counts the group's assignment covered before the bump then explain it: byConfidence is all inferred-unique).
// The stored hashes are computed from the scenario's metadata, so every attribution is really searched.
//
// What is measured: replayGroup + explainGroup (timeline, attribution of every bump, verdict), median of RUNS.
//   npm run build && node bench/explain.bench.js        (BENCH_TOPICS, BENCH_BUMPS, BENCH_RUNS)
// Each run parses the metadata afresh (no topic hash cached from the previous run). medianCpuMs is the process's CPU
// time (user + system): on a loaded machine it is the fairer figure.
// Prints one JSON line.
const dist = new URL('../dist/', import.meta.url)
const {encodeRecord, decodeRecord} = await import(new URL('core/records/index.js', dist).href)
const {replayGroup} = await import(new URL('core/replay/index.js', dist).href)
const {explainGroup} = await import(new URL('core/explain/explain.js', dist).href)
const {parseMetadataDocument} = await import(new URL('core/metadata.js', dist).href)
const {TopicHasher} = await import(new URL('core/hash.js', dist).href)
const {syntheticCluster} = await import('./synthetic.js')

const TOPICS = Number(process.env.BENCH_TOPICS ?? 1000)
const BUMPS = Number(process.env.BENCH_BUMPS ?? 50)
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const G = 'bench-explain'

const live = syntheticCluster({topics: TOPICS, partitions: 12, rf: 3, brokers: 6, racks: 3})
const names = live.topics.map(t => t.name)
const clone = d => structuredClone(d)

// Walk back from today: each metadata bump undoes one change; kinds cycle so every search path runs.
const states = [clone(live)] // states[0] = today; states[i + 1] = before the i-th newest metadata change
const plan = [] // newest first: 'member' or the kind of metadata change
let metadataBumps = 0
for (let i = 0; i < BUMPS - 1; i++) {
  if (i % 5 === 4) {
    plan.push('member')
    continue
  }
  const cur = clone(states.at(-1))
  const kind = ['partitions', 'created', 'rack', 'partitions', 'created', 'partitions', 'rack', 'move'][metadataBumps % 8]
  // a replica move is found by the placement search, budgeted to ~4,000 partitions (maxPlacements): moves are made
  // in the first 300 topics; one beyond the budget would be reported unexplained, with the step that answers it
  const t = cur.topics[(metadataBumps * 37) % (kind === 'move' ? Math.min(300, cur.topics.length) : cur.topics.length)]
  if (kind === 'partitions') t.partitions = t.partitions.slice(0, 8)
  else if (kind === 'created') cur.topics = cur.topics.filter(x => x !== t)
  else if (kind === 'rack') {
    const b = cur.brokers[metadataBumps % cur.brokers.length]
    b.rack = b.rack === 'rack-0' ? 'rack-1' : 'rack-0'
  } else {
    const p = t.partitions[0]
    const other = cur.brokers.find(b => !p.replicas.includes(b.id) && b.rack !== cur.brokers[p.replicas[0] - 1].rack)
    p.replicas = [other.id, ...p.replicas.slice(1)]
  }
  states.push(cur)
  plan.push(kind)
  metadataBumps++
}
// the oldest bump: two topics changed at once (explained from the assignment's partition counts, after the longest search)
const oldest = clone(states.at(-1))
oldest.topics[1].partitions = oldest.topics[1].partitions.slice(0, 5)
oldest.topics[2].partitions = oldest.topics[2].partitions.slice(0, 5)
states.push(oldest)
plan.push('two changes')

const hashes = states.map(s => new TopicHasher(parseMetadataDocument(s)).groupHash(names))

// the log, oldest first
const records = []
let offset = 0n
let time = 1_700_000_000_000
const write = rs => {
  time += 60_000
  const base = offset
  for (const r of rs) {
    const enc = encodeRecord(r)
    const o = offset++
    records.push({offset: o, timestamp: time, batchBaseOffset: base, record: decodeRecord(enc.key, enc.value, o)})
  }
}
const member = (m, subscribed) => ({
  type: 5,
  key: {GroupId: G, MemberId: m},
  value: {
    InstanceId: null,
    RackId: null,
    ClientId: `c-${m}`,
    ClientHost: '/10.0.0.1',
    SubscribedTopicNames: subscribed ? names : [],
    SubscribedTopicRegex: null,
    RebalanceTimeoutMs: 300000,
    ServerAssignor: null,
    ClassicMemberMetadata: null,
  },
})
// m1 is assigned every partition of every topic that exists at that time (as the assignor does with one member)
const assignment = st => st.topics.map(t => ({TopicId: t.topicId, Partitions: t.partitions.map(p => p.partition)}))
const bump = (epoch, hash, st, extra = []) => {
  const tps = assignment(st)
  write([
    ...extra,
    {type: 3, key: {GroupId: G}, value: {Epoch: epoch, MetadataHash: hash}},
    {type: 7, key: {GroupId: G, MemberId: 'm1'}, value: {TopicPartitions: tps}},
    {type: 6, key: {GroupId: G}, value: {AssignmentEpoch: epoch, AssignmentTimestamp: 0n}},
  ])
  write([
    {
      type: 8,
      key: {GroupId: G, MemberId: 'm1'},
      value: {
        MemberEpoch: epoch,
        PreviousMemberEpoch: epoch - 1,
        State: 0,
        AssignedPartitions: tps.map(x => ({...x, AssignmentEpochs: null})),
        PartitionsPendingRevocation: [],
      },
    },
  ])
}
let stateIndex = states.length - 1
let epoch = 1
bump(epoch, hashes[stateIndex], states[stateIndex], [member('m1', true)])
let extraMember = false
for (const step of [...plan].reverse()) {
  epoch++
  if (step === 'member') {
    extraMember = !extraMember
    bump(epoch, hashes[stateIndex], states[stateIndex], [extraMember ? member('m2', true) : {type: 5, key: {GroupId: G, MemberId: 'm2'}, value: null}])
  } else {
    stateIndex--
    bump(epoch, hashes[stateIndex], states[stateIndex])
  }
}

const times = []
const cpu = []
let report
for (let r = 0; r < RUNS; r++) {
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  report = explainGroup(G, replayGroup(G, records), {live: parseMetadataDocument(live), now: time + 1000})
  const c = process.cpuUsage(c0)
  cpu.push((c.user + c.system) / 1000)
  times.push(performance.now() - t0)
}
times.sort((a, b) => a - b)
cpu.sort((a, b) => a - b)
const causes = report.timeline.flatMap(e => e.causes).filter(c => c.kind === 'metadata-hash-changed')
const byConfidence = {}
for (const c of causes) byConfidence[c.confidence] = (byConfidence[c.confidence] ?? 0) + 1
console.log(
  JSON.stringify({
    bench: 'explain',
    topics: TOPICS,
    partitionsPerTopic: 12,
    bumps: report.timeline.length,
    metadataBumps: causes.length,
    records: records.length,
    verdict: report.verdict.code,
    byConfidence,
    medianMs: Math.round(times[Math.floor(times.length / 2)]),
    medianCpuMs: Math.round(cpu[Math.floor(cpu.length / 2)]),
    minMs: Math.round(times[0]),
    maxMs: Math.round(times.at(-1)),
    runs: RUNS,
  }),
)
