/**
 * vitest globalSetup of the integration suite: starts one test cluster (kafka-it/cluster.sh) for KAFKA_VERSION
 * (default 4.4.0) on KAFKA_IT_PORT_BASE (default: the first free of 19300, 19330, ...) and always stops it
 * afterwards, even when tests fail.
 * Tests find the cluster through inject('kafkaItEnvFile') / process.env.KAFKA_IT_ENV_FILE.
 */
import {execFile} from 'node:child_process'
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import type {TestProject} from 'vitest/node'
import {CLUSTER_SH, REPO_ROOT} from './cluster.js'

const run = promisify(execFile)

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaItEnvFile: string
    /** dist/ was compiled from src/ for this run (once, here), so the files' buildOnce() has nothing to do */
    itDistBuilt: boolean
  }
}

/**
 * Compiles src -> dist once per run, while the cluster starts (the CLI runs from dist). It used to run in every
 * file's beforeAll: 15 tsc runs, 8 s of CPU and 20-35 s of wall each on the shared 2-core machine.
 * RD_IT_DIST_BUILT=1: the caller built dist already (scripts/test-all.sh, before suites that run side by side:
 * two compilers writing one dist/ while the other suite's CLI reads it would be a race).
 */
async function buildDist(): Promise<void> {
  if (process.env.RD_IT_DIST_BUILT === '1') return
  // tsc emits even when some file has type errors (e.g. another module mid-edit); what we run must exist.
  await run('npx', ['tsc', '-p', 'tsconfig.json'], {cwd: REPO_ROOT, timeout: 300_000}).catch((error: {stdout?: string}) => {
    if (!existsSync(join(REPO_ROOT, 'dist', 'commands', 'cluster', 'snapshot.js'))) throw new Error(`build failed: ${error.stdout ?? error}`)
  })
}

export default async function setup(project: TestProject) {
  const version = process.env.KAFKA_VERSION || '4.4.0'
  // KAFKA_IT_PORT_BASE pins the ports; otherwise the first free range of 19300, 19330, ... is used, so that
  // several suites (other engineers, a CI dry run) can run at once on one machine. KAFKA_IT_PORT_SLOT=I/N (set by
  // scripts/test-all.sh for suites it runs side by side) takes only every N-th range from the I-th: two suites
  // started at the same moment never try the same range (a range is seen free until its JVMs bind it).
  const pinned = process.env.KAFKA_IT_PORT_BASE
  const [slot, slots] = (/^(\d+)\/(\d+)$/.exec(process.env.KAFKA_IT_PORT_SLOT ?? '')?.slice(1) ?? ['0', '1']).map(Number)
  const candidates = pinned ? [pinned] : Array.from({length: 20}, (_, i) => String(19300 + 30 * (slot + slots * i)))
  let portBase = ''
  let runDir = ''
  let env: NodeJS.ProcessEnv = {}
  const sh = (...args: string[]) => run('bash', [CLUSTER_SH, ...args], {env, maxBuffer: 64 << 20, timeout: 600_000})
  const stop = async () => {
    try {
      await sh('stop')
    } catch (error) {
      console.error(`[kafka-it] stop failed: ${(error as Error).message}`)
    }
  }

  const t0 = Date.now()
  const built = buildDist().then(() => console.log(`[kafka-it] dist built in ${Date.now() - t0} ms`))
  built.catch(() => undefined) // awaited below, after the cluster start
  for (const base of candidates) {
    portBase = base
    runDir = process.env.KAFKA_IT_RUN_DIR || join(REPO_ROOT, '.kafka-run', `${version}-${portBase}`)
    env = {...process.env, KAFKA_VERSION: version, KAFKA_IT_PORT_BASE: portBase, KAFKA_IT_RUN_DIR: runDir}
    // A run dir with live processes (another suite on this tree, or orphans of an aborted run) is never touched:
    // start refuses it, and so does a taken port; the next range is tried instead.
    try {
      const {stdout} = await sh('start')
      console.log(`[kafka-it] Kafka ${version} up in ${Date.now() - t0} ms at ${stdout.trim()} (run dir ${runDir})`)
      break
    } catch (error) {
      const e = error as Error & {stderr?: string}
      if (/port \d+ is in use|already running/.test(e.stderr ?? '')) {
        if (!pinned) continue
        throw new Error(`[kafka-it] Kafka ${version}: ${e.stderr?.trim()}`)
      }
      await stop() // what this start left behind
      await built.catch(() => undefined)
      throw new Error(`[kafka-it] cluster start failed for Kafka ${version}: ${e.message}\n${e.stderr ?? ''}`)
    }
  }
  try {
    await built
  } catch (error) {
    await stop()
    throw error
  }
  project.provide('itDistBuilt', true)
  const envFile = join(runDir, 'cluster.env')
  process.env.KAFKA_IT_ENV_FILE = envFile
  project.provide('kafkaItEnvFile', envFile)
  const startMs = Date.now() - t0

  return async () => {
    try {
      if (existsSync(envFile)) {
        const {stdout} = await sh('status').catch((e: {stdout?: string}) => ({stdout: e.stdout ?? ''}))
        const nodes = stdout.trim().split('\n').filter(Boolean)
        const peakKb = nodes.map(l => Number(/peak_rss_kb=(\d+)/.exec(l)?.[1] ?? 0))
        const summary = {
          kafkaVersion: version,
          clusterStartMs: startMs,
          peakRssKbPerNode: Object.fromEntries(nodes.map((l, i) => [l.split(' ')[0], peakKb[i]])),
          peakRssMbSum: Math.round(peakKb.reduce((a, b) => a + b, 0) / 1024),
        }
        console.log(`[kafka-it] ${JSON.stringify(summary)}`)
        mkdirSync(join(REPO_ROOT, '.kafka-run'), {recursive: true})
        writeFileSync(join(REPO_ROOT, '.kafka-run', `it-summary-${version}.json`), `${JSON.stringify(summary, null, 2)}\n`)
      }
    } finally {
      await stop()
    }
  }
}
