/**
 * CRC-32C against Kafka's own bytes: every batch of the __consumer_offsets segments Kafka 4.1.2 and 4.4.0 wrote
 * (fixtures) passes the check the readers make; one changed byte in a batch is refused, and `impact
 * --offsets-segment` names the file and the byte (exit 2), as the metadata log readers do.
 */
import {readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {CorruptBatchError, parseRecordBatches} from '../../../src/kafka/record-batch.js'
import {loadDecompressor} from '../../../src/kafka/codecs.js'
import {ROOT, run, tempFile} from '../helpers.js'

const DIRS = ['kafka-4.1.2', 'kafka-4.4.0'].map(v => join(ROOT, 'test/unit/records/fixtures', v))

describe('batch CRC-32C on segments Kafka wrote', () => {
  it('every batch passes; a byte changed in any one is a CorruptBatchError at that batch', async () => {
    const decompress = await loadDecompressor()
    let batches = 0
    for (const dir of DIRS) {
      for (const f of readdirSync(dir).filter(n => n.endsWith('.segment'))) {
        const bytes = readFileSync(join(dir, f))
        const all = parseRecordBatches(bytes, decompress).batches
        expect(all.length, f).toBeGreaterThan(0)
        batches += all.length
        // damage the last batch: every batch before it is still read, then the error names it
        let pos = 0
        while (pos + 12 + bytes.readInt32BE(pos + 8) < bytes.length) pos += 12 + bytes.readInt32BE(pos + 8)
        const bad = Buffer.from(bytes)
        bad[bad.length - 2] ^= 0x20
        const error = (() => {
          try {
            parseRecordBatches(bad, decompress)
          } catch (e) {
            return e
          }
        })()
        expect(error, f).toBeInstanceOf(CorruptBatchError)
        expect((error as CorruptBatchError).position, f).toBe(pos)
      }
    }
    expect(batches).toBeGreaterThan(50)
  })

  it('impact --offsets-segment with a changed byte: exit 2 naming the file and the byte of the batch', async () => {
    const seg = join(DIRS[1], '__consumer_offsets-0.segment')
    const bytes = Buffer.from(readFileSync(seg))
    const second = 12 + bytes.readInt32BE(8)
    bytes[second + 12 + bytes.readInt32BE(second + 8) - 1] ^= 1
    const copy = tempFile('00000000000000000000.log', '')
    writeFileSync(copy, bytes)
    const md = tempFile('md.json', {
      brokers: [{id: 1, rack: null}],
      topics: [{name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{partition: 0, replicas: [1]}]}],
    })
    const r = await run(['impact', '--metadata-file', md, '--offsets-segment', copy, '--delete-topic', 't'])
    expect(r.exitCode).toBe(2)
    expect(r.error?.message).toMatch(
      new RegExp(
        `^${copy.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: the batch at byte ${second} is damaged: record batch at offset \\d+ is corrupt: stored CRC-32C`,
      ),
    )
    expect((r.error as {code?: string}).code).toBe('BAD_SEGMENT')
  })

  it('impact --offsets-segment with an incomplete last batch (a cut copy, or a damaged length): exit 2 naming the byte', async () => {
    const seg = join(DIRS[1], '__consumer_offsets-0.segment')
    const bytes = readFileSync(seg)
    let last = 0
    while (last + 12 + bytes.readInt32BE(last + 8) < bytes.length) last += 12 + bytes.readInt32BE(last + 8)
    const md = tempFile('md.json', {
      brokers: [{id: 1, rack: null}],
      topics: [{name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{partition: 0, replicas: [1]}]}],
    })
    const longer = Buffer.from(bytes)
    longer.writeInt32BE(longer.readInt32BE(last + 8) + 100, last + 8)
    for (const damaged of [bytes.subarray(0, bytes.length - 7), longer]) {
      const copy = tempFile('00000000000000000000.log', '')
      writeFileSync(copy, damaged)
      const r = await run(['impact', '--metadata-file', md, '--offsets-segment', copy, '--delete-topic', 't'])
      expect(r.exitCode).toBe(2)
      expect(r.error?.message).toContain(`${copy}: the last ${damaged.length - last} bytes (from byte ${last}) are not a complete batch`)
    }
  })
})
