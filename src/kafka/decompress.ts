/**
 * Record-batch decompression with an output bound. A batch's compressed size is limited by the broker, its
 * decompressed size is not: 1 MB of gzip inflates to 1 GiB. Each codec is checked before (or while) it
 * allocates: gzip and zstd through zlib's maxOutputLength, snappy by the uncompressed lengths its blocks declare,
 * lz4 by its blocks' sizes (at most 255× each, never over the frame's block maximum). A batch over the bound is a
 * DecompressionLimitError.
 */
import zlib from 'node:zlib'
import {byteLimitFromEnv} from '../config/limits.js'
import {ProtocolDecodeError} from './wire.js'
import type {Compression, Decompress} from './record-batch.js'

export const MAX_BATCH_ENV = 'REBALANCE_DOCTOR_MAX_BATCH_BYTES'
/** The coordinator writes __consumer_offsets batches of at most ~1 MiB; user topics' batches are rarely >16 MiB. */
export const DEFAULT_MAX_BATCH_BYTES = 64 << 20

export class DecompressionLimitError extends ProtocolDecodeError {
  override name = 'DecompressionLimitError'
}

export function maxBatchBytes(env: NodeJS.ProcessEnv = process.env): number {
  return byteLimitFromEnv(MAX_BATCH_ENV, DEFAULT_MAX_BATCH_BYTES, env)
}

function tooLarge(codec: string, limit: number, what = 'decompresses to'): DecompressionLimitError {
  return new DecompressionLimitError(`${codec} data ${what} more than ${limit} bytes (the bound; raise $${MAX_BATCH_ENV} if the batch is legitimate)`)
}

/** zlib codecs: the output stops at the bound. */
function zlibBounded(codec: string, fn: ((b: Buffer, o: zlib.ZlibOptions) => Buffer) | undefined, data: Buffer, limit: number): Buffer {
  if (!fn) throw new ProtocolDecodeError(`${codec} compression is not supported by this Node.js (${process.version})`)
  try {
    return fn(data, {maxOutputLength: limit})
  } catch (error) {
    if ((error as {code?: string}).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(codec, limit)
    throw new ProtocolDecodeError(`${codec} data is corrupt (${(error as Error).message})`)
  }
}

function uvarintAt(b: Buffer, pos: number): number {
  let value = 0
  for (let shift = 0; shift <= 28; shift += 7) {
    if (pos >= b.length) throw new ProtocolDecodeError('snappy data is truncated')
    const x = b[pos++]
    value += (x & 0x7f) * 2 ** shift
    if ((x & 0x80) === 0) return value
  }
  throw new ProtocolDecodeError('snappy length varint is too long')
}

const XERIAL = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00])

/** What a snappy payload says it decompresses to: raw snappy's length prefix, or the sum over xerial blocks. */
export function snappyDeclaredSize(data: Buffer): number {
  if (data.length < 16 || !data.subarray(0, 8).equals(XERIAL)) return uvarintAt(data, 0)
  let total = 0
  for (let pos = 16; pos < data.length; ) {
    if (pos + 4 > data.length) throw new ProtocolDecodeError('snappy block is truncated')
    const n = data.readInt32BE(pos)
    if (n < 0 || pos + 4 + n > data.length) throw new ProtocolDecodeError('snappy block is truncated')
    total += uvarintAt(data, pos + 4)
    pos += 4 + n
  }
  return total
}

const LZ4_MAGIC = 0x184d2204
const LZ4_BLOCK_MAX = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20]

/** An upper bound of what an lz4 frame (or frames) decompresses to, from its block sizes (and content size if declared). */
export function lz4UpperBound(data: Buffer): number {
  let total = 0
  let pos = 0
  while (pos < data.length) {
    if (pos + 7 > data.length || data.readUInt32LE(pos) !== LZ4_MAGIC) throw new ProtocolDecodeError('lz4 frame is malformed (no frame magic)')
    const flg = data[pos + 4]
    const blockMax = LZ4_BLOCK_MAX[(data[pos + 5] >> 4) & 7]
    if (flg >> 6 !== 1 || !blockMax) throw new ProtocolDecodeError('lz4 frame header is malformed')
    const hasContentSize = (flg & 0x08) !== 0
    let declared: number | undefined
    pos += 6
    if (hasContentSize) {
      if (pos + 8 > data.length) throw new ProtocolDecodeError('lz4 frame header is truncated')
      declared = Number(data.readBigUInt64LE(pos))
      pos += 8
    }
    if (flg & 0x01) pos += 4 // dictionary id
    pos += 1 // header checksum
    let bound = 0
    for (;;) {
      if (pos + 4 > data.length) throw new ProtocolDecodeError('lz4 frame is truncated')
      const word = data.readUInt32LE(pos)
      const size = word & 0x7fffffff
      pos += 4
      if (size === 0) break
      if (size > blockMax) throw new ProtocolDecodeError('lz4 block is larger than the frame allows')
      // A stored block is itself; a compressed one yields at most 255 bytes per input byte (LZ4's length
      // encoding) and never more than the frame's block maximum.
      bound += word & 0x80000000 ? size : Math.min(blockMax, size * 255 + 64)
      pos += size + (flg & 0x10 ? 4 : 0)
    }
    if (flg & 0x04) pos += 4 // content checksum
    total += declared === undefined ? bound : Math.min(declared, bound)
  }
  return total
}

/** Wraps the library's decompressor (snappy and lz4 from its WebAssembly module) with the output bound. */
export function boundedDecompressor(limit: number, library: (codec: Compression, data: Buffer) => Buffer): Decompress {
  return (codec, data) => {
    let out: Buffer
    switch (codec) {
      case 'none':
        return data
      case 'gzip':
        return zlibBounded('gzip', zlib.gunzipSync, data, limit)
      case 'zstd':
        return zlibBounded('zstd', (zlib as unknown as {zstdDecompressSync?: (b: Buffer, o: zlib.ZlibOptions) => Buffer}).zstdDecompressSync, data, limit)
      case 'snappy':
        if (snappyDeclaredSize(data) > limit) throw tooLarge('snappy', limit, 'declares')
        out = library(codec, data)
        break
      case 'lz4':
        if (lz4UpperBound(data) > limit) throw tooLarge('lz4', limit, 'may decompress to')
        out = library(codec, data)
        break
    }
    if (out.length > limit) throw tooLarge(codec, limit)
    return out
  }
}
