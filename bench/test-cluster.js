// The test cluster a cluster benchmark runs against (kafka-it/cluster.sh start with the same KAFKA_VERSION,
// KAFKA_IT_PORT_BASE, KAFKA_IT_RUN_DIR): its run dir and the values of its cluster.env.
import {readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const version = process.env.KAFKA_VERSION ?? '4.4.0'
export const base = process.env.KAFKA_IT_PORT_BASE ?? '19090'
export const runDir = process.env.KAFKA_IT_RUN_DIR ?? join(root, '.kafka-run', `${version}-${base}`)

/** cluster.env as an object (BOOTSTRAP, LIBS, DRIVER_CLASSES, IT_DIR, OFFSETS_TOPIC_PARTITIONS, ...). */
export function clusterEnv() {
  const text = readFileSync(join(runDir, 'cluster.env'), 'utf8')
  return Object.fromEntries(
    text
      .split('\n')
      .filter(l => /^\w+=/.test(l))
      .map(l => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  )
}
