import {describe, expect, it} from 'vitest'
import {type GroupListEntry, GroupListRows} from '../../../src/core/group-list.js'
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
    for (let i = 0; i < rows.length; i++) expect(rows.jsonTextAt(i)).toBe(JSON.stringify(entries[i]))
    for (let i = 0; i < ids.length; i++) expect(odd.jsonTextAt(i)).toBe(JSON.stringify({...entry(i), group: ids[i]}))
  })

  it('the rows are written as the array of the entries: the same JSON (keys in the same order), in pieces too', () => {
    expect([...rows]).toEqual(entries)
    expect(JSON.stringify({groups: rows})).toBe(JSON.stringify({groups: entries}))
    expect(piecesText(jsonPieces({groups: rows, after: 1}))).toBe(JSON.stringify({groups: entries, after: 1}))
  })

  it('no rows: an empty array', () => {
    const none = new GroupListRows()
    expect([...none]).toEqual([])
    expect(JSON.stringify(none)).toBe('[]')
    expect(piecesText(jsonPieces({groups: none}))).toBe('{"groups":[]}')
  })
})
