#!/usr/bin/env node
// `rebalance-doctor audit` end to end on the test cluster with GROUPS real consumer groups (default 10,000) and
// about a million coordinator records in __consumer_offsets: wall time and peak RSS of the CLI process (GNU time),
// median of RUNS runs (default 3). The groups are made by real KIP-848 consumers (kafka-it/java/GroupFlood): each
// joins, commits offsets for its 20 partitions COMMITS times, and leaves; LIVE more groups keep a member while
// the audits run.
//   KAFKA_IT_PORT_BASE=48000 bash kafka-it/cluster.sh start && npm run build
//   KAFKA_IT_PORT_BASE=48000 node bench/audit-cluster.bench.js [GROUPS] [--no-fill]
// Env: BENCH_COMMITS (5), BENCH_TOPICS (100, 10 partitions each), BENCH_THREADS (48), BENCH_LIVE (100), BENCH_RUNS (3).
// --no-fill: the groups exist from an earlier run with the same GROUPS (live groups are made anew each run).
// Prints one JSON line.
// Measured 2026-12-01, Kafka 4.4.0, Node 20, 2 cores (10,164 groups made by GroupFlood in two runs, 1,105,912 records
// over 5 __consumer_offsets partitions; wall time follows the load of other work, CPU is the steadier figure):
//   before (143acc5): 16.1–40.6 s wall, 6.4–7.2 s CPU, peak RSS 502–530 MB (load 20–50);
//   fetch decoded batch by batch + 2 MiB fetches (488179b): 8.6–19.1 s wall, 4.6–5.1 s CPU, 274–315 MB (load ~30);
//   + key filter in the batch parser, 1 MiB fetches, --heap-growing-percent=50 (6a8cfa1): 2.5–2.7 s wall,
//   3.2–3.5 s CPU, peak RSS 185–195 MB (load 3). Same 10,112 group rows as 143acc5 on the same cluster state.
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {base, clusterEnv, root, runDir, version} from './test-cluster.js'

const env = clusterEnv()
const GROUPS = Number(process.argv.find(a => /^\d+$/.test(a)) ?? 10_000)
const COMMITS = Number(process.env.BENCH_COMMITS ?? 5)
const TOPICS = Number(process.env.BENCH_TOPICS ?? 100)
const THREADS = Number(process.env.BENCH_THREADS ?? 48)
const LIVE = Number(process.env.BENCH_LIVE ?? 100)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const fill = !process.argv.includes('--no-fill')
const clusterSh = join(root, 'kafka-it', 'cluster.sh')
const shEnv = {...process.env, KAFKA_VERSION: version, KAFKA_IT_PORT_BASE: base, KAFKA_IT_RUN_DIR: runDir}
const javaArgs = ['-Xmx2g', `-Dlog4j2.configurationFile=${join(env.IT_DIR, 'config', 'tools-log4j2.properties')}`, '-cp', `${env.DRIVER_CLASSES}:${env.LIBS}/*`]
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

if (fill) {
  // topics, all in one driver JVM (ignores "exists" on a re-run)
  const lines = Array.from({length: TOPICS}, (_, k) => `create-topic bench-audit-t-${k} 10 3`).join('\n') + '\nquit\n'
  execFileSync('bash', [clusterSh, 'driver'], {input: lines, env: shEnv, stdio: ['pipe', 'ignore', 'ignore']})
}
// the groups (fill) and the live groups; GroupFlood prints {"ready":...} once the live members are assigned
const live = `bench-audit-${Date.now().toString(36)}`
const flood = spawn(
  'java',
  [
    ...javaArgs,
    'GroupFlood',
    env.BOOTSTRAP,
    fill ? 'bench-audit' : live,
    String(fill ? GROUPS : 0),
    String(THREADS),
    String(COMMITS),
    'bench-audit-t',
    String(TOPICS),
    String(LIVE),
  ],
  {stdio: ['pipe', 'pipe', 'inherit']},
)
const ready = await new Promise((resolve, reject) => {
  createInterface({input: flood.stdout}).once('line', l => resolve(JSON.parse(l)))
  flood.once('exit', code => reject(new Error(`GroupFlood exited with ${code}`)))
})
console.error(`[bench] ${JSON.stringify(ready)}`)

const runs = []
try {
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(
      '/usr/bin/time',
      [
        '-f',
        '%e %M %U %S',
        process.execPath,
        join(root, 'bin', 'run.js'),
        'audit',
        '-b',
        env.BOOTSTRAP,
        '--json',
        '--no-record',
        '--fail-on',
        'none',
        '--timeout',
        '1800000',
      ],
      {encoding: 'utf8', maxBuffer: 1 << 30},
    )
    const timeLine = r.stderr.trim().split('\n').at(-1)
    if (r.status !== 0) throw new Error(`audit exited ${r.status}: ${r.stderr}`)
    const [wallS, maxRssKb, userS, sysS] = timeLine.split(' ').map(Number)
    const doc = JSON.parse(r.stdout)
    runs.push({wallMs: Math.round(wallS * 1000), cpuMs: Math.round((userS + sysS) * 1000), peakRssMb: Math.round(maxRssKb / 1024), summary: doc.summary})
    console.error(`[bench] run ${i + 1}: ${JSON.stringify(runs.at(-1))}`)
  }
} finally {
  flood.stdin.end()
}

const s = runs[0].summary
console.log(
  JSON.stringify({
    kafkaVersion: version,
    groupsMade: fill ? GROUPS : 0,
    liveGroups: LIVE,
    floodMs: ready.floodMs,
    groupsAudited: s.groups,
    recordsScanned: s.recordsScanned,
    wallMs: median(runs.map(r => r.wallMs)),
    cpuMs: median(runs.map(r => r.cpuMs)),
    peakRssMb: Math.max(...runs.map(r => r.peakRssMb)),
    runs: runs.map(({wallMs, cpuMs, peakRssMb}) => ({wallMs, cpuMs, peakRssMb})),
    summary: s,
  }),
)
