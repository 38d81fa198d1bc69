#!/usr/bin/env node
// What the rebalance costs add to `group explain`'s read of a large __consumer_offsets partition: RECORDS records
// (default 10,000,000) streamed as batches of 50 through the read path of src/operations/explain/one.ts
// (decodeBatch with the group's raw-key matcher, GroupReplay fed as records arrive), with and without a CostTracker
// fed the same records, as one.ts feeds it. The partition holds one busy KIP-848 group (MEMBERS members over
// PARTITIONS partitions through BUMPS bumps, a member joining or one leaving in turn, COMMITS offset commits per bump:
// bench/consumer-group-records.js) among the offset commits of GROUPS other groups; its batches are spread evenly.
// Other groups' batches are built lazily from shared encoded commits, so the input is never held.
//
// Measured: the process CPU time (user + system) of each read, with and without costs alternated, median of RUNS.
// The goal is costsRatio <= 1.10. The network read and batch parsing come on top of both (and make the ratio smaller).
//   npm run build && node bench/explain-costs.bench.js   (BENCH_RECORDS, BENCH_GROUPS, BENCH_MEMBERS,
//   BENCH_PARTITIONS, BENCH_BUMPS, BENCH_COMMITS, BENCH_RUNS)
// Prints one JSON line.
import {cpuUsage} from 'node:process'
import {consumerGroupRecords, joinLeaveLog} from './consumer-group-records.js'

const dist = new URL('../dist/', import.meta.url)
const {encodeRecord} = await import(new URL('core/records/index.js', dist).href)
const {decodeBatch, groupKeyMatcher, GroupReplay} = await import(new URL('core/replay/index.js', dist).href)
const {CostTracker} = await import(new URL('core/cost/index.js', dist).href)

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000_000)
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2000)
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 100)
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 600)
const BUMPS = Number(process.env.BENCH_BUMPS ?? 1000)
const COMMITS = Number(process.env.BENCH_COMMITS ?? 100)
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const G = 'bench-explain-costs'
const TID = 'AAAAAAAAAAAAAAAAAAAAAQ'

const commit = (group, partition) =>
  encodeRecord({
    type: 1,
    version: 4,
    key: {group, topic: 'orders', partition},
    value: {offset: 1n, leaderEpoch: 0, metadata: '', commitTimestamp: 1n, topicId: TID},
  })

// The busy group's batches, encoded once, each with its time gap (ms) after the previous write.
const groupBatches = []
const ownCommits = Array.from({length: PARTITIONS}, (_, p) => commit(G, p))
const write = (rs, gap = 50) => groupBatches.push({gap, records: rs.map(r => encodeRecord(r))})
joinLeaveLog(consumerGroupRecords({group: G, topicId: TID, partitions: PARTITIONS}), {
  members: MEMBERS,
  bumps: BUMPS,
  write,
  afterBump: () => {
    for (let i = 0; i < COMMITS; i += 50) groupBatches.push({gap: 100, records: ownCommits.slice(i % PARTITIONS, (i % PARTITIONS) + Math.min(50, COMMITS - i))})
  },
})
const groupRecords = groupBatches.reduce((n, b) => n + b.records.length, 0)
const others = Array.from({length: GROUPS}, (_, g) => Array.from({length: 6}, (_, p) => commit(`service-${g}-consumer`, p)))

/** The partition's batches: the other groups' commits in batches of 50, the group's batches spread among them. */
function* partitionBatches() {
  const otherBatches = Math.ceil(Math.max(0, RECORDS - groupRecords) / 50)
  const every = Math.max(1, Math.floor(otherBatches / Math.max(1, groupBatches.length)))
  let offset = 0n
  let time = 1_764_000_000_000
  let n = 0
  let next = 0
  const batch = rs => {
    const base = offset
    const records = rs.map(e => ({offset: offset++, timestamp: BigInt(time), key: e.key, value: e.value}))
    return {baseOffset: base, records}
  }
  for (let b = 0; b < otherBatches || next < groupBatches.length; b++) {
    if (b < otherBatches) {
      const rs = []
      for (let i = 0; i < 50; i++, n++) rs.push(others[n % GROUPS][Math.floor(n / GROUPS) % 6])
      time += 1
      yield batch(rs)
    }
    if ((b % every === 0 || b >= otherBatches) && next < groupBatches.length) {
      time += groupBatches[next].gap
      yield batch(groupBatches[next++].records)
    }
  }
}

const matchKey = groupKeyMatcher(G)
function read(withCosts) {
  const before = cpuUsage()
  const replay = new GroupReplay(G)
  const costs = withCosts ? new CostTracker(G) : undefined
  let records = 0
  let kept = 0
  for (const b of partitionBatches()) {
    records += b.records.length
    for (const r of decodeBatch(b, {matchKey})) {
      kept++
      replay.push(r)
      costs?.push(r)
    }
  }
  const result = replay.finish()
  const bumpCosts = costs?.finish()
  const used = cpuUsage(before)
  return {cpuMs: (used.user + used.system) / 1000, records, kept, bumps: result.timeline.length, costs: bumpCosts?.length}
}

const plain = []
const costed = []
let last
for (let i = 0; i < RUNS; i++) {
  plain.push(read(false).cpuMs)
  last = read(true)
  costed.push(last.cpuMs)
}
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log(
  JSON.stringify({
    bench: "group explain's read of one __consumer_offsets partition, with and without rebalance costs (in memory)",
    node: process.version,
    records: last.records,
    groupRecords: last.kept,
    bumps: last.bumps,
    costs: last.costs,
    plainCpuMs: Math.round(median(plain)),
    costsCpuMs: Math.round(median(costed)),
    costsRatio: Number((median(costed) / median(plain)).toFixed(3)),
    runs: RUNS,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    loadAverage1m: (await import('node:os')).loadavg()[0].toFixed(1),
  }),
)
