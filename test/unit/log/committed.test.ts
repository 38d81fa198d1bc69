import {describe, expect, it} from 'vitest'
import type {LogBatch} from '../../../src/core/log/batch.js'
import {CommittedFilter} from '../../../src/core/log/committed.js'

const rec = (offset: number) => ({offset: BigInt(offset), timestamp: 0n, key: new Uint8Array([0, 1]), value: new Uint8Array([offset])})
const data = (offset: number, producerId = -1, transactional = false): LogBatch => ({
  baseOffset: BigInt(offset),
  lastOffset: BigInt(offset),
  producerId: BigInt(producerId),
  isTransactional: transactional,
  isControl: false,
  records: [rec(offset)],
})
const marker = (offset: number, producerId: number, type: 'abort' | 'commit'): LogBatch => ({
  baseOffset: BigInt(offset),
  lastOffset: BigInt(offset),
  producerId: BigInt(producerId),
  isTransactional: true,
  isControl: true,
  records: [{offset: BigInt(offset), timestamp: 0n, key: new Uint8Array([0, 0, 0, type === 'abort' ? 0 : 1]), value: new Uint8Array([0, 0, 0, 0, 0, 0])}],
})
const offsets = (batches: LogBatch[], aborted: Array<[number, number]>) => {
  const f = new CommittedFilter()
  f.addAborted(aborted.map(([producerId, firstOffset]) => ({producerId: BigInt(producerId), firstOffset: BigInt(firstOffset)})))
  return batches.flatMap(b => f.accept(b)).map(r => Number(r.offset))
}

describe('CommittedFilter (read_committed)', () => {
  it('keeps non-transactional data and committed transactions, drops aborted ones and all markers', () => {
    const log = [data(0), data(1, 7, true), marker(2, 7, 'commit'), data(3, 8, true), data(4), marker(5, 8, 'abort'), data(6)]
    expect(offsets(log, [[8, 3]])).toEqual([0, 1, 4, 6])
  })

  it('handles one producer aborting several times, with a commit in between', () => {
    const log = [
      data(0, 5, true),
      marker(1, 5, 'abort'),
      data(2, 5, true),
      marker(3, 5, 'commit'),
      data(4, 5, true),
      data(5, 5, true),
      marker(6, 5, 'abort'),
      data(7, 5, true),
      marker(8, 5, 'commit'),
    ]
    expect(
      offsets(log, [
        [5, 0],
        [5, 4],
      ]),
    ).toEqual([2, 7])
  })

  it("interleaved producers: only the aborted producer's batches go", () => {
    const log = [data(0, 1, true), data(1, 2, true), data(2, 1, true), marker(3, 2, 'commit'), marker(4, 1, 'abort')]
    expect(offsets(log, [[1, 0]])).toEqual([1])
  })

  it('aborted entries from several fetch responses are merged once', () => {
    const f = new CommittedFilter()
    f.addAborted([{producerId: 3n, firstOffset: 0n}])
    f.addAborted([{producerId: 3n, firstOffset: 0n}])
    expect(f.accept(data(0, 3, true))).toEqual([])
    expect(f.accept(marker(1, 3, 'abort'))).toEqual([])
    expect(f.accept(data(2, 3, true))).toHaveLength(1)
    expect(f.stats).toEqual({abortedBatches: 1, abortedRecords: 1, controlBatches: 1})
  })
})
