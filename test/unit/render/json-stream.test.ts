import {describe, expect, it} from 'vitest'
import {jsonPieces, piecesText, writeInChunks} from '../../../src/render/json-stream.js'
import {terminalSafeJson} from '../../../src/render/terminal.js'

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

  it('chunks of about the given size, text mapped where it holds more than printable ASCII, nothing lost', () => {
    const doc = {rows: Array.from({length: 1000}, (_, i) => ({i, pad: i % 100 === 7 ? 'é\u0085\u007f\u202e'.repeat(12) : 'x'.repeat(50)}))}
    const chunks: string[] = []
    const seen: string[] = []
    writeInChunks(
      jsonPieces(doc),
      (parts, bytes) => chunks.push(Buffer.concat(parts, bytes).toString()),
      c => (seen.push(c), terminalSafeJson(c)),
      4096,
    )
    expect(chunks.length).toBeGreaterThan(10)
    expect(chunks.slice(0, -1).every(c => Buffer.byteLength(c) >= 4096 && Buffer.byteLength(c) < 4096 + 200)).toBe(true)
    expect(chunks.join('')).toBe(terminalSafeJson(JSON.stringify(doc)))
    // only the chunks holding a row with those characters were given to the mapping
    expect(seen.length).toBe(10)
    expect(seen.every(c => c.includes('é'))).toBe(true)
  })

  it('a piece larger than a chunk is written whole', () => {
    const big = 'ü'.repeat(10_000)
    const chunks: Buffer[] = []
    writeInChunks(
      ['[', JSON.stringify(big), ']'],
      parts => chunks.push(Buffer.concat(parts)),
      s => s,
      1024,
    )
    expect(Buffer.concat(chunks).toString()).toBe(`[${JSON.stringify(big)}]`)
  })
})
