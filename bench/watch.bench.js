#!/usr/bin/env node
// audit --watch memory over many passes (issue 14 step 3: "keeps its memory flat"): BENCH_GROUPS consumer groups
// (default 2,000, 3 members each) over BENCH_PARTITIONS partitions of a scripted __consumer_offsets (served like a
// broker: fromOffset, log start, end offset), then BENCH_CYCLES passes (default 200) of the watch's pass logic:
// scanOffsets resumed from in-memory checkpoints with trackFrom, every group audited, the new bumps explained and
// printed once (PrintedBumps). Between passes BENCH_CHURN groups (default 50) each get a member joining or leaving
// (one bump each). The scripted log keeps only what the last pass has not read (plus the batch it re-checks), so
// the input does not grow; what grows, if anything, is the watcher. Heap after a full GC and RSS are printed at
// passes 1, 10, 50, 100, 200, ... and the last.
//
//   npm run build && node --expose-gc bench/watch.bench.js
//
// Measured (Node 20, 2 cores shared with other work; 2,000 groups, 10 partitions, 50 bumps per pass, ~0.46 s a pass):
//   every bump printed exactly once (7,450 of 7,450 over 150 passes). Heap after GC: with the printed set capped at
//   100 keys 18.4 MB at pass 10, 18.5 at 50, 18.8 at 100, 18.5 at 150 (flat); uncapped (limit above the bumps)
//   18.5 → 20.5 MB over 140 passes, ~290 bytes per printed key: the only thing that grows is that set, which the
//   watch caps (PrintedBumps, default 10,000 keys, a few MB). RSS moves with the GC between 175 and 220 MB, no trend.
//   BENCH_PRINTED_LIMIT sets the cap here (default 10,000 as in the command).
const dist = new URL('../dist/', import.meta.url)
const {encodeRecord} = await import(new URL('core/records/index.js', dist).href)
const {auditContext, auditGroup} = await import(new URL('core/audit/audit.js', dist).href)
const {newBumpEvents, PrintedBumps} = await import(new URL('core/audit/watch.js', dist).href)
const {explainGroup} = await import(new URL('core/explain/explain.js', dist).href)
const {parseMetadataDocument} = await import(new URL('core/metadata.js', dist).href)
const {memoryCheckpointStore} = await import(new URL('sources/audit-checkpoint.js', dist).href)
const {scanOffsets} = await import(new URL('sources/audit-scan.js', dist).href)
const {syntheticCluster} = await import('./synthetic.js')

const GROUPS = Number(process.env.BENCH_GROUPS ?? 2000)
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 10)
const CYCLES = Number(process.env.BENCH_CYCLES ?? 200)
const CHURN = Number(process.env.BENCH_CHURN ?? 50)
if (!global.gc) throw new Error('run with node --expose-gc')

const md = parseMetadataDocument(syntheticCluster({topics: 100, partitions: 12, rf: 3, brokers: 6, racks: 3}))
const topic = md.topics[0].name

const G = g => ({GroupId: g})
const M = (g, m) => ({GroupId: g, MemberId: m})
const member = (g, m) => ({
  type: 5,
  key: M(g, m),
  value: {
    InstanceId: null,
    RackId: null,
    ClientId: 'c',
    ClientHost: '/h',
    SubscribedTopicNames: [topic],
    SubscribedTopicRegex: null,
    ServerAssignor: null,
    RebalanceTimeoutMs: 45000,
    ClassicMemberMetadata: null,
  },
})
const metadata = (g, Epoch) => ({type: 3, key: G(g), value: {Epoch, MetadataHash: 0n}})
const target = (g, Epoch) => ({type: 6, key: G(g), value: {AssignmentEpoch: Epoch, AssignmentTimestamp: 0n}})
const current = (g, m, e) => ({
  type: 8,
  key: M(g, m),
  value: {MemberEpoch: e, PreviousMemberEpoch: e - 1, State: 0, AssignedPartitions: [], PartitionsPendingRevocation: []},
})
const tomb = (g, m) => ({type: 5, key: M(g, m), value: null})

