/**
 * The group coordinator's topic hash and group metadata hash (Kafka 4.1+, KIP-1101, hash format 0),
 * byte for byte as `org.apache.kafka.coordinator.group.Utils.computeTopicHash/computeGroupHash` feed
 * hash4j's XXH3-64 (seed 0). See shared/docs/hash-spec.md.
 *
 * All the bytes of one topic are laid out in a reusable buffer and hashed one-shot: XXH3 streaming and
 * one-shot agree, and one native call per topic is much cheaper than one per field.
 */
import {createRequire} from 'node:module'
import type * as XxHash from '@node-rs/xxhash'
import type {BrokerMetadata, ClusterMetadata, TopicMetadata} from './metadata.js'
import {uuidToString} from './uuid.js'

// Required, not imported: node reads an imported CommonJS package's file again to tell its format and scan its names
// (this one's loader is 29 KB: ~8 % of a bare node's start-up, paid by every topic-hash run)
const {xxh3} = createRequire(import.meta.url)('@node-rs/xxhash') as typeof XxHash

/** Hash format version written first (Utils.TOPIC_HASH_MAGIC_BYTE). */
export const TOPIC_HASH_MAGIC_BYTE = 0

/** XXH3-64 (seed 0) of `bytes`, as the signed 64-bit value Kafka stores (a Java long). */
export function xxh3Signed(bytes: Uint8Array): bigint {
  // the streaming state is ~3x faster than one-shot on kilobytes (measured), slower on tiny inputs
  if (bytes.length < 1024) return BigInt.asIntN(64, xxh3.xxh64(bytes))
  streaming.reset()
  return BigInt.asIntN(64, streaming.update(bytes).digest())
}

const streaming = xxh3.Xxh3.withSeed(0n)

/**
 * Where the topic encoding goes, in Kafka's order: the header fields, then per partition its index and its
 * sorted racks. The fast sink copies bytes; the annotating sink also records what each byte range means
 * (for `topic-hash bytes`). Both are driven by the same `encodeTopic`, so they cannot drift apart.
 */
interface TopicSink {
  byte(v: number): void
  long(v: bigint): void
  int(v: number): void
  /** Java putString: UTF-16LE code units, then the length in code units as an int. */
  string(s: string): void
  partition(i: number): void
  /** A pre-encoded rack (int length, then putString(rack)). */
  rack(table: RackTable, rank: number): void
}

/**
 * Racks of registered brokers (fenced included), encoded once. Each distinct rack gets a rank in Java
 * String order (UTF-16 code units, which JavaScript's default sort also uses), so sorting a partition's
 * racks is sorting small integers.
 */
export class RackTable {
  /** Distinct racks in Java String order. */
  readonly racks: readonly string[]
  /** For each rank: int len, UTF-16LE chars, int len. */
  readonly encoded: readonly Buffer[]
  readonly maxEncodedLength: number
  private readonly rankByBroker = new Map<number, number>()
  private readonly chunks = new Map<number | string, Buffer>()
  /** Dense lookup for the usual small broker ids (a Map lookup per replica costs more than the rest). */
  private readonly rankById: Int32Array

  constructor(brokers: readonly BrokerMetadata[]) {
    const distinct = [...new Set(brokers.flatMap(b => (b.rack === null ? [] : [b.rack])))].sort()
    this.racks = distinct
    this.encoded = distinct.map(encodeRack)
    // loops, not Math.max(...spread): a metadata file with 200,000 brokers overflowed the stack
    this.maxEncodedLength = this.encoded.reduce((m, e) => Math.max(m, e.length), 0)
    const rank = new Map(distinct.map((r, i) => [r, i]))
    for (const b of brokers) if (b.rack !== null) this.rankByBroker.set(b.id, rank.get(b.rack)!)
    const maxId = brokers.reduce((m, b) => Math.max(m, b.id), -1)
    this.rankById = new Int32Array(maxId < DENSE_IDS ? maxId + 1 : 0).fill(-1)
    if (this.rankById.length > 0) for (const [id, r] of this.rankByBroker) this.rankById[id] = r
  }

  /**
   * The encoded bytes of a replica list's racks in Java String order, cached per replica list: clusters reuse
   * few replica placements, and one cached copy per partition beats sorting and copying per rack (2-3x measured).
   */
  racksOf(replicas: readonly number[]): Buffer {
    // broker ids + 1 as digits in base (max id + 2): distinct lists of any length get distinct keys
    const base = this.rankById.length + 1
    let key = 0
    for (let r = 0; r < replicas.length; r++) {
      const id = replicas[r]
      if (id >= base - 1) {
        key = -1
        break
      }
      key = key * base + id + 1
    }
    // huge broker ids or long lists: a string key (slower, still cached)
    const k: number | string = key >= 0 && key <= Number.MAX_SAFE_INTEGER ? key : replicas.join(',')
    let chunk = this.chunks.get(k)
    if (chunk === undefined) {
      chunk = this.encodeRacks(replicas)
      if (this.chunks.size < MAX_CACHED_CHUNKS) this.chunks.set(k, chunk)
    }
    return chunk
  }

