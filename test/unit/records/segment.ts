/** Test helper: record batches (magic v2) of a log segment file; uncompressed or gzip only. */
import {readFileSync} from 'node:fs'
import {gunzipSync} from 'node:zlib'

export interface SegmentRecord {
  offset: bigint
  timestamp: bigint
  key: Uint8Array | null
  value: Uint8Array | null
}

export interface SegmentBatch {
  baseOffset: bigint
  isControl: boolean
  records: SegmentRecord[]
}

function zigzag(b: Uint8Array, p: {i: number}): bigint {
  let v = 0n
  let shift = 0n
  let x: number
  do {
    x = b[p.i++]
    v |= BigInt(x & 0x7f) << shift
    shift += 7n
  } while (x & 0x80)
  return (v >> 1n) ^ -(v & 1n)
}

export function readSegment(file: string): SegmentBatch[] {
  const b = readFileSync(file)
  const out: SegmentBatch[] = []
  for (let i = 0; i + 61 <= b.length; ) {
    const baseOffset = b.readBigInt64BE(i)
    const end = i + 12 + b.readInt32BE(i + 8)
    if (end > b.length) break // a batch still being written when the file was copied
    const attributes = b.readInt16BE(i + 21)
    const baseTimestamp = b.readBigInt64BE(i + 27)
    const count = b.readInt32BE(i + 57)
    const codec = attributes & 7
    if (codec !== 0 && codec !== 1) throw new Error(`compression codec ${codec} not supported by this helper`)
    const data = codec === 1 ? gunzipSync(b.subarray(i + 61, end)) : b.subarray(i + 61, end)
    const p = {i: 0}
    const records: SegmentRecord[] = []
    const bytes = (n: number) => {
      if (n < 0) return null
      const v = new Uint8Array(data.subarray(p.i, p.i + n))
      p.i += n
      return v
    }
    for (let k = 0; k < count; k++) {
      zigzag(data, p) // length
      p.i++ // attributes
      const timestampDelta = zigzag(data, p)
      const offsetDelta = zigzag(data, p)
      const key = bytes(Number(zigzag(data, p)))
      const value = bytes(Number(zigzag(data, p)))
      for (let h = Number(zigzag(data, p)); h > 0; h--) {
        bytes(Number(zigzag(data, p)))
        bytes(Number(zigzag(data, p)))
      }
      records.push({offset: baseOffset + offsetDelta, timestamp: baseTimestamp + timestampDelta, key, value})
    }
    out.push({baseOffset, isControl: (attributes & 0x20) !== 0, records})
    i = end
  }
  return out
}
