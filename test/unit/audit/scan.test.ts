import {describe, expect, it} from 'vitest'
import {PartitionScan, sameGroupIdBytes} from '../../../src/core/audit/scan.js'
import type {RecordToEncode} from '../../../src/core/records/index.js'
import type {LogBatch} from '../../../src/core/log/batch.js'
import {BatchWriter, consumer} from '../../lib/records.js'

const writer = new BatchWriter()
const batch = (records: RecordToEncode[], txn: {producerId?: bigint} = {}) => writer.batch(records, txn)

describe('PartitionScan', () => {
  it('reduces every group of the partition, skips offset commits undecoded, and keeps the last bumps', () => {
    const scan = new PartitionScan({keepEpochs: 3})
    for (let e = 1; e <= 50; e++) {
      scan.onBatch(
        batch([
          consumer.member('a', 'm1', {names: ['t']}),
          consumer.metadata('a', e, BigInt(e)),
          consumer.targetMetadata('a', e),
          consumer.current('a', 'm1', e),
        ]),
      )
      scan.onBatch(batch([consumer.offsetCommit('a', 't', 0, BigInt(e)), consumer.offsetCommit('b', 't', 0, BigInt(e))]))
      if (e % 10 === 0) scan.onBatch(batch([consumer.member('b', 'x', {names: ['t']}), consumer.metadata('b', e / 10, 7n)]))
    }
    const out = scan.finish()
    expect([...out.keys()].sort()).toEqual(['a', 'b'])
    expect(out.get('a')!.state.consumer!.epoch).toBe(50)
    expect(out.get('a')!.recent.map(e => e.epoch)).toEqual([48, 49, 50])
    expect(out.get('b')!.recent.map(e => e.epoch)).toEqual([3, 4, 5])
    expect(scan.offsetCommitsSkipped).toBe(100)
    expect(scan.recordsScanned).toBe(50 * 6 + 5 * 2)
    // offset commits were not applied (memory follows groups and members)
    expect(out.get('a')!.state.offsets.size).toBe(0)
  })

  it('group filter, aborted transactions and undecodable records', () => {
    const scan = new PartitionScan({acceptGroup: g => g !== 'skip'})
    scan.onBatch(batch([consumer.member('keep', 'm', {names: ['t']}), consumer.metadata('keep', 1, 1n)]))
    scan.onBatch(batch([consumer.member('skip', 'm', {names: ['t']}), consumer.metadata('skip', 1, 1n)]))
    const aborted = batch([consumer.member('ghost', 'm', {names: ['t']}), consumer.metadata('ghost', 1, 1n)], {producerId: 9n})
    scan.onAborted([{producerId: 9n, firstOffset: aborted.baseOffset}])
    scan.onBatch(aborted)
    const bad = batch([consumer.metadata('keep', 2, 2n)])
    ;(bad.records[0] as {value: Uint8Array}).value = Uint8Array.from([0, 0, 0xff])
    scan.onBatch(bad)
    const out = scan.finish()
    expect([...out.keys()]).toEqual(['keep'])
    expect(scan.filter.stats.abortedBatches).toBe(1)
    expect(scan.decodeErrors).toBe(1)
  })
})

describe('PartitionScan over batches whose offset commits the reader stepped over (auditKeyFilter)', () => {
  it('the same groups and counters as over whole batches, over generated logs', async () => {
    const {auditKeyFilter} = await import('../../../src/core/audit/scan.js')
    const {batches, generate} = await import('./generated.js')
    for (let seed = 1; seed <= 6; seed++) {
      const whole = batches(generate(seed, 8, 50), seed)
      const filtered = whole.map(b => ({
        ...b,
        records: b.records.filter(r => r.key === null || auditKeyFilter(r.key, 0, r.key.length)),
        recordCount: b.records.length,
      }))
      expect(filtered.some((b, i) => b.records.length < whole[i].records.length)).toBe(true)
      const a = new PartitionScan()
      const b = new PartitionScan()
      for (const x of whole) a.onBatch(x)
      for (const x of filtered) b.onBatch(x)
      expect(b.counters).toEqual(a.counters)
      expect(b.finish()).toEqual(a.finish())
    }
  })
})

