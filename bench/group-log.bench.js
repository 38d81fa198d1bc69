#!/usr/bin/env node
// `group explain`'s read path on one large __consumer_offsets partition, in memory (no network): RECORDS records
// (default 10,000,000) of GROUPS groups (default 2,000), ~60% offset commits, streamed as batches of 50 through
// the same steps as src/sources/group-log.ts (decodeBatch with groupKeyMatcher, GroupReplay fed as records
// arrive); the group's share is RECORDS / GROUPS. The batches are built lazily from a few encoded templates per
// group (the bytes are shared), so the input is never held. Compares the string filter (groupIdOfKey per key)
// with the raw-byte matcher on the same batches.
//   npm run build && node bench/group-log.bench.js         (BENCH_RECORDS, BENCH_GROUPS)
// Prints one JSON line.
// Measured (issue 14; Node 20, load 8): 10 M records, 2,000 groups: generation alone 1.5 s, string filter 5.0 s,
// raw-key matcher 1.6 s (0.06 s over generation); peak RSS 98 MB. The network read and batch parsing come on top.
const dist = new URL('../dist/', import.meta.url)
const {encodeRecord, groupIdOfKey} = await import(new URL('core/records/index.js', dist).href)
const {decodeBatch, groupKeyMatcher, GroupReplay} = await import(new URL('core/replay/index.js', dist).href)

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000_000)
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2000)
const TID = 'AAAAAAAAAAAAAAAAAAAAAQ'

function templates(g) {
  const id = `service-${g}-consumer`
  const m = `${id}-member-0`
  return [
    encodeRecord({
      type: 5,
      key: {GroupId: id, MemberId: m},
      value: {
        InstanceId: null,
        RackId: null,
        ClientId: 'c',
        ClientHost: '/10.0.0.1',
        SubscribedTopicNames: ['t'],
        SubscribedTopicRegex: null,
        RebalanceTimeoutMs: 300000,
        ServerAssignor: null,
        ClassicMemberMetadata: null,
      },
    }),
    encodeRecord({type: 3, key: {GroupId: id}, value: {Epoch: 1, MetadataHash: 7n}}),
    encodeRecord({type: 7, key: {GroupId: id, MemberId: m}, value: {TopicPartitions: [{TopicId: TID, Partitions: [0]}]}}),
    encodeRecord({type: 6, key: {GroupId: id}, value: {AssignmentEpoch: 1, AssignmentTimestamp: 0n}}),
    ...Array.from({length: 6}, (_, k) =>
      encodeRecord({
        type: 1,
        version: 4,
        key: {group: id, topic: 't', partition: k},
        value: {offset: BigInt(k), leaderEpoch: 0, metadata: '', commitTimestamp: 1n, topicId: TID},
      }),
    ),
  ]
}
const tpl = Array.from({length: GROUPS}, (_, g) => templates(g))
const target = `service-${Math.floor(GROUPS / 2)}-consumer`

function* partitionBatches() {
  let offset = 0n
  let n = 0
  let time = 1_764_000_000_000
  while (n < RECORDS) {
    const base = offset
    const records = []
    for (let i = 0; i < 50 && n < RECORDS; i++, n++) {
      const g = n % GROUPS
      const t = tpl[g][Math.floor(n / GROUPS) % tpl[g].length]
      records.push({offset: offset++, timestamp: BigInt(time), key: t.key, value: t.value})
    }
    time++
    yield {baseOffset: base, records}
  }
}

function run(filter) {
  const t = performance.now()
  const replay = new GroupReplay(target)
  let kept = 0
  for (const b of partitionBatches()) {
    for (const r of filter(b)) {
      kept++
      replay.push(r)
    }
  }
  const result = replay.finish()
  return {ms: Math.round(performance.now() - t), kept, bumps: result.timeline.length}
}

const matchKey = groupKeyMatcher(target)
const generateOnly = run(() => [])
const byString = run(b => decodeBatch({baseOffset: b.baseOffset, records: b.records.filter(r => r.key !== null && groupIdOfKey(r.key) === target)}))
const byBytes = run(b => decodeBatch(b, {matchKey}))
console.log(
  JSON.stringify({
    bench: 'group-log read path (in-memory batches, no network)',
    node: process.version,
    records: RECORDS,
    groups: GROUPS,
    groupRecords: byBytes.kept,
    generateOnlyMs: generateOnly.ms,
    stringFilterMs: byString.ms,
    byteMatcherMs: byBytes.ms,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    loadAverage1m: (await import('node:os')).loadavg()[0].toFixed(1),
  }),
)