  private encodeRacks(replicas: readonly number[]): Buffer {
    const ranks: number[] = []
    for (const id of replicas) {
      const rank = this.rankOf(id)
      if (rank >= 0) ranks.push(rank)
    }
    // equal ranks are equal racks, so sorting ranks sorts racks in Java String order
    ranks.sort((a, b) => a - b)
    return Buffer.concat(ranks.map(r => this.encoded[r]))
  }

  /** Rank of the broker's rack, or -1 when the broker is unregistered or has no rack (it adds nothing). */
  rankOf(brokerId: number): number {
    if (brokerId < this.rankById.length) return this.rankById[brokerId]
    return this.rankByBroker.get(brokerId) ?? -1
  }
}

function encodeRack(rack: string): Buffer {
  const b = Buffer.allocUnsafe(8 + rack.length * 2)
  b.writeInt32LE(rack.length, 0)
  b.write(rack, 4, 'utf16le')
  b.writeInt32LE(rack.length, 4 + rack.length * 2)
  return b
}

const DENSE_IDS = 1 << 16
const MAX_CACHED_CHUNKS = 1 << 16
let ranks = new Int32Array(64)

/** Feeds one topic to the sink exactly in Kafka's order (Utils.computeTopicHash). */
function encodeTopic(topic: TopicMetadata, table: RackTable, sink: TopicSink): void {
  sink.byte(TOPIC_HASH_MAGIC_BYTE)
  sink.long(topic.topicId.msb)
  sink.long(topic.topicId.lsb)
  sink.string(topic.name)
  const parts = topic.partitions
  sink.int(parts.length)
  for (let i = 0; i < parts.length; i++) {
    sink.partition(i)
    const replicas = parts[i].replicas
    if (ranks.length < replicas.length) ranks = new Int32Array(replicas.length * 2)
    let n = 0
    for (let r = 0; r < replicas.length; r++) {
      const rank = table.rankOf(replicas[r])
      if (rank < 0) continue
      // insertion sort: replica lists are short
      let j = n++
      while (j > 0 && ranks[j - 1] > rank) {
        ranks[j] = ranks[j - 1]
        j--
      }
      ranks[j] = rank
    }
    for (let k = 0; k < n; k++) sink.rack(table, ranks[k])
  }
}

/** Growable little-endian byte buffer: the fast sink. */
class ByteSink implements TopicSink {
  buf = Buffer.allocUnsafe(1 << 16)
  len = 0

  reset(): void {
    this.len = 0
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + extra))
    this.buf.copy(next, 0, 0, this.len)
    this.buf = next
  }

  byte(v: number): void {
    this.ensure(1)
    this.buf[this.len++] = v
  }

  long(v: bigint): void {
    this.ensure(8)
    this.buf.writeBigUInt64LE(BigInt.asUintN(64, v), this.len)
    this.len += 8
  }

  int(v: number): void {
    this.ensure(4)
    const b = this.buf
    let o = this.len
    b[o++] = v & 0xff
    b[o++] = (v >>> 8) & 0xff
    b[o++] = (v >>> 16) & 0xff
    b[o++] = (v >>> 24) & 0xff
    this.len = o
  }

  partition(i: number): void {
    this.int(i)
  }

  string(s: string): void {
    this.chars(s)
    this.int(s.length)
  }

  chars(s: string): void {
    this.ensure(s.length * 2)
    // 'utf16le' writes each UTF-16 code unit as is, lone surrogates included
    this.len += this.buf.write(s, this.len, 'utf16le')
  }

  rack(table: RackTable, rank: number): void {
    const src = table.encoded[rank]
    const n = src.length
    this.ensure(n)
    const b = this.buf
    const o = this.len
    // racks are short: a loop beats the native copy's call overhead
    if (n <= 64) for (let k = 0; k < n; k++) b[o + k] = src[k]
    else b.set(src, o)
    this.len = o + n
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.len)
  }
}

let scratch: Buffer = Buffer.allocUnsafe(1 << 16)

/**
 * Kafka's topic hash of one existing topic. The hot path of audits and hypothesis testing, so it writes the
 * bytes with local variables instead of going through a sink; `annotateTopicHash` walks the same layout
 * through `encodeTopic`, and the tests hold the two to the same bytes.
 */
export function computeTopicHash(topic: TopicMetadata, table: RackTable): bigint {
  const parts = topic.partitions
  const name = topic.name
  let b: Buffer = scratch
  if (b.length < 33 + name.length * 2) b = grow(33 + name.length * 2, 0)
  b[0] = TOPIC_HASH_MAGIC_BYTE
  b.writeBigUInt64LE(topic.topicId.msb, 1)
  b.writeBigUInt64LE(topic.topicId.lsb, 9)
  let o = 17 + b.write(name, 17, 'utf16le')
  o = b.writeInt32LE(name.length, o)
  o = b.writeInt32LE(parts.length, o)
  const maxRack = table.maxEncodedLength
  for (let i = 0; i < parts.length; i++) {
    const replicas = parts[i].replicas
    if (o + 4 + replicas.length * maxRack > b.length) b = grow(o + 4 + replicas.length * maxRack, o)
    b[o] = i & 0xff
    b[o + 1] = (i >>> 8) & 0xff
    b[o + 2] = (i >>> 16) & 0xff
    b[o + 3] = (i >>> 24) & 0xff
    o += 4
    const chunk = table.racksOf(replicas)
    if (chunk.length > 0) {
      b.set(chunk, o)
      o += chunk.length
    }
  }
  return xxh3Signed(b.subarray(0, o))
}

