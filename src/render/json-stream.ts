/**
 * A JSON document written in pieces: the same bytes as JSON.stringify(value) (compact), but its large arrays are
 * stringified element by element and written in chunks of ~1 MiB. An audit's 10,000 group rows are one 6 MB
 * string otherwise, built in parts by V8 and flattened in one copy before it can be written (~25 ms here).
 * An element that carries its own JSON text (jsonText(), e.g. an audit row read back from a checkpoint as it was
 * written: src/core/audit/stored-row.ts) is written as that text, not stringified again; as its bytes when it has
 * them in printable ASCII (jsonBytes()): a 10,000-row audit then goes out without decoding, joining, scanning and
 * encoding again its 6 MB of rows (~40 ms here).
 */

/** A value whose JSON is already at hand: jsonText() is JSON.stringify(value); jsonBytes() its UTF-8 when that is printable ASCII only. */
interface WithJsonText {
  jsonText(): string
  jsonBytes?(): Uint8Array | undefined
}
const hasJsonText = (v: unknown): v is WithJsonText => typeof v === 'object' && v !== null && typeof (v as Partial<WithJsonText>).jsonText === 'function'

/**
 * An array held in another form (`group list`'s rows as columns: src/core/group-list.ts): written row by row from
 * each row's JSON text; JSON.stringify writes it through its toJSON(), which must give the same array.
 */
interface JsonRows {
  readonly length: number
  jsonTextAt(i: number): string
  toJSON(): unknown[]
}
const isJsonRows = (v: unknown): v is JsonRows => typeof v === 'object' && v !== null && typeof (v as Partial<JsonRows>).jsonTextAt === 'function'

/** A piece of a document: text, or UTF-8 bytes of printable ASCII only (nothing a terminal-safe mapping would change). */
export type JsonPiece = string | Uint8Array

/** The comma before a row given as bytes, as bytes too: text between two byte rows would be encoded once per row.
 * A Buffer (its toString() is its text, as for the rows: a capture of stdout that stringifies chunks reads it right). */
const COMMA = Buffer.from([0x2c])

/** The pieces of JSON.stringify(value) for a plain object whose top-level arrays may be long. */
export function* jsonPieces(value: Record<string, unknown>): Generator<JsonPiece> {
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
        const own = hasJsonText(x)
        const bytes = own ? x.jsonBytes?.() : undefined
        if (bytes) {
          if (i > 0) yield COMMA
          yield bytes
        } else yield `${i === 0 ? '' : ','}${own ? x.jsonText() : (JSON.stringify(x) ?? 'null')}`
      }
      yield ']'
    } else if (isJsonRows(v)) {
      yield '['
      for (let i = 0; i < v.length; i++) yield `${i === 0 ? '' : ','}${v.jsonTextAt(i)}`
      yield ']'
    } else yield JSON.stringify(v)
  }
  yield '}'
}

/** The document's text from its pieces (tests, small documents). */
export const piecesText = (pieces: Iterable<JsonPiece>): string =>
  [...pieces].map(p => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('')

/**
 * Writes pieces in chunks of about `size` bytes: text is passed through `map` and encoded, bytes go as they are
 * (printable ASCII: `map` must leave such text unchanged). Each chunk is given as its parts, in order: one buffer to
 * join, or to write as they are where the output gathers them (a pipe's writev: no copy of the rows read back).
 */
export function writeInChunks(
  pieces: Iterable<JsonPiece>,
  write: (parts: Uint8Array[], bytes: number) => void,
  map: (text: string) => string = s => s,
  size = 1 << 20,
): void {
  let parts: Uint8Array[] = []
  let bytes = 0
  let text = ''
  const endText = () => {
    if (!text) return
    const b = Buffer.from(map(text), 'utf8')
    parts.push(b)
    bytes += b.length
    text = ''
  }
  const flush = () => {
    endText()
    if (bytes > 0) write(parts, bytes)
    parts = []
    bytes = 0
  }
  for (const p of pieces) {
    if (typeof p === 'string') {
      text += p
      if (text.length >= size) endText()
    } else {
      endText()
      parts.push(p)
      bytes += p.length
    }
    if (bytes >= size) flush()
  }
  flush()
}
