import {describe, expect, it} from 'vitest'
import {encodeRecord, groupIdOfKey, type RecordDecodeError} from '../../../src/core/records/index.js'
import {decodeBatch, groupKeyMatcher, replayGroup} from '../../../src/core/replay/index.js'
import {classic, consumer as c, share, streams} from '../../lib/records.js'

const rec = (offset: bigint, r: ReturnType<typeof c.metadata>) => ({offset, timestamp: 1700000000000n, ...encodeRecord(r)})

describe('decodeBatch', () => {
  it('keeps one group, tags the batch base offset, feeds replay', () => {
    const batch = {baseOffset: 10n, records: [rec(10n, c.member('g', 'm', {names: ['a']})), rec(11n, c.metadata('other', 3)), rec(12n, c.metadata('g', 1, 5n))]}
    const records = decodeBatch(batch, {groupId: 'g'})
    expect(records.map(r => [r.offset, r.batchBaseOffset, r.timestamp])).toEqual([
      [10n, 10n, 1700000000000],
      [12n, 10n, 1700000000000],
    ])
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

describe('groupKeyMatcher', () => {
  it('accepts exactly the keys whose group id is the group (every record type, prefixes, UTF-8), on raw bytes', () => {
    const ids = ['g', 'g2', '', 'g\u00e9', 'ge\u0301', 'ordérs-日本', 'x'.repeat(300)]
    const keys = ids.flatMap(g =>
      [c.metadata(g, 1), c.member(g, 'm'), c.offsetCommit(g, 't', 0, 1n), classic.group(g, 1, []), share.metadata(g, 1), streams.metadata(g, 1)].map(
        r => encodeRecord(r).key,
      ),
    )
    for (const g of ids) {
      const match = groupKeyMatcher(g)
      const mine = keys.filter(k => match(k))
      expect(mine).toHaveLength(6)
      for (const k of keys) expect(match(k), `${g} vs ${groupIdOfKey(k)}`).toBe(groupIdOfKey(k) === g)
    }
    const match = groupKeyMatcher('g')
    expect(match(null)).toBe(false)
    expect(match(Uint8Array.from([0, 3, 0]))).toBe(false)
    // a length that claims more bytes than the key has
    expect(match(Uint8Array.from([0, 3, 0, 1]))).toBe(false)
  })
})
