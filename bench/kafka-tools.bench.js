#!/usr/bin/env node
// Our live commands against the Kafka tool that gives the same answer, on the 3-broker test cluster, whole processes
// alternating (ours, Kafka's, ours, ...) RUNS times each (default 7): median wall time (spawn to exit) and median CPU
// (user + sys of the child, GNU time's rusage), one JSON line per pair with both and the ratios (Kafka / ours).
//   KAFKA_IT_PORT_BASE=48000 node bench/kafka-tools.bench.js [RUNS] [--only=NAME,...]
// Starts the cluster (kafka-it/cluster.sh start) when its run dir has none, and stops it at the end then only
// (BENCH_KEEP_CLUSTER=1 keeps it); needs `npm run build` and `KAFKA_VERSION=4.4.0 bash kafka-it/cluster.sh libs`.
// The scene, made once per run: topics bench-vs-a (6 partitions) and bench-vs-b (3), 200 records each, a KIP-848
// consumer group bench-vs-g with three live members (kept alive while the pairs run) and committed offsets, then
// 100 more records, so lag is not zero.
// Kafka's tools are launched as bin/kafka-run-class.sh launches them (its defaults as read in apache/kafka: the
// script of trunk 2024-10 and config/tools-log4j2.yaml of 4.x; the 4.4 script itself was not at hand): java with
// $KAFKA_HEAP_OPTS (-Xmx256M), $KAFKA_JVM_PERFORMANCE_OPTS (-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
// -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15
// -Djava.awt.headless=true), $KAFKA_JMX_OPTS (-Dcom.sun.management.jmxremote=true ...authenticate=false ...ssl=false),
// -Dkafka.logs.dir and -Dlog4j2.configurationFile= a copy of config/tools-log4j2.yaml (root WARN to stderr, which
// needs the YAML parser Kafka ships), -cp the version's jars. The script's own classpath loop (an egrep per jar,
// ~100 jars) is not timed: Kafka's figures are a lower bound of what `kafka-consumer-groups.sh` costs.
// The pairs (the same answer, asked of the same cluster):
//   explain-members  `group explain G`                 vs ConsumerGroupCommand --describe --group G --members --verbose
//   explain-offsets  `group explain G --describe-only` vs ConsumerGroupCommand --describe --group G --offsets: the
//                    committed offsets and lag per partition (ours: from the describe and OffsetFetch, no records)
//   list             `group list`                      vs ConsumerGroupCommand --list --state --type (our rows hold type
//                    and state too; --state/--type make Kafka describe the groups as we do)
//   topic            `topic-hash compute T`            vs TopicCommand --describe --topic T: the topic's live metadata
//                    (ours: the same Metadata answer, hashed)
//   records          `group records G`                 vs DumpLogSegments --offsets-decoder over the segment files of
//                    G's __consumer_offsets partition (one broker's copy): both decode every record of that
//                    partition, ours over the network (Fetch) and printing G's, Kafka's from the broker's disk
//                    printing all; `kafka-console-consumer --formatter OffsetsMessageFormatter` is the network
//                    equivalent, compared in offsets-read.bench.js.
// Measured 2026-12-06, Kafka 4.4.0, Node 20.20, Java 17, the 2-core machine shared with other work at load average
// 12-21 (so wall times are several times the idle ones; CPU is the steadier figure), medians of 5 alternating runs,
// ours / Kafka's, wall and CPU in ms, ratios Kafka / ours:
//                      before (f1557d4)                        after (this change)
//   explain-members    1453 / 7183 4.94x, CPU 790 / 2850 3.61x   947 / 4382 4.63x, CPU 580 / 2590 4.47x
//   explain-offsets    1896 / 7872 4.15x, CPU 850 / 3690 4.34x   1097 / 5929 5.40x, CPU 600 / 2930 4.88x
//   list               876 / 4148 4.74x, CPU 500 / 2710 5.42x    706 / 4292 6.08x, CPU 440 / 2540 5.77x
//   topic              1312 / 4542 3.46x, CPU 610 / 3080 5.05x   767 / 3930 5.12x, CPU 440 / 2470 5.61x
//   records            1281 / 6764 5.28x, CPU 660 / 2280 3.45x   827 / 2929 3.54x, CPU 500 / 1860 3.72x
// What went: modules the answer does not use (explain's --html, --watch and pattern code and the metadata-log
// reader; group list's record reader and replay; the client's partition reader, batch parser, CRC-32C addon and
// codecs until a command reads records), cli-table3's layout for tables of one-line ASCII cells (a 130-row
// records table: 310-440 ms -> 3-11 ms), and one round trip of explain (live metadata and reassignments together).
// Under this load the JVM's wall suffers more than ours (its GC and JIT threads wait for the cores), so the wall
// ratios here are above what an idle machine gives (the 2.6x for explain at 0.49 s / 1.27 s): the CPU ratios
// are the ones to compare across runs.
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {partitionForGroup} from '../dist/core/records/index.js'
import {base, clusterEnv, root, runDir, version} from './test-cluster.js'

