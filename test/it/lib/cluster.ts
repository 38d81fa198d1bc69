/**
 * The integration-test cluster (kafka-it/cluster.sh): its cluster.env, and per-node operations.
 * The cluster is started once per vitest run by global-setup.ts; tests find it through KAFKA_IT_ENV_FILE.
 */
import {execFile} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {promisify} from 'node:util'

const run = promisify(execFile)

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url))
export const CLUSTER_SH = fileURLToPath(new URL('../../../kafka-it/cluster.sh', import.meta.url))

export interface ClusterEnv {
  /** Every KEY=VALUE of $RUN_DIR/cluster.env. */
  readonly raw: Readonly<Record<string, string>>
  readonly kafkaVersion: string
  readonly bootstrap: string
  readonly runDir: string
  readonly libs: string
  readonly driverClasses: string
  readonly itDir: string
  readonly offsetsPartitions: number
  readonly dumpLogSegmentsClass: string
  readonly brokerIds: readonly number[]
  brokerLogDir(id: number): string
}

export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line)
    if (m) out[m[1]] = m[2]
  }
  return out
}

export function readClusterEnv(file = process.env.KAFKA_IT_ENV_FILE): ClusterEnv {
  if (!file) throw new Error('KAFKA_IT_ENV_FILE is not set: run the integration tests with `vitest run --config vitest.it.config.ts`')
  const raw = parseEnvFile(readFileSync(file, 'utf8'))
  const need = (k: string) => {
    const v = raw[k]
    if (v === undefined || v === '') throw new Error(`${file}: no ${k}`)
    return v
  }
  return {
    raw,
    kafkaVersion: need('KAFKA_VERSION'),
    bootstrap: need('BOOTSTRAP'),
    runDir: need('RUN_DIR'),
    libs: need('LIBS'),
    driverClasses: need('DRIVER_CLASSES'),
    itDir: need('IT_DIR'),
    offsetsPartitions: Number(need('OFFSETS_TOPIC_PARTITIONS')),
    dumpLogSegmentsClass: need('DUMP_LOG_SEGMENTS_CLASS'),
    brokerIds: need('BROKER_IDS').split(' ').map(Number),
    brokerLogDir: (id: number) => need(`BROKER_${id}_LOG_DIR`),
  }
}

/** Environment for cluster.sh so that it addresses the same cluster as cluster.env. */
function shEnv(env: ClusterEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KAFKA_VERSION: env.kafkaVersion,
    KAFKA_IT_PORT_BASE: env.raw.PORT_BASE,
    KAFKA_IT_RUN_DIR: env.runDir,
    KAFKA_IT_LIBS: env.libs,
  }
}

export async function clusterSh(env: ClusterEnv, ...args: string[]): Promise<string> {
  const {stdout} = await run('bash', [CLUSTER_SH, ...args], {env: shEnv(env), maxBuffer: 64 << 20, timeout: 180_000})
  return stdout
}

export const killBroker = (env: ClusterEnv, id: number) => clusterSh(env, 'kill-broker', String(id))
export const startBroker = (env: ClusterEnv, id: number, rack?: string) => clusterSh(env, 'start-broker', String(id), ...(rack ? ['--rack', rack] : []))

/** Kafka semver compare: versionAtLeast('4.1.2', '4.2') === false. */
export function versionAtLeast(version: string, min: string): boolean {
  const a = version.split(/[.-]/).map(x => Number.parseInt(x, 10) || 0)
  const b = min.split(/[.-]/).map(x => Number.parseInt(x, 10) || 0)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0)
  }
  return true
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, {timeoutMs = 60_000, intervalMs = 500} = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const v = await probe()
      if (v !== undefined && v !== false) return v
    } catch (error) {
      lastError = error
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `; last error: ${(lastError as Error).message}` : ''}`)
    }
    await new Promise(r => setTimeout(r, intervalMs))
  }
}

export const sleep = (ms: number) => new Promise(r => setTimeout(r, ms))
