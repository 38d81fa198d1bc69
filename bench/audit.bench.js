#!/usr/bin/env node
// audit core at scale: GROUPS groups and RECORDS records of __consumer_offsets (default 10,000 and 1,000,000)
// over PARTITIONS partitions, streamed as record batches through PartitionScan (read_committed filter, decode,
// reduction of every group to its summary), then auditGroup for each partition's groups as it is read, against a synthetic cluster of
// TOPICS topics (each topic hashed once; 5% of the groups drifted so the hypothesis search runs for them).
//
// What is measured: the in-memory core, not the network. Brokers refuse client writes to __consumer_offsets
// (an internal topic), so a test cluster with 1M coordinator records would need 10,000 real groups driven by
// clients; instead the batches are generated here, byte for byte as the coordinator writes them (our encoder),
// one partition at a time, by a worker thread (audit-generator.js) on a heap of its own: a partition's batches are
// generated and encoded before its scan (2.3 MB at 10,000 groups, 23 MB at 100,000), then handed over in pieces of
// 1 MiB (as `audit` fetches) and parsed by the reader `audit` uses (offset commits stepped over by key) as the scan
// takes them, so the generator neither runs nor leaves garbage in the heap while the scan's clock runs. (Until 2026-12-06 the generator made LogBatch objects
// between the scan's chunks, on the same heap, and its garbage was collected inside the scan's clock: the in-memory
// figure was 15-25 % under the segment files' at 10,000 groups; the old scan over both inputs, alternating, load
// 4-7: 389-442k -> 610-683k records/scan CPU-s.) scanMs sums the time spent inside PartitionScan (generation and
// parsing excluded); peak RSS includes the worker's heap, so it is an upper bound (BENCH_GENERATE_ONLY=1 runs the
// generator alone: its own peak RSS and time; BENCH_SEGMENTS below: without it).
//
//   npm run build && node --expose-gc bench/audit.bench.js            (BENCH_RECORDS=2000000 to see memory stay flat; BENCH_GROUPS, BENCH_PARTITIONS, BENCH_TOPICS;
//                                                                     BENCH_COSTS=0 without the rows' rebalance cost, as before it was added)
//   node --expose-gc bench/audit.bench.js --groups=100000               (100,000 groups, ~10.9 M records: auditCoreCpuMs, peakRssMb)
// Prints one JSON line.
//
// Measured (issue 14; Node 20, 2 cores shared with other work, load 6-12, so CPU times are the steadier figures):
//   10,000 groups / 1.09 M records: peak RSS 148 MB (was 571 MB with a full replay kept for every group; the
//     generator alone peaks at 151 MB), heap retained 18 MB (was 294 MB), scan + audit 6.7 s CPU.
//   100,000 groups / 10.9 M records: peak RSS 567 MB with the default heap (generator alone 221 MB; heap retained
//     86 MB, nearly all of it the 100,000 audit rows), 271 MB with --max-old-space-size=192 (it completes: the rest
//     is garbage the default heap lets grow); scan + audit 50.4 s CPU (98 s wall at load 6.5).
// Segment files streamed from disk (BENCH_SEGMENTS; 100,000 groups / 10,899,995 records, 10,000 groups / 1,089,995),
// /usr/bin/time peak RSS, CPU = user + sys of the whole process (reader included); load average 12-66 (other work):
//   before (143acc5): 100k: 531-539 MB (heap retained 93-97 MB: V8's default growth let the old space reach ~375 MB
//     before each full GC, --trace-gc), audit core 49.6-53.0 s CPU, 84.3 s process CPU, 347 s wall at load 50;
//     1M: 171-175 MB, core 5.3 s CPU, process 11.1 s CPU.
//   a write applied when its batch ends, 64 KiB parse slices: 1M: 133-137 MB; 100k unchanged (531 MB): the
//     old-space garbage there is the groups' own state, replaced at every write they read.
//   V8 flags tried on 100k (command line): --max-semi-space-size=32 530 MB (promotion is not the lever);
//     --heap-growing-percent=50 282 MB, core 57.0 s CPU. Set at run time (v8.setFlagsFromString, as bin/run.js
//     does for audit): 100 % 330 MB, core 48.8 s, process 84.1 s CPU; 50 % 284 MB, core 52.8 s, process 94.0 s CPU.
//   + offset commits stepped over in the parser (auditKeyFilter), growth 50 % (the default here now):
//     1M: 130 MB, core 4.8 s CPU, process 8.6 s CPU (V8's default growth: 137 MB, core 6.0 s, process 10.1 s).
//     100k: 275 MB (281 MB /usr/bin/time), core 55.6 s CPU (scan 43.9 + audit 11.7), process 92.7 s CPU, 361 s
//     wall at load 33-51; the same verdict counts. 100 % would trade ~45 MB more RSS for ~4-8 s less CPU (above).
// Compiled struct decoders, topic ids made once, the scan's group cache, one hypothesis search per distinct input
// (2026-12-06, in-memory, before = f1557d4 and after run alternately, 3 runs each, CPU figures):
//   10k, load 10-11: recordsPerScanCpuSecond 284-309 k -> 315-384 k, audit of the groups 2.1-2.3 -> 1.5-1.6 s,
//     auditCore 5.7-6.1 -> 4.3-5.1 s, peak RSS 157-159 -> 152-159 MB; audit document and checkpoints byte-identical.
//   10k, load 7.6-9: medians 382 k -> 481 k records/scan CPU-s, audit of the groups 1.80 -> 1.20 s, auditCore
//     4.66 -> 3.50 s, peak RSS 156 -> 158 MB (153-164 and 157-159).
//   10k from segment files (BENCH_SEGMENTS: the reader `audit` uses, offset commits stepped over in the parser; 2 runs
//     each, load 9-9.6): 447-486 k -> 564-609 k records/scan CPU-s, auditCore 3.8-4.1 -> 3.0 s, peak RSS 139-149 ->
//     146-148 MB. The in-memory figure is lower: the generator's garbage is collected inside the scan's clock.
//   100k: auditCore 65.0 -> 54.4 s (scan 50.5 -> 43.8, audit 14.5 -> 10.6), peak RSS 470 -> 457 MB.
//   Not reached: the goal of 600 k records/CPU-s and 25 s at 100k. GC is ~24 % of the process (the state's
//   decoded values replaced at every write are promoted before they die; at 100k each full GC also marks the
//   ~200 MB of audit rows kept), then the reduction (36 % of the scan), the cost fold (25 %), the scan loop (21 %),
//   decoding (18 %). process.cpuUsage() itself took ~0.7 ms of wall per call here (1,700 calls), not CPU.
// Records applied in windows, group by group (record-window.ts), and the in-memory input from a worker
// (2026-12-06, base 0630feb, one run each unless a range is given, CPU figures; load 4-12, noisy):
//   100k from segment files (alternating): auditCore 43.2 -> 23.0 s CPU (scan 36.2 -> 16.0 s: 301k -> 682k
//     records/scan CPU-s; audit 7.1 -> 7.0 s), peak RSS 430 -> 401 MB (/usr/bin/time 440 -> 410 MB), load 6-7.5.
//   100k in memory (this bench's input now): base 44.3 s (scan 34.7, audit 9.6) -> 26.8-29.8 s (scan 18.9-21.6,
//     audit 7.9-8.2), load 7-10; peak RSS there includes the generator worker's heap (597-661 MB: an upper bound).
//   10k in memory: 610-683k (base, the new input) -> 579-621k records/scan CPU-s; 10k from segment files:
//     539-583k -> 592-605k (load 6). At 10k the window is a whole partition and saves no collection: its copy
//     and the group lookup by key cost ~5 %.
//   Scavenges at 100k (segment files, --trace-gc): 969 for 9.5 s; during the windows' application each copies
//     the groups' states built (~14 KB a group: state 6.3 KB, cost fold 8.7 KB, of which 3.1 KB bumps that can no
//     longer change, which the fold could keep as sums as it goes, exactly if kept in log order and untrimmed).
// A batch's records of one group take its id from the record before (no string decoded per record), window records
// decoded in the window's buffer (decodeRecordIn: no views), the cost fold's rarely used maps made at first use, and
// the rows' cost folds keep their ended bumps as sums as they go (keepFiguresOnly: 2.3 instead of 6.3 bumps kept
// whole per group at 10k) (2026-12-06, base 7de1605 and after alternated; CPU figures; load 5-13, noisy):
//   10k in memory, 4 runs each, load 6.5-8.8: 494-560 k (median 519 k) -> 561-587 k (median 576 k) records/scan
//     CPU-s, auditCore 3.53-3.94 -> 3.22-3.46 s CPU, audit of the groups 1.56-1.74 -> 1.36-1.58 s, peak RSS 220-224
//     -> 221-233 MB (the generator worker's heap included). Audit output over the 10k segment files byte-identical.
//   100k in memory, not at the same load: base 28.6 s CPU (scan 20.3, audit 8.3; load 9.1) and 32.2 s (load 12.8)
//     -> 23.8 s (scan 16.4: 665 k records/scan CPU-s, audit 7.4; load 5.2), peak RSS 582-587 -> 569 MB.
//   Still not shown here: 600 k records/scan CPU-s at 10k in memory (the base measured 560-592 k at load ~2).
//   After the merges (head 47237b4), the machine otherwise idle (load 0.1-2.4, the bench's own two threads):
//     10k, 8 runs: 534-661 k records/scan CPU-s (median 623 k), auditCore 2.80-3.47 s CPU; the base alternated
//     with the last three: 518-665 k (its runs and the new build's drift together: at this load the change is within
//     the noise, which the loaded pairs above resolve). 100k, one run: 25.6 s CPU (scan 17.0 s: 641 k records/scan
//     CPU-s, audit 8.6 s), peak RSS 583 MB (/usr/bin/time 597 MB).
//   Not tried: decoding a group's first record once (#takeFirst: 10,000 of the 423,000 records decoded, ~2 % of the
//   decoding); a record's RecordAt is kept by most records (a member's last writes), not garbage.
const dist = new URL('../dist/', import.meta.url)
const {PartitionScan, auditKeyFilter} = await import(new URL('core/audit/scan.js', dist).href)
const {auditContext, auditGroup, summarize, FINDING_KINDS} = await import(new URL('core/audit/audit.js', dist).href)
const {parseMetadataDocument} = await import(new URL('core/metadata.js', dist).href)
const {syntheticCluster} = await import('./synthetic.js')
const {auditGenerator} = await import('./audit-generator.js')
const {Worker} = await import('node:worker_threads')

