import {describe, expect, it} from 'vitest'
import {jsonPieces, piecesText, writeInChunks} from '../../../src/render/json-stream.js'

describe('a JSON document in pieces', () => {
  it('is byte for byte JSON.stringify: skipped undefined/function fields, null for undefined elements, empty arrays, nested values', () => {
    const docs: Array<Record<string, unknown>> = [
      {},
      {schema: {name: 'x', version: 1}, groups: [], warnings: []},
      {a: undefined, b: () => 1, c: [1, undefined, () => 2, 'é\u202e"\\'], d: null, e: {f: [[1], {g: undefined}]}, h: 12n.toString()},
      {rows: Array.from({length: 2500}, (_, i) => ({group: `g-${i}`, n: i, list: [i, i + 1]})), last: true},
    ]
    for (const d of docs) expect(piecesText(jsonPieces(d))).toBe(JSON.stringify(d))
  })

  it('a value that gives its own JSON, as a field or an array element, is written as its pieces, text or bytes', () => {
    const own = (value: unknown, asBytes: boolean) => ({
      value,
      jsonPieces: () => (asBytes ? [Buffer.from(JSON.stringify(value))] : ['', JSON.stringify(value)]),
      toJSON: () => value,
    })
    const doc = {
      rows: own([{a: 1}, 'é\u202e'], false),
      mixed: [own({b: 2}, true), {c: 3}, own('d', false), own(null, true)],
      bytesFirst: [own(4, true), 5],
    }
    const pieces = [...jsonPieces(doc)]
    expect(piecesText(pieces)).toBe(JSON.stringify(doc))
    expect(pieces.filter(p => typeof p !== 'string')).toHaveLength(3 + 2) // the byte rows and the commas before them
  })

  it('chunks of about the given size, each mapped, nothing lost', () => {
    const doc = {rows: Array.from({length: 1000}, (_, i) => ({i, pad: 'x'.repeat(50)}))}
    const chunks: string[] = []
    writeInChunks(
      jsonPieces(doc),
      (parts, bytes) => chunks.push(Buffer.concat(parts, bytes).toString()),
      c => c.toUpperCase(),
      4096,
    )
    expect(chunks.length).toBeGreaterThan(10)
    expect(chunks.slice(0, -1).every(c => c.length >= 4096 && c.length < 4096 + 200)).toBe(true)
    expect(chunks.join('')).toBe(JSON.stringify(doc).toUpperCase())
  })
})
