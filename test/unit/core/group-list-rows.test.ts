import {describe, expect, it} from 'vitest'
import {type GroupListEntry, GroupListRows, groupListing} from '../../../src/core/group-list.js'
import {jsonPieces, piecesText} from '../../../src/render/json-stream.js'

const entry = (i: number): GroupListEntry => ({
  group: `g-${String(i).padStart(5, '0')}`,
  type: ['consumer', 'classic', 'share', 'streams'][i % 4],
  protocolType: i % 4 === 1 ? '' : i % 4 === 3 ? 'streams' : 'consumer',
  state: i % 3 === 0 ? 'Empty' : 'Stable',
  groupEpoch: i % 4 === 1 ? null : i - 1,
  assignmentEpoch: i % 5 === 0 ? null : -i,
  members: i % 7 === 0 ? null : i % 13,
  coordinator: i % 11 === 0 ? null : 2_147_483_647 - i,
  partition: i % 50,
  ...(i % 7 === 0 ? {describeError: i % 2 ? 'GROUP_ID_NOT_FOUND' : 'GROUP_AUTHORIZATION_FAILED'} : {}),
})

describe('group list rows held as columns', () => {
  const entries = Array.from({length: 2500}, (_, i) => entry(i))
  const rows = new GroupListRows()
  for (const e of entries) rows.add(e)

  it('each row reads back as the entry added: nulls, an empty protocol type, negative and int32 numbers, describeError only where it was', () => {
    expect(rows.length).toBe(entries.length)
    for (let i = 0; i < entries.length; i++) {
      expect(rows.at(i)).toEqual(entries[i])
      expect(Object.keys(rows.at(i))).toEqual(Object.keys(entries[i]))
    }
  })

  it("a row's JSON text is JSON.stringify's, group ids with quotes, backslashes and control characters too", () => {
    const odd = new GroupListRows()
    const ids = ['a"b', 'c\\d', 'e\u0000f\u001b[31m', 'bidi\u202etxt', 'ünï', '']
    for (const [i, group] of ids.entries()) odd.add({...entry(i), group})
    for (let i = 0; i < rows.length; i++) expect(rows.jsonAt(i)).toBe(JSON.stringify(entries[i]))
    for (let i = 0; i < ids.length; i++) expect(odd.jsonAt(i)).toBe(JSON.stringify({...entry(i), group: ids[i]}))
  })

  it('the rows are written as the array of the entries: the same JSON (keys in the same order), in pieces too', () => {
    expect([...rows]).toEqual(entries)
    expect(JSON.stringify({groups: rows})).toBe(JSON.stringify({groups: entries}))
    expect(piecesText(jsonPieces({groups: rows, after: 1}))).toBe(JSON.stringify({groups: entries, after: 1}))
  })

  it('rows past the capacity given grow the columns; the JSON is the same', () => {
    const small = new GroupListRows(1)
    for (const e of entries) small.add(e)
    expect([...small]).toEqual(entries)
    expect(piecesText(small.jsonPieces())).toBe(JSON.stringify(entries))
  })

  it('no rows: an empty array', () => {
    const none = new GroupListRows()
    expect([...none]).toEqual([])
    expect(JSON.stringify(none)).toBe('[]')
    expect(piecesText(jsonPieces({groups: none}))).toBe('{"groups":[]}')
  })
})

describe('the listing joined with the describes', () => {
  const listed = (groupId: string) => ({groupId, type: 'consumer', protocolType: 'consumer', state: 'Empty'})
  const described = new Map([
    ['b', {groupId: 'b', errorName: 'NONE', state: 'Stable', groupEpoch: 4, assignmentEpoch: 3, members: [{}, {}]}],
    ['a', {groupId: 'a', errorName: 'GROUP_ID_NOT_FOUND', state: '', members: []}],
  ])
  const coordinators = new Map([['b', {id: 2}]])

  it("in group id order whatever the listing's order; the describe's word where it answered, describeError last where it failed", () => {
    const es = groupListing(['c', 'b', 'a'].map(listed), described, coordinators, id => id.charCodeAt(0) - 97)
    expect(es.map(e => e.group)).toEqual(['a', 'b', 'c'])
    expect(es[0]).toEqual({...es[2], group: 'a', partition: 0, describeError: 'GROUP_ID_NOT_FOUND'})
    expect(Object.keys(es[0]).at(-1)).toBe('describeError')
    expect(es[1]).toMatchObject({state: 'Stable', groupEpoch: 4, assignmentEpoch: 3, members: 2, coordinator: 2})
    expect(es[2]).toEqual({
      group: 'c',
      type: 'consumer',
      protocolType: 'consumer',
      state: 'Empty',
      groupEpoch: null,
      assignmentEpoch: null,
      members: null,
      coordinator: null,
      partition: 2,
    })
  })
})
