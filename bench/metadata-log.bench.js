#!/usr/bin/env node
// Reading a KRaft metadata log: 1,000,000 records over 100,000 partitions (1,000 topics × 100 partitions on 6
// brokers in 3 racks), written with our encoder into 16 MiB-ish segments: brokers registered, topics created, then
// ~899,000 PartitionChangeRecords (ISR and leader changes, 1 in 100 a replica change) in batches of 100, as a busy
// cluster writes them. Measures `replayMetadataLog` over the directory (every record decoded and applied to the
// image, changes collected) in a child process: wall time and peak RSS. Runs on dist/ (`npm run build`).
// Prints one JSON line. BENCH_RECORDS / BENCH_TOPICS override the sizes.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const dist = new URL('../dist/', import.meta.url)
const child = process.argv[2] === '--child'

if (child) {
  const {replayMetadataLog} = await import(new URL('sources/metadata-log.js', dist).href)
  const t0 = performance.now()
  const r = await replayMetadataLog(process.argv[3])
  const ms = performance.now() - t0
  const md = r.replay.image.toClusterMetadata()
  process.stdout.write(
    JSON.stringify({
      ms: Math.round(ms),
      records: r.replay.stats.records,
      changes: r.replay.changes.length,
      partitions: md.topics.reduce((n, t) => n + t.partitions.length, 0),
      cpuMs: Math.round((process.resourceUsage().userCPUTime + process.resourceUsage().systemCPUTime) / 1000),
      maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  )
} else {
  const {encodeMetadataRecord} = await import(new URL('core/metadata-log/codec.js', dist).href)
  const {encodeBatch} = await import(new URL('core/metadata-log/batch-writer.js', dist).href)
  const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000)
  const TOPICS = Number(process.env.BENCH_TOPICS ?? 1000)
  const PER_TOPIC = 100
  const dir = mkdtempSync(join(tmpdir(), 'rd-mdlog-bench-'))
  const mdDir = join(dir, '__cluster_metadata-0')
  const {mkdirSync} = await import('node:fs')
  mkdirSync(mdDir)
  let seed = 7
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296
  const id = () => Buffer.from(Array.from({length: 16}, () => Math.floor(rand() * 256))).toString('base64url')
  const t0 = performance.now()
  let offset = 0n
  let time = Date.parse('2026-11-01T00:00:00Z')
  let segment = []
  let segmentBytes = 0
  let segmentBase = 0n
  let written = 0
  const flush = () => {
    if (segment.length === 0) return
    writeFileSync(join(mdDir, `${segmentBase.toString().padStart(20, '0')}.log`), Buffer.concat(segment))
    segment = []
    segmentBytes = 0
    segmentBase = offset
  }
  const batch = values => {
    const b = encodeBatch(offset, time, values)
    offset += BigInt(values.length)
    time += 50
    written += values.length
    segment.push(b)
    segmentBytes += b.length
    if (segmentBytes > 16 << 20) flush()
  }
  const brokers = [1, 2, 3, 4, 5, 6]
  batch(
    brokers.map(b =>
      encodeMetadataRecord(0, {
        BrokerId: b,
        IncarnationId: id(),
        BrokerEpoch: BigInt(b),
        EndPoints: [{Name: 'PLAINTEXT', Host: `kafka-${b}`, Port: 9092, SecurityProtocol: 0}],
        Features: [{Name: 'metadata.version', MinSupportedVersion: 7, MaxSupportedVersion: 27}],
        Rack: `rack-${b % 3}`,
        Fenced: false,
        InControlledShutdown: false,
        LogDirs: [id()],
      }),
    ),
  )
  const topics = []
  for (let t = 0; t < TOPICS; t++) {
    const topicId = id()
    topics.push(topicId)
    const values = [encodeMetadataRecord(2, {Name: `service-${t}.events`, TopicId: topicId})]
    for (let p = 0; p < PER_TOPIC; p++) {
      const r = [brokers[(t + p) % 6], brokers[(t + p + 1) % 6], brokers[(t + p + 2) % 6]]
      values.push(
        encodeMetadataRecord(3, {
          PartitionId: p,
          TopicId: topicId,
          Replicas: r,
          Isr: r,
          RemovingReplicas: [],
          AddingReplicas: [],
          Leader: r[0],
          LeaderEpoch: 0,
          PartitionEpoch: 0,
          Directories: [id(), id(), id()],
        }),
      )
    }
    batch(values)
  }
  while (written < RECORDS) {
    const values = []
    for (let i = 0; i < 100 && written + values.length < RECORDS; i++) {
      const t = Math.floor(rand() * TOPICS)
      const p = Math.floor(rand() * PER_TOPIC)
      const a = brokers[Math.floor(rand() * 6)]
      const b = brokers[(brokers.indexOf(a) + 1) % 6]
      values.push(
        rand() < 0.01
          ? encodeMetadataRecord(5, {PartitionId: p, TopicId: topics[t], Replicas: [a, b, brokers[(brokers.indexOf(a) + 2) % 6]]})
          : encodeMetadataRecord(5, {PartitionId: p, TopicId: topics[t], Isr: [a, b], Leader: a}),
      )
    }
    batch(values)
  }
  flush()
  const genMs = Math.round(performance.now() - t0)
  const runs = []
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', mdDir], {encoding: 'utf8', maxBuffer: 1 << 20})
    if (r.status !== 0) throw new Error(r.stderr)
    runs.push(JSON.parse(r.stdout))
  }
  rmSync(dir, {recursive: true, force: true})
  const sorted = [...runs].sort((x, y) => x.ms - y.ms)
  console.log(
    JSON.stringify({
      bench: 'metadata-log-read',
      records: runs[0].records,
      partitions: runs[0].partitions,
      changes: runs[0].changes,
      generateMs: genMs,
      medianMs: sorted[1].ms,
      runsMs: runs.map(r => r.ms),
      cpuMs: runs.map(r => r.cpuMs),
      maxRssMB: Math.max(...runs.map(r => r.maxRssMB)),
    }),
  )
}
