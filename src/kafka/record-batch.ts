/**
 * Record batches (magic v2) from a Fetch response's Records bytes, as raw as replay needs them: batch header
 * (offsets, attributes with the transactional and control flags, producer id/epoch, timestamps) and each record's
 * offset, timestamp, key and value bytes, headers. Pure; decompression is passed in (gzip, snappy, lz4, zstd).
 * A trailing partial batch (the broker cuts the response at max bytes) is not returned; `nextOffset` says where
 * to fetch next. Every batch's CRC-32C is checked before it is decoded (CorruptBatchError), as Kafka's consumer does.
 */
import {crc32c} from '@node-rs/crc32'
import type {LogBatch, LogRecord} from '../core/log/batch.js'
import {ByteReader} from '../core/records/bytes.js'
import {DecodeFault} from '../core/records/errors.js'
import {ProtocolDecodeError} from './wire.js'

/**
 * A batch whose CRC-32C (over attributes to the end) does not match its bytes: damaged on disk or on the way.
 * Kafka's consumer refuses such a batch (check.crcs, on by default); so does every reader here.
 * `position`: the batch's first byte in the bytes given to recordBatches.
 */
export class CorruptBatchError extends ProtocolDecodeError {
  override name = 'CorruptBatchError'
  constructor(
    message: string,
    readonly baseOffset: bigint,
    readonly position: number,
  ) {
    super(message)
  }
}

/** The CRC-32C Kafka stores at byte 17 of a v2 batch: over its bytes from the attributes (byte 21) to its end. */
export function batchCrc(batch: Uint8Array): number {
  return crc32c(batch.subarray(21)) >>> 0
}