// what `audit` does at start (bin/run.js): V8's old-space growth after a full GC fixed at a percentage of the live
// heap; BENCH_HEAP_GROWING=0 leaves V8's default, BENCH_HEAP_GROWING=N sets N %
const heapGrowing = Number(process.env.BENCH_HEAP_GROWING ?? (await import(new URL('io/heap-growth.js', dist).href)).AUDIT_HEAP_GROWING_PERCENT)
if (heapGrowing > 0) (await import(new URL('io/heap-growth.js', dist).href)).limitHeapGrowth(heapGrowing)
// `--groups=100000` (or BENCH_GROUPS): the size; records scale with it (~109 per group) unless BENCH_RECORDS is set
const groupsArg = process.argv.find(a => a.startsWith('--groups='))?.slice('--groups='.length)
const GROUPS = Number(groupsArg ?? process.env.BENCH_GROUPS ?? 10_000)
const RECORDS = Number(process.env.BENCH_RECORDS ?? GROUPS * 100)
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 50)
const TOPICS = Number(process.env.BENCH_TOPICS ?? 1000)
/** Batches scanned between two CPU clock reads. */
const CHUNK = Number(process.env.BENCH_CHUNK ?? 256)

const doc = syntheticCluster({topics: TOPICS, partitions: 12, rf: 3, brokers: 6, racks: 3})
const md = parseMetadataDocument(doc)
const generator = {groups: GROUPS, records: RECORDS, partitions: PARTITIONS, topics: TOPICS}

