import {describe, expect, it} from 'vitest'
import {encodeRecord, type RecordDecodeError} from '../../../src/core/records/index.js'
import {decodeBatch, replayGroup} from '../../../src/core/replay/index.js'
import {consumer as c} from './log.js'

const rec = (offset: bigint, r: ReturnType<typeof c.metadata>) => ({offset, timestamp: 1700000000000n, ...encodeRecord(r)})

describe('decodeBatch', () => {
  it('keeps one group, tags the batch base offset, feeds replay', () => {
    const batch = {baseOffset: 10n, records: [rec(10n, c.member('g', 'm', {names: ['a']})), rec(11n, c.metadata('other', 3)), rec(12n, c.metadata('g', 1, 5n))]}
    const records = decodeBatch(batch, {groupId: 'g'})
    expect(records.map((r) => [r.offset, r.batchBaseOffset, r.timestamp])).toEqual([[10n, 10n, 1700000000000], [12n, 10n, 1700000000000]])
    const {timeline} = replayGroup('g', records)
    expect(timeline[0].records).toHaveLength(2)
  })

  it('collects malformed records when asked, throws otherwise', () => {
    const bad = {offset: 5n, timestamp: 1, key: Uint8Array.from([0, 3, 0, 1, 0x67]), value: Uint8Array.from([0, 0, 1])}
    const errors: RecordDecodeError[] = []
    expect(decodeBatch({baseOffset: 5n, records: [bad]}, {errors})).toEqual([])
    expect(errors[0].offset).toBe(5n)
    expect(() => decodeBatch({baseOffset: 5n, records: [bad]})).toThrow(/offset 5/)
  })
})
