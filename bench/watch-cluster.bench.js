#!/usr/bin/env node
// `rebalance-doctor audit --watch 5s --ndjson` on the test cluster for BENCH_MINUTES (default 10) while groups join,
// leave, partitions are added (Kafka's TopicCommand) and a broker is restarted (kill -9, then started again): issue 14
// "every bump printed once with its cause, no exit, RSS growth ≤ 10 % after warm-up". Run it on the cluster
// bench/audit-cluster.bench.js filled (10,000 groups), or any test cluster.
//   KAFKA_IT_PORT_BASE=48000 node bench/watch-cluster.bench.js
// The churn, every BENCH_STEP seconds (default 20): a KIP-848 consumer joins one of 6 groups (Kafka's consumer in
// kafka-it/java/ItDriver), and from the third step on the oldest running one leaves; at 30 % and 70 % of the run a
// partition is added to the topic every group reads (TopicCommand --alter, one bump per group with members); at 50 %
// broker 3 is killed and started again 20 s later. At the end the watch gets SIGTERM (exit code 0 expected) and
// each group's bumps since the watch's first pass (group explain --json) are compared with the printed ones.
// RSS of the watch process (/proc/PID/status VmRSS) is sampled every 5 s; "warm-up" is the first 20 % of the run.
// Env: BENCH_MINUTES (10), BENCH_STEP (20), BENCH_INTERVAL (5s). Prints one JSON line.
// Measured 2026-12-01 (Kafka 4.4.0, Node 20, 2 cores; the 10,118-group cluster of bench/audit-cluster; 5074038 less
// its last fix): 128 passes in 10 min, 30 members started and stopped in 6 groups, 2 partitions added, broker 3 killed
// and started again 32 s later: 66 bumps in the groups' timelines since the first pass, 66 printed, none missing, none
// twice, every one with causes; SIGTERM → exit 0 after the pass. RSS 175 MB at start, 219 MB after warm-up (2 min),
// 246 MB max after it, 236 MB max in the last minute (+7.8 %); passes with nothing new ~360 ms.
// Again after the row cache (10,196 groups, same machine, load 2-5): 128 passes, 30 members, 2 partitions added, broker
// 3 killed and started again 30 s later: 66 bumps in the timelines, 66 printed lines, all with causes; RSS 166 MB
// after warm-up, 167 MB max after it (+0.6 %); the last idle pass (cycle 128) 89 ms; SIGTERM → exit 0. That run keyed bumps on
// group@epoch and reported 4 "printed twice": group g4 was emptied, deleted by the coordinator and created again, so
// its epochs 2-5 happened twice at other offsets (group explain: offsets 221401-221418, then 221424-221441), each
// printed once. The key is now group@epoch@offset.
import {execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {base, clusterEnv, root, runDir, version} from './test-cluster.js'

const env = clusterEnv()
const MINUTES = Number(process.env.BENCH_MINUTES ?? 10)
const STEP_S = Number(process.env.BENCH_STEP ?? 20)
const INTERVAL = process.env.BENCH_INTERVAL ?? '5s'
const runMs = MINUTES * 60_000
const clusterSh = join(root, 'kafka-it', 'cluster.sh')
const shEnv = {...process.env, KAFKA_VERSION: version, KAFKA_IT_PORT_BASE: base, KAFKA_IT_RUN_DIR: runDir}
const sleep = ms => new Promise(r => setTimeout(r, ms))
const cli = (...args) => execFileSync(process.execPath, [join(root, 'bin', 'run.js'), ...args, '-b', env.BOOTSTRAP], {encoding: 'utf8', maxBuffer: 1 << 28})
const tool = (...args) => execFileSync('bash', [clusterSh, 'tool', ...args], {env: shEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
const log = m => console.error(`[bench +${Math.round((Date.now() - t0) / 1000)}s] ${m}`)

const tag = `bw${Date.now().toString(36)}`
const topic = `${tag}-t`
const groups = Array.from({length: 6}, (_, i) => `${tag}-g${i}`)
const state = mkdtempSync(join(tmpdir(), 'rd-watch-'))
let t0 = Date.now()

// the driver JVM (line protocol: a command line in, one "@@ {json}" line out)
const driver = spawn('bash', [clusterSh, 'driver'], {env: shEnv, stdio: ['pipe', 'pipe', 'ignore']})
const replies = []
createInterface({input: driver.stdout}).on('line', l => {
  if (l.startsWith('@@ ')) replies.shift()?.(JSON.parse(l.slice(3)))
})
let chain = Promise.resolve()
const cmd = line =>
  (chain = chain.then(
    () =>
      new Promise((resolve, reject) => {
        replies.push(r => (r.ok ? resolve(r) : reject(new Error(`driver: ${line}: ${r.error}`))))
        driver.stdin.write(`${line}\n`)
      }),
  ))
await new Promise(resolve => replies.push(resolve)) // ready line

tool('org.apache.kafka.tools.TopicCommand', '--bootstrap-server', env.BOOTSTRAP, '--create', '--topic', topic, '--partitions', '2', '--replication-factor', '3')

// the watch, started after the topic exists; its first pass only reads
const watch = spawn(
  process.execPath,
  [
    join(root, 'bin', 'run.js'),
    'audit',
    '-b',
    env.BOOTSTRAP,
    '--watch',
    INTERVAL,
    '--ndjson',
    '--fail-on',
    'none',
    '--history-dir',
    state,
    '--timeout',
    '60s',
    '--debug',
  ],
  {stdio: ['ignore', 'pipe', 'pipe']},
)
// "group@epoch@offset" → count: a group emptied, deleted by the coordinator and created again goes through the same
// epochs again, at other offsets
const printed = new Map()
const bumpsWithoutCause = []
let stderr = ''
createInterface({input: watch.stdout}).on('line', l => {
  const b = JSON.parse(l)
  if (b.schema?.name !== 'rebalance-doctor/bump') return
  const k = `${b.group}@${b.epoch}@${b.offset}`
  printed.set(k, (printed.get(k) ?? 0) + 1)
  if (!b.causes?.length) bumpsWithoutCause.push(k)
})
let firstPass
const firstPassDone = new Promise(r => {
  firstPass = r
})
watch.stderr.on('data', d => {
  stderr += d
  if (/--watch cycle \d+:/.test(stderr)) firstPass()
  if (stderr.length > 1e6) stderr = stderr.slice(-5e5)
})
let watchExit
watch.once('exit', (code, signal) => {
  watchExit = {code, signal, atS: Math.round((Date.now() - t0) / 1000)}
})
const rss = []
const sampler = setInterval(() => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${watch.pid}/status`, 'utf8'))[1])
    rss.push({s: Math.round((Date.now() - t0) / 1000), mb: Math.round(kb / 1024)})
  } catch {}
}, 5000)
await Promise.race([firstPassDone, sleep(600_000)])
t0 = Date.now()
log('the watch finished its first pass')
const startEpochs = new Map(groups.map(g => [g, 0])) // the groups do not exist yet: every bump is new

// churn
const running = []
let n = 0
let added = 0
let restarted = false
const steps = Math.floor(runMs / (STEP_S * 1000))
for (let s = 0; s < steps && !watchExit; s++) {
  const stepStart = Date.now()
  const frac = s / steps
  if ((added < 1 && frac >= 0.3) || (added < 2 && frac >= 0.7)) {
    added++
    tool('org.apache.kafka.tools.TopicCommand', '--bootstrap-server', env.BOOTSTRAP, '--alter', '--topic', topic, '--partitions', String(2 + added))
    log(`TopicCommand --alter: ${topic} has ${2 + added} partitions`)
  }
  if (!restarted && frac >= 0.5) {
    restarted = true
    execFileSync('bash', [clusterSh, 'kill-broker', '3'], {env: shEnv, stdio: 'ignore'})
    log('broker 3 killed')
    await sleep(20_000)
    try {
      execFileSync('bash', [clusterSh, 'start-broker', '3'], {env: shEnv, stdio: 'ignore'})
    } catch (e) {
      log(`start-broker 3: ${e.message.split('\n')[0]}`)
    }
    log('broker 3 started again')
  }
  const m = `${tag}-m${n++}`
  await cmd(`consumer ${m} ${groups[n % groups.length]} names ${topic}`)
  running.push(m)
  if (running.length > 4) await cmd(`stop ${running.shift()}`)
  await sleep(Math.max(0, STEP_S * 1000 - (Date.now() - stepStart)))
}
for (const m of running.splice(0)) await cmd(`stop ${m}`)
await sleep(20_000) // two intervals and more: the last bumps are printed
driver.stdin.end()
watch.kill('SIGTERM')
const exited = await Promise.race([new Promise(r => (watchExit ? r(true) : watch.once('exit', () => r(true)))), sleep(60_000).then(() => false)])
clearInterval(sampler)
if (!exited) watch.kill('SIGKILL')

// each group's bumps (group explain's timeline) against the printed ones
const expected = []
for (const g of groups) {
  let doc
  try {
    doc = JSON.parse(cli('group', 'explain', g, '--json'))
  } catch (e) {
    doc = e.stdout ? JSON.parse(e.stdout) : null
  }
  for (const e of doc?.timeline ?? []) if (e.epoch > startEpochs.get(g)) expected.push(`${g}@${e.epoch}@${e.offset}`)
}
const missing = expected.filter(k => !printed.has(k))
const twice = [...printed].filter(([, c]) => c > 1).map(([k]) => k)
const warm = rss.filter(r => r.s >= (runMs / 1000) * 0.2)
const afterWarmUp = warm[0]?.mb
const maxAfter = Math.max(...warm.map(r => r.mb))
const lastMinute = warm.filter(r => r.s >= runMs / 1000 - 60)
const endMb = Math.max(...lastMinute.map(r => r.mb))
console.log(
  JSON.stringify({
    kafkaVersion: version,
    minutes: MINUTES,
    interval: INTERVAL,
    membersStarted: n,
    partitionsAdded: added,
    brokerRestarted: restarted,
    watchExit,
    expectedBumps: expected.length,
    printedBumps: printed.size,
    missing,
    printedTwice: twice,
    bumpsWithoutCause,
    rssMb: {
      atWarmUp: afterWarmUp,
      maxAfterWarmUp: maxAfter,
      lastMinuteMax: endMb,
      growthPct: Math.round((endMb / afterWarmUp - 1) * 1000) / 10,
      samples: rss.filter((_, i) => i % 12 === 0).map(r => `${r.s}s:${r.mb}`),
    },
    stderrTail: stderr.split('\n').filter(Boolean).slice(-8),
  }),
)
rmSync(state, {recursive: true, force: true})
process.exit(0)
