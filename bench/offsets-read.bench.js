#!/usr/bin/env node
// End-to-end read of one __consumer_offsets partition holding >= RECORDS records (default 1,000,000) on the test
// cluster: `rebalance-doctor group records` for a small group on that partition (it scans every record, keeps the
// group's) vs Kafka's console consumer with its offsets formatter reading the same records, in the same run.
// The records are real coordinator writes: offset commits of a 1,000-partition topic (kafka-it/java/OffsetFlood).
//   KAFKA_IT_PORT_BASE=48000 bash kafka-it/cluster.sh start && npm run build
//   KAFKA_IT_PORT_BASE=48000 node bench/offsets-read.bench.js [RECORDS]
import {execFileSync, spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {partitionForGroup} from '../dist/core/records/index.js'
import {clusterEnv, root, version} from './test-cluster.js'

const env = clusterEnv()
const target = Number(process.argv.find(a => /^\d+$/.test(a)) ?? 1_000_000)
const PARTITIONS = 1000
const n = Number(env.OFFSETS_TOPIC_PARTITIONS)
const cp = `${env.DRIVER_CLASSES}:${env.LIBS}/*`
const java = (args, opts = {}) => execFileSync('java', ['-Xmx1g', `-Dlog4j2.configurationFile=${join(env.IT_DIR, 'config', 'tools-log4j2.properties')}`, '-cp', cp, ...args], {encoding: 'utf8', maxBuffer: 1 << 30, ...opts})
const time = f => {
  const t0 = performance.now()
  const r = f()
  return {ms: Math.round(performance.now() - t0), r}
}

const flood = 'bench-flood'
const p = partitionForGroup(flood, n)
let small = ''
for (let i = 0; !small; i++) if (partitionForGroup(`bench-small-${i}`, n) === p) small = `bench-small-${i}`

// --no-fill: the partition was filled by an earlier run (each run adds RECORDS more)
if (!process.argv.includes('--no-fill')) {
  execFileSync('bash', [join(root, 'kafka-it', 'cluster.sh'), 'driver', 'create-topic', 'bench-flood-topic', String(PARTITIONS), '1'], {stdio: 'ignore'})
  const commits = Math.ceil(target / PARTITIONS)
  const filled = time(() => java(['OffsetFlood', env.BOOTSTRAP, flood, 'bench-flood-topic', String(PARTITIONS), String(commits)]))
  java(['OffsetFlood', env.BOOTSTRAP, small, 'bench-flood-topic', '1', '1'])
  console.error(`filled __consumer_offsets-${p} with ${commits * PARTITIONS} offset commits in ${filled.ms} ms`)
}

const ours = time(() => spawnSync(process.execPath, [join(root, 'bin', 'run.js'), 'group', 'records', small, '-b', env.BOOTSTRAP, '--json', '--timeout', '600000'], {encoding: 'utf8', maxBuffer: 1 << 28}))
if (ours.r.status !== 0) throw new Error(`group records failed: ${ours.r.stderr}`)
const out = JSON.parse(ours.r.stdout)
const scanned = out.recordsScanned

const theirs = time(() => spawnSync('java', ['-Xmx1g', `-Dlog4j2.configurationFile=${join(env.IT_DIR, 'config', 'tools-log4j2.properties')}`, '-cp', `${env.LIBS}/*`,
  'org.apache.kafka.tools.consumer.ConsoleConsumer', '--bootstrap-server', env.BOOTSTRAP, '--topic', '__consumer_offsets', '--partition', String(p),
  '--offset', 'earliest', '--max-messages', String(scanned), '--timeout-ms', '60000', '--consumer-property', 'enable.auto.commit=false',
  '--formatter', 'org.apache.kafka.tools.consumer.OffsetsMessageFormatter'], {stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26}))

console.log(JSON.stringify({
  kafkaVersion: version,
  partition: p,
  recordsInPartition: scanned,
  oursMs: ours.ms,
  oursRecordsPerSecond: Math.round(scanned / (ours.ms / 1000)),
  consoleConsumerMs: theirs.ms,
  consoleConsumerExit: theirs.r.status,
  consoleConsumerRecords: Number(/Processed a total of (\d+) messages/.exec(theirs.r.stderr ?? '')?.[1] ?? NaN),
  ratioConsoleOverOurs: Number((theirs.ms / ours.ms).toFixed(2)),
}))
