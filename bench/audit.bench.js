#!/usr/bin/env node
// audit core at scale: GROUPS groups and RECORDS records of __consumer_offsets (default 10,000 and 1,000,000)
// over PARTITIONS partitions, streamed as record batches through PartitionScan (read_committed filter, decode,
// replay of every group, timeline trimming), then auditGroup for every group against a synthetic cluster of
// TOPICS topics (each topic hashed once; 5% of the groups drifted so the hypothesis search runs for them).
//
// What is measured: the in-memory core, not the network. Brokers refuse client writes to __consumer_offsets
// (an internal topic), so a test cluster with 1M coordinator records would need 10,000 real groups driven by
// clients; instead the batches are generated here, byte for byte as the coordinator writes them (our encoder),
// lazily, one partition at a time, so the input is never held in memory. scanMs sums the time spent inside
// PartitionScan (generation excluded); peak RSS includes the generator's garbage, so it is an upper bound.
//
//   npm run build && node --expose-gc bench/audit.bench.js            (BENCH_RECORDS=2000000 to see memory stay flat; BENCH_GROUPS, BENCH_PARTITIONS, BENCH_TOPICS)
// Prints one JSON line.
const dist = new URL('../dist/', import.meta.url)
const {encodeRecord} = await import(new URL('core/records/index.js', dist).href)
const {PartitionScan} = await import(new URL('core/audit/scan.js', dist).href)
const {auditContext, auditGroup, summarize, FINDING_KINDS} = await import(new URL('core/audit/audit.js', dist).href)
const {parseMetadataDocument} = await import(new URL('core/metadata.js', dist).href)
const {TopicHasher} = await import(new URL('core/hash.js', dist).href)
const {syntheticCluster} = await import('./synthetic.js')

const GROUPS = Number(process.env.BENCH_GROUPS ?? 10_000)
const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000)
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 50)
const TOPICS = Number(process.env.BENCH_TOPICS ?? 1000)

const doc = syntheticCluster({topics: TOPICS, partitions: 12, rf: 3, brokers: 6, racks: 3})
const md = parseMetadataDocument(doc)
const stale = parseMetadataDocument({...doc, topics: doc.topics.map(t => ({...t, partitions: t.partitions.slice(0, 8)}))})
const liveHasher = new TopicHasher(md)
const staleHasher = new TopicHasher(stale)
const topicIds = new Map(md.topics.map(t => [t.name, doc.topics.find(x => x.name === t.name).topicId]))

function groupPlan(g) {
  const topics = [`bench-topic-${g % TOPICS}`, ...(g % 3 === 0 ? [`bench-topic-${(g * 7 + 1) % TOPICS}`] : [])]
  const drifted = g % 20 === 7
  return {id: `service-${g}-consumer`, topics, hash: (drifted ? staleHasher : liveHasher).groupHash(topics), members: 1 + (g % 3)}
}

// One group's writes, each a list of records (one batch per write); about RECORDS / GROUPS records per group,
// ~60% of them offset commits.
function* groupWrites(plan, budget) {
  let epoch = 0
  let used = 0
  const tid = topicIds.get(plan.topics[0])
  const members = Array.from({length: plan.members}, (_, i) => `${plan.id}-member-${i}-0123456789abcdef`)
  while (used < budget) {
    epoch++
    const joining = members[epoch % members.length]
    const write = [
      {type: 5, key: {GroupId: plan.id, MemberId: joining}, value: {InstanceId: null, RackId: null, ClientId: 'c', ClientHost: '/10.0.0.1', SubscribedTopicNames: plan.topics, SubscribedTopicRegex: null, RebalanceTimeoutMs: 300000, ServerAssignor: null, ClassicMemberMetadata: null}},
      {type: 3, key: {GroupId: plan.id}, value: {Epoch: epoch, MetadataHash: plan.hash}},
      ...members.map((m, i) => ({type: 7, key: {GroupId: plan.id, MemberId: m}, value: {TopicPartitions: [{TopicId: tid, Partitions: [i]}]}})),
      {type: 6, key: {GroupId: plan.id}, value: {AssignmentEpoch: epoch, AssignmentTimestamp: 0n}},
    ]
    yield write
    used += write.length
    const cur = members.map((m, i) => ({type: 8, key: {GroupId: plan.id, MemberId: m}, value: {MemberEpoch: epoch, PreviousMemberEpoch: epoch - 1, State: 0, AssignedPartitions: [{TopicId: tid, Partitions: [i], AssignmentEpochs: null}], PartitionsPendingRevocation: []}}))
    yield cur
    used += cur.length
    const commits = Math.max(1, Math.round((write.length + cur.length) * 1.5))
    const oc = Array.from({length: commits}, (_, k) => ({type: 1, version: 4, key: {group: plan.id, topic: plan.topics[0], partition: k % 12}, value: {offset: BigInt(epoch * 1000 + k), leaderEpoch: 0, metadata: '', commitTimestamp: 1n, topicId: tid}}))
    yield oc
    used += oc.length
  }
}

