/**
 * Fuzzing driver of the record-batch reader (src/kafka/record-batch.ts) with the bounded decompressors
 * (src/kafka/decompress.ts). Seeds are valid v2 batches of random records, uncompressed and in every codec this
 * Node has, plus decompression bombs (a body far over the bound that compresses to little). Each case is a seed
 * mutated as a whole, or with only its compressed body mutated (the batch length kept right, so the codec sees
 * the damage). Seeds carry their CRC-32C; a body mutation is sealed again (a CRC a hostile broker computes over its
 * own bytes, so the decoders see the damage), a whole-batch mutation is not (the CRC check must catch it: counted in
 * crcErrors). Every case must end in batches or a ProtocolDecodeError; anything else is a crash.
 */
import {gzipSync} from 'node:zlib'
import zlib from 'node:zlib'
import {lz4Compress, snappyCompress} from '@platformatic/wasm-utils'
import {type Compression, CorruptBatchError, parseRecordBatches} from '../../../src/kafka/record-batch.js'
import {ProtocolDecodeError} from '../../../src/kafka/wire.js'
import {loadDecompressor} from '../../../src/kafka/codecs.js'
import {rng} from '../records/arbitrary.js'
import {sealBatches} from '../../lib/batch-crc.js'

/** The output bound while fuzzing: small, so that bombs are cheap and memory stays bounded. */
export const FUZZ_LIMIT = 256 << 10

/**
 * zstd: zlib's encoder where Node has one (22.15+), else frames of raw blocks (valid zstd that needs no encoder,
 * RFC 8878 §3.1.1.2), so that the frame walker and the decoder are fuzzed on every Node line.
 */
const zstdCompress = (zlib as unknown as {zstdCompressSync?: (b: Buffer) => Buffer}).zstdCompressSync ?? rawZstd

function rawZstd(b: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58])]
  for (let pos = 0; pos < b.length || pos === 0; pos += 128 << 10) {
    const block = b.subarray(pos, pos + (128 << 10))
    const header = Buffer.alloc(3)
    header.writeUIntLE((block.length << 3) | (pos + block.length >= b.length ? 1 : 0), 0, 3)
    parts.push(header, block)
    if (block.length === 0) break
  }
  return Buffer.concat(parts)
}
const CODECS: Array<[Compression, number, ((b: Buffer) => Buffer) | undefined]> = [
  ['none', 0, undefined],
  ['gzip', 1, b => gzipSync(b)],
  ['snappy', 2, b => snappyCompress(b)],
  ['lz4', 3, b => lz4Compress(b)],
  ['zstd', 4, zstdCompress],
]

export function availableCodecs(): Compression[] {
  return CODECS.map(c => c[0])
}

function uvarint(v: number): number[] {
  const out: number[] = []
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80)
    v = Math.floor(v / 128)
  }
  out.push(v)
  return out
}

const zz = (v: number) => uvarint(v >= 0 ? v * 2 : -v * 2 - 1)

function bytes(rand: () => number, max: number): Buffer | null {
  if (rand() < 0.1) return null
  return Buffer.from(Array.from({length: Math.floor(rand() * max)}, () => Math.floor(rand() * 256)))
}

function record(i: number, rand: () => number, valueSize?: number): Buffer {
  const key = bytes(rand, 24)
  const value = valueSize === undefined ? bytes(rand, 64) : Buffer.alloc(valueSize)
  const headers = Array.from(
    {length: rand() < 0.7 ? 0 : 1 + Math.floor(rand() * 3)},
    () => [Buffer.from(`h${Math.floor(rand() * 9)}`), bytes(rand, 8)] as const,
  )
  const b = (xs: number[]) => Buffer.from(xs)
  const body = Buffer.concat([
    b([0, ...zz(Math.floor(rand() * 1000)), ...zz(i), ...zz(key ? key.length : -1)]),
    key ?? Buffer.alloc(0),
    b(zz(value ? value.length : -1)),
    value ?? Buffer.alloc(0),
    b(zz(headers.length)),
    ...headers.flatMap(([k, v]) => [b(zz(k.length)), k, b(zz(v ? v.length : -1)), v ?? Buffer.alloc(0)]),
  ])
  return Buffer.concat([Buffer.from(zz(body.length)), body])
}

export interface Seed {
  readonly bytes: Buffer
  /** Where the (compressed) records start and end. */
  readonly bodyStart: number
}

function batch(base: bigint, attributes: number, records: Buffer[], compress?: (b: Buffer) => Buffer): Seed {
  const raw = Buffer.concat(records)
  const body = compress ? compress(raw) : raw
  const head = Buffer.alloc(61)
  head.writeBigInt64BE(base, 0)
  head.writeInt32BE(49 + body.length, 8)
  head.writeInt32BE(7, 12)
  head.writeInt8(2, 16)
  head.writeInt16BE(attributes, 21)
  head.writeInt32BE(records.length - 1, 23)
  head.writeBigInt64BE(1_700_000_000_000n, 27)
  head.writeBigInt64BE(1_700_000_000_500n, 35)
  head.writeBigInt64BE(-1n, 43)
  head.writeInt16BE(-1, 51)
  head.writeInt32BE(-1, 53)
  head.writeInt32BE(records.length, 57)
  return {bytes: sealBatches(Buffer.concat([head, body])), bodyStart: 61}
}