const RUNS = Number(process.argv.find(a => /^\d+$/.test(a)) ?? 7)
const only = process.argv
  .find(a => a.startsWith('--only='))
  ?.slice(7)
  .split(',')
const clusterSh = join(root, 'kafka-it', 'cluster.sh')
const shEnv = {...process.env, KAFKA_VERSION: version, KAFKA_IT_PORT_BASE: base, KAFKA_IT_RUN_DIR: runDir}
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const GROUP = 'bench-vs-g'
const TOPICS = {'bench-vs-a': 6, 'bench-vs-b': 3}

const started = !existsSync(join(runDir, 'cluster.env'))
if (started) execFileSync('bash', [clusterSh, 'start'], {env: shEnv, stdio: ['ignore', 'ignore', 'inherit']})
const env = clusterEnv()

/** The ItDriver line protocol: one command in, one `@@ {json}` reply out. */
function startDriver() {
  const proc = spawn('bash', [clusterSh, 'driver'], {env: shEnv, stdio: ['pipe', 'pipe', 'ignore']})
  const waiting = []
  createInterface({input: proc.stdout}).on('line', l => l.startsWith('@@ ') && waiting.shift()?.(JSON.parse(l.slice(3))))
  const next = () => new Promise(resolve => waiting.push(resolve))
  const ready = next()
  const cmd = async line => {
    const reply = next()
    proc.stdin.write(`${line}\n`)
    const r = await reply
    if (!r.ok) throw new Error(`driver ${line}: ${r.error}`)
    return r
  }
  return {ready, cmd, end: () => proc.stdin.end('quit\n')}
}

async function scene(driver) {
  for (const [t, n] of Object.entries(TOPICS)) await driver.cmd(`create-topic ${t} ${n} 3`).catch(e => /exists/i.test(e.message) || Promise.reject(e))
  for (const t of Object.keys(TOPICS)) await driver.cmd(`produce ${t} 200`)
  const names = Object.keys(TOPICS).join(',')
  for (const m of ['m1', 'm2', 'm3']) await driver.cmd(`consumer ${m} ${GROUP} names ${names}`)
  for (let i = 0; ; i++) {
    const {members} = await driver.cmd('members')
    const held = members.reduce((n, m) => n + m.assignment.length, 0)
    if (members.every(m => m.assignment.length > 0) && held === 9) break
    if (i > 120) throw new Error(`members not assigned: ${JSON.stringify(members)}`)
    await new Promise(r => setTimeout(r, 500))
  }
  for (const m of ['m1', 'm2', 'm3']) await driver.cmd(`commit ${m}`)
  for (const t of Object.keys(TOPICS)) await driver.cmd(`produce ${t} 100`)
}

// Kafka 4.x bin/kafka-run-class.sh, with its defaults
const logsDir = join(tmpdir(), `rd-bench-kafka-logs-${process.pid}`)
mkdirSync(logsDir, {recursive: true})
const toolsLog4j = join(logsDir, 'tools-log4j2.yaml')
writeFileSync(
  toolsLog4j,
  [
    'Configuration:',
    '  Appenders:',
    '    Console:',
    '      name: STDERR',
    '      target: SYSTEM_ERR',
    '      PatternLayout:',
    '        pattern: "[%d] %p %m (%c)%n"',
    '  Loggers:',
    '    Root:',
    '      level: WARN',
    '      AppenderRef:',
    '        - ref: STDERR',
    '',
  ].join('\n'),
)
const kafkaJava = cls => [
  'java',
  '-Xmx256M',
  ...'-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true'.split(
    ' ',
  ),
  ...'-Dcom.sun.management.jmxremote=true -Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false'.split(' '),
  `-Dkafka.logs.dir=${logsDir}`,
  `-Dlog4j2.configurationFile=${toolsLog4j}`,
  '-cp',
  `${env.LIBS}/*`,
  cls,
]
const ours = args => [process.execPath, join(root, 'bin', 'run.js'), ...args, '-b', env.BOOTSTRAP]
const CGC = 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand'

