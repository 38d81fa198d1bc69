/**
 * From fetched record batches to replay input: keeps one group's records (a byte comparison on the raw key,
 * no string and no value decoding for other groups), decodes them, and tags each with its batch base offset so
 * replay groups a coordinator write. Structural types, so any reader's batches plug in
 * (src/core/log's LogBatch fits).
 */
import {RecordDecodeError, decodeRecord} from '../records/index.js'
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
  /** Keep only records whose key this accepts (groupKeyMatcher; made once per read, not per batch). */
  readonly matchKey?: (key: Uint8Array | null) => boolean
  /** Collect malformed records here instead of throwing (a corrupt record should not end a read). */
  readonly errors?: RecordDecodeError[]
}

/**
 * Does a raw `__consumer_offsets` key belong to `groupId`? Every key (offset commits, classic and modern group
 * records) starts with an int16 type, then the group id as an int16 length and UTF-8 bytes: compared as bytes,
 * so the records of the partition's other groups cost no string decoding.
 */
export function groupKeyMatcher(groupId: string): (key: Uint8Array | null) => boolean {
  const at = groupKeyMatcherAt(groupId)
  return key => key !== null && at(key, 0, key.length)
}

/** groupKeyMatcher on a key inside a larger buffer (`length` -1: a null key), as the batch parser asks it. */
export function groupKeyMatcherAt(groupId: string): (buf: Uint8Array, start: number, length: number) => boolean {
  const id = new TextEncoder().encode(groupId)
  const n = id.length
  return (key, s, length) => {
    if (length < 4 + n || (((key[s + 2] << 24) >> 16) | key[s + 3]) !== n) return false
    for (let i = 0; i < n; i++) if (key[s + 4 + i] !== id[i]) return false
    return true
  }
}

export function decodeBatch(batch: BatchLike, options: DecodeBatchOptions = {}): LoggedRecord[] {
  const out: LoggedRecord[] = []
  const match = options.matchKey ?? (options.groupId === undefined ? undefined : groupKeyMatcher(options.groupId))
  for (const r of batch.records) {
    if (match && !match(r.key)) continue
    try {
      out.push({offset: r.offset, timestamp: Number(r.timestamp), batchBaseOffset: batch.baseOffset, record: decodeRecord(r.key, r.value, r.offset)})
    } catch (e) {
      if (!(e instanceof RecordDecodeError) || !options.errors) throw e
      options.errors.push(e)
    }
  }
  return out
}