// BENCH_SEGMENTS=DIR: two runs. The first writes each partition's batches to DIR/partition-N.log (a segment file, as
// the broker lays it out) and exits; the second streams them from disk through the reader `group records
// --from-segments` and the metadata log use, so the peak RSS is the audit core's and the reader's alone, without
// the generator's garbage.
const segments = process.env.BENCH_SEGMENTS
if (segments) {
  const {existsSync, mkdirSync, writeFileSync} = await import('node:fs')
  const {join} = await import('node:path')
  if (!existsSync(join(segments, `partition-${PARTITIONS - 1}.log`))) {
    mkdirSync(segments, {recursive: true})
    const {encodePartition} = await auditGenerator(generator)
    let n = 0
    for (let p = 0; p < PARTITIONS; p++) {
      const {bytes, records} = encodePartition(p)
      writeFileSync(join(segments, `partition-${p}.log`), bytes)
      n += records
    }
    console.log(JSON.stringify({bench: 'audit-core segments written', dir: segments, records: n, partitions: PARTITIONS, groups: GROUPS}))
    process.exit(0)
  }
}

// offset commits stepped over in the parser, as `audit` reads (BENCH_KEY_FILTER=0: every record parsed)
const keep = process.env.BENCH_KEY_FILTER === '0' ? undefined : auditKeyFilter
const readBatchFile = segments ? (await import(new URL('sources/metadata-log.js', dist).href)).readBatchFile : undefined
/** One partition's batches from its segment file, a chunk at a time (the reader's buffer, no whole file). */
async function* fromSegment(p) {
  const {join} = await import('node:path')
  for await (const chunk of readBatchFile(join(segments, `partition-${p}.log`), undefined, keep)) yield* chunk
}

