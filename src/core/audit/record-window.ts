/**
 * A window of a partition's records held as bytes, by group, until PartitionScan applies them group by group. Why:
 * a coordinator interleaves the writes of every group of its partition, so applied in log order, a group's decoded
 * values (members, assignments) stay in its state until its next write, thousands of other groups' records later;
 * they outlive V8's young generation, are copied by every scavenge on the way and die in the old space, which the
 * mark-compact collector then has to sweep (GC was a third of a 100,000-group audit). Applied one group at a time, a
 * group's writes follow one another, and the values each replaces die young.
 *
 * The bytes are copied (the reader reuses its buffers) into one growing buffer, and each record is a row of typed
 * columns, not an object: what the window holds costs the collectors nothing. Memory is bounded by the window's
 * size (the scan applies a window when it has reached it), not by the partition's records; an emptied window's
 * buffers are kept for the next (`spare`).
 */

import {type DecodedRecord, decodeRecordIn} from '../records/index.js'

const INITIAL_BYTES = 256 * 1024
const INITIAL_RECORDS = 4096

/** A window's buffers: the bytes, and per record its columns. */
interface Storage {
  bytes: Uint8Array
  /** Per record: where its key starts in `bytes`, its key's and value's lengths (-1: a tombstone), the next record of its group (-1: none). */
  keyAt: Int32Array
  keyLength: Int32Array
  valueLength: Int32Array
  next: Int32Array
  /** The index of its batch (RecordWindow #bases). */
  batch: Int32Array
  offset: BigInt64Array
  timestamp: Float64Array
}

/**
 * Buffers of windows emptied, taken by the next window: a new typed array is zeroed memory, and growing one copies
 * it (a 100,000-group partition's window grows to ~13 MB). At most one per partition read at once (the audit reads
 * 4), each at most a window's size.
 */
const spare: Storage[] = []
const MAX_SPARE = 4

function newStorage(): Storage {
  const n = INITIAL_RECORDS
  return {
    bytes: new Uint8Array(INITIAL_BYTES),
    keyAt: new Int32Array(n),
    keyLength: new Int32Array(n),
    valueLength: new Int32Array(n),
    next: new Int32Array(n),
    batch: new Int32Array(n),
    offset: new BigInt64Array(n),
    timestamp: new Float64Array(n),
  }
}

export class RecordWindow {
  /** Its buffers while it holds records (from `spare`, or new). */
  #s: Storage | undefined
  #used = 0
  #count = 0
  /** Base offsets of the batches the records came in. */
  readonly #bases: bigint[] = []
  /** Per group, in the order of its first record in the window: its id, first and last record. */
  readonly #slots = new Map<string, number>()
  readonly #ids: string[] = []
  readonly #first: number[] = []
  readonly #last: number[] = []

  /** Bytes of keys and values held. */
  get bytes(): number {
    return this.#used
  }

  /** Groups with records held, in the order of their first record. */
  get groups(): readonly string[] {
    return this.#ids
  }

  /** The batch the next records come in. */
  startBatch(baseOffset: bigint): void {
    this.#bases.push(baseOffset)
  }

  /** Holds a record of `groupId`'s, of the batch last started. */
  add(groupId: string, offset: bigint, timestamp: number, key: Uint8Array, value: Uint8Array | null): void {
    const i = this.#count
    let s = (this.#s ??= spare.pop() ?? newStorage())
    if (i === s.next.length) s = this.#growRecords(s)
    const at = this.#used
    const end = at + key.length + (value === null ? 0 : value.length)
    if (end > s.bytes.length) this.#growBytes(s, end)
    s.bytes.set(key, at)
    s.keyAt[i] = at
    s.keyLength[i] = key.length
    if (value === null) s.valueLength[i] = -1
    else {
      s.bytes.set(value, at + key.length)
      s.valueLength[i] = value.length
    }
    this.#used = end
    s.batch[i] = this.#bases.length - 1
    s.offset[i] = offset
    s.timestamp[i] = timestamp
    s.next[i] = -1
    this.#count = i + 1
    const slot = this.#slots.get(groupId)
    if (slot === undefined) {
      this.#slots.set(groupId, this.#ids.length)
      this.#ids.push(groupId)
      this.#first.push(i)
      this.#last.push(i)
    } else {
      s.next[this.#last[slot]] = i
      this.#last[slot] = i
    }
  }

  /** The first record of the `n`th group (groups order), then next(record) until -1. */
  first(n: number): number {
    return this.#first[n]
  }

  next(i: number): number {
    return this.#s!.next[i]
  }

  /** The record's key: a view of the window's bytes, valid until clear(). */
  key(i: number): Uint8Array {
    const s = this.#s!
    return s.bytes.subarray(s.keyAt[i], s.keyAt[i] + s.keyLength[i])
  }

  /** The record's value (null: a tombstone): a view of the window's bytes, valid until clear(). */
  value(i: number): Uint8Array | null {
    const s = this.#s!
    const n = s.valueLength[i]
    if (n < 0) return null
    const at = s.keyAt[i] + s.keyLength[i]
    return s.bytes.subarray(at, at + n)
  }

  /** The record decoded (decodeRecordIn: no view made of its key or value); throws RecordDecodeError as decodeRecord does. */
  decode(i: number): DecodedRecord {
    const s = this.#s!
    const keyAt = s.keyAt[i]
    const keyEnd = keyAt + s.keyLength[i]
    const n = s.valueLength[i]
    return decodeRecordIn(s.bytes, keyAt, keyEnd, n < 0 ? -1 : keyEnd, keyEnd + n, s.offset[i])
  }

  offset(i: number): bigint {
    return this.#s!.offset[i]
  }

  timestamp(i: number): number {
    return this.#s!.timestamp[i]
  }

  batchBaseOffset(i: number): bigint {
    return this.#bases[this.#s!.batch[i]]
  }

  /** Empties the window; its buffers go to the next window (this one's next record takes them back, or others). */
  clear(): void {
    if (this.#s && spare.length < MAX_SPARE) spare.push(this.#s)
    this.#s = undefined
    this.#used = 0
    this.#count = 0
    this.#bases.length = 0
    this.#slots.clear()
    this.#ids.length = 0
    this.#first.length = 0
    this.#last.length = 0
  }

  #growBytes(s: Storage, atLeast: number): void {
    let n = s.bytes.length * 2
    while (n < atLeast) n *= 2
    const bytes = new Uint8Array(n)
    bytes.set(s.bytes.subarray(0, this.#used))
    s.bytes = bytes
  }

  #growRecords(s: Storage): Storage {
    const n = s.next.length * 2
    const grow = <T extends Int32Array | Float64Array | BigInt64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n)
      b.set(a as never)
      return b
    }
    s.keyAt = grow(s.keyAt, n => new Int32Array(n))
    s.keyLength = grow(s.keyLength, n => new Int32Array(n))
    s.valueLength = grow(s.valueLength, n => new Int32Array(n))
    s.next = grow(s.next, n => new Int32Array(n))
    s.batch = grow(s.batch, n => new Int32Array(n))
    s.offset = grow(s.offset, n => new BigInt64Array(n))
    s.timestamp = grow(s.timestamp, n => new Float64Array(n))
    return s
  }
}
