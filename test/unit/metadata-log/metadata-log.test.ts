import {mkdtempSync, writeFileSync, appendFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {computeTopicHash, RackTable, TopicHasher} from '../../../src/core/hash.js'
import {decodeMetadataRecord, encodeMetadataRecord} from '../../../src/core/metadata-log/codec.js'
import {describeChange} from '../../../src/core/metadata-log/image.js'
import {attributeDrift, attributeFromLog} from '../../../src/core/metadata-log/attribute.js'
import {computeGroupHash} from '../../../src/core/hash.js'
import {RecordDecodeError} from '../../../src/core/records/errors.js'
import {replayMetadataLog} from '../../../src/sources/metadata-log.js'
import {type BatchCompression, encodeBatch} from '../../../src/core/metadata-log/batch-writer.js'
import * as zlib from 'node:zlib'
import {lz4Compress, snappyCompress} from '@platformatic/wasm-utils'
import {run} from '../helpers.js'
import {brokerRegistration, partitionChange as change, partitionRecord as part, topicRecord as topic, unfence} from '../../lib/metadata-records.js'

const ORDERS = 'AAECAwQFBgcICQoLDA0ODw'
const PAYMENTS = 'EBESExQVFhcYGRobHB0eHw'
const reg = (id: number, rack: string | null, epoch: bigint, version?: number) => brokerRegistration(id, rack, {epoch, version})
const otherType = new Uint8Array([1, 20, 0, 0]) // NoOpRecord v0

function writeLog(compression?: BatchCompression): {dir: string; t: number} {
  const dir = mkdtempSync(join(tmpdir(), 'rd-mdlog-'))
  const t = Date.parse('2026-11-30T14:00:00Z')
  const seg0 = [
    encodeBatch(0n, t, [reg(1, 'rack-a', 10n), reg(2, 'rack-a', 11n), reg(3, 'rack-b', 12n)], false, compression),
    encodeBatch(3n, t + 1000, [unfence(1), unfence(2), unfence(3), otherType], false, compression),
    encodeBatch(7n, t + 2000, [topic('orders', ORDERS), part(ORDERS, 0, [1, 2]), part(ORDERS, 1, [2, 3])], false, compression),
    encodeBatch(10n, t + 2500, [[new Uint8Array([0, 0, 0, 2]), new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0])]], true, compression),
  ]
  writeFileSync(join(dir, '00000000000000000000.log'), Buffer.concat(seg0))
  const seg1 = [
    encodeBatch(11n, t + 3000, [part(ORDERS, 2, [3, 1])], false, compression),
    encodeBatch(12n, t + 4000, [change(ORDERS, 0, {Replicas: [1, 2, 3], AddingReplicas: [3], RemovingReplicas: [1]})], false, compression),
    encodeBatch(13n, t + 5000, [change(ORDERS, 0, {Replicas: [2, 3], AddingReplicas: [], RemovingReplicas: [], Isr: [2, 3]})], false, compression),
    encodeBatch(14n, t + 6000, [reg(3, 'rack-c', 20n)], false, compression),
    // an aborted metadata transaction: its topic never exists
    encodeBatch(15n, t + 6500, [encodeBeginTx(), topic('payments', PAYMENTS), encodeAbortTx()], false, compression),
    encodeBatch(18n, t + 7000, [topic('payments', PAYMENTS), part(PAYMENTS, 0, [1])], false, compression),
    encodeBatch(20n, t + 8000, [encodeMetadataRecord(9, {TopicId: PAYMENTS})], false, compression),
  ]
  writeFileSync(join(dir, '00000000000000000011.log'), Buffer.concat(seg1))
  return {dir, t}
}
function encodeBeginTx() {
  return new Uint8Array([1, 23, 0, 1, 0, 0])
} // BeginTransactionRecord v0: null Name, no tags
function encodeAbortTx() {
  return new Uint8Array([1, 25, 0, 0, 0])
} // AbortTransactionRecord v0: null Reason, no tags

