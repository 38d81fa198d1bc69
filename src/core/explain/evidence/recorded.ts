/**
 * What recorded sources add to a report, as data: the metadata log read (`group explain --metadata-log`), the audit
 * history's attribution of a bump, and its evidence for a classic rejoin. Declared here, with the report types, so
 * that the report declares its own fields; the sources that fill them (src/sources, src/history) import these.
 */

/** One topic as an audit recorded it (the history's line format, src/history/format.ts). */
export interface TopicObservation {
  /** Topic id, Kafka's base64url form. */
  id: string
  partitions: number
  /** Topic hash (KIP-1101), decimal string. */
  hash: string
  /** Distinct racks of the topic's replicas, sorted (empty when no broker has a rack). */
  racks: string[]
  /**
   * Each partition's replicas (broker ids, in the metadata's order; index = partition id), so that a placement or
   * rack change names its partitions. Absent in lines written before it was kept.
   */
  replicas?: number[][]
}

/** Where the metadata log stops being readable exactly: nothing from `offset` on is replayed. */
export interface LogDamage {
  /** The file, and the byte of it, where the damage is (a gap: the file after the missing offsets). */
  file: string
  byte: number
  /** The first offset not read exactly. */
  offset: string
  reason: string
}

/** The KRaft metadata log read: its files, span and what could not be read. */
export interface MetadataLogSource {
  dir: string
  snapshot: {file: string; endOffset: string} | null
  historyStart: {offset: string; time: string | null}
  lastOffset: string | null
  lastTime: string | null
  segments: number
  records: number
  skippedRecords: Record<string, number>
  abortedTransactionRecords: number
  /** The first 100 records that could not be decoded. */
  decodeErrors: Array<{offset: string; message: string}>
  partialTailBytes: number
  /** An incomplete last batch of the last segment (a live file copied mid-write): not read. */
  partialTail: {file: string; byte: number; bytes: number} | null
  /** Damage or a gap that ended the replay: exact history ends before `damage.offset` (at `lastOffset`). */
  damage: LogDamage | null
}

/** One partition's replicas and their racks (null: no rack) at the two moments. */
export interface PartitionChange {
  partition: number
  replicasBefore: number[]
  replicasAfter: number[]
  racksBefore: Array<string | null>
  racksAfter: Array<string | null>
}

export interface TopicChange {
  topic: string
  kind: 'partitions' | 'created' | 'deleted' | 'recreated' | 'racks' | 'placement'
  before: TopicObservation | null
  after: TopicObservation | null
  /** Last recorded time with the old value, first recorded time with the new one (ISO-8601). */
  lastSeenBefore: string
  firstSeenAfter: string
  description: string
  /** racks, placement: the partitions whose replicas or their racks differ (both moments' replica lists recorded). */
  partitions?: PartitionChange[]
}

/** group explain with an audit history: the exact change between two recorded audits. */
export interface HistoryAttribution {
  source: 'history'
  changes: TopicChange[]
  /** Broker rack changes between the two moments (racks only; they explain 'racks'/'placement' kinds). */
  brokers: Array<{id: number; before: string | null | 'absent'; after: string | null | 'absent'}>
  lastSeenBefore: string
  firstSeenAfter: string
  message: string
}

/** classic-metadata-rejoin: the partition counts the audit history recorded. */
export interface ClassicHistoryEvidence {
  source: 'history'
  exact: boolean
  message: string
  topics: Array<{topic: string; before: number; after: number; lastSeenBefore: string; firstSeenAfter: string}>
}
