/**
 * The group coordinator's topic hash and group metadata hash (Kafka 4.1+, KIP-1101, hash format 0),
 * byte for byte as `org.apache.kafka.coordinator.group.Utils.computeTopicHash/computeGroupHash` feed
 * hash4j's XXH3-64 (seed 0). See shared/docs/hash-spec.md.
 *
 * All the bytes of one topic are laid out in a reusable buffer and hashed one-shot: XXH3 streaming and
 * one-shot agree, and one native call per topic is much cheaper than one per field.
 */
import {xxh3} from '@node-rs/xxhash'
import type {BrokerMetadata, ClusterMetadata, TopicMetadata} from './metadata.js'

/** Hash format version written first (Utils.TOPIC_HASH_MAGIC_BYTE). */
export const TOPIC_HASH_MAGIC_BYTE = 0

/** XXH3-64 (seed 0) of `bytes`, as the signed 64-bit value Kafka stores (a Java long). */
export function xxh3Signed(bytes: Uint8Array): bigint {
  return BigInt.asIntN(64, xxh3.xxh64(bytes))
}

/**
 * Where the topic encoding writes. The fast sink only copies bytes; the annotating sink also records what
 * each byte range means (for `topic-hash bytes`). Both are driven by the same `encodeTopic`.
 */
interface HashSink {
  byte(v: number, note: string): void
  long(v: bigint, note: string): void
  int(v: number, note: string): void
  /** Java putString: UTF-16LE code units, then the length in code units as an int. */
  string(s: string, note: string): void
  /** A pre-encoded rack: int length, then putString(rack). */
  rack(encoded: Buffer, rack: string): void
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
  private readonly rankByBroker = new Map<number, number>()

  constructor(brokers: readonly BrokerMetadata[]) {
    const distinct = [...new Set(brokers.flatMap(b => (b.rack === null ? [] : [b.rack])))].sort()
    this.racks = distinct
    this.encoded = distinct.map(encodeRack)
    const rank = new Map(distinct.map((r, i) => [r, i]))
    for (const b of brokers) if (b.rack !== null) this.rankByBroker.set(b.id, rank.get(b.rack)!)
  }

  /** Rank of the broker's rack, or -1 when the broker is unregistered or has no rack (it adds nothing). */
  rankOf(brokerId: number): number {
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

let ranks = new Int32Array(64)

/** Feeds one topic to the sink exactly in Kafka's order. */
function encodeTopic(topic: TopicMetadata, table: RackTable, sink: HashSink): void {
  sink.byte(TOPIC_HASH_MAGIC_BYTE, 'magic byte (hash format 0)')
  sink.long(topic.topicId.msb, 'topic id, most significant 64 bits')
  sink.long(topic.topicId.lsb, 'topic id, least significant 64 bits')
  sink.string(topic.name, `topic name "${topic.name}"`)
  const parts = topic.partitions
  sink.int(parts.length, 'partition count')
  for (let i = 0; i < parts.length; i++) {
    sink.int(i, `partition ${i}`)
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
    for (let k = 0; k < n; k++) sink.rack(table.encoded[ranks[k]], table.racks[ranks[k]])
  }
}

/** Growable little-endian byte buffer: the fast sink. */
class ByteSink implements HashSink {
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
    this.buf.writeInt32LE(v, this.len)
    this.len += 4
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

  rack(encoded: Buffer): void {
    this.ensure(encoded.length)
    encoded.copy(this.buf, this.len)
    this.len += encoded.length
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.len)
  }
}

const shared = new ByteSink()

/** Kafka's topic hash of one existing topic. */
export function computeTopicHash(topic: TopicMetadata, table: RackTable): bigint {
  shared.reset()
  encodeTopic(topic, table, shared)
  return xxh3Signed(shared.bytes())
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
  encodeTopic(topic, table, {
    byte: (v, note) => mark(note, () => bytes.byte(v)),
    long: (v, note) => mark(note, () => bytes.long(v)),
    int: (v, note) => mark(note, () => bytes.int(v)),
    string(s, note) {
      mark(`${note}, UTF-16LE`, () => bytes.chars(s))
      mark(`its length ${s.length}`, () => bytes.int(s.length))
    },
    rack: (encoded, rack) => mark(`rack "${rack}": length ${rack.length}, UTF-16LE, length ${rack.length}`, () => bytes.rack(encoded)),
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
