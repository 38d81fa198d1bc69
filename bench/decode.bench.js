#!/usr/bin/env node
// Records decoded per second in the decode loop, on a synthetic but realistic __consumer_offsets
// mix. Runs on the built dist/ (`npm run build`; or --dist=DIR), or on the sources with
// `node --import tsx bench/decode.bench.js --src`. Prints one JSON line.
import {existsSync} from 'node:fs'

import {pathToFileURL} from 'node:url'

// --dist=DIR reads another build output (e.g. `tsc --outDir /tmp/x`), so a shared dist/ is not needed.
const distArg = process.argv.find(a => a.startsWith('--dist='))?.slice(7)
const dist = distArg ? pathToFileURL(`${distArg}/core/records/index.js`) : new URL('../dist/core/records/index.js', import.meta.url)
const useSrc = process.argv.includes('--src') || !existsSync(dist)
const mod = await import(useSrc ? '../src/core/records/index.ts' : dist.href)
const replayMod = await import(useSrc ? '../src/core/replay/index.ts' : new URL('../replay/index.js', dist).href)
const {encodeRecord, decodeRecord, groupIdOfKey} = mod

const seconds = Number(process.env.BENCH_SECONDS ?? 3)
let seed = 12345
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296
const pick = xs => xs[Math.floor(rand() * xs.length)]
const topicId = () => Buffer.from(Array.from({length: 16}, () => Math.floor(rand() * 256))).toString('base64url')

const topics = Array.from({length: 20}, (_, i) => ({name: `payments.events.v${i}`, id: topicId(), partitions: 12 + (i % 5) * 12}))
const groups = Array.from({length: 50}, (_, i) => `service-${i}-consumer`)
const memberId = () => Buffer.from(Array.from({length: 16}, () => Math.floor(rand() * 256))).toString('base64url')
const assignment = () =>
  Array.from({length: 1 + Math.floor(rand() * 3)}, () => {
    const t = pick(topics)
    return {TopicId: t.id, Partitions: Array.from({length: 4 + Math.floor(rand() * 12)}, (_, k) => k)}
  })

// Weights reflect a busy cluster: offset commits dominate; group records come in writes.
const makers = [
  [
    70,
    () => ({
      type: 1,
      version: 4,
      key: {group: pick(groups), topic: pick(topics).name, partition: Math.floor(rand() * 48)},
      value: {offset: BigInt(Math.floor(rand() * 1e9)), leaderEpoch: 3, metadata: '', commitTimestamp: 1764500000000n, topicId: pick(topics).id},
    }),
  ],
  [
    8,
    () => ({
      type: 5,
      key: {GroupId: pick(groups), MemberId: memberId()},
      value: {
        InstanceId: null,
        RackId: 'eu-west-1a',
        ClientId: 'consumer-payments-1',
        ClientHost: '/10.12.3.45',
        SubscribedTopicNames: topics.slice(0, 3).map(t => t.name),
        SubscribedTopicRegex: null,
        RebalanceTimeoutMs: 300000,
        ServerAssignor: 'uniform',
      },
    }),
  ],
  [7, () => ({type: 7, key: {GroupId: pick(groups), MemberId: memberId()}, value: {TopicPartitions: assignment()}})],
  [
    8,
    () => ({
      type: 8,
      key: {GroupId: pick(groups), MemberId: memberId()},
      value: {
        MemberEpoch: 12,
        PreviousMemberEpoch: 11,
        State: 0,
        AssignedPartitions: assignment().map(tp => ({...tp, AssignmentEpochs: null})),
        PartitionsPendingRevocation: [],
      },
    }),
  ],
  [3, () => ({type: 3, key: {GroupId: pick(groups)}, value: {Epoch: 12, MetadataHash: -5490670178638745366n}})],
  [3, () => ({type: 6, key: {GroupId: pick(groups)}, value: {AssignmentEpoch: 12, AssignmentTimestamp: 1764500000000n}})],
  [
    1,
    () => ({
      type: 16,
      key: {GroupId: pick(groups), RegularExpression: 'payments\\.events\\..*'},
      value: {Topics: topics.map(t => t.name), Version: 123456n, Timestamp: 1764500000000n},
    }),
  ],
]
const total = makers.reduce((n, [w]) => n + w, 0)
const make = () => {
  let x = rand() * total
  for (const [w, f] of makers) if ((x -= w) < 0) return f()
  return makers[0][1]()
}