const logs = Array.from({length: PARTITIONS}, () => ({batches: [], next: 0n}))
let time = 1_700_000_000_000
function append(p, records) {
  const log = logs[p]
  time += 1
  const base = log.next
  const rs = records.map(r => {
    const e = encodeRecord(r)
    return {offset: log.next++, timestamp: BigInt(time), key: e.key, value: e.value, headers: []}
  })
  log.batches.push({
    baseOffset: base,
    lastOffset: log.next - 1n,
    producerId: -1n,
    isTransactional: false,
    isControl: false,
    partitionLeaderEpoch: 0,
    records: rs,
  })
}
const groups = Array.from({length: GROUPS}, (_, i) => ({id: `bench-group-${i}`, p: i % PARTITIONS, epoch: 0, members: []}))
let memberSeq = 0
function join(g) {
  const m = `m${memberSeq++}`
  g.members.push(m)
  g.epoch++
  append(g.p, [member(g.id, m), metadata(g.id, g.epoch), target(g.id, g.epoch), current(g.id, m, g.epoch)])
}
function leave(g) {
  const m = g.members.shift()
  g.epoch++
  // as the coordinator removes a member: its current assignment, target assignment and metadata tombstoned
  append(g.p, [{type: 8, key: M(g.id, m), value: null}, {type: 7, key: M(g.id, m), value: null}, tomb(g.id, m), metadata(g.id, g.epoch), target(g.id, g.epoch)])
}
for (const g of groups) for (let k = 0; k < 3; k++) join(g)

const client = {
  topics: async () => [{name: '__consumer_offsets', partitions: logs.map((_, partition) => ({partition, replicas: [1]}))}],
  readPartition: async o => {
    const log = logs[o.partition]
    const start = log.batches[0]?.baseOffset ?? log.next
    const from = o.fromOffset !== undefined && o.fromOffset > start ? o.fromOffset : start
    for (const b of log.batches) if (b.lastOffset >= from) o.onBatch(b)
    return {
      topic: '__consumer_offsets',
      partition: o.partition,
      leader: 1,
      logStartOffset: start,
      endOffset: log.next,
      batches: [],
      abortedTransactions: [],
      fetches: 1,
    }
  },
}

const store = memoryCheckpointStore()
const printed = new PrintedBumps(Number(process.env.BENCH_PRINTED_LIMIT ?? 10_000))
let printedTotal = 0
const samples = []
const t0 = performance.now()
for (let cycle = 1; cycle <= CYCLES; cycle++) {
  const ctx = auditContext(md, time, 300_000)
  let rows = 0
  await scanOffsets(client, {
    checkpoints: {store, clusterId: 'bench'},
    trackFrom: p => store.nextOffset(p),
    onPartition: (_p, gs, bumps) => {
      for (const [id, s] of gs) rows += auditGroup(id, s, ctx) ? 1 : 0
      for (const [id, replay] of bumps)
        printedTotal += newBumpEvents(explainGroup(id, replay, {live: md, hasher: ctx.hasher, now: time}), 'bench', printed).length
    },
  })
  store.commit()
  // the scripted broker drops what has been read (but the last batch, which the next pass re-checks)
  for (const log of logs) log.batches.splice(0, Math.max(0, log.batches.length - 1))
  for (let k = 0; k < CHURN; k++) {
    const g = groups[(cycle * 7919 + k * 104_729) % GROUPS]
    // members stay at 3-4 per group: the cluster's state does not grow either
    if (g.members.length > 3) leave(g)
    else join(g)
  }
  if (cycle === 1 || cycle === 10 || cycle % 50 === 0 || cycle === CYCLES) {
    global.gc()
    const m = process.memoryUsage()
    samples.push({cycle, heapMB: Math.round(m.heapUsed / 1e5) / 10, rssMB: Math.round(m.rss / 1e5) / 10, rows, printedTotal})
  }
}
const expected = (CYCLES - 1) * CHURN
console.log(
  JSON.stringify({
    groups: GROUPS,
    partitions: PARTITIONS,
    cycles: CYCLES,
    churn: CHURN,
    bumpsPrinted: printedTotal,
    bumpsExpected: expected,
    wallS: Math.round((performance.now() - t0) / 100) / 10,
    samples,
  }),
)
