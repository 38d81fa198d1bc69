/**
 * Bounds-checked big-endian reader and growable writer for Kafka's wire primitives. Every length
 * read from the input is checked against the bytes that remain before anything is allocated, so
 * garbage input ends in a DecodeFault, never in a huge allocation or a loop.
 */
import {uuidFromString} from '../uuid.js'
import {DecodeFault} from './errors.js'

const utf8 = new TextDecoder('utf-8') // replaces invalid sequences, as Java's decoder does
const utf8Encoder = new TextEncoder()
// Node's native UTF-8 slice works on any Uint8Array and is several times faster than TextDecoder
// for the short strings records hold; both replace invalid sequences like Java's decoder.
const utf8Slice = (globalThis as {Buffer?: {prototype: {utf8Slice?: (this: Uint8Array, start: number, end: number) => string}}}).Buffer?.prototype.utf8Slice
const B64URL_CODES = Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', c => c.charCodeAt(0))

/** Uuids read, by their first four bytes (bounded: cleared when full, so hostile input cannot grow it). */
const uuidCache = new Map<number, {readonly bytes: Uint8Array; readonly text: string}>()
const UUID_CACHE_SIZE = 4096

function sameUuid(a: Uint8Array, b: Uint8Array, p: number): boolean {
  for (let i = 4; i < 16; i++) if (a[i] !== b[p + i]) return false
  return true
}

/** The 22 base64url characters of the 16 bytes at `p`, as one string (no concatenation). */
function uuidText(b: Uint8Array, p: number): string {
  const c: number[] = []
  for (let i = 0; i < 5; i++, p += 3) {
    const n = (b[p] << 16) | (b[p + 1] << 8) | b[p + 2]
    c.push(B64URL_CODES[n >>> 18], B64URL_CODES[(n >>> 12) & 63], B64URL_CODES[(n >>> 6) & 63], B64URL_CODES[n & 63])
  }
  c.push(B64URL_CODES[b[p] >>> 2], B64URL_CODES[(b[p] & 3) << 4])
  return String.fromCharCode(...c)
}

/** UTF-8 of bytes [start, end), invalid sequences replaced. */
export function decodeUtf8(buf: Uint8Array, start: number, end: number): string {
  return utf8Slice ? utf8Slice.call(buf, start, end) : utf8.decode(buf.subarray(start, end))
}

export class ByteReader {
  pos: number
  end: number

  constructor(
    public buf: Uint8Array,
    start = 0,
    end = buf.length,
  ) {
    this.pos = start
    this.end = end
  }

  /** The reader on other bytes (a reader reused rather than one made per record). */
  reset(buf: Uint8Array, start = 0, end = buf.length): this {
    this.buf = buf
    this.pos = start
    this.end = end
    return this
  }

  get remaining(): number {
    return this.end - this.pos
  }

  fault(reason: string, at = this.pos): DecodeFault {
    return new DecodeFault(at, reason)
  }

  need(n: number, what: string): void {
    if (n > this.end - this.pos) throw this.fault(`${what} needs ${n} byte${n === 1 ? '' : 's'}, ${this.end - this.pos} left`)
    // a negative length would move the reader backwards (a record loop could spin forever)
    if (n < 0) throw this.fault(`negative ${what} length ${n}`)
  }

  int8(): number {
    this.need(1, 'int8')
    return (this.buf[this.pos++] << 24) >> 24
  }

  int16(): number {
    this.need(2, 'int16')
    const b = this.buf
    const p = this.pos
    this.pos = p + 2
    return ((b[p] << 24) >> 16) | b[p + 1]
  }

  uint16(): number {
    this.need(2, 'uint16')
    const b = this.buf
    const p = this.pos
    this.pos = p + 2
    return (b[p] << 8) | b[p + 1]
  }

  int32(): number {
    this.need(4, 'int32')
    const b = this.buf
    const p = this.pos
    this.pos = p + 4
    return (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]
  }

  uint32(): number {
    return this.int32() >>> 0
  }

  int64(): bigint {
    this.need(8, 'int64')
    const b = this.buf
    const p = this.pos
    this.pos = p + 8
    // Two int32 halves: several times faster than a DataView per record (signed high | unsigned low).
    const hi = (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]
    const lo = ((b[p + 4] << 24) | (b[p + 5] << 16) | (b[p + 6] << 8) | b[p + 7]) >>> 0
    return (BigInt(hi) << 32n) | BigInt(lo)
  }

  bool(): boolean {
    this.need(1, 'bool')
    return this.buf[this.pos++] !== 0
  }