function segmentFiles() {
  const p = partitionForGroup(GROUP, Number(env.OFFSETS_TOPIC_PARTITIONS))
  const dir = join(env.BROKER_1_LOG_DIR, `__consumer_offsets-${p}`)
  return readdirSync(dir)
    .filter(f => f.endsWith('.log'))
    .sort()
    .map(f => join(dir, f))
}

const pairs = () => [
  {
    name: 'explain-members',
    ours: ours(['group', 'explain', GROUP]),
    kafka: [...kafkaJava(CGC), '--bootstrap-server', env.BOOTSTRAP, '--describe', '--group', GROUP, '--members', '--verbose'],
  },
  {
    name: 'explain-offsets',
    ours: ours(['group', 'explain', GROUP, '--describe-only']),
    kafka: [...kafkaJava(CGC), '--bootstrap-server', env.BOOTSTRAP, '--describe', '--group', GROUP, '--offsets'],
  },
  {name: 'list', ours: ours(['group', 'list']), kafka: [...kafkaJava(CGC), '--bootstrap-server', env.BOOTSTRAP, '--list', '--state', '--type']},
  {
    name: 'topic',
    ours: ours(['topic-hash', 'compute', 'bench-vs-a']),
    kafka: [...kafkaJava('org.apache.kafka.tools.TopicCommand'), '--bootstrap-server', env.BOOTSTRAP, '--describe', '--topic', 'bench-vs-a'],
  },
  {
    name: 'records',
    ours: ours(['group', 'records', GROUP]),
    kafka: [...kafkaJava(env.DUMP_LOG_SEGMENTS_CLASS), '--offsets-decoder', '--files', segmentFiles().join(',')],
  },
]

/** One whole process under GNU time: wall from spawn to exit, CPU = the child's user + sys. */
function timed(argv) {
  const t0 = performance.now()
  const r = spawnSync('/usr/bin/time', ['-f', '@@time %U %S %M', ...argv], {encoding: 'utf8', maxBuffer: 1 << 28})
  const wallMs = performance.now() - t0
  const line = r.stderr.split('\n').findLast(l => l.startsWith('@@time '))
  if (r.status !== 0 || !line) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`)
  const [userS, sysS, rssKb] = line.split(' ').slice(1).map(Number)
  return {wallMs, cpuMs: (userS + sysS) * 1000, rssMb: rssKb / 1024, stdout: r.stdout}
}

const summary = runs => ({
  wallMs: Math.round(median(runs.map(r => r.wallMs))),
  cpuMs: Math.round(median(runs.map(r => r.cpuMs))),
  peakRssMb: Math.round(Math.max(...runs.map(r => r.rssMb))),
})

const driver = startDriver()
try {
  await driver.ready
  await scene(driver)
  for (const pair of pairs()) {
    if (only && !only.includes(pair.name)) continue
    const a = []
    const b = []
    const load = [loadavg()[0]]
    timed(pair.ours) // warm the page cache for both; not counted
    timed(pair.kafka)
    for (let i = 0; i < RUNS; i++) {
      a.push(timed(pair.ours))
      b.push(timed(pair.kafka))
    }
    load.push(loadavg()[0])
    const o = summary(a)
    const k = summary(b)
    const ratio = (x, y) => Math.round((x / y) * 100) / 100
    console.log(
      JSON.stringify({
        pair: pair.name,
        kafkaVersion: version,
        runs: RUNS,
        ours: o,
        kafka: k,
        ratioWall: ratio(k.wallMs, o.wallMs),
        ratioCpu: ratio(k.cpuMs, o.cpuMs),
        load1: load.map(l => Math.round(l * 10) / 10),
        oursCmd: pair.ours.slice(2, -2).join(' '),
        kafkaCmd: pair.kafka
          .slice(pair.kafka.indexOf('-cp') + 2)
          .join(' ')
          .replace(env.BOOTSTRAP, 'B'),
      }),
    )
  }
} finally {
  driver.end()
  if (started && !process.env.BENCH_KEEP_CLUSTER) execFileSync('bash', [clusterSh, 'stop'], {env: shEnv, stdio: 'ignore'})
}