describe('metadata record codec', () => {
  it('round-trips every schema version and skips other types by name', () => {
    for (const v of [0, 1, 2, 3, 4]) {
      const d = decodeMetadataRecord(reg(7, v === 0 ? null : 'r', 5n, v))
      expect(d).toMatchObject({kind: 'record', name: 'RegisterBrokerRecord', version: v, data: {BrokerId: 7, BrokerEpoch: 5n}})
    }
    expect(decodeMetadataRecord(otherType)).toMatchObject({kind: 'skipped', name: 'NoOpRecord', reason: 'other-type'})
    expect(decodeMetadataRecord(new Uint8Array([1, 2, 9, 0]))).toMatchObject({kind: 'skipped', name: 'TopicRecord', reason: 'unknown-version'})
    const c = decodeMetadataRecord(change(ORDERS, 3, {Replicas: [1, 2, 3]}))
    expect(c).toMatchObject({kind: 'record', data: {PartitionId: 3, Replicas: [1, 2, 3], Isr: null, Leader: -2, AddingReplicas: null}})
  })

  it('names offset and field of malformed bytes', () => {
    const bytes = topic('orders', ORDERS).slice(0, 8)
    expect(() => decodeMetadataRecord(bytes, 42n)).toThrow(RecordDecodeError)
    expect(() => decodeMetadataRecord(bytes, 42n)).toThrow(/42/)
  })
})

