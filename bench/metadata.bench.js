#!/usr/bin/env node
// Live metadata costs on a real cluster (run `npm run build` first; uses dist/):
//   node bench/metadata.bench.js fetch   -b HOST:PORT [--topics 5000] [--partitions 3] [--create] [--runs 7]
//       metadata fetch time for a cluster with N topics: Metadata v12 (one request) vs DescribeTopicPartitions
//       (paged, ResponsePartitionLimit 2000), plus the end-to-end `cluster snapshot` wall time. --create first makes
//       bench-md-NNNNN topics (RF 1) until there are N of them; that is the only write, and only with --create.
//   node bench/metadata.bench.js startup -b HOST:PORT [--runs 11]
//       start time of a live `topic-hash compute` (one topic) vs `node -e 0`, medians, interleaved.
// Prints one JSON line.
import {spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const mode = args[0]
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : dflt
}
const bootstrap = (args.includes('-b') ? args[args.indexOf('-b') + 1] : undefined) ?? opt('bootstrap-server', process.env.KAFKA_BOOTSTRAP_SERVERS)
if (!bootstrap || !['fetch', 'startup'].includes(mode)) {
  console.error('usage: node bench/metadata.bench.js fetch|startup -b HOST:PORT [options]')
  process.exit(2)
}
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const round = x => Math.round(x * 10) / 10

async function createTopics(n, partitions) {
  const {Admin} = await import('@platformatic/kafka')
  const admin = new Admin({clientId: 'rd-bench', bootstrapBrokers: bootstrap.split(',')})
  try {
    const have = new Set(await admin.listTopics())
    const want = Array.from({length: n}, (_, i) => `bench-md-${String(i).padStart(5, '0')}`).filter(t => !have.has(t))
    for (let i = 0; i < want.length; i += 500) {
      await admin.createTopics({topics: want.slice(i, i + 500), partitions, replicas: 1})
    }
    return want.length
  } finally {
    await admin.close()
  }
}

async function fetchBench() {
  const topics = Number(opt('topics', 5000))
  const partitions = Number(opt('partitions', 3))
  const runs = Number(opt('runs', 7))
  const created = args.includes('--create') ? await createTopics(topics, partitions) : 0
  const {resolveConnectionSettings} = await import(new URL('../dist/config/client-config.js', import.meta.url).href)
  const {KafkaClient} = await import(new URL('../dist/kafka/client.js', import.meta.url).href)
  const settings = resolveConnectionSettings({bootstrapServer: bootstrap, env: {}, timeoutMs: 120_000})
  const client = await KafkaClient.open(settings)
  const times = {metadata: [], dtp: [], dtp10k: []}
  let counts
  try {
    for (let i = 0; i < runs; i++) {
      let t = performance.now()
      const a = await client.topics({method: 'metadata', includeInternal: true})
      times.metadata.push(performance.now() - t)
      t = performance.now()
      const b = await client.topics({method: 'describe-topic-partitions', includeInternal: true})
      times.dtp.push(performance.now() - t)
      t = performance.now()
      await client.topics({method: 'describe-topic-partitions', includeInternal: true, partitionLimit: 10_000})
      times.dtp10k.push(performance.now() - t)
      counts = {
        topics: a.length,
        partitions: a.reduce((s, x) => s + x.partitions.length, 0),
        sameResult: JSON.stringify(a.map(x => [x.name, x.partitions])) === JSON.stringify(b.map(x => [x.name, x.partitions])),
      }
    }
  } finally {
    await client.close()
  }
  const snapshot = []
  for (let i = 0; i < Math.min(runs, 5); i++) {
    const t = performance.now()
    const r = spawnSync(process.execPath, [`${root}/bin/run.js`, 'cluster', 'snapshot', '-b', bootstrap, '-o', '/dev/null'], {encoding: 'utf8'})
    if (r.status !== 0) throw new Error(r.stderr)
    snapshot.push(performance.now() - t)
  }
  return {
    bench: 'metadata-fetch',
    node: process.version,
    created,
    ...counts,
    runs,
    metadataV12Ms: round(median(times.metadata)),
    describeTopicPartitionsMs: round(median(times.dtp)),
    describeTopicPartitionsLimit10kMs: round(median(times.dtp10k)),
    clusterSnapshotWallMs: round(median(snapshot)),
  }
}

function startupBench() {
  const runs = Number(opt('runs', 11))
  const live = []
  const bare = []
  const cmd = [`${root}/bin/run.js`, 'topic-hash', 'compute', '__consumer_offsets', '-b', bootstrap, '--json']
  spawnSync(process.execPath, cmd) // warm the file cache
  for (let i = 0; i < runs; i++) {
    let t = performance.now()
    spawnSync(process.execPath, ['-e', '0'])
    bare.push(performance.now() - t)
    t = performance.now()
    const r = spawnSync(process.execPath, cmd, {encoding: 'utf8'})
    live.push(performance.now() - t)
    if (r.status !== 0) throw new Error(r.stderr)
  }
  // the same command, with a timer of the library import alone
  const lib = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    spawnSync(process.execPath, ['--input-type=module', '-e', "await import('@platformatic/kafka')"], {cwd: root})
    lib.push(performance.now() - t)
  }
  return {
    bench: 'live-startup',
    node: process.version,
    runs,
    liveTopicHashComputeMs: round(median(live)),
    nodeEmptyMs: round(median(bare)),
    overheadMs: round(median(live) - median(bare)),
    packageIndexImportMs: round(median(lib) - median(bare)),
  }
}

const result = mode === 'fetch' ? await fetchBench() : startupBench()
console.log(JSON.stringify(result))