export function seeds(seed: number): Seed[] {
  const rand = rng(seed)
  const out: Seed[] = []
  for (let n = 0; n < 40; n++) {
    for (const [, bits, compress] of CODECS) {
      const count = 1 + Math.floor(rand() * 12)
      const attributes = bits | (rand() < 0.2 ? 0x10 : 0) | (rand() < 0.05 ? 0x20 : 0)
      out.push(
        batch(
          BigInt(n * 100),
          attributes,
          Array.from({length: count}, (_, i) => record(i, rand)),
          compress,
        ),
      )
    }
  }
  // Bombs: one record whose value is 4× the bound of zeros, and many small records over the bound in total.
  for (const [, bits, compress] of CODECS.filter(c => c[2])) {
    out.push(batch(5000n, bits, [record(0, rand, FUZZ_LIMIT * 4)], compress))
    out.push(
      batch(
        6000n,
        bits,
        Array.from({length: 20_000}, (_, i) => record(i, () => 0.05, 32)),
        compress,
      ),
    )
  }
  // Two batches back to back.
  for (let n = 0; n + 1 < out.length && n < 40; n += 2) out.push({bytes: Buffer.concat([out[n].bytes, out[n + 1].bytes]), bodyStart: out[n].bodyStart})
  return out
}

function mutate(b: Buffer, rand: () => number): Buffer {
  const out = Buffer.from(b)
  if (out.length === 0) return out
  switch (Math.floor(rand() * 7)) {
    case 0:
      return out.subarray(0, Math.floor(rand() * out.length))
    case 1:
      for (let i = 0, n = 1 + Math.floor(rand() * 4); i < n; i++) out[Math.floor(rand() * out.length)] ^= 1 << Math.floor(rand() * 8)
      return out
    case 2:
      for (let i = 0, n = 1 + Math.floor(rand() * 3); i < n; i++) out[Math.floor(rand() * out.length)] = Math.floor(rand() * 256)
      return out
    case 3: {
      const at = Math.floor(rand() * out.length)
      const v = rand() < 0.5 ? 0xff : 0x7f
      for (let i = at; i < Math.min(out.length, at + 1 + Math.floor(rand() * 5)); i++) out[i] = v
      return out
    }
    case 4:
      return Buffer.concat([out, Buffer.from(Array.from({length: 1 + Math.floor(rand() * 16)}, () => Math.floor(rand() * 256)))])
    case 5: {
      const at = Math.floor(rand() * out.length)
      for (let i = at; i < out.length; i++) out[i] = Math.floor(rand() * 256)
      return out
    }
    default: {
      // a slice removed from the middle
      const at = Math.floor(rand() * out.length)
      return Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + 1 + Math.floor(rand() * 16)))])
    }
  }
}

/** The body mutated, the header's batch length fixed to the new body. */
function mutateBody(s: Seed, rand: () => number): Buffer {
  const body = mutate(s.bytes.subarray(s.bodyStart), rand)
  const out = Buffer.concat([s.bytes.subarray(0, s.bodyStart), body])
  out.writeInt32BE(out.length - 12, 8)
  return sealBatches(out)
}

export interface BatchFuzzStats {
  cases: number
  parsed: number
  decodeErrors: number
  limitErrors: number
  /** Cases refused by the CRC-32C check. */
  crcErrors: number
  crashes: number
  ms: number
  firstCrashes: string[]
}

export async function fuzzBatches(cases: number, seed = 1): Promise<BatchFuzzStats> {
  const decompress = await loadDecompressor(FUZZ_LIMIT)
  const rand = rng(seed)
  const pool = seeds(seed)
  const stats: BatchFuzzStats = {cases: 0, parsed: 0, decodeErrors: 0, limitErrors: 0, crcErrors: 0, crashes: 0, ms: 0, firstCrashes: []}
  const t0 = performance.now()
  for (let i = 0; i < cases; i++) {
    const s = pool[Math.floor(rand() * pool.length)]
    const r = rand()
    const input = r < 0.05 ? s.bytes : r < 0.55 ? mutateBody(s, rand) : mutate(s.bytes, rand)
    try {
      const {batches} = parseRecordBatches(input, decompress)
      for (const b of batches) if (b.records.length > 0 && typeof b.records[0].offset !== 'bigint') throw new Error('record without an offset')
      stats.parsed++
    } catch (error) {
      if (
        error instanceof ProtocolDecodeError &&
        /^record batch at offset|response truncated|negative length|varint too long|varlong too long|has magic|unknown compression/.test(error.message)
      ) {
        if (error.name === 'DecompressionLimitError') stats.limitErrors++
        else if (error instanceof CorruptBatchError) stats.crcErrors++
        else stats.decodeErrors++
      } else {
        stats.crashes++
        if (stats.firstCrashes.length < 5)
          stats.firstCrashes.push(
            `case ${i} (seed ${seed}): ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}; input ${input.subarray(0, 200).toString('hex')}`,
          )
      }
    }
    stats.cases++
  }
  stats.ms = performance.now() - t0
  return stats
}
