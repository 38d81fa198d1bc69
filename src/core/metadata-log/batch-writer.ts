/** Writes metadata record batches (magic v2, uncompressed or compressed by a given function, CRC-32C) as Kafka lays them out: for tests and the benchmark. */
import {crc32c} from '@node-rs/crc32'
import {ByteWriter} from '../records/bytes.js'

function varint(w: ByteWriter, v: number): void {
  w.uvarint(((v << 1) ^ (v >> 31)) >>> 0)
}

/** A batch compression: the codec id of the batch attributes (1 gzip, 2 snappy, 3 lz4, 4 zstd) and its compressor. */
export interface BatchCompression {
  codec: 1 | 2 | 3 | 4
  compress: (records: Buffer) => Buffer
}

/** One batch of records (values; key null, or [key, value] pairs for control records). */
export function encodeBatch(
  baseOffset: bigint,
  timestamp: number,
  values: Array<Uint8Array | [Uint8Array, Uint8Array]>,
  control = false,
  compression?: BatchCompression,
): Buffer {
  const body = new ByteWriter()
  values.forEach((v, i) => {
    const [key, value] = Array.isArray(v) ? v : [null, v]
    const r = new ByteWriter()
    r.int8(0)
    varint(r, 0) // timestamp delta
    varint(r, i)
    if (key) {
      varint(r, key.length)
      r.bytes(key)
    } else varint(r, -1)
    varint(r, value.length)
    r.bytes(value)
    varint(r, 0) // headers
    const rec = r.finish()
    varint(body, rec.length)
    body.bytes(rec)
  })
  const plain = body.finish()
  const records = compression ? compression.compress(Buffer.from(plain)) : plain
  const afterCrc = Buffer.alloc(40 + records.length)
  afterCrc.writeInt16BE((control ? 0x20 : 0) | (compression?.codec ?? 0), 0)
  afterCrc.writeInt32BE(values.length - 1, 2)
  afterCrc.writeBigInt64BE(BigInt(timestamp), 6)
  afterCrc.writeBigInt64BE(BigInt(timestamp), 14)
  afterCrc.writeBigInt64BE(-1n, 22)
  afterCrc.writeInt16BE(-1, 30)
  afterCrc.writeInt32BE(-1, 32)
  afterCrc.writeInt32BE(values.length, 36)
  Buffer.from(records).copy(afterCrc, 40)
  const head = Buffer.alloc(21)
  head.writeBigInt64BE(baseOffset, 0)
  head.writeInt32BE(9 + afterCrc.length, 8)
  head.writeInt32BE(0, 12) // partition leader epoch
  head.writeInt8(2, 16)
  head.writeUInt32BE(crc32c(afterCrc), 17)
  return Buffer.concat([head, afterCrc])
}
