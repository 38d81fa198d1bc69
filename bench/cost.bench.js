#!/usr/bin/env node
// What the bump-cost tracker (src/core/cost) adds to a group's replay: one consumer group of MEMBERS members
// (default 100) over PARTITIONS partitions (default 600) through BUMPS bumps (default 1,000: a member joins, or one
// leaves), written as the coordinator writes them (the bump's write, then per member its reconciliation records:
// UNREVOKED_PARTITIONS with partitions pending revocation, the release, UNRELEASED_PARTITIONS, STABLE), with
// COMMITS offset commits per bump, in batches of 50 (default 2,000; a real __consumer_offsets partition is mostly commits).
// `ratio`: records decoded once beforehand, so only the replay is timed (the stricter ratio); `decodeRatio`: each
// record decoded from its bytes inside the timed run, as a read does (the network read and batch parsing come on top).
//
// Measured: replayGroup alone, and replayGroup with a CostTracker on onRecord plus finish(), alternated, median of
// RUNS process CPU times (user + system). The goal is a ratio ≤ 1.10. trackerAloneCpuMs: the tracker's own fold
// (rebalanceCosts over the same records, no replay).
//   npm run build && node bench/cost.bench.js   (or --dist=DIR for another tsc output; BENCH_MEMBERS, BENCH_PARTITIONS,
//   BENCH_BUMPS, BENCH_COMMITS, BENCH_RUNS)
// Prints one JSON line.
import {pathToFileURL} from 'node:url'
import {consumerGroupRecords, joinLeaveLog} from './consumer-group-records.js'

const distArg = process.argv.find(a => a.startsWith('--dist='))?.slice(7)
const dist = distArg ? pathToFileURL(`${distArg}/`) : new URL('../dist/', import.meta.url)
const {encodeRecord, decodeRecord} = await import(new URL('core/records/index.js', dist).href)
const {replayGroup} = await import(new URL('core/replay/index.js', dist).href)
const {CostTracker, rebalanceCosts} = await import(new URL('core/cost/index.js', dist).href)

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 100)
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 600)
const BUMPS = Number(process.env.BENCH_BUMPS ?? 1000)
const COMMITS = Number(process.env.BENCH_COMMITS ?? 2000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const G = 'bench-cost'
const TID = 'AAAAAAAAAAAAAAAAAAAAAQ'

const records = []
// the same records as bytes (key, value), for the decode + replay measure
const encoded = []
let offset = 0n
let time = 1_700_000_000_000
const push = (rs, gap) => {
  time += gap
  const base = offset
  for (const r of rs) {
    const o = offset++
    const enc = r.kind ? commitBytes[r.key.partition] : encodeRecord(r)
    encoded.push({offset: o, timestamp: time, batchBaseOffset: base, key: enc.key, value: enc.value})
    records.push({offset: o, timestamp: time, batchBaseOffset: base, record: decodeRecord(enc.key, enc.value, o)})
  }
}
const decode = (r, o) => {
  const enc = encodeRecord(r)
  return decodeRecord(enc.key, enc.value, o)
}
const write = (rs, gap = 50) => push(rs, gap)
// one decoded commit per partition (its bytes shared), reused: the offset travels on the LoggedRecord
const commitRecords = Array.from({length: PARTITIONS}, (_, partition) =>
  decode(
    {
      type: 1,
      version: 4,
      key: {group: G, topic: 'orders', partition},
      value: {offset: 1n, leaderEpoch: 0, metadata: '', commitTimestamp: 1n, topicId: TID},
    },
    0n,
  ),
)
const commitBytes = commitRecords.map((_, partition) =>
  encodeRecord({
    type: 1,
    version: 4,
    key: {group: G, topic: 'orders', partition},
    value: {offset: 1n, leaderEpoch: 0, metadata: '', commitTimestamp: 1n, topicId: TID},
  }),
)
let commitSeq = 0
const commits = () => {
  for (let i = 0; i < COMMITS; i += 50)
    push(
      Array.from({length: Math.min(50, COMMITS - i)}, () => commitRecords[commitSeq++ % PARTITIONS]),
      5,
    )
}
joinLeaveLog(consumerGroupRecords({group: G, topicId: TID, partitions: PARTITIONS}), {
  members: MEMBERS,
  bumps: BUMPS,
  write,
  membersApart: true,
  afterBump: commits,
})

function* decoded() {
  for (const e of encoded) yield {offset: e.offset, timestamp: e.timestamp, batchBaseOffset: e.batchBaseOffset, record: decodeRecord(e.key, e.value, e.offset)}
}

function once(withCost, fromBytes = false) {
  const input = fromBytes ? decoded() : records
  const c0 = process.cpuUsage()
  if (withCost === 'alone') rebalanceCosts(G, input)
  else if (withCost) {
    const tracker = new CostTracker(G)
    replayGroup(G, input, {onRecord: r => tracker.push(r)})
    tracker.finish()
  } else replayGroup(G, input)
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000
}

once(false)
once(true)
const plain = []
const costed = []
const alone = []
for (let r = 0; r < RUNS; r++) {
  plain.push(once(false))
  costed.push(once(true))
  alone.push(once('alone'))
}
const plainBytes = []
const costedBytes = []
for (let r = 0; r < RUNS; r++) {
  plainBytes.push(once(false, true))
  costedBytes.push(once(true, true))
}
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const tracker = new CostTracker(G)
replayGroup(G, records, {onRecord: r => tracker.push(r)})
const costs = tracker.finish()
console.log(
  JSON.stringify({
    records: records.length,
    members: MEMBERS,
    partitions: PARTITIONS,
    bumps: BUMPS,
    costs: costs.length,
    converged: costs.filter(c => c.convergence.status === 'converged').length,
    partitionsMoved: costs.reduce((s, c) => s + c.movedCount, 0),
    replayCpuMs: median(plain),
    replayWithCostCpuMs: median(costed),
    trackerAloneCpuMs: median(alone),
    ratio: Number((median(costed) / median(plain)).toFixed(3)),
    decodeReplayCpuMs: median(plainBytes),
    decodeReplayWithCostCpuMs: median(costedBytes),
    decodeRatio: Number((median(costedBytes) / median(plainBytes)).toFixed(3)),
  }),
)