describe('PartitionScan applies its records in windows, group by group', () => {
  /** Everything a scan gives: its groups in order with their summaries, costs and checkpoint texts, and its counters. */
  async function scanned(bs: readonly LogBatch[], windowBytes: number | undefined) {
    const scan = new PartitionScan({rowCosts: true, windowBytes})
    for (const b of bs) scan.onBatch(b)
    const groups = [...scan.finish()].map(([id, summary]) => ({id, summary, cost: scan.costOf(id)}))
    return {groups, data: scan.data(), counters: scan.counters}
  }

  it('gives what applying each batch at its end gives, over generated logs of every group type', async () => {
    const {batches, generate} = await import('./generated.js')
    let groups = 0
    for (let seed = 1; seed <= 8; seed++) {
      const bs = batches(generate(seed, 12, 80), seed)
      // a record of a group taken long before that does not decode: counted, not applied, wherever its window applies it
      const bad = bs
        .slice(bs.length >> 1)
        .flatMap(b => b.records)
        .find(r => r.key![1] === 3)!
      bad.value = Uint8Array.from([0, 0, 0xff])
      const batchByBatch = await scanned(bs, 0)
      expect(batchByBatch.counters.decodeErrors).toBe(1)
      // windows of ~2 KB (several per log) and of the default size (one)
      for (const windowBytes of [2_000, undefined]) expect(await scanned(bs, windowBytes), `seed ${seed}, window ${windowBytes}`).toEqual(batchByBatch)
      groups += batchByBatch.groups.length
    }
    expect(groups).toBeGreaterThan(80)
  })

  it('takes a group at its first record that decodes, in the order of those records', () => {
    const bad = batch([consumer.metadata('a', 1, 1n)])
    ;(bad.records[0] as {value: Uint8Array}).value = Uint8Array.from([0, 0, 0xff])
    const scan = new PartitionScan()
    scan.onBatch(bad)
    scan.onBatch(batch([consumer.metadata('b', 1, 1n)]))
    scan.onBatch(batch([consumer.metadata('a', 2, 2n)]))
    const out = scan.finish()
    expect([...out.keys()]).toEqual(['b', 'a'])
    expect(out.get('a')!.state.consumer!.epoch).toBe(2)
    expect(scan.decodeErrors).toBe(1)
  })
})

describe('sameGroupIdBytes: two keys hold the same group id bytes', () => {
  const key = (type: number, group: string, rest: number[] = []) => {
    const g = Buffer.from(group, 'utf8')
    return Uint8Array.from([0, type, g.length >> 8, g.length & 0xff, ...g, ...rest])
  }

  it('the same id in keys of other types and fields: the same; another id, longer, shorter or of other bytes: not', () => {
    expect(sameGroupIdBytes(key(3, 'orders'), key(5, 'orders', [0, 2, 0x6d, 0x31]))).toBe(true)
    expect(sameGroupIdBytes(key(3, ''), key(8, ''))).toBe(true)
    expect(sameGroupIdBytes(key(3, 'orders'), key(3, 'ordert'))).toBe(false)
    expect(sameGroupIdBytes(key(3, 'orders'), key(3, 'order'))).toBe(false)
    expect(sameGroupIdBytes(key(3, 'ab'), key(3, 'abc'))).toBe(false)
    expect(sameGroupIdBytes(key(3, 'é'), key(3, 'e\u0301'))).toBe(false)
  })

  it('keys that hold no group id (too short, a negative or overlong length) are never the same', () => {
    expect(sameGroupIdBytes(Uint8Array.from([0, 3, 0]), Uint8Array.from([0, 3, 0]))).toBe(false)
    expect(sameGroupIdBytes(Uint8Array.from([0, 3, 0xff, 0xff, 1]), Uint8Array.from([0, 3, 0xff, 0xff, 1]))).toBe(false)
    expect(sameGroupIdBytes(Uint8Array.from([0, 3, 0, 5, 0x61]), Uint8Array.from([0, 3, 0, 5, 0x61]))).toBe(false)
  })
})

describe('PartitionScan over a batch holding records of several groups', () => {
  it('gives each record to its own group (ids that share bytes or lengths), and takes a group at its first record that decodes', () => {
    const scan = new PartitionScan({rowCosts: true, acceptGroup: g => g !== 'abd'})
    const groups = ['ab', 'ac', 'a', 'abc', 'abd', 'ab']
    const b = batch(groups.flatMap((g, i) => [consumer.member(g, `m${i}`, {names: ['t']}), consumer.metadata(g, 10 + i, BigInt(i))]))
    // the first record of `ac` does not decode: its next record (its metadata) takes it
    ;(b.records[2] as {value: Uint8Array}).value = Uint8Array.from([0, 0, 0xff])
    scan.onBatch(b)
    const out = scan.finish()
    expect([...out.keys()]).toEqual(['ab', 'ac', 'a', 'abc'])
    expect([...out].map(([g, s]) => [g, s.state.consumer!.epoch, [...s.state.consumer!.members.keys()]])).toEqual([
      ['ab', 15, ['m0', 'm5']],
      ['ac', 11, []],
      ['a', 12, ['m2']],
      ['abc', 13, ['m3']],
    ])
    expect(scan.decodeErrors).toBe(1)
  })
})