describe('metadata log replay', () => {
  it("a replica change moves the hash only when the partition's sorted racks change: a reorder or a move within a rack does not", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-mdlog-'))
    const t = Date.parse('2026-11-30T14:00:00Z')
    writeFileSync(
      join(dir, '00000000000000000000.log'),
      Buffer.concat([
        encodeBatch(0n, t, [reg(1, 'rack-a', 10n), reg(2, 'rack-a', 11n), reg(3, 'rack-b', 12n), reg(4, null, 13n)]),
        encodeBatch(4n, t + 1000, [topic('orders', ORDERS), part(ORDERS, 0, [1, 3])]),
        encodeBatch(6n, t + 2000, [change(ORDERS, 0, {Replicas: [3, 1]})]), // the same replicas, reordered
        encodeBatch(7n, t + 3000, [change(ORDERS, 0, {Replicas: [2, 3]})]), // 1 → 2: both rack-a
        encodeBatch(8n, t + 4000, [change(ORDERS, 0, {Replicas: [2, 3, 4]})]), // + a broker without a rack
        encodeBatch(9n, t + 5000, [change(ORDERS, 0, {Replicas: [2, 1]})]), // rack-b gone: moves
      ]),
    )
    const r = await replayMetadataLog(dir, {trackTopics: new Set(['orders'])})
    const changes = r.replay.changes.filter(c => c.kind === 'replicas-changed').map(c => [describeChange(c), c.movesHash])
    expect(changes).toEqual([
      ['orders partition 0 replicas [1,3] → [3,1]', false],
      ['orders partition 0 replicas [3,1] → [2,3]', false],
      ['orders partition 0 replicas [2,3] → [2,3,4]', false],
      ['orders partition 0 replicas [2,3,4] → [2,1]', true],
    ])
    // the hashes the replay tracked agree: one while the racks stayed, another after
    expect(new Set(r.replay.hashes.get('orders')!.map(h => h.hash)).size).toBe(2)
    const history = await run(['cluster:history', '--metadata-log', dir])
    expect(history.stdout).toContain('orders partition 0 replicas [1,3] → [3,1] (does not move a hash)')
  })

  it('rebuilds the image, names each change, and tracks distinct topic hashes', async () => {
    const {dir, t} = writeLog()
    appendFileSync(join(dir, '00000000000000000011.log'), encodeBatch(21n, t + 9000, [topic('x', PAYMENTS)]).subarray(0, 30))
    const r = await replayMetadataLog(dir, {trackTopics: new Set(['orders', 'payments'])})
    expect(r.partialTailBytes).toBe(30)
    const md = r.replay.image.toClusterMetadata()
    expect(md.brokers).toEqual([
      {id: 1, rack: 'rack-a', fenced: false},
      {id: 2, rack: 'rack-a', fenced: false},
      {id: 3, rack: 'rack-c', fenced: true},
    ])
    expect(md.topics.map(x => [x.name, x.partitions.map(p => p.replicas)])).toEqual([
      [
        'orders',
        [
          [2, 3],
          [2, 3],
          [3, 1],
        ],
      ],
    ])
    expect(r.replay.stats.skippedByType).toMatchObject({NoOpRecord: 1})
    expect(r.replay.stats.abortedTransactionRecords).toBe(1)
    expect(r.replay.stats.controlBatches).toBe(1)
    const lines = r.replay.changes.filter(c => c.movesHash).map(describeChange)
    expect(lines).toEqual([
      'broker 1 registered with "rack-a"',
      'broker 2 registered with "rack-a"',
      'broker 3 registered with "rack-b"',
      `topic orders created (id ${ORDERS}, 0 partitions)`,
      'topic orders partitions 0 → 1',
      'topic orders partitions 1 → 2',
      'topic orders partitions 2 → 3',
      'orders partition 0 replicas [1,2] → [1,2,3] (reassignment in progress: adding [3], removing [1])',
      'orders partition 0 replicas [1,2,3] → [2,3]',
      'broker 3 "rack-b" → "rack-c" (re-registered)',
      `topic payments created (id ${PAYMENTS}, 0 partitions)`,
      'topic payments partitions 0 → 1',
      `topic payments deleted (id ${PAYMENTS}, had 1 partition)`,
    ])
    const seq = r.replay.hashes.get('orders')!
    expect(seq.map(p => p.offset)).toEqual([9n, 11n, 12n, 13n, 14n])
    expect(seq[seq.length - 1].hash).toBe(new TopicHasher(md).topicHash('orders'))
    expect(r.replay.hashes.get('payments')!.map(p => p.hash === 0n)).toEqual([false, true])
    // the hash at offset 11 equals the hash of the image replayed to 11
    const at11 = await replayMetadataLog(dir, {untilOffset: 11n})
    const md11 = at11.replay.image.toClusterMetadata()
    expect(computeTopicHash(md11.topics[0], new RackTable(md11.brokers))).toBe(seq[1].hash)
  })

  it('starts from a snapshot when the segments before it are gone, and reports where history starts', async () => {
    const {dir, t} = writeLog()
    const {rmSync} = await import('node:fs')
    rmSync(join(dir, '00000000000000000000.log'))
    const header = [
      new Uint8Array([0, 0, 0, 3]),
      (() => {
        const b = Buffer.alloc(11)
        b.writeBigInt64BE(BigInt(t + 2000), 2)
        return b
      })(),
    ] as [Uint8Array, Uint8Array]
    writeFileSync(
      join(dir, '00000000000000000011-0000000001.checkpoint'),
      Buffer.concat([
        encodeBatch(0n, t + 2600, [header], true),
        encodeBatch(1n, t + 2600, [
          reg(1, 'rack-a', 10n),
          reg(2, 'rack-a', 11n),
          reg(3, 'rack-b', 12n),
          topic('orders', ORDERS),
          part(ORDERS, 0, [1, 2]),
          part(ORDERS, 1, [2, 3]),
        ]),
      ]),
    )
    const r = await replayMetadataLog(dir, {trackTopics: new Set(['orders'])})
    expect(r.snapshot?.endOffset).toBe(11n)
    expect(r.historyStart).toEqual({offset: '11', timestamp: t + 2000})
    expect(r.replay.hashes.get('orders')![0]).toMatchObject({offset: 10n, atHistoryStart: true})
    expect(r.replay.image.toClusterMetadata().topics[0].partitions.length).toBe(3)
    expect(r.replay.changes[0]).toMatchObject({kind: 'partitions-added', offset: 11n})
  })

  it('cluster history and topic-hash compute --at read it', async () => {
    const {dir, t} = writeLog()
    const h = JSON.parse((await run(['cluster:history', '--metadata-log', dir, '--topic', 'orders', '--json'])).stdout)
    expect(h.changes.map((c: {description: string}) => c.description)).toEqual([
      `topic orders created (id ${ORDERS}, 2 partitions)`,
      'topic orders partitions 2 → 3',
      'orders partition 0 replicas [1,2] → [1,2,3] (reassignment in progress: adding [3], removing [1])',
      'orders partition 0 replicas [1,2,3] → [2,3]',
      'broker 3 "rack-b" → "rack-c" (re-registered)',
    ])
    expect(h.changes[0]).toMatchObject({offset: '9', time: new Date(t + 2000).toISOString(), kind: 'topic-created', movesHash: true})
    expect(h.source).toMatchObject({snapshot: null, historyStart: {offset: '0'}, lastOffset: '20'})
    const nd = (await run(['cluster:history', '--metadata-log', dir, '--broker', '3', '--ndjson'])).stdout.trim().split('\n')
    expect(JSON.parse(nd[nd.length - 1]).source.dir).toBe(dir)
    expect(Object.keys(JSON.parse(nd[nd.length - 1]))).toEqual(['schema', 'source', 'warnings'])
    expect(JSON.parse(nd[nd.length - 1]).schema).toEqual({name: 'rebalance-doctor/cluster-history-source', version: 1})
    expect(Object.keys(h)).toEqual(['schema', 'source', 'changes', 'warnings'])
    const table = (await run(['cluster:history', '--metadata-log', dir, '--since', new Date(t + 5500).toISOString()])).stdout
    expect(table).toContain('broker 3 "rack-b" → "rack-c" (re-registered)')
    expect(table.split('\n')[0]).toBe(`${dir}: exact history from offset 0 (${new Date(t).toISOString()}) to 20 (${new Date(t + 8000).toISOString()})`)
    expect(table).not.toContain('created (id AAEC')
    const at11 = JSON.parse((await run(['topic-hash:compute', 'orders', '--metadata-log', dir, '--at', '11', '--json'])).stdout)
    const atTime = JSON.parse((await run(['topic-hash:compute', 'orders', '--metadata-log', dir, '--at', new Date(t + 3500).toISOString(), '--json'])).stdout)
    expect(at11.topics[0].partitions).toBe(3)
    expect(atTime).toEqual(at11)
    const end = JSON.parse((await run(['topic-hash:compute', '--metadata-log', dir, '--json'])).stdout)
    expect(end.topics.map((x: {name: string}) => x.name)).toEqual(['orders'])
    expect(end.topics[0].hash).not.toBe(at11.topics[0].hash)
    // the last record is offset 20 at t + 8000: the end itself is fine, past it the state is unknown
    expect((await run(['topic-hash:compute', '--metadata-log', dir, '--at', '20', '--json'])).exitCode).toBe(0)
    for (const at of ['21', new Date(t + 9000).toISOString()]) {
      const past = await run(['topic-hash:compute', '--metadata-log', dir, '--at', at])
      expect(past.exitCode, at).toBe(2)
      expect(past.error?.message).toContain(`--at ${at} is after the last record this metadata log holds (offset 20, ${new Date(t + 8000).toISOString()})`)
    }
  })

  it('attributes a bump exactly, also when the coordinator combined topic hashes computed at different times', async () => {
    const {dir, t} = writeLog()
    const r = await replayMetadataLog(dir, {trackTopics: new Set(['orders', 'payments'])})
    const view = {hashes: r.replay.hashes, changes: r.replay.changes, historyStart: r.historyStart.timestamp}
    const o = r.replay.hashes.get('orders')!
    const p = r.replay.hashes.get('payments')!
    const g = (pairs: Array<[string, bigint]>) => computeGroupHash(new Map(pairs))
    // the reassignment's first step: partition 0 gets [1,2,3]
    const a = attributeFromLog(view, {
      topicsBefore: ['orders'],
      topicsAfter: ['orders'],
      previousHash: g([['orders', o[1].hash]]),
      hash: g([['orders', o[2].hash]]),
      timestamp: t + 4500,
    })
    expect(a.exact).toBe(true)
    expect(a.changes!.map(c => c.description)).toEqual(['orders partition 0 replicas [1,2] → [1,2,3] (reassignment in progress: adding [3], removing [1])'])
    // payments created at t+7000; the coordinator still held orders' hash from before broker 3's re-registration
    const b = attributeFromLog(view, {
      topicsBefore: ['orders', 'payments'],
      topicsAfter: ['orders', 'payments'],
      previousHash: g([['orders', o[3].hash]]),
      hash: g([
        ['orders', o[3].hash],
        ['payments', p[0].hash],
      ]),
      timestamp: t + 7500,
    })
    expect(b.exact).toBe(true)
    expect(b.after).toMatchObject({orders: {offset: '13'}, payments: {offset: '19'}})
    expect(b.changes!.map(c => c.description)).toEqual([`topic payments created (id ${PAYMENTS}, 1 partition)`])
    // a hash no combination gives, and a bump before the log starts: inferred, said so
    expect(
      attributeFromLog(view, {topicsBefore: ['orders'], topicsAfter: ['orders'], previousHash: 1n, hash: g([['orders', o[2].hash]]), timestamp: t + 4500}),
    ).toMatchObject({exact: false})
    expect(
      attributeFromLog({...view, historyStart: t + 1_000_000}, {topicsBefore: ['orders'], topicsAfter: ['orders'], previousHash: 1n, hash: 2n, timestamp: t})
        .message,
    ).toMatch(/starts at .* after this bump/)
  })

  it('a broker back after its unregistration (same rack) gives its replicas their rack again in the tracked hashes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-mdlog-'))
    const t = Date.parse('2026-12-01T10:00:00Z')
    const unregister = (id: number) => encodeMetadataRecord(1, {BrokerId: id, BrokerEpoch: 12n})
    writeFileSync(
      join(dir, '00000000000000000000.log'),
      Buffer.concat([
        encodeBatch(0n, t, [reg(1, 'rack-a', 10n), reg(3, 'rack-b', 12n)]),
        encodeBatch(2n, t + 1000, [unregister(3)]),
        encodeBatch(3n, t + 2000, [reg(3, 'rack-b', 30n)]),
        // created after broker 3 is back: the coordinator hashes it with rack-b for broker 3
        encodeBatch(4n, t + 3000, [topic('orders', ORDERS), part(ORDERS, 0, [3, 1])]),
      ]),
    )
    const r = await replayMetadataLog(dir, {trackTopics: new Set(['orders'])})
    const fresh = computeTopicHash(
      r.replay.image.topicMetadata(r.replay.image.topicsByName.get('orders')!),
      new RackTable(r.replay.image.toClusterMetadata().brokers),
    )
    expect(r.replay.hashes.get('orders')!.map(p => p.hash)).toEqual([fresh])
    const back = r.replay.changes.find(c => c.offset === 3n)!
    expect(back).toMatchObject({kind: 'broker-registered', movesHash: true})
    expect(describeChange(back)).toBe('broker 3 registered again with "rack-b" (its rack before its unregistration)')
  })

  it("audit --metadata-log: names what changed since a drifting group's stored hash, exactly, or says why not", async () => {
    const {dir, t} = writeLog()
    const r = await replayMetadataLog(dir, {trackTopics: new Set(['orders'])})
    const view = {hashes: r.replay.hashes, changes: r.replay.changes, historyStart: r.historyStart.timestamp}
    const o = r.replay.hashes.get('orders')!
    const g = (h: bigint) => computeGroupHash(new Map([['orders', h]]))
    const live = g(o[o.length - 1].hash)
    // stored when orders had 3 partitions, before the reassignment and broker 3's new rack
    const d = attributeDrift(view, ['orders'], g(o[1].hash), live, t + 60_000)
    expect(d.exact).toBe(true)
    expect(d.message).toMatch(/^changed since the stored hash \(exact, from the metadata log\): orders partition 0 replicas \[1,2\] → \[1,2,3\]/)
    expect(d.changes!.map(c => c.description)).toEqual([
      'orders partition 0 replicas [1,2] → [1,2,3] (reassignment in progress: adding [3], removing [1])',
      'orders partition 0 replicas [1,2,3] → [2,3]',
      'broker 3 "rack-b" → "rack-c" (re-registered)',
    ])
    expect(d.before).toMatchObject({orders: {offset: '11'}})
    // a stored hash no state of the log gives, and a live hash the log does not reach: inferred, said so
    expect(attributeDrift(view, ['orders'], 1n, live, t + 60_000)).toMatchObject({
      exact: false,
      message: expect.stringMatching(/no combination .* reproduces the stored hash \(it starts at /),
    })
    expect(attributeDrift(view, ['orders'], g(o[1].hash), 2n, t + 60_000)).toMatchObject({
      exact: false,
      message: expect.stringMatching(/does not reach the live metadata/),
    })
  })

  it('reads batches in every codec Kafka writes to the same image, and refuses a batch that inflates past the bound', async () => {
    const plain = (await replayMetadataLog(writeLog().dir)).replay.image.toClusterMetadata()
    const zstd = (zlib as unknown as {zstdCompressSync?: (b: Buffer) => Buffer}).zstdCompressSync
    const codecs: BatchCompression[] = [
      {codec: 1, compress: b => zlib.gzipSync(b)},
      {codec: 2, compress: b => snappyCompress(b)},
      {codec: 3, compress: b => lz4Compress(b)},
      ...(zstd ? [{codec: 4 as const, compress: zstd}] : []),
    ]
    for (const c of codecs) {
      const {dir} = writeLog(c)
      expect((await replayMetadataLog(dir)).replay.image.toClusterMetadata(), `codec ${c.codec}`).toEqual(plain)
    }
    // a 1 KB gzip batch that inflates to 100 MB: refused at the bound (64 MiB default), named
    const dir = mkdtempSync(join(tmpdir(), 'rd-mdlog-bomb-'))
    writeFileSync(
      join(dir, '00000000000000000000.log'),
      encodeBatch(0n, 0, [reg(1, 'rack-a', 1n)], false, {codec: 1, compress: () => zlib.gzipSync(Buffer.alloc(100 << 20))}),
    )
    const err = (await replayMetadataLog(dir).catch((e: Error & {code?: string}) => e)) as Error & {code?: string}
    expect(err.code).toBe('METADATA_LOG_COMPRESSION')
    expect(err.message).toMatch(/00000000000000000000\.log: the batch at byte 0: .*gzip data decompresses to more than 67108864 bytes/)
  })

  it('names a missing directory', async () => {
    await expect(replayMetadataLog('/nonexistent/x')).rejects.toThrow(/does not exist/)
  })
})

