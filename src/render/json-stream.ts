/**
 * A JSON document written in pieces: the same bytes as JSON.stringify(value) (compact), but its large arrays are
 * stringified element by element and written in chunks of ~1 MiB. An audit's 10,000 group rows are one 6 MB
 * string otherwise, built in parts by V8 and flattened in one copy before it can be written (~25 ms here).
 * An element that carries its own JSON text (jsonText(), e.g. an audit row read back from a checkpoint as it was
 * written: src/core/audit/stored-row.ts) is written as that text, not stringified again.
 */

/** A value whose JSON is already at hand: jsonText() is JSON.stringify(value). */
interface WithJsonText {
  jsonText(): string
}
const hasJsonText = (v: unknown): v is WithJsonText => typeof v === 'object' && v !== null && typeof (v as Partial<WithJsonText>).jsonText === 'function'

/** The pieces of JSON.stringify(value) for a plain object whose top-level arrays may be long. */
export function* jsonPieces(value: Record<string, unknown>): Generator<string> {
  yield '{'
  let first = true
  for (const [key, v] of Object.entries(value)) {
    // (JSON.stringify leaves out what it cannot write: undefined, functions, symbols)
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue
    yield `${first ? '' : ','}${JSON.stringify(key)}:`
    first = false
    if (Array.isArray(v)) {
      yield '['
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i]
        yield `${i === 0 ? '' : ','}${hasJsonText(x) ? x.jsonText() : JSON.stringify(x) ?? 'null'}`
      }
      yield ']'
    } else yield JSON.stringify(v)
  }
  yield '}'
}

/** Joins pieces into chunks of about `size` characters, each passed through `map` and given to `write`. */
export function writeInChunks(pieces: Iterable<string>, write: (chunk: string) => void, map: (chunk: string) => string = s => s, size = 1 << 20): void {
  let chunk = ''
  for (const p of pieces) {
    chunk += p
    if (chunk.length >= size) {
      write(map(chunk))
      chunk = ''
    }
  }
  if (chunk) write(map(chunk))
}
