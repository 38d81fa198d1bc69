/**
 * The record-batch reader's primitives (./record-batch.ts): big-endian integers, zig-zag varints and varlongs,
 * and views of raw bytes, each bounds-checked. Pure. Request and response bodies are not read here: they are
 * message specs read by the one generic codec (src/core/records/codec.ts, through ./protocol.ts).
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

  int16(): number {
    this.need(2)
    const v = this.buf.readInt16BE(this.pos)
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

  raw(n: number): Buffer {
    this.need(n)
    const v = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return v
  }
}
