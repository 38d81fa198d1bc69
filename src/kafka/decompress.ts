/**
 * Record-batch decompression with an output bound. A batch's compressed size is limited by the broker, its
 * decompressed size is not: 1 MB of gzip inflates to 1 GiB. Each codec is checked before (or while) it
 * allocates: gzip through zlib's maxOutputLength, snappy by the uncompressed lengths its blocks declare, lz4 by
 * its blocks' sizes (at most 255× each, never over the frame's block maximum), zstd block by block as it streams
 * out (after its frames' window sizes are checked: the decoder allocates the window first). A batch over the
 * bound is a DecompressionLimitError.
 */
import zlib from 'node:zlib'
import {byteLimitFromEnv} from '../config/limits.js'
import {ProtocolDecodeError} from './wire.js'
import type {Decompress} from './record-batch.js'

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
function zlibBounded(codec: string, fn: (b: Buffer, o: zlib.ZlibOptions) => Buffer, data: Buffer, limit: number): Buffer {
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

/**
 * A snappy payload's raw snappy blocks: itself, or the blocks of xerial's framing (snappy-java's SnappyOutputStream,
 * what Kafka's Java clients and brokers write: magic, version, compatible version, then [int32 length][raw block]).
 */
export function snappyBlocks(data: Buffer): Buffer[] {
  if (data.length < 16 || !data.subarray(0, 8).equals(XERIAL)) return [data]
  const blocks: Buffer[] = []
  for (let pos = 16; pos < data.length; ) {
    if (pos + 4 > data.length) throw new ProtocolDecodeError('snappy block is truncated')
    const n = data.readInt32BE(pos)
    if (n < 0 || pos + 4 + n > data.length) throw new ProtocolDecodeError('snappy block is truncated')
    blocks.push(data.subarray(pos + 4, pos + 4 + n))
    pos += 4 + n
  }
  return blocks
}

/** What a snappy payload says it decompresses to: the sum of its raw blocks' length prefixes. */
export function snappyDeclaredSize(data: Buffer): number {
  return snappyBlocks(data).reduce((total, block) => total + uvarintAt(block, 0), 0)
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

const ZSTD_MAGIC = 0xfd2fb528
/**
 * The largest zstd window decoded: zstd's own default limit for decoders (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 2^27), which
 * zstd-jni and so Kafka's consumer keep; producers at levels up to 22 stay within it. The decoder allocates the
 * window before any output, so this bounds its memory as the output bound cannot.
 */
export const ZSTD_MAX_WINDOW = 1 << 27

/** A frame's window descriptor (its offset in the data) and the smallest window that decodes it the same. */
interface WindowFit {
  readonly at: number
  readonly descriptor: number
}

/**
 * Walks zstd frames (RFC 8878: frame header, 3-byte block headers, optional checksum; skippable frames) without
 * decoding, so that a frame the decoder would over-allocate for, or a truncated one, is refused first. Returns,
 * for frames whose declared window exceeds what they can produce, a smaller window descriptor (see zstdBounded).
 */
export function zstdCheckFrames(data: Buffer): WindowFit[] {
  const fits: WindowFit[] = []
  let pos = 0
  const need = (n: number) => {
    if (pos + n > data.length) throw new ProtocolDecodeError('zstd frame is truncated')
  }
  while (pos < data.length) {
    need(4)
    const magic = data.readUInt32LE(pos)
    pos += 4
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      need(4)
      pos += 4 + data.readUInt32LE(pos) // skippable frame
      need(0)
      continue
    }
    if (magic !== ZSTD_MAGIC) throw new ProtocolDecodeError('zstd data is corrupt (no frame magic)')
    need(1)
    const fhd = data[pos++]
    if (fhd & 0x08) throw new ProtocolDecodeError('zstd frame header is malformed (reserved bit set)')
    const singleSegment = (fhd & 0x20) !== 0
    let window = 0
    const descriptorAt = pos
    if (!singleSegment) {
      need(1)
      const wd = data[pos++]
      const base = 2 ** (10 + (wd >> 3))
      window = base + (base / 8) * (wd & 7)
    }
    pos += [0, 1, 2, 4][fhd & 3] // dictionary id
    const fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fhd >> 6]
    need(fcsBytes)
    if (singleSegment) window = fcsBytes === 8 ? Number(data.readBigUInt64LE(pos)) : data.readUIntLE(pos, fcsBytes) + (fcsBytes === 2 ? 256 : 0)
    pos += fcsBytes
    if (window > ZSTD_MAX_WINDOW)
      throw new ProtocolDecodeError(`zstd frame needs a ${window}-byte window, more than the ${ZSTD_MAX_WINDOW} zstd decoders accept by default`)
    const blockMax = Math.min(window, 128 << 10)
    let produces = 0 // at most, from the block headers: raw and RLE exactly, a compressed block up to blockMax
    for (let last = false; !last; ) {
      need(3)
      const header = data.readUIntLE(pos, 3)
      pos += 3
      last = (header & 1) === 1
      const type = (header >> 1) & 3
      const size = header >>> 3
      if (type === 3) throw new ProtocolDecodeError('zstd block type is reserved (corrupt data)')
      if (size > blockMax) throw new ProtocolDecodeError('zstd block is larger than the frame allows')
      produces += type === 2 ? blockMax : size
      pos += type === 1 ? 1 : size // an RLE block holds one byte
      need(0)
    }
    if (fhd & 0x04) pos += 4 // content checksum
    need(0)
    if (!singleSegment) {
      const descriptor = smallestWindowDescriptor(produces)
      if (descriptor < data[descriptorAt]) fits.push({at: descriptorAt, descriptor})
    }
  }
  return fits
}

