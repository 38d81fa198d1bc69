/** Record batches as a partition fetch returns them (magic v2), reduced to what replay needs. */
export interface LogRecord {
  offset: bigint
  /** Milliseconds since the epoch (CreateTime; the coordinator's append time). */
  timestamp: bigint
  key: Uint8Array | null
  /** null = a tombstone. */
  value: Uint8Array | null
}

export interface LogBatch {
  baseOffset: bigint
  lastOffset: bigint
  producerId: bigint
  isTransactional: boolean
  isControl: boolean
  records: LogRecord[]
  /** Records in the batch when `records` holds only some of them (a reader that skipped records by key). */
  recordCount?: number
}

/** From the Fetch response: a transaction of `producerId` that starts at `firstOffset` was aborted. */
export interface AbortedTransaction {
  producerId: bigint
  firstOffset: bigint
}

/** Control record key: int16 version, int16 type (0 = ABORT, 1 = COMMIT). */
export function controlType(key: Uint8Array | null): 'abort' | 'commit' | 'unknown' {
  if (!key || key.length < 4) return 'unknown'
  const type = (key[2] << 8) | key[3]
  return type === 0 ? 'abort' : type === 1 ? 'commit' : 'unknown'
}
