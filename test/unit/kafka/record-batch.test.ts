import {gunzipSync, gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {type Compression, parseRecordBatches} from '../../../src/kafka/record-batch.js'
import {ProtocolDecodeError} from '../../../src/kafka/wire.js'
import {ByteWriter} from './byte-writer.js'
import {sealBatches} from '../../lib/batch-crc.js'

function zigzag(w: ByteWriter, v: number): ByteWriter {
  return w.uvarint(v >= 0 ? v * 2 : -v * 2 - 1)
}

interface R {
  offsetDelta: number
  tsDelta: number
  key: Buffer | null
  value: Buffer | null
  headers?: Array<[string, Buffer | null]>
}

function record(r: R): Buffer {
  const w = new ByteWriter().int8(0)
  zigzag(w, r.tsDelta)
  zigzag(w, r.offsetDelta)
  zigzag(w, r.key ? r.key.length : -1)
  if (r.key) (w as unknown as {chunks: Buffer[]}).chunks.push(r.key)
  zigzag(w, r.value ? r.value.length : -1)
  if (r.value) (w as unknown as {chunks: Buffer[]}).chunks.push(r.value)
  zigzag(w, r.headers?.length ?? 0)
  for (const [k, v] of r.headers ?? []) {
    zigzag(w, Buffer.byteLength(k))
    ;(w as unknown as {chunks: Buffer[]}).chunks.push(Buffer.from(k))
    zigzag(w, v ? v.length : -1)
    if (v) (w as unknown as {chunks: Buffer[]}).chunks.push(v)
  }
  const body = w.toBuffer()
  return Buffer.concat([zigzag(new ByteWriter(), body.length).toBuffer(), body])
}

function batch(o: {base: bigint; attributes: number; producerId?: bigint; records: R[]; compress?: (b: Buffer) => Buffer}): Buffer {
  let body: Buffer = Buffer.concat(o.records.map(record))
  if (o.compress) body = o.compress(body)
  const head = new ByteWriter()
    .int32(7) // partition leader epoch
    .int8(2)
    .int32(0) // crc: written by sealBatches
    .int16(o.attributes)
    .int32(Math.max(...o.records.map(r => r.offsetDelta)))
    .int64(1_700_000_000_000n)
    .int64(1_700_000_000_500n)
    .int64(o.producerId ?? -1n)
    .int16(o.producerId === undefined ? -1 : 3)
    .int32(-1)
    .int32(o.records.length)
    .toBuffer()
  const afterLength = Buffer.concat([head, body])
  return sealBatches(Buffer.concat([new ByteWriter().int64(o.base).int32(afterLength.length).toBuffer(), afterLength]))
}

const decompress = (codec: Compression, data: Buffer) => {
  if (codec !== 'gzip') throw new Error(codec)
  return gunzipSync(data)
}

describe('parseRecordBatches', () => {
  it('reads plain, gzip, transactional and control batches; drops a trailing partial batch', () => {
    const k = Buffer.from([0, 3, 1, 2])
    const bytes = Buffer.concat([
      batch({
        base: 10n,
        attributes: 0,
        records: [
          {
            offsetDelta: 0,
            tsDelta: 0,
            key: k,
            value: Buffer.from('v0'),
            headers: [
              ['h', Buffer.from('x')],
              ['n', null],
            ],
          },
          {offsetDelta: 1, tsDelta: 5, key: k, value: null},
        ],
      }),
      batch({
        base: 12n,
        attributes: 1 | 0x10,
        producerId: 42n,
        records: [{offsetDelta: 0, tsDelta: 1, key: k, value: Buffer.from('z'.repeat(100))}],
        compress: b => gzipSync(b),
      }),
      batch({
        base: 13n,
        attributes: 0x10 | 0x20,
        producerId: 42n,
        records: [{offsetDelta: 0, tsDelta: 2, key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0])}],
      }),
    ])
    const partial = batch({base: 14n, attributes: 0, records: [{offsetDelta: 0, tsDelta: 0, key: null, value: Buffer.from('cut')}]})
    const {batches, nextOffset} = parseRecordBatches(Buffer.concat([bytes, partial.subarray(0, 30)]), decompress)
    expect(nextOffset).toBe(14n)
    expect(batches.map(b => [b.baseOffset, b.lastOffset, b.compression, b.isTransactional, b.isControl, b.producerId])).toEqual([
      [10n, 11n, 'none', false, false, -1n],
      [12n, 12n, 'gzip', true, false, 42n],
      [13n, 13n, 'none', true, true, 42n],
    ])
    const [first] = batches
    expect(first).toMatchObject({partitionLeaderEpoch: 7, magic: 2, producerEpoch: -1, baseTimestamp: 1_700_000_000_000n, maxTimestamp: 1_700_000_000_500n})
    expect(first.records.map(r => [r.offset, r.timestamp, r.value && Buffer.from(r.value).toString()])).toEqual([
      [10n, 1_700_000_000_000n, 'v0'],
      [11n, 1_700_000_000_005n, null],
    ])
    expect(first.records[0].key).toEqual(Buffer.from(k))
    expect(first.records[0].headers).toEqual([
      {key: 'h', value: Buffer.from('x')},
      {key: 'n', value: null},
    ])
    expect(Buffer.from(batches[1].records[0].value!).toString()).toBe('z'.repeat(100))
  })

  it('no complete batch: nothing, and no next offset', () => {
    expect(parseRecordBatches(Buffer.alloc(0), decompress)).toEqual({batches: [], nextOffset: undefined})
    const b = batch({base: 0n, attributes: 0, records: [{offsetDelta: 0, tsDelta: 0, key: null, value: null}]})
    expect(parseRecordBatches(b.subarray(0, b.length - 1), decompress).batches).toEqual([])
  })

  it('rejects old message formats instead of misreading them', () => {
    const b = batch({base: 0n, attributes: 0, records: [{offsetDelta: 0, tsDelta: 0, key: null, value: null}]})
    b.writeInt8(1, 16)
    expect(() => parseRecordBatches(b, decompress)).toThrow(/magic 1/)
  })
})