/** The smallest window descriptor (exponent << 3 | mantissa: 2^(10+e) * (1 + m/8) bytes) of at least `bytes`. */
function smallestWindowDescriptor(bytes: number): number {
  for (let d = 0; d < 256; d++) {
    const base = 2 ** (10 + (d >> 3))
    if (base + (base / 8) * (d & 7) >= bytes) return d
  }
  return 255
}

/** The constructor of fzstd's streaming decoder (loaded lazily by ./codecs.ts). */
export type ZstdStream = new (ondata: (chunk: Uint8Array) => void) => {push(chunk: Uint8Array, final?: boolean): void}

/**
 * zstd through a streaming decoder: output counted block by block (each at most 128 KiB), stopped at the bound.
 * fzstd allocates each frame's declared window before decoding, and Kafka's frames declare 2 MiB (zstd-jni at
 * level 3) for batches of a few hundred bytes: 2.3 ms per batch of __consumer_offsets, 100 times gzip. A match
 * reaches back at most over what the frame has produced, so a window as large as the frame's output decodes it
 * the same: frames that declare more than their blocks can produce are decoded from a copy that declares less.
 */
export function zstdBounded(Stream: ZstdStream, data: Buffer, limit: number): Buffer {
  const fits = zstdCheckFrames(data)
  if (fits.length > 0) {
    data = Buffer.from(data)
    for (const f of fits) data[f.at] = f.descriptor
  }
  const chunks: Uint8Array[] = []
  let total = 0
  const stream = new Stream(chunk => {
    total += chunk.length
    if (total > limit) throw tooLarge('zstd', limit)
    chunks.push(chunk)
  })
  try {
    stream.push(data, true)
  } catch (error) {
    if (error instanceof DecompressionLimitError) throw error
    throw new ProtocolDecodeError(`zstd data is corrupt (${(error as Error).message})`)
  }
  return Buffer.concat(chunks, total)
}

/** The codecs that are not zlib's: snappy and lz4 (WebAssembly, ./wasm-codecs.ts) and zstd's streaming decoder. */
export interface Codecs {
  snappy(data: Buffer): Buffer
  lz4(data: Buffer): Buffer
  zstd: ZstdStream
}

/** Every batch codec with the output bound. */
export function boundedDecompressor(limit: number, codecs: Codecs): Decompress {
  return (codec, data) => {
    let out: Buffer
    switch (codec) {
      case 'none':
        return data
      case 'gzip':
        return zlibBounded('gzip', zlib.gunzipSync, data, limit)
      case 'zstd':
        return zstdBounded(codecs.zstd, data, limit)
      case 'snappy': {
        if (snappyDeclaredSize(data) > limit) throw tooLarge('snappy', limit, 'declares')
        // the WebAssembly codec reads raw snappy only: xerial-framed blocks one by one
        const blocks = snappyBlocks(data)
        out = blocks.length === 1 ? codecs.snappy(blocks[0]) : Buffer.concat(blocks.map(b => codecs.snappy(b)))
        break
      }
      case 'lz4':
        if (lz4UpperBound(data) > limit) throw tooLarge('lz4', limit, 'may decompress to')
        out = codecs.lz4(data)
        break
    }
    if (out.length > limit) throw tooLarge(codec, limit)
    return out
  }
}
