/**
 * From fetched record batches to replay input: keeps one group's records (a cheap key peek, no
 * value decoding for other groups), decodes them, and tags each with its batch base offset so
 * replay groups a coordinator write. Structural types, so any reader's batches plug in
 * (src/core/log's LogBatch fits).
 */
import {RecordDecodeError, decodeRecord, groupIdOfKey} from '../records/index.js'
import type {LoggedRecord} from './replay.js'

export interface RecordLike {
  readonly offset: bigint
  /** ms since the epoch. */
  readonly timestamp: bigint | number
  readonly key: Uint8Array | null
  readonly value: Uint8Array | null
}

export interface BatchLike {
  readonly baseOffset: bigint
  readonly records: readonly RecordLike[]
}

export interface DecodeBatchOptions {
  /** Keep only this group's records. */
  readonly groupId?: string
  /** Collect malformed records here instead of throwing (a corrupt record should not end a read). */
  readonly errors?: RecordDecodeError[]
}

export function decodeBatch(batch: BatchLike, options: DecodeBatchOptions = {}): LoggedRecord[] {
  const out: LoggedRecord[] = []
  for (const r of batch.records) {
    if (options.groupId !== undefined && (r.key === null || groupIdOfKey(r.key) !== options.groupId)) continue
    try {
      out.push({offset: r.offset, timestamp: Number(r.timestamp), batchBaseOffset: batch.baseOffset, record: decodeRecord(r.key, r.value, r.offset)})
    } catch (e) {
      if (!(e instanceof RecordDecodeError) || !options.errors) throw e
      options.errors.push(e)
    }
  }
  return out
}