const N = 100_000
const keys = []
const values = []
let bytes = 0
for (let i = 0; i < N; i++) {
  const r = encodeRecord(make())
  keys.push(r.key)
  values.push(r.value)
  bytes += r.key.length + (r.value?.length ?? 0)
}

function run(fn) {
  for (let i = 0; i < 2 * N; i++) fn(i % N) // warm-up
  let n = 0
  const t0 = process.hrtime.bigint()
  const until = t0 + BigInt(seconds * 1e9)
  let now = t0
  while (now < until) {
    for (let i = 0; i < N; i++) fn(i)
    n += N
    now = process.hrtime.bigint()
  }
  return n / (Number(now - t0) / 1e9)
}

let sink = 0
const decodePerSec = run(i => {
  const r = decodeRecord(keys[i], values[i], BigInt(i))
  sink += r.type
})
const filterPerSec = run(i => {
  sink += groupIdOfKey(keys[i]).length
})

// Replay: one busy consumer group, a bump every few writes, offset commits in between.
const group = 'service-0-consumer'
const members = Array.from({length: 50}, memberId)
const log = []
let offset = 0n
for (let w = 0; w < 20_000; w++) {
  const write = []
  if (w % 10 === 0) {
    const m = pick(members)
    write.push({
      type: 5,
      key: {GroupId: group, MemberId: m},
      value: {
        InstanceId: null,
        RackId: null,
        ClientId: 'c',
        ClientHost: '/10.0.0.1',
        SubscribedTopicNames: [pick(topics).name],
        SubscribedTopicRegex: null,
        RebalanceTimeoutMs: 300000,
        ServerAssignor: null,
      },
    })
    write.push({type: 3, key: {GroupId: group}, value: {Epoch: w, MetadataHash: BigInt(w)}})
    write.push({type: 7, key: {GroupId: group, MemberId: m}, value: {TopicPartitions: assignment()}})
    write.push({type: 6, key: {GroupId: group}, value: {AssignmentEpoch: w}})
  } else if (w % 3 === 0) {
    write.push({
      type: 8,
      key: {GroupId: group, MemberId: pick(members)},
      value: {MemberEpoch: w, PreviousMemberEpoch: w - 1, State: 0, AssignedPartitions: assignment(), PartitionsPendingRevocation: []},
    })
  } else {
    for (let i = 0; i < 8; i++)
      write.push({
        type: 1,
        version: 4,
        key: {group, topic: pick(topics).name, partition: i},
        value: {offset: BigInt(w), leaderEpoch: 0, metadata: '', commitTimestamp: 1n},
      })
  }
  const base = offset
  for (const r of write) {
    const e = encodeRecord(r)
    log.push({offset, timestamp: w, batchBaseOffset: base, record: decodeRecord(e.key, e.value, offset)})
    offset++
  }
}
let timelineEntries = 0
const t0 = performance.now()
let replays = 0
while (performance.now() - t0 < seconds * 1000) {
  timelineEntries = replayMod.replayGroup(group, log).timeline.length
  replays++
}
const replayPerSec = (replays * log.length) / ((performance.now() - t0) / 1000)

console.log(
  JSON.stringify({
    bench: 'decode',
    source: useSrc ? 'src (tsx)' : (distArg ?? 'dist'),
    node: process.version,
    records: N,
    avgRecordBytes: Math.round(bytes / N),
    mix: Object.fromEntries(makers.map(([w, f]) => [f().type, w])),
    decodeRecordsPerSec: Math.round(decodePerSec),
    decodeMBPerSec: Number(((decodePerSec * bytes) / N / 1e6).toFixed(1)),
    groupIdOfKeyPerSec: Math.round(filterPerSec),
    replayRecordsPerSec: Math.round(replayPerSec),
    replayLog: {records: log.length, members: members.length, timelineEntries},
    seconds,
    sink: sink > 0,
  }),
)
