#!/usr/bin/env node
// `group list` over many groups, whole process: wall, CPU and peak RSS against an in-process Kafka-speaking server
// (test/lib/hostile-broker.ts 'many-groups': one broker coordinating every group, each an Empty consumer group),
// run in its own process so its CPU is not counted. Needs the build (dist/) and tsx.
// Measured (2-core machine shared, load average 23-56, so wall is mostly the load and the fake broker): 1.5M groups,
// --timeout 600s, --json: 140 s wall, 30.5 s CPU, 1,039 MB peak, against 466 s, 65.4 s CPU, 2,568 MB before the
// describes reused FindCoordinator's answer and the listing was read in slices; 300,000 groups: 7.0 s CPU, 400 MB
// against 10.3-11.2 s, 551 MB. Still past a 60 s --timeout at 1.5M on that machine.
// Rows held as columns, each written from its own JSON text (load 8-11, interleaved with the build before, each
// run one broker): 1.5M groups --json completed within --timeout 60s in both (live part 49.7 s before, 58.2 s
// after: load noise), CPU 29.2-30.5 s against 30.9-33.8 s, peak RSS 999-1,252 MB against 1,046-1,316 MB: the
// peak is set before the rows exist, by the heap the garbage collector allows after the ListGroups answer
// (1.5M groups decoded whole), so it moves with GC timing; the heap live after a collection at the end is ~100 MB
// against ~260 MB. With --timeout 30s: TIMEOUT raised 0.10 s after the deadline (30 s after the client opened),
// the process gone 0.7 s later (freeing a ~1 GB heap). Writing 1.5M rows' JSON (246 MB) after the live part
// takes 4-10 s and is not under --timeout.
// ListGroups read element by element (the codec hands each group to a sink: its decoded structs never held at once)
// and the heap's growth limited to 50 % of the live set (src/io/heap-growth.ts), alternating with the build before
// (load 6-10, one broker): 1.5M groups --json, peak RSS 406-466 MB against 1,007-1,010 MB, CPU 22.9-27.4 s against
// 24.4-26.5 s; wall 47.6-60.8 s against 59.8-62.4 s, one run of each past --timeout 60s (the machine's load).
// With a large frame copied in as it arrives (not its chunks and a copy at once) and FindCoordinator's in-order
// answer checked without sets (load 6-10, alternating): 371-387 MB against 829-998 MB, CPU 26.6-27.3 s against
// 29.2-30.5 s, wall 46.9-56.3 s against 45.6-64.3 s, every run within --timeout 60s.
// Rows' JSON made from the columns (no entry object a row), text encoded piece by piece into each chunk's buffer
// and mapped for the terminal only where it holds more than printable ASCII, and the describe path's per-group
// objects cut (no error object per group described, no address string per group, no pair per group joined, no
// spread per entry, no sort of the sorted listing); alternating with the build before, one process a run, the
// fake broker in its own process, 1.5M groups --json --timeout 60s, load 5-9, four runs each, all within the
// timeout: CPU 25.4-29.7 s (median 27.9) against 27.8-38.0 s (31.9), wall 30.7-52.6 s against 35.4-58.0 s, peak
// RSS 357-374 MB against 360-388 MB: the CPU saved is in the machine's noise run by run (one pair: 28.5 against
// 27.8 s). At load ~15 with --timeout 300s, one run each: CPU 28.8 against 39.6 s; at load 12-20 both builds ran
// past --timeout 60s in two runs each. Writing the 1.5M rows alone (247 MB through writeInChunks, in process):
// 1.1-1.5 s CPU against 3.0-3.2 s.
// Usage: node bench/group-list.bench.js [groups=1500000] [runs=3] [format=json|table] [timeout=60s]
import {spawn, spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

const groups = Number(process.argv[2] ?? 1_500_000)
const runs = Number(process.argv[3] ?? 3)
const format = process.argv[4] ?? 'json'
const timeout = process.argv[5] ?? '60s'
const root = fileURLToPath(new URL('..', import.meta.url))
const server = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    `const {startHostileKafka} = await import('./test/lib/hostile-broker.ts')
     const b = await startHostileKafka('many-groups', 3_600_000, {groups: ${groups}})
     console.log(b.address)`,
  ],
  {cwd: root, stdio: ['ignore', 'pipe', 'inherit']},
)
const address = await new Promise((resolve, reject) => {
  server.stdout.once('data', d => resolve(String(d).trim()))
  server.once('exit', code => reject(new Error(`fake broker exited ${code}`)))
})

// /usr/bin/time -f: elapsed, user, system seconds and the maximum resident set in kB
const once = () => {
  const args = ['-f', '%e %U %S %M', process.execPath, 'bin/run.js', 'group', 'list', '-b', address, '--timeout', timeout]
  if (format === 'json') args.push('--json')
  const r = spawnSync('/usr/bin/time', args, {cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: {...process.env, COLUMNS: '200'}})
  const lines = String(r.stderr).trim().split('\n')
  const [wall, user, sys, rssKb] = lines.at(-1).split(' ').map(Number)
  // a run past --timeout is a figure too (exit 1): counted, with its error line
  if (r.status !== 0) console.error(`group list exited ${r.status}: ${lines.find(l => /rror/.test(l)) ?? lines.at(-2)}`)
  return {wall, cpu: user + sys, rssMb: rssKb / 1024, failed: r.status !== 0}
}
try {
  const xs = Array.from({length: runs}, once)
  const median = k => [...xs.map(x => x[k])].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const [load1] = (await import('node:os')).loadavg()
  console.log(
    JSON.stringify({
      groups,
      format,
      timeout,
      runs,
      wallS: median('wall'),
      cpuS: Number(median('cpu').toFixed(2)),
      peakRssMb: Math.round(median('rssMb')),
      failedRuns: xs.filter(x => x.failed).length,
      load1: Number(load1.toFixed(2)),
    }),
  )
} finally {
  server.kill()
}