  /** Kafka's unsigned varint: at most 5 bytes, read as an unsigned 32-bit number. */
  uvarint(): number {
    const start = this.pos
    let value = 0
    let shift = 0
    for (;;) {
      if (this.pos >= this.end) throw this.fault('varint runs past the end', start)
      const b = this.buf[this.pos++]
      if (shift === 28) {
        if (b & 0xf0) throw this.fault('varint longer than 32 bits', start)
        return (value | (b << 28)) >>> 0
      }
      value |= (b & 0x7f) << shift
      if ((b & 0x80) === 0) return value >>> 0
      shift += 7
    }
  }

  /** Zig-zag varint (record fields), 32 bits. */
  varint(): number {
    const u = this.uvarint()
    return (u >>> 1) ^ -(u & 1)
  }

  /** Zig-zag varlong (record fields), 64 bits: at most 10 bytes. */
  varlong(): bigint {
    const start = this.pos
    let value = 0n
    let shift = 0n
    for (;;) {
      if (this.pos >= this.end) throw this.fault('varlong runs past the end', start)
      const b = this.buf[this.pos++]
      value |= BigInt(b & 0x7f) << shift
      if ((b & 0x80) === 0) break
      shift += 7n
      if (shift > 63n) throw this.fault('varlong longer than 64 bits', start)
    }
    return (value >> 1n) ^ -(value & 1n)
  }

  /**
   * Kafka's printed form (22-char base64url, as uuidToString). On the hot path (every topic id of every assignment
   * record), and a partition's records name few topics: the string of the last uuid seen with the same first four
   * bytes is reused when all 16 bytes match, so a topic id is one string, made once, not one per record.
   */
  uuid(): string {
    this.need(16, 'uuid')
    const b = this.buf
    const p = this.pos
    this.pos = p + 16
    const head = (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]
    const seen = uuidCache.get(head)
    if (seen !== undefined && sameUuid(seen.bytes, b, p)) return seen.text
    const text = uuidText(b, p)
    if (uuidCache.size >= UUID_CACHE_SIZE) uuidCache.clear()
    uuidCache.set(head, {bytes: Uint8Array.prototype.slice.call(b, p, p + 16), text})
    return text
  }

  /**
   * Raw bytes of a checked length: a copy, so records do not pin or share fetch buffers (a Node
   * Buffer's own slice() would return a view, hence the typed-array slice).
   */
  raw(n: number, what: string): Uint8Array {
    this.need(n, what)
    const out = Uint8Array.prototype.slice.call(this.buf, this.pos, this.pos + n)
    this.pos += n
    return out
  }

  /** Raw bytes of a checked length as a view, not a copy: for readers that decode a buffer and drop it (record batches). */
  view(n: number, what: string): Uint8Array {
    this.need(n, what)
    const out = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }

  utf8(n: number): string {
    this.need(n, 'string')
    const start = this.pos
    this.pos = start + n
    return decodeUtf8(this.buf, start, start + n)
  }
}

export class ByteWriter {
  private buf = new Uint8Array(256)
  private view = new DataView(this.buf.buffer)
  pos = 0

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.pos + n) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.pos))
    this.buf = next
    this.view = new DataView(next.buffer)
  }

  int8(v: number): void {
    this.room(1)
    this.view.setInt8(this.pos++, v)
  }

  int16(v: number): void {
    this.room(2)
    this.view.setInt16(this.pos, v)
    this.pos += 2
  }

  uint16(v: number): void {
    this.room(2)
    this.view.setUint16(this.pos, v)
    this.pos += 2
  }

  int32(v: number): void {
    this.room(4)
    this.view.setInt32(this.pos, v)
    this.pos += 4
  }

  int64(v: bigint): void {
    this.room(8)
    this.view.setBigInt64(this.pos, BigInt.asIntN(64, v))
    this.pos += 8
  }

  bool(v: boolean): void {
    this.int8(v ? 1 : 0)
  }

  uvarint(v: number): void {
    let x = v >>> 0
    this.room(5)
    while (x >= 0x80) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80
      x >>>= 7
    }
    this.buf[this.pos++] = x
  }

  uuid(text: string): void {
    this.bytes(uuidFromString(text).bytes)
  }

  bytes(b: Uint8Array): void {
    this.room(b.length)
    this.buf.set(b, this.pos)
    this.pos += b.length
  }

  static utf8(s: string): Uint8Array {
    return utf8Encoder.encode(s)
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos)
  }
}