const {recordBatches} = await import(new URL('kafka/record-batch.js', dist).href)
const uncompressed = () => {
  throw new Error('the bench writes uncompressed batches')
}
/**
 * In memory: each partition generated and encoded by a worker thread (audit-generator.js) before its scan, its
 * batches then parsed by the reader `audit` uses (of a fetch response) as the scan takes them. The generator runs
 * on a heap of its own, idle while the scan's clocks run: its garbage is not collected inside them.
 */
let worker
let answer
function ask(message) {
  if (!worker) {
    worker = new Worker(new URL('./audit-generator.js', import.meta.url), {workerData: {auditGenerator: generator}})
    worker.on('message', m => answer.resolve(m))
    worker.on('error', e => answer.reject(e))
  }
  return new Promise((resolve, reject) => {
    answer = {resolve, reject}
    worker.postMessage(message)
  })
}
/** One partition's batches, generated, then handed over by pieces of at most 1 MiB as `audit` fetches them. */
async function* fromMemory(p) {
  const {pieces, records} = await ask({partition: p})
  if (generateOnly) return yield {recordCount: records, records: []}
  for (let i = 0; i < pieces; i++) yield* recordBatches(Buffer.from((await ask({piece: i})).bytes), uncompressed, keep)
}

const rss = () => process.resourceUsage().maxRSS * 1024
const mb = b => Math.round(b / 1048576)

