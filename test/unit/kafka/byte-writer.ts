/**
 * Builds Kafka wire bytes by hand, field by field, for tests: response bodies and record batches written
 * independently of the message specs and the generic codec they test.
 */
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
