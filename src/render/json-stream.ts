/**
 * A JSON document written in pieces: the same bytes as JSON.stringify(value) (compact), but its large arrays are
 * stringified element by element and written in chunks of ~1 MiB. An audit's 10,000 group rows are one 6 MB
 * string otherwise, built in parts by V8 and flattened in one copy before it can be written (~25 ms here).
 * A value that gives its own JSON (OwnJson), as a top-level value or an array's element, is written as the pieces
 * it gives, not stringified: an audit row read back from a checkpoint gives the bytes it was read as
 * (src/core/audit/stored-row.ts: a 10,000-row audit then goes out without decoding, joining, scanning and encoding
 * again its 6 MB of rows, ~40 ms here); `group list`'s rows held as columns give each row's text without an
 * object made for it (src/core/group-list.ts).
 */

/** A piece of a document: text, or UTF-8 bytes of printable ASCII only (nothing a terminal-safe mapping would change). */
export type JsonPiece = string | Uint8Array

/** A value whose JSON is at hand: jsonPieces() joined are JSON.stringify(value) (its toJSON(), if any, must agree). */
export interface OwnJson {
  jsonPieces(): Iterable<JsonPiece>
}
const ownJson = (v: unknown): v is OwnJson => typeof v === 'object' && v !== null && typeof (v as Partial<OwnJson>).jsonPieces === 'function'

/** The comma before a row that gives its own pieces, as bytes: text between two byte rows would be encoded once per row.
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
    if (ownJson(v)) yield* v.jsonPieces()
    else if (Array.isArray(v)) yield* arrayPieces(v)
    else yield JSON.stringify(v)
  }
  yield '}'
}

function* arrayPieces(v: readonly unknown[]): Generator<JsonPiece> {
  yield '['
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i]
    if (ownJson(x)) {
      if (i > 0) yield COMMA
      yield* x.jsonPieces()
    } else yield `${i === 0 ? '' : ','}${JSON.stringify(x) ?? 'null'}`
  }
  yield ']'
}

/** The document's text from its pieces (tests, small documents). */
export const piecesText = (pieces: Iterable<JsonPiece>): string =>
  [...pieces].map(p => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('')

/** True when the bytes are printable ASCII, tab and newline only: text a terminal-safe mapping leaves as it is. */
function plainText(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) {
    const c = b[i]
    if (c < 0x20 ? c !== 0x09 && c !== 0x0a : c > 0x7e) return false
  }
  return true
}

/**
 * Writes pieces in chunks of about `size` bytes: text is encoded, and passed through `map` where it holds anything
 * but printable ASCII, tab and newline (`map` must leave those unchanged and map character by character, as
 * terminalSafeJson does); bytes go as they are (printable ASCII). Each chunk is given as its parts, in order: one
 * buffer to join, or to write as they are where the output gathers them (a pipe's writev: no copy of the rows read
 * back). Text is encoded piece by piece into the chunk's buffer and checked there: 1.5 million `group list` rows
 * joined into one string of ropes a chunk, each mapped and encoded, took ~2 s of CPU against ~1 s.
 */
export function writeInChunks(
  pieces: Iterable<JsonPiece>,
  write: (parts: Uint8Array[], bytes: number) => void,
  map: (text: string) => string = s => s,
  size = 1 << 20,
): void {
  let parts: Uint8Array[] = []
  let bytes = 0
  // text of the chunk: buffer[start, end), not yet in parts
  let buffer = Buffer.alloc(0)
  let [start, end] = [0, 0]
  const endText = () => {
    if (end === start) return
    const text = buffer.subarray(start, end)
    const mapped = plainText(text) ? text : Buffer.from(map(text.toString('utf8')), 'utf8')
    parts.push(mapped)
    bytes += mapped.length
    start = end
  }
  const flush = () => {
    endText()
    if (bytes > 0) write(parts, bytes)
    parts = []
    bytes = 0
    // (the buffer written is the output's now)
    ;[buffer, start, end] = [Buffer.alloc(0), 0, 0]
  }
  for (const p of pieces) {
    if (typeof p === 'string') {
      // (3 bytes a UTF-16 unit at most: the exact length only when that may not fit)
      if (3 * p.length > buffer.length - end && Buffer.byteLength(p) > buffer.length - end) {
        endText()
        ;[buffer, start, end] = [Buffer.allocUnsafe(Math.max(size + (size >> 4), Buffer.byteLength(p))), 0, 0]
      }
      end += buffer.write(p, end)
    } else {
      endText()
      parts.push(p)
      bytes += p.length
    }
    if (bytes + end - start >= size) flush()
  }
  flush()
}
