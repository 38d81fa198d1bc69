/**
 * Where a KRaft node keeps the metadata log, as Kafka decides it (KafkaConfig.metadataLogDir): `metadata.log.dir`
 * when set, else the first directory of `log.dirs`, else `log.dir` (default /tmp/kafka-logs). The partition's
 * directory in it is `__cluster_metadata-0`, which `--metadata-log` reads. Every broker keeps a replica of the
 * log, so any broker's copy will do. Pure.
 */
export const METADATA_LOG_KEYS = ['metadata.log.dir', 'log.dirs', 'log.dir'] as const
export const METADATA_PARTITION_DIR = '__cluster_metadata-0'

export interface MetadataLogLocation {
  /** The directory holding __cluster_metadata-0; null when the configs do not tell. */
  dir: string | null
  /** `dir`/__cluster_metadata-0 (the directory to give --metadata-log); null with dir. */
  path: string | null
  /** Which config gave it. */
  source: 'metadata.log.dir' | 'log.dirs' | 'log.dir' | null
}

export function metadataLogLocation(configs: ReadonlyMap<string, string | null>): MetadataLogLocation {
  const set = (k: string) => {
    const v = configs.get(k)
    return v === undefined || v === null || v.trim() === '' ? undefined : v.trim()
  }
  const meta = set('metadata.log.dir')
  const dirs = set('log.dirs')
  const first = dirs
    ?.split(',')
    .map(d => d.trim())
    .find(d => d !== '')
  const dir = meta ?? first ?? set('log.dir') ?? null
  const source = meta ? 'metadata.log.dir' : first ? 'log.dirs' : dir ? 'log.dir' : null
  return {dir, path: dir === null ? null : `${dir.replace(/\/+$/, '')}/${METADATA_PARTITION_DIR}`, source}
}

/** One broker's answer for `cluster metadata-log`. */
export interface MetadataLogNode extends MetadataLogLocation {
  nodeId: number
  host: string
  port: number
  /** Why its configs could not be read, else null (then dir, path and source are null too). */
  error: string | null
}

export function metadataLogNodes(
  brokers: ReadonlyArray<{nodeId: number; host: string; port: number; configs: ReadonlyMap<string, string | null>; error: string | null}>,
): MetadataLogNode[] {
  return brokers.map(b => ({
    nodeId: b.nodeId,
    host: b.host,
    port: b.port,
    ...(b.error === null ? metadataLogLocation(b.configs) : {dir: null, path: null, source: null}),
    error: b.error,
  }))
}