describe('parseRecordBatches with a key filter', () => {
  it('makes objects only for the records whose key it keeps, counts all, and keeps control batches whole', () => {
    const a = Buffer.from([0, 3, 0, 1, 0x61])
    const b = Buffer.from([0, 1, 0, 1, 0x62])
    const bytes = Buffer.concat([
      batch({
        base: 0n,
        attributes: 0,
        records: [
          {offsetDelta: 0, tsDelta: 0, key: b, value: Buffer.from('b0'), headers: [['h', Buffer.from('x')]]},
          {offsetDelta: 1, tsDelta: 300_000, key: a, value: Buffer.from('a1')},
          {offsetDelta: 2, tsDelta: 7, key: null, value: Buffer.from('n2')},
          {offsetDelta: 3, tsDelta: 9, key: b, value: null},
          {offsetDelta: 4, tsDelta: 5_000_000, key: a, value: null},
        ],
      }),
      batch({
        base: 5n,
        attributes: 1,
        records: [
          {offsetDelta: 0, tsDelta: 1, key: b, value: Buffer.from('z'.repeat(100))},
          {offsetDelta: 1, tsDelta: 1, key: a, value: Buffer.from('a6')},
        ],
        compress: x => gzipSync(x),
      }),
      batch({
        base: 7n,
        attributes: 0x10 | 0x20,
        producerId: 42n,
        records: [{offsetDelta: 0, tsDelta: 2, key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0])}],
      }),
    ])
    const keepA = (buf: Uint8Array, start: number, length: number) => length === a.length && Buffer.compare(buf.subarray(start, start + length), a) === 0
    const all = parseRecordBatches(bytes, decompress)
    const kept = parseRecordBatches(bytes, decompress, keepA)
    expect(kept.nextOffset).toBe(8n)
    expect(kept.batches.map(x => x.recordCount)).toEqual([5, 2, 1])
    expect(kept.batches.map(x => x.records.map(r => r.offset))).toEqual([[1n, 4n], [6n], [7n]])
    // the kept records are exactly the unfiltered parse's records with that key
    const want = all.batches.map(x => x.records.filter(r => x.isControl || (r.key !== null && keepA(r.key, 0, r.key.length))))
    expect(kept.batches.map(x => x.records)).toEqual(want)
  })

  it('a record length past the batch end is a decode error, not a read past it', () => {
    const a = Buffer.from([0, 3, 0, 1, 0x61])
    const good = batch({base: 0n, attributes: 0, records: [{offsetDelta: 0, tsDelta: 0, key: a, value: Buffer.from('v')}]})
    const bad = Buffer.from(good)
    bad[61] = 0x7e // the first record's length varint (zig-zag 63): more bytes than the batch holds
    expect(() => parseRecordBatches(bad, decompress, () => false)).toThrow(ProtocolDecodeError)
  })
})
