#!/usr/bin/env node
// `group explain --html` for a large group: one consumer group of MEMBERS members (default 200) over PARTITIONS
// partitions (default 400) through BUMPS bumps (default 2,000: a member joins, or one leaves, alternately), written as
// the coordinator writes them (the bump's write, the revokers' UNREVOKED_PARTITIONS then STABLE, every other member's
// move to the new epoch), replayed with the cost tracker and explained as `group explain` does (no cluster).
// Timed (wall, median of RUNS): `htmlMs`, the page from the report: the ownership lanes, the HTML and its atomic write
// (what --html adds to a run), and `htmlCpuMs` its CPU time (the process's; on a shared, loaded machine the wall
// time is mostly waiting); `explainMs` the replay, costs and report before it, for scale. Goals: htmlMs < 2,000 and
// the page < 5 MB.
//   npm run build && node bench/html.bench.js   (or --dist=DIR; BENCH_MEMBERS, BENCH_PARTITIONS, BENCH_BUMPS, BENCH_RUNS)
// Prints one JSON line.
import {mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {consumerGroupRecords, joinLeaveLog} from './consumer-group-records.js'

const distArg = process.argv.find(a => a.startsWith('--dist='))?.slice(7)
const dist = distArg ? pathToFileURL(`${distArg}/`) : new URL('../dist/', import.meta.url)
const load = p => import(new URL(p, dist).href)
const {encodeRecord, decodeRecord} = await load('core/records/index.js')
const {replayGroup} = await load('core/replay/index.js')
const {CostTracker, ownershipLanes, pictureRange} = await load('core/cost/index.js')
const {explainGroup} = await load('core/explain/explain.js')
const {windowed} = await load('core/explain/report/window.js')
const {explainHtml} = await load('render/html/page.js')
const {writeFileAtomic} = await load('io/atomic-file.js')

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 200)
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 400)
const BUMPS = Number(process.env.BENCH_BUMPS ?? 2000)
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const G = 'bench-html'
const TID = 'AAAAAAAAAAAAAAAAAAAAAQ'

const records = []
let offset = 0n
let time = 1_700_000_000_000
const write = (rs, gap = 50) => {
  time += gap
  const base = offset
  for (const r of rs) {
    const enc = encodeRecord(r)
    const o = offset++
    records.push({offset: o, timestamp: time, batchBaseOffset: base, record: decodeRecord(enc.key, enc.value, o)})
  }
}
joinLeaveLog(consumerGroupRecords({group: G, topicId: TID, partitions: PARTITIONS}), {members: MEMBERS, bumps: BUMPS, write, bumpGapMs: 20_000})

const dir = mkdtempSync(join(tmpdir(), 'rd-html-bench-'))
const file = join(dir, 'group.html')
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

function once() {
  const t0 = performance.now()
  const tracker = new CostTracker(G)
  const replay = replayGroup(G, records, {onRecord: r => tracker.push(r)})
  const costs = tracker.finish({topicNames: new Map([[TID, 'orders']])})
  const report = windowed(explainGroup(G, replay, {costs, now: time}), {})
  const t1 = performance.now()
  const c1 = process.cpuUsage()
  const lanes = ownershipLanes(costs, tracker.holdings(), pictureRange(report.timeline[0]?.timestamp, tracker.lastRecordMs))
  writeFileAtomic(file, explainHtml(report, lanes, {now: time}))
  const t2 = performance.now()
  const cpu = process.cpuUsage(c1)
  return {explainMs: t1 - t0, htmlMs: t2 - t1, htmlCpuMs: (cpu.user + cpu.system) / 1000, bumps: report.timeline.length, members: lanes.lanes.length}
}

once()
const runs = Array.from({length: RUNS}, once)
const bytes = statSync(file).size
rmSync(dir, {recursive: true, force: true})
const out = {
  members: MEMBERS,
  partitions: PARTITIONS,
  bumps: runs[0].bumps,
  lanes: runs[0].members,
  records: records.length,
  htmlMs: Math.round(median(runs.map(r => r.htmlMs))),
  htmlCpuMs: Math.round(median(runs.map(r => r.htmlCpuMs))),
  explainMs: Math.round(median(runs.map(r => r.explainMs))),
  bytes,
  goals: {htmlMsUnder: 2000, bytesUnder: 5_000_000},
}
out.ok = out.htmlMs < 2000 && bytes < 5_000_000
console.log(JSON.stringify(out))