describe('readBatchFile', () => {
  it('yields every batch of a file larger than its read buffer, and records kept across chunks keep their bytes', async () => {
    const {readBatchFile} = await import('../../../src/sources/metadata-log.js')
    const dir = mkdtempSync(join(tmpdir(), 'rd-batchfile-'))
    // ~3 MiB of 1 KiB values in batches of 20: several 1 MiB chunks, each parsed in slices
    const value = (i: number) => new Uint8Array(1024).fill(i % 251)
    const batches: Buffer[] = []
    for (let b = 0; b < 150; b++)
      batches.push(
        encodeBatch(
          BigInt(b * 20),
          1_000 + b,
          Array.from({length: 20}, (_, i) => value(b * 20 + i)),
        ),
      )
    writeFileSync(join(dir, 'f.log'), Buffer.concat(batches))
    const kept = []
    let chunks = 0
    for await (const chunk of readBatchFile(join(dir, 'f.log'))) {
      chunks++
      kept.push(...chunk) // kept past the next read, as a snapshot's batches are
    }
    expect(kept.map(b => b.baseOffset)).toEqual(Array.from({length: 150}, (_, b) => BigInt(b * 20)))
    const wrong = kept.flatMap(b => b.records).filter(r => r.value === null || r.value.length !== 1024 || r.value.some(x => x !== Number(r.offset) % 251))
    expect(wrong.length).toBe(0)
    expect(chunks).toBeGreaterThan(3) // parsed in slices, not a whole 1 MiB chunk at once
  })
})
