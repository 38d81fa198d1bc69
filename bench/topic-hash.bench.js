#!/usr/bin/env node
// Topic hashes/s and partitions/s of our hash core on a synthetic cluster (default 10,000 topics x 100
// partitions, RF 3, six racks), and — when the JVM reference is available (bench/jvm) — hash4j driven with
// Kafka's call sequence on the same metadata file in the same run, with the ratio ours/JVM.
// Usage: npm run build && node bench/topic-hash.bench.js [--topics N] [--partitions N] [--rounds N] [--no-jvm]
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {TopicHasher} from '../dist/core/hash.js'
import {parseMetadataDocument} from '../dist/core/metadata.js'
import {syntheticCluster} from './synthetic.js'

const here = dirname(fileURLToPath(import.meta.url))
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : dflt
}
const topics = arg('topics', 10_000)
const partitions = arg('partitions', 100)
const rounds = arg('rounds', 5)

const doc = syntheticCluster({topics, partitions})
const md = parseMetadataDocument(doc, 'synthetic')
const names = md.topics.map(t => t.name)

function pass() {
  // a new hasher each pass: the per-topic cache would otherwise answer from memory
  const hasher = new TopicHasher(md)
  let xor = 0n
  for (const n of names) xor ^= hasher.topicHash(n)
  return xor
}

pass() // warm-up (JIT)
const times = []
const cpu = []
let checksum = 0n
// wall time, and the process's CPU time (steadier on a loaded machine; it also counts V8's GC threads,
// which the JVM's per-thread figure does not: the comparison is conservative for us)
for (let r = 0; r < rounds; r++) {
  const c0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  checksum = pass()
  times.push(Number(process.hrtime.bigint() - t0) / 1e9)
  const c = process.cpuUsage(c0)
  cpu.push((c.user + c.system) / 1e6)
}
const medianOf = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const median = medianOf(times)
const cpuMedian = medianOf(cpu)
const ours = {
  impl: 'rebalance-doctor (Node ' + process.version + ', @node-rs/xxhash)',
  topics,
  partitions: topics * partitions,
  secondsMedian: median,
  topicHashesPerSecond: Math.round(topics / median),
  partitionsPerSecond: Math.round((topics * partitions) / median),
  cpuSecondsMedian: cpuMedian,
  partitionsPerCpuSecond: Math.round((topics * partitions) / cpuMedian),
  checksum: BigInt.asIntN(64, checksum).toString(),
}
console.log(JSON.stringify(ours))

// The JVM reference (bench/jvm, built by bench/jvm/run.sh) hashes the same metadata file.
const jvmRunner = join(here, 'jvm', 'run.sh')
if (!process.argv.includes('--no-jvm') && existsSync(jvmRunner)) {
  const out = join(here, 'out')
  mkdirSync(out, {recursive: true})
  const file = join(out, `synthetic-${topics}x${partitions}.json`)
  writeFileSync(file, JSON.stringify(doc))
  const r = spawnSync('bash', [jvmRunner, file, String(rounds)], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']})
  if (r.status !== 0) {
    console.error(`JVM reference failed (exit ${r.status}); run bash ${jvmRunner} ${file} to see why`)
    process.exit(1)
  }
  const jvm = JSON.parse(r.stdout.trim().split('\n').pop())
  console.log(JSON.stringify(jvm))
  const sameResults = String(jvm.checksum) === ours.checksum
  console.log(
    JSON.stringify({
      ratioOursOverJvm: Number((ours.partitionsPerSecond / jvm.partitionsPerSecond).toFixed(2)),
      ratioOursOverJvmCpu: Number((ours.partitionsPerCpuSecond / jvm.partitionsPerCpuSecond).toFixed(2)),
      sameChecksum: sameResults,
    }),
  )
  if (!sameResults) {
    console.error('checksums differ: the JVM reference and our core disagree on some topic hash')
    process.exit(1)
  }
}
