#!/usr/bin/env node
// Start-up cost of an offline command: median wall time of `topic-hash compute` on a one-topic metadata file
// against a bare `node -e 0`, interleaved so machine load hits both alike. Usage: node bench/startup.bench.js [runs]
import {spawnSync} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const runs = Number(process.argv[2] ?? 21)
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const file = join(mkdtempSync(join(tmpdir(), 'rd-startup-')), 'one.json')
writeFileSync(
  file,
  JSON.stringify({
    brokers: [{id: 1, rack: 'rack-a'}],
    topics: [{name: 'orders', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: [{partition: 0, replicas: [1]}]}],
  }),
)

const time = args => {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, args, {stdio: ['ignore', 'ignore', 'pipe']})
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return Number(process.hrtime.bigint() - t0) / 1e6
}
const bare = []
const cmd = []
for (let i = 0; i < runs; i++) {
  bare.push(time(['-e', '0']))
  cmd.push(time([bin, 'topic-hash', 'compute', '-f', file, '--json']))
}
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const result = {runs, nodeBareMs: Math.round(median(bare)), topicHashComputeMs: Math.round(median(cmd))}
result.ratio = Number((result.topicHashComputeMs / result.nodeBareMs).toFixed(2))
console.log(JSON.stringify(result))
