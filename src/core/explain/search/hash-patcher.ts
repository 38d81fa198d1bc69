/**
 * Hashing for the hypothesis search: the group hash re-hashed from a pre-sorted buffer with one 8-byte slot patched,
 * and topic hashes cached by topic object, rack assignment and variant (the walk back tests the same topics bump
 * after bump). Pure.
 */
import {computeGroupHash, computeTopicHash, RackTable, xxh3Signed} from '../../hash.js'
import type {BrokerMetadata, ClusterMetadata, TopicMetadata} from '../../metadata.js'
import type {Hypothesis} from './hypothesis-types.js'
let scratch = Buffer.alloc(0)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** A buffer of `bytes` (a multiple of 8) with a 64-bit view over it where the platform order is Kafka's (LE). */
export function slotBuffer(bytes: number): [Buffer, BigInt64Array | undefined] {
  const ab = new ArrayBuffer(bytes)
  return [Buffer.from(ab), LITTLE_ENDIAN ? new BigInt64Array(ab) : undefined]
}

/**
 * Group hash over sorted topic names, with one topic's hash replaced or removed cheaply. The topic hashes live only
 * in the hashed buffer (8 bytes each, in name order): a derived patcher copies that buffer, nothing else.
 */
export class GroupHashPatcher {
  private readonly index: ReadonlyMap<string, number>
  private readonly buf: Buffer
  /** The same bytes as 64-bit slots (little-endian platforms): a slot write is much cheaper than writeBigUInt64LE. */
  private readonly slots: BigInt64Array | undefined
  constructor(hashes: ReadonlyMap<string, bigint>, from?: GroupHashPatcher) {
    if (from) {
      // the same topics as `from` with some hashes changed: no re-sort
      this.index = from.index
      ;[this.buf, this.slots] = slotBuffer(from.buf.length)
      from.buf.copy(this.buf)
      for (const [n, h] of hashes) this.set(this.index.get(n)!, h)
      return
    }
    const names = [...hashes.keys()].sort()
    this.index = new Map(names.map((n, i) => [n, i]))
    ;[this.buf, this.slots] = slotBuffer(names.length * 8)
    names.forEach((n, i) => this.set(i, hashes.get(n)!))
  }

  private set(i: number, h: bigint): void {
    if (this.slots) this.slots[i] = h
    else this.buf.writeBigInt64LE(h, i * 8)
  }

  private get(i: number): bigint {
    return this.slots ? this.slots[i] : this.buf.readBigInt64LE(i * 8)
  }

  /** A patcher over the same topics with these topic hashes changed. */
  derive(changes: ReadonlyMap<string, bigint>): GroupHashPatcher {
    return new GroupHashPatcher(changes, this)
  }

  /** The group hash with `name`'s topic hash set to `h` (undefined: the topic left out). */
  with(name: string, h: bigint | undefined): bigint {
    const i = this.index.get(name)
    if (i === undefined) {
      if (h === undefined) return this.hash()
      const m = new Map([...this.index].map(([n, j]) => [n, this.get(j)]))
      m.set(name, h)
      return computeGroupHash(m)
    }
    if (h === undefined) {
      if (this.buf.length === 8) return 0n
      // the buffer without slot i, in a reused scratch (one allocation per topic-absent candidate was measurable)
      if (scratch.length < this.buf.length - 8) scratch = Buffer.allocUnsafe(this.buf.length)
      this.buf.copy(scratch, 0, 0, i * 8)
      this.buf.copy(scratch, i * 8, (i + 1) * 8)
      return xxh3Signed(scratch.subarray(0, this.buf.length - 8))
    }
    const saved = this.get(i)
    this.set(i, h)
    const out = xxh3Signed(this.buf)
    this.set(i, saved)
    return out
  }

  hash(): bigint {
    return this.buf.length === 0 ? 0n : xxh3Signed(this.buf)
  }

  /** The group hash with these topics left out (several topics created since). */
  without(names: Iterable<string>): bigint {
    const out = new Set(names)
    const m = new Map([...this.index].filter(([n]) => !out.has(n)).map(([n, j]) => [n, this.get(j)]))
    return m.size === 0 ? 0n : computeGroupHash(m)
  }
}

