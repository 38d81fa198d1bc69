/**
 * Real batches of every codec, written by a Kafka 4.1.2 broker (kafka-it cluster): topics created with
 * compression.type=gzip|snappy|lz4|zstd (the broker recompressed 30 uncompressed records k0..k29 → v0..v29), and
 * __consumer_offsets-4 with offsets.topic.compression.codec=4 (the coordinator's zstd batches of a regex group).
 * Each *.dump.txt beside them is Kafka's DumpLogSegments (--print-data-log, --offsets-decoder) of the same file:
 * what we read must equal it. Run on every tested Node line (scripts/node-compat.sh): Node 20 has no zlib zstd.
 */
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {groupIdOfKey, recordTypeOfKey} from '../../../src/core/records/record.js'
import {loadDecompressor} from '../../../src/kafka/codecs.js'
import {parseRecordBatches} from '../../../src/kafka/record-batch.js'

const dir = new URL('./fixtures/codecs/', import.meta.url)
const file = (name: string) => readFileSync(new URL(name, dir))

/** Batches and records as DumpLogSegments prints them. */
function dumped(name: string) {
  const batches: Array<{baseOffset: string; lastOffset: string; count: number; codec: string; records: Array<Record<string, string>>}> = []
  for (const line of file(name).toString('utf8').split('\n')) {
    const b = /^baseOffset: (\d+) lastOffset: (\d+) count: (\d+) .* compresscodec: (\w+) /.exec(line)
    if (b) batches.push({baseOffset: b[1], lastOffset: b[2], count: Number(b[3]), codec: b[4], records: []})
    const r = /^\| offset: (\d+) .* keySize: (-?\d+) valueSize: (-?\d+) .* key: (.*) payload: (.*)$/.exec(line)
    if (r) batches.at(-1)!.records.push({offset: r[1], keySize: r[2], valueSize: r[3], key: r[4], payload: r[5]})
  }
  return batches
}

const size = (b: Uint8Array | null) => String(b ? b.length : -1)

describe('real broker batches of the four codecs read as Kafka reads them', () => {
  it.each(['gzip', 'snappy', 'lz4', 'zstd'])('%s: a topic batch recompressed by the broker', async codec => {
    const want = dumped(`topic-${codec}.dump.txt`)
    expect(want.map(b => b.codec)).toEqual([codec])
    const {batches} = parseRecordBatches(file(`topic-${codec}.log`), await loadDecompressor())
    expect(batches.map(b => ({baseOffset: String(b.baseOffset), lastOffset: String(b.lastOffset), count: b.recordCount, codec: b.compression}))).toEqual(
      want.map(({records, ...b}) => b),
    )
    const records = batches.flatMap(b => b.records)
    expect(
      records.map(r => ({
        offset: String(r.offset),
        keySize: size(r.key),
        valueSize: size(r.value),
        key: Buffer.from(r.key!).toString(),
        payload: Buffer.from(r.value!).toString(),
      })),
    ).toEqual(want.flatMap(b => b.records))
    expect(records).toHaveLength(30)
  })

  it("zstd: the coordinator's own __consumer_offsets batches (offsets.topic.compression.codec=4)", async () => {
    const want = dumped('consumer-offsets-4-zstd.dump.txt')
    expect(new Set(want.map(b => b.codec))).toEqual(new Set(['zstd']))
    const {batches} = parseRecordBatches(file('consumer-offsets-4-zstd.log'), await loadDecompressor())
    expect(batches.map(b => [String(b.baseOffset), String(b.lastOffset), b.compression])).toEqual(want.map(b => [b.baseOffset, b.lastOffset, 'zstd']))
    const records = batches.flatMap(b => b.records)
    const keys = want.flatMap(b => b.records).map(r => JSON.parse(r.key) as {type: string; data: {groupId: string}})
    expect(records.map(r => [String(r.offset), size(r.key), size(r.value)])).toEqual(want.flatMap(b => b.records).map(r => [r.offset, r.keySize, r.valueSize]))
    expect(records.map(r => [recordTypeOfKey(r.key!), groupIdOfKey(r.key!)])).toEqual(keys.map(k => [Number(k.type), k.data.groupId]))
    expect(keys.map(k => k.data.groupId)).toContain('codec-ci')
  })
})
