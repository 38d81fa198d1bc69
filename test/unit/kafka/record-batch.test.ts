import {gunzipSync, gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {type Compression, parseRecordBatches} from '../../../src/kafka/record-batch.js'
import {ByteWriter} from './byte-writer.js'

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
  let body = Buffer.concat(o.records.map(record))
  if (o.compress) body = o.compress(body)
  const head = new ByteWriter()
    .int32(7) // partition leader epoch
    .int8(2)
    .int32(0) // crc (not checked)
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
  return Buffer.concat([new ByteWriter().int64(o.base).int32(afterLength.length).toBuffer(), afterLength])
}

const decompress = (codec: Compression, data: Buffer) => {
  if (codec !== 'gzip') throw new Error(codec)
  return gunzipSync(data)
}

describe('parseRecordBatches', () => {
  it('reads plain, gzip, transactional and control batches; drops a trailing partial batch', () => {
    const k = Buffer.from([0, 3, 1, 2])
    const bytes = Buffer.concat([
      batch({base: 10n, attributes: 0, records: [
        {offsetDelta: 0, tsDelta: 0, key: k, value: Buffer.from('v0'), headers: [['h', Buffer.from('x')], ['n', null]]},
        {offsetDelta: 1, tsDelta: 5, key: k, value: null},
      ]}),
      batch({base: 12n, attributes: 1 | 0x10, producerId: 42n, records: [{offsetDelta: 0, tsDelta: 1, key: k, value: Buffer.from('z'.repeat(100))}], compress: b => gzipSync(b)}),
      batch({base: 13n, attributes: 0x10 | 0x20, producerId: 42n, records: [{offsetDelta: 0, tsDelta: 2, key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0])}]}),
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
    expect(first.records[0].headers).toEqual([{key: 'h', value: Buffer.from('x')}, {key: 'n', value: null}])
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