// BENCH_GENERATE_ONLY=1: the generator alone (its own time and peak RSS, to subtract)
const generateOnly = process.env.BENCH_GENERATE_ONLY === '1'
// generation + scan (decode, reduce) + audit of each partition as soon as it is read (as the command does: live
// metadata first, then every partition's groups are audited and dropped); the scan's and the audit's own times
// are summed around onBatch/finish and auditGroup
const t = performance.now()
const cpu0 = process.cpuUsage()
let scanned = 0
let scanMs = 0
let scanCpuUs = 0
let auditMs = 0
let auditCpuUs = 0
let retainedMax = 0
const ctx = auditContext(md, Date.now())
const rows = []
for (let p = 0; p < PARTITIONS; p++) {
  const scan = generateOnly ? undefined : new PartitionScan({rowCosts: process.env.BENCH_COSTS !== '0'})
  // batches generated (or read) a chunk at a time and the scan timed around each chunk: a clock read per batch
  // (getrusage, ~2 µs) would cost the scan a tenth of its own time; a chunk is small next to the live state
  const chunk = []
  const scanChunk = () => {
    const s0 = performance.now()
    const c0 = process.cpuUsage()
    for (const b of chunk) scan.onBatch(b)
    const c1 = process.cpuUsage(c0)
    scanCpuUs += c1.user + c1.system
    scanMs += performance.now() - s0
    chunk.length = 0
  }
  for await (const b of segments ? fromSegment(p) : fromMemory(p)) {
    scanned += b.recordCount ?? b.records.length
    if (!scan) continue
    chunk.push(b)
    if (chunk.length === CHUNK) scanChunk()
  }
  if (!scan) continue
  scanChunk()
  const f0 = performance.now()
  const fc0 = process.cpuUsage()
  const groups = scan.finish()
  const fc1 = process.cpuUsage(fc0)
  scanCpuUs += fc1.user + fc1.system
  scanMs += performance.now() - f0
  // the largest live state: one partition's reduced groups plus the rows so far (sampled on a few partitions)
  if (p % 10 === 0 && globalThis.gc) {
    globalThis.gc()
    retainedMax = Math.max(retainedMax, process.memoryUsage().heapUsed)
  }
  const a0 = performance.now()
  const c0 = process.cpuUsage()
  for (const [id, r] of groups) rows.push(auditGroup(id, r, ctx, scan.costOf(id)))
  const c1 = process.cpuUsage(c0)
  auditCpuUs += c1.user + c1.system
  auditMs += performance.now() - a0
}
const wallMs = performance.now() - t
globalThis.gc?.()
const retainedAfter = process.memoryUsage().heapUsed
await worker?.terminate()
const summary = summarize(rows, {partitions: PARTITIONS, recordsScanned: scanned, decodeErrors: 0, durationMs: 0}, [...FINDING_KINDS], null, Date.now())
const cpu = process.cpuUsage(cpu0)

console.log(
  JSON.stringify({
    bench: generateOnly
      ? 'audit-core generator only'
      : segments
        ? 'audit-core (segment files streamed from disk, no network)'
        : 'audit-core (in-memory batches, no network)',
    node: process.version,
    groups: summary.groups,
    records: scanned,
    partitions: PARTITIONS,
    topics: TOPICS,
    drifted: summary.findings.drift,
    byVerdict: summary.byVerdict,
    scanMs: Math.round(scanMs),
    scanCpuMs: Math.round(scanCpuUs / 1000),
    recordsPerScanCpuSecond: Math.round(scanned / (scanCpuUs / 1e6)),
    auditGroupsMs: Math.round(auditMs),
    auditGroupsCpuMs: Math.round(auditCpuUs / 1000),
    auditCoreMs: Math.round(scanMs + auditMs),
    auditCoreCpuMs: Math.round((scanCpuUs + auditCpuUs) / 1000),
    wallIncludingGenerationMs: Math.round(wallMs),
    cpuMsIncludingGeneration: Math.round((cpu.user + cpu.system) / 1000),
    peakRssMb: mb(rss()),
    heapRetainedMaxMb: mb(retainedMax),
    heapRetainedAfterMb: mb(retainedAfter),
    heapGrowingPercent: heapGrowing,
    loadAverage1m: (await import('node:os')).loadavg()[0].toFixed(1),
  }),
)