/** Batches of one partition: its groups' writes interleaved round-robin (as a busy coordinator appends). */
function* partitionBatches(p) {
  const plans = []
  for (let g = p; g < GROUPS; g += PARTITIONS) plans.push(groupPlan(g))
  const iters = plans.map(pl => groupWrites(pl, RECORDS / GROUPS))
  let offset = 0n
  let time = 1_764_000_000_000
  let live = iters.length
  while (live > 0) {
    live = 0
    for (const it of iters) {
      const n = it.next()
      if (n.done) continue
      live++
      time += 1
      const base = offset
      const records = n.value.map(r => {
        const e = encodeRecord(r)
        return {offset: offset++, timestamp: BigInt(time), key: e.key, value: e.value}
      })
      yield {baseOffset: base, lastOffset: offset - 1n, producerId: -1n, isTransactional: false, isControl: false, records}
    }
  }
}

const rss = () => process.resourceUsage().maxRSS * 1024
const mb = b => Math.round(b / 1048576)

// generation + scan (decode, replay) + audit; the scan's own time is summed around onBatch/finish
const t = performance.now()
const cpu0 = process.cpuUsage()
let scanned = 0
let scanMs = 0
let scanCpuUs = 0
const replays = new Map()
for (let p = 0; p < PARTITIONS; p++) {
  const scan = new PartitionScan()
  for (const b of partitionBatches(p)) {
    const s0 = performance.now()
    const c0 = process.cpuUsage()
    scan.onBatch(b)
    const c1 = process.cpuUsage(c0)
    scanCpuUs += c1.user + c1.system
    scanMs += performance.now() - s0
    scanned += b.records.length
  }
  const s0 = performance.now()
  for (const [id, r] of scan.finish()) replays.set(id, r)
  scanMs += performance.now() - s0
}
const wallScanMs = performance.now() - t
globalThis.gc?.()
// what the audit keeps after reading everything: replay state of every group (bounded by groups and members)
const retainedAfterScan = process.memoryUsage().heapUsed
const cpuScan = process.cpuUsage(cpu0)
const cpu1 = process.cpuUsage()
const t2 = performance.now()
const ctx = auditContext(md, Date.now())
const rows = []
for (const [id, r] of replays) rows.push(auditGroup(id, r, ctx))
const auditMs = performance.now() - t2
const summary = summarize(rows, {partitions: PARTITIONS, recordsScanned: scanned, decodeErrors: 0, durationMs: 0}, [...FINDING_KINDS], null, Date.now())
const cpu = process.cpuUsage(cpu0)
const cpuAudit = process.cpuUsage(cpu1)

console.log(JSON.stringify({
  bench: 'audit-core (in-memory batches, no network)',
  node: process.version,
  groups: summary.groups,
  records: scanned,
  partitions: PARTITIONS,
  topics: TOPICS,
  drifted: summary.findings.drift,
  byVerdict: summary.byVerdict,
  scanMs: Math.round(scanMs),
  scanCpuMs: Math.round(scanCpuUs / 1000),
  recordsPerScanSecond: Math.round(scanned / (scanMs / 1000)),
  recordsPerScanCpuSecond: Math.round(scanned / (scanCpuUs / 1e6)),
  auditGroupsMs: Math.round(auditMs),
  auditCoreMs: Math.round(scanMs + auditMs),
  wallIncludingGenerationMs: Math.round(wallScanMs + auditMs),
  cpuMsIncludingGeneration: Math.round((cpu.user + cpu.system) / 1000),
  cpuMsScanIncludingGeneration: Math.round((cpuScan.user + cpuScan.system) / 1000),
  cpuMsAuditGroups: Math.round((cpuAudit.user + cpuAudit.system) / 1000),
  peakRssMb: mb(rss()),
  heapRetainedAfterScanMb: mb(retainedAfterScan),
  loadAverage1m: (await import('node:os')).loadavg()[0].toFixed(1),
}))
