/**
 * vitest globalSetup of the integration suite: starts one test cluster (kafka-it/cluster.sh) for KAFKA_VERSION
 * (default 4.4.0) on KAFKA_IT_PORT_BASE (default 19300) and always stops it afterwards, even when tests fail.
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
  }
}

export default async function setup(project: TestProject) {
  const version = process.env.KAFKA_VERSION || '4.4.0'
  const portBase = process.env.KAFKA_IT_PORT_BASE || '19300'
  const runDir = process.env.KAFKA_IT_RUN_DIR || join(REPO_ROOT, '.kafka-run', `${version}-${portBase}`)
  const env = {...process.env, KAFKA_VERSION: version, KAFKA_IT_PORT_BASE: portBase, KAFKA_IT_RUN_DIR: runDir}
  const sh = (...args: string[]) => run('bash', [CLUSTER_SH, ...args], {env, maxBuffer: 64 << 20, timeout: 600_000})
  const stop = async () => {
    try {
      await sh('stop')
    } catch (error) {
      console.error(`[kafka-it] stop failed: ${(error as Error).message}`)
    }
  }

  await stop() // leftovers of an aborted run in this run dir (only pids recorded there are killed)
  const t0 = Date.now()
  try {
    const {stdout} = await sh('start')
    console.log(`[kafka-it] Kafka ${version} up in ${Date.now() - t0} ms at ${stdout.trim()} (run dir ${runDir})`)
  } catch (error) {
    const e = error as Error & {stderr?: string}
    await stop()
    throw new Error(`[kafka-it] cluster start failed for Kafka ${version}: ${e.message}\n${e.stderr ?? ''}`)
  }
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