/**
 * A topic-level change: the topic's layout then (undefined = absent then), and what it means. Both are made only
 * when needed (`then` on a cache miss, `h` on a match): most candidates are hashed and dropped.
 */
export interface TopicCandidate {
  topic: string
  /** The topic object the variant is made from, and the variant's name: the cache key of its hash (none: not cached). */
  base: TopicMetadata
  variant: string | undefined
  then: (() => TopicMetadata) | undefined
  h: () => Hypothesis
}

/**
 * Topic hashes by topic object, rack assignment and variant. The walk back tests the same topics bump after bump
 * (a reconstructed metadata shares every unchanged topic object), so most hashes are computed once per explain.
 */
const hashCache = new WeakMap<TopicMetadata, Map<number, Map<string, bigint>>>()

/**
 * Rack assignments by a small number: the cache is looked up per candidate, and a number is a cheaper map key
 * than the assignment's text (interned for the process: a few per explain, each one short string).
 */
const rackKeys = new Map<string, number>()
let nextRackKey = 0

/** A rack table with a key naming its rack assignment (the only thing of the brokers a topic hash sees). */
export function rackTable(brokers: readonly BrokerMetadata[]): {table: RackTable; key: number} {
  const text = brokers
    .map(b => `${b.id}=${b.rack === null ? '' : `${b.rack.length}:${b.rack}`}`)
    .sort()
    .join(',')
  let key = rackKeys.get(text)
  if (key === undefined) {
    // bounded for a long-running process: start over rather than grow without end; numbers are never reused, so
    // a hash cached under a forgotten key can never be taken for another assignment's
    if (rackKeys.size >= 10_000) rackKeys.clear()
    rackKeys.set(text, (key = nextRackKey++))
  }
  return {table: new RackTable(brokers), key}
}

/** The broker ids holding a replica of the topic, per topic object (the walk back asks for the same topics at every bump). */
const replicaBrokersCache = new WeakMap<TopicMetadata, number[]>()
export function replicaBrokersOf(t: TopicMetadata): number[] {
  let ids = replicaBrokersCache.get(t)
  if (!ids) {
    const set = new Set<number>()
    for (const p of t.partitions) for (const b of p.replicas) set.add(b)
    replicaBrokersCache.set(t, (ids = [...set]))
  }
  return ids
}

export function topicHash(
  c: {base: TopicMetadata; variant: string | undefined; then: (() => TopicMetadata) | undefined},
  t: {table: RackTable; key: number},
): bigint | undefined {
  if (!c.then) return undefined
  if (c.variant === undefined) return computeTopicHash(c.then(), t.table)
  let byRacks = hashCache.get(c.base)
  if (!byRacks) hashCache.set(c.base, (byRacks = new Map()))
  let m = byRacks.get(t.key)
  if (!m) byRacks.set(t.key, (m = new Map()))
  let h = m.get(c.variant)
  if (h === undefined) {
    h = computeTopicHash(c.then(), t.table)
    m.set(c.variant, h)
  }
  return h
}

/** Today's topic hashes of the named topics that exist, from the cache the search shares. */
export function liveTopicHashes(byName: ReadonlyMap<string, TopicMetadata>, names: Iterable<string>, rt: {table: RackTable; key: number}): Map<string, bigint> {
  const out = new Map<string, bigint>()
  for (const n of names) {
    const t = byName.get(n)
    if (t) out.set(n, topicHash({base: t, variant: '', then: () => t}, rt)!)
  }
  return out
}

/**
 * The group hash of `topics` over `metadata` (topics that do not exist left out, as TopicHasher.groupHash), with
 * the topic hashes cached like the search's: the walk back asks it at every bump of metadata that shares topics.
 */
export function cachedGroupHash(metadata: ClusterMetadata, topics: Iterable<string>): bigint {
  return computeGroupHash(liveTopicHashes(new Map(metadata.topics.map(t => [t.name, t])), new Set(topics), rackTable(metadata.brokers)))
}
