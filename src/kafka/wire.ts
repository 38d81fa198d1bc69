/**
 * Kafka wire primitives for the request and response bodies we encode and decode ourselves. Pure.
 *
 * We do not use @platformatic/kafka's Reader for responses: in 1.35 its readTaggedFields reads a zig-zag varint
 * and skips that many bytes, which misreads any non-empty tagged-field section (ApiVersions v3+ always has one).
 * Here a tagged-field section is read as the protocol defines it: count, then (tag, size, bytes) per field.
 */

export class ProtocolDecodeError extends Error {
  override name = 'ProtocolDecodeError'
}

export class ByteReader {
  pos = 0

  constructor(readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.pos
  }

  private need(n: number): void {
    if (n < 0) throw new ProtocolDecodeError(`negative length ${n} at offset ${this.pos}`)
    if (this.pos + n > this.buf.length) {
      throw new ProtocolDecodeError(`response truncated: need ${n} bytes at offset ${this.pos}, have ${this.buf.length - this.pos}`)
    }
  }

  int8(): number {
    this.need(1)
    return this.buf.readInt8(this.pos++)
  }

  bool(): boolean {
    return this.int8() !== 0
  }

  int16(): number {
    this.need(2)
    const v = this.buf.readInt16BE(this.pos)
    this.pos += 2
    return v
  }

  uint16(): number {
    this.need(2)
    const v = this.buf.readUInt16BE(this.pos)
    this.pos += 2
    return v
  }

  int32(): number {
    this.need(4)
    const v = this.buf.readInt32BE(this.pos)
    this.pos += 4
    return v
  }

  uint32(): number {
    this.need(4)
    const v = this.buf.readUInt32BE(this.pos)
    this.pos += 4
    return v
  }

  int64(): bigint {
    this.need(8)
    const v = this.buf.readBigInt64BE(this.pos)
    this.pos += 8
    return v
  }

  /** Unsigned LEB128, up to 32 bits. */
  uvarint(): number {
    let value = 0
    let shift = 0
    for (;;) {
      this.need(1)
      const b = this.buf[this.pos++]
      value += (b & 0x7f) * 2 ** shift
      if ((b & 0x80) === 0) break
      shift += 7
      if (shift > 28) throw new ProtocolDecodeError(`varint too long at offset ${this.pos}`)
    }
    return value
  }

  /** Zig-zag varint (record fields), 32 bits. */
  varint(): number {
    const u = this.uvarint()
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2
  }

  /** Zig-zag varlong (record fields), 64 bits. */
  varlong(): bigint {
    let value = 0n
    let shift = 0n
    for (;;) {
      this.need(1)
      const b = this.buf[this.pos++]
      value |= BigInt(b & 0x7f) << shift
      if ((b & 0x80) === 0) break
      shift += 7n
      if (shift > 63n) throw new ProtocolDecodeError(`varlong too long at offset ${this.pos}`)
    }
    return (value >> 1n) ^ -(value & 1n)
  }

  uuid(): Uint8Array {
    this.need(16)
    const v = new Uint8Array(this.buf.subarray(this.pos, this.pos + 16))
    this.pos += 16
    return v
  }

  raw(n: number): Buffer {
    this.need(n)
    const v = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return v
  }

  skip(n: number): void {
    this.need(n)
    this.pos += n
  }

  compactNullableString(): string | null {
    const n = this.uvarint()
    if (n === 0) return null
    return this.raw(n - 1).toString('utf8')
  }

  compactString(): string {
    return this.compactNullableString() ?? ''
  }

  nullableString16(): string | null {
    const n = this.int16()
    if (n < 0) return null
    return this.raw(n).toString('utf8')
  }

  string16(): string {
    return this.nullableString16() ?? ''
  }

  compactNullableBytes(): Buffer | null {
    const n = this.uvarint()
    if (n === 0) return null
    return this.raw(n - 1)
  }

  nullableBytes32(): Buffer | null {
    const n = this.int32()
    if (n < 0) return null
    return this.raw(n)
  }

  /** A compact array (flexible versions); null reads as null. Each element reader reads its own tagged fields. */
  compactNullableArray<T>(element: (r: ByteReader) => T): T[] | null {
    const n = this.uvarint()
    if (n === 0) return null
    const out: T[] = []
    for (let i = 0; i < n - 1; i++) out.push(element(this))
    return out
  }

  compactArray<T>(element: (r: ByteReader) => T): T[] {
    return this.compactNullableArray(element) ?? []
  }

  array32<T>(element: (r: ByteReader) => T): T[] {
    const n = this.int32()
    const out: T[] = []
    for (let i = 0; i < n; i++) out.push(element(this))
    return out
  }

  /** Skips a tagged-field section: count, then (tag, size, data) for each field. */
  tags(): void {
    const count = this.uvarint()
    for (let i = 0; i < count; i++) {
      this.uvarint()
      this.skip(this.uvarint())
    }
  }
}

export class ByteWriter {
  private readonly chunks: Buffer[] = []

  private push(b: Buffer): this {
    this.chunks.push(b)
    return this
  }

  int8(v: number): this {
    const b = Buffer.allocUnsafe(1)
    b.writeInt8(v)
    return this.push(b)
  }

  bool(v: boolean): this {
    return this.int8(v ? 1 : 0)
  }

  int16(v: number): this {
    const b = Buffer.allocUnsafe(2)
    b.writeInt16BE(v)
    return this.push(b)
  }

  int32(v: number): this {
    const b = Buffer.allocUnsafe(4)
    b.writeInt32BE(v)
    return this.push(b)
  }

  int64(v: bigint): this {
    const b = Buffer.allocUnsafe(8)
    b.writeBigInt64BE(v)
    return this.push(b)
  }

  uvarint(v: number): this {
    const bytes: number[] = []
    let x = v
    while (x >= 0x80) {
      bytes.push((x & 0x7f) | 0x80)
      x = Math.floor(x / 128)
    }
    bytes.push(x)
    return this.push(Buffer.from(bytes))
  }

  uuid(bytes: Uint8Array): this {
    if (bytes.length !== 16) throw new RangeError('a Uuid has 16 bytes')
    return this.push(Buffer.from(bytes))
  }

  compactString(s: string): this {
    const b = Buffer.from(s, 'utf8')
    return this.uvarint(b.length + 1).push(b)
  }

  compactNullableString(s: string | null): this {
    return s === null ? this.uvarint(0) : this.compactString(s)
  }

  string16(s: string): this {
    const b = Buffer.from(s, 'utf8')
    return this.int16(b.length).push(b)
  }

  compactArray<T>(items: readonly T[] | null, element: (w: ByteWriter, item: T) => void): this {
    if (items === null) return this.uvarint(0)
    this.uvarint(items.length + 1)
    for (const item of items) element(this, item)
    return this
  }

  /** An empty tagged-field section. */
  tags(): this {
    return this.uvarint(0)
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks)
  }
}