/** A larger scratch buffer keeping the first `keep` bytes. */
function grow(need: number, keep: number): Buffer {
  const next = Buffer.allocUnsafe(Math.max(need, scratch.length * 2))
  scratch.copy(next, 0, 0, keep)
  scratch = next
  return next
}

/** Kafka's group hash over (topic name, topic hash) pairs of existing topics; 0 when there are none. */
export function computeGroupHash(topicHashes: ReadonlyMap<string, bigint>): bigint {
  if (topicHashes.size === 0) return 0n
  const names = [...topicHashes.keys()].sort()
  const buf = Buffer.allocUnsafe(names.length * 8)
  names.forEach((n, i) => buf.writeBigUInt64LE(BigInt.asUintN(64, topicHashes.get(n)!), i * 8))
  return xxh3Signed(buf)
}

export interface ByteSegment {
  offset: number
  hex: string
  note: string
}

/** The hashed bytes of one topic with what each range means: lets a user check the hash by hand. */
export function annotateTopicHash(topic: TopicMetadata, table: RackTable): {bytes: Buffer; segments: ByteSegment[]; hash: bigint} {
  const bytes = new ByteSink()
  const segments: ByteSegment[] = []
  const mark = (note: string, write: () => void) => {
    const start = bytes.len
    write()
    segments.push({offset: start, hex: bytes.buf.subarray(start, bytes.len).toString('hex'), note})
  }
  const id = uuidToString(topic.topicId)
  let fields = 0 // header fields seen so far, to name them
  const headerNotes = ['magic byte (hash format 0)', `topic id ${id}, most significant 64 bits`, `topic id ${id}, least significant 64 bits`]
  encodeTopic(topic, table, {
    byte: v => mark(headerNotes[fields++], () => bytes.byte(v)),
    long: v => mark(headerNotes[fields++], () => bytes.long(v)),
    int: v => mark('partition count', () => bytes.int(v)),
    string(s) {
      mark(`topic name "${s}", UTF-16LE`, () => bytes.chars(s))
      mark(`its length ${s.length}`, () => bytes.int(s.length))
    },
    partition: i => mark(`partition ${i}`, () => bytes.int(i)),
    rack: (t, rank) => {
      const rack = t.racks[rank]
      mark(`rack "${rack}": length ${rack.length}, UTF-16LE, length ${rack.length}`, () => bytes.rack(t, rank))
    },
  })
  const out = Buffer.from(bytes.bytes())
  return {bytes: out, segments, hash: xxh3Signed(out)}
}

/**
 * Topic and group hashes over one metadata snapshot, with a per-topic cache like the coordinator's
 * `topicHashCache` (which lives per __consumer_offsets partition and is not evicted on broker changes).
 */
export class TopicHasher {
  readonly racks: RackTable
  private readonly topics: Map<string, TopicMetadata>
  private readonly cache = new Map<string, bigint>()

  constructor(readonly metadata: ClusterMetadata) {
    this.racks = new RackTable(metadata.brokers)
    this.topics = new Map(metadata.topics.map(t => [t.name, t]))
  }

  topic(name: string): TopicMetadata | undefined {
    return this.topics.get(name)
  }

  /** The topic hash; 0 for a topic that does not exist (as Kafka's computeTopicHash). */
  topicHash(name: string): bigint {
    let h = this.cache.get(name)
    if (h === undefined) {
      const t = this.topics.get(name)
      if (!t) return 0n
      h = computeTopicHash(t, this.racks)
      this.cache.set(name, h)
    }
    return h
  }

  /** The group hash over the group's topic set; topics that do not exist are left out. */
  groupHash(topicNames: Iterable<string>): bigint {
    return this.groupHashDetail(topicNames).hash
  }

  groupHashDetail(topicNames: Iterable<string>): {hash: bigint; topicHashes: Map<string, bigint>; missing: string[]} {
    const topicHashes = new Map<string, bigint>()
    const missing: string[] = []
    for (const name of new Set(topicNames)) {
      if (this.topics.has(name)) topicHashes.set(name, this.topicHash(name))
      else missing.push(name)
    }
    return {hash: computeGroupHash(topicHashes), topicHashes, missing}
  }

  annotate(name: string): ReturnType<typeof annotateTopicHash> | undefined {
    const t = this.topics.get(name)
    return t ? annotateTopicHash(t, this.racks) : undefined
  }
}