export type Compression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'
export const COMPRESSIONS: readonly Compression[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

/**
 * A record as the broker sent it. Key, value and header values are views into the fetch (or decompressed) buffer:
 * readers decode a batch and drop it, and the record decoder copies what it keeps; copy to keep them longer.
 */
export interface RawRecord extends LogRecord {
  readonly headers: Array<{key: string; value: Uint8Array | null}>
}

/**
 * Keeps a data record when true: `buf[start, start + length)` is its key (`length` -1: a null key). Records it
 * refuses are stepped over by their length, with no objects made for them (no key/value views, no offset).
 */
export type KeyFilter = (buf: Uint8Array, start: number, length: number) => boolean

export interface RawRecordBatch extends LogBatch {
  /** Records the batch holds, including those a KeyFilter left out of `records`. */
  readonly recordCount: number
  readonly partitionLeaderEpoch: number
  readonly magic: number
  readonly attributes: number
  readonly compression: Compression
  readonly producerEpoch: number
  readonly baseSequence: number
  readonly baseTimestamp: bigint
  readonly maxTimestamp: bigint
  readonly records: RawRecord[]
}

export type Decompress = (codec: Compression, data: Buffer) => Buffer

const HEADER = 61 // bytes from baseOffset to the first record

/** A zig-zag varint; records' lengths and deltas are one or two bytes, read here without ByteReader's loop. */
function varint(rr: ByteReader): number {
  const b = rr.buf
  const p = rr.pos
  if (p + 1 < rr.end) {
    const x = b[p]
    if ((x & 0x80) === 0) {
      rr.pos = p + 1
      return (x >>> 1) ^ -(x & 1)
    }
    const y = b[p + 1]
    if ((y & 0x80) === 0) {
      const u = (x & 0x7f) | (y << 7)
      rr.pos = p + 2
      return (u >>> 1) ^ -(u & 1)
    }
  }
  return rr.varint()
}

/** Steps over a varint or varlong (up to 10 bytes) without decoding it. */
function skipVarint(rr: ByteReader): void {
  const b = rr.buf
  for (let n = 0; n < 10; n++) {
    if (rr.pos >= rr.end) throw new ProtocolDecodeError(`record truncated at offset ${rr.pos}`)
    if ((b[rr.pos++] & 0x80) === 0) return
  }
  throw new ProtocolDecodeError(`varlong too long at offset ${rr.pos}`)
}

/** `keep`: only data records whose key it accepts are made into objects (control batches are always whole). */
export function parseRecordBatches(bytes: Buffer, decompress: Decompress, keep?: KeyFilter): {batches: RawRecordBatch[]; nextOffset: bigint | undefined} {
  const batches = [...recordBatches(bytes, decompress, keep)]
  const last = batches.at(-1)
  return {batches, nextOffset: last && last.lastOffset + 1n}
}

/**
 * The batches one at a time, each decoded when it is reached: a reader that applies and drops each batch holds one
 * batch's records, not the whole response's (a fetch of small offset commits is tens of thousands of record objects,
 * which the GC would otherwise promote and keep until the response is done). A corrupt batch throws when it is
 * reached, after the batches before it were yielded.
 */
export function* recordBatches(bytes: Buffer, decompress: Decompress, keep?: KeyFilter): Generator<RawRecordBatch, void, undefined> {
  let pos = 0
  while (bytes.length - pos >= 12) {
    const batchLength = bytes.readInt32BE(pos + 8)
    // A v2 batch is at least its header; a negative length would also make subarray count from the end.
    if (batchLength < HEADER - 12)
      throw new ProtocolDecodeError(`record batch at offset ${bytes.readBigInt64BE(pos)} has length ${batchLength}, less than a batch header`)
    const end = pos + 12 + batchLength
    if (end > bytes.length) break // partial batch at the end of the response
    const r = new ByteReader(bytes.subarray(pos, end))
    const baseOffset = r.int64()
    r.int32() // batch length
    const partitionLeaderEpoch = r.int32()
    const magic = r.int8()
    if (magic !== 2) throw new ProtocolDecodeError(`record batch at offset ${baseOffset} has magic ${magic}; only v2 batches are supported`)
    const storedCrc = r.uint32()
    const crc = batchCrc(bytes.subarray(pos, end))
    if (crc !== storedCrc) {
      const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`
      throw new CorruptBatchError(`record batch at offset ${baseOffset} is corrupt: stored CRC-32C ${hex(storedCrc)}, computed ${hex(crc)}`, baseOffset, pos)
    }
    const attributes = r.int16()
    const lastOffsetDelta = r.int32()
    const baseTimestamp = r.int64()
    const maxTimestamp = r.int64()
    const producerId = r.int64()
    const producerEpoch = r.int16()
    const baseSequence = r.int32()
    const count = r.int32()
    const compression = COMPRESSIONS[attributes & 0x07]
    if (!compression) throw new ProtocolDecodeError(`record batch at offset ${baseOffset} has unknown compression ${attributes & 0x07}`)
    const body = batchBody(bytes.subarray(pos + HEADER, end), compression, decompress, baseOffset)
    const records = batchRecords(body, count, baseOffset, baseTimestamp, (attributes & 0x20) === 0 ? keep : undefined)
    const lastOffset = baseOffset + BigInt(lastOffsetDelta)
    pos = end
    yield {
      baseOffset,
      lastOffset,
      partitionLeaderEpoch,
      magic,
      attributes,
      compression,
      isTransactional: (attributes & 0x10) !== 0,
      isControl: (attributes & 0x20) !== 0,
      producerId,
      producerEpoch,
      baseSequence,
      baseTimestamp,
      maxTimestamp,
      records,
      recordCount: count,
    }
  }
}

/** A batch's records section, decompressed; a codec's failure names the batch. */
function batchBody(body: Buffer, compression: Compression, decompress: Decompress, baseOffset: bigint): Buffer {
  if (compression === 'none') return body
  try {
    return decompress(compression, body)
  } catch (error) {
    const m = `record batch at offset ${baseOffset} (${compression}): ${(error as Error).message}`
    // Keep the class (DecompressionLimitError); anything else the codecs throw becomes a decode error.
    throw error instanceof ProtocolDecodeError
      ? Object.assign(new (error.constructor as typeof ProtocolDecodeError)(m), {name: error.name})
      : new ProtocolDecodeError(m)
  }
}

/** The batch's `count` records (those whose key `filter` refuses are skipped whole, by their length). */
function batchRecords(body: Buffer, count: number, baseOffset: bigint, baseTimestamp: bigint, filter: KeyFilter | undefined): RawRecord[] {
  const rr = new ByteReader(body)
  const records: RawRecord[] = []
  try {
    for (let i = 0; i < count; i++) {
      const length = varint(rr) // record length
      if (filter) {
        // peek at the key; a refused record is skipped whole by its length
        const start = rr.pos
        rr.int8() // attributes
        skipVarint(rr) // timestamp delta
        skipVarint(rr) // offset delta
        const keyLength = varint(rr)
        if (keyLength > rr.remaining) throw new ProtocolDecodeError(`record key truncated at offset ${rr.pos}`)
        if (!filter(body, rr.pos, keyLength)) {
          if (length < 0 || start + length > body.length) throw new ProtocolDecodeError(`record length ${length} at offset ${start} is past the batch end`)
          rr.pos = start + length
          continue
        }
        rr.pos = start
      }
      rr.int8() // attributes (unused)
      const timestampDelta = rr.varlong()
      const offsetDelta = varint(rr)
      const keyLength = varint(rr)
      const key = keyLength < 0 ? null : rr.view(keyLength, 'key')
      const valueLength = varint(rr)
      const value = valueLength < 0 ? null : rr.view(valueLength, 'value')
      const headers: RawRecord['headers'] = []
      const headerCount = varint(rr)
      for (let h = 0; h < headerCount; h++) {
        const hk = rr.utf8(rr.varint())
        const hl = rr.varint()
        headers.push({key: hk, value: hl < 0 ? null : rr.view(hl, 'header value')})
      }
      records.push({offset: baseOffset + BigInt(offsetDelta), timestamp: baseTimestamp + timestampDelta, key, value, headers})
    }
  } catch (error) {
    // the shared reader (src/core) throws DecodeFault; the kafka side's callers and tests expect ProtocolDecodeError
    if (!(error instanceof DecodeFault)) throw error
    throw new ProtocolDecodeError(`record batch at offset ${baseOffset}: ${error.reason} at byte ${error.position} of its records`)
  }
  return records
}
