/**
 * Which change to today's cluster metadata reproduces a metadata hash the coordinator stored earlier?
 * `__consumer_offsets` keeps only the group hash, not its inputs, so we test hypotheses: "topic X had N
 * partitions", "topic Y did not exist", "topic Z had another id", "broker B had rack R / was not registered",
 * "partition P of topic T had its replicas on other racks (a reassignment, or its temporary wider list)", and,
 * when no single change fits, one topic change together with one broker change.
 *
 * A hash only sees each partition's rack list, so different changes can hash alike: a broker's rack and a
 * replica move that give the same rack lists are indistinguishable. Every broker hypothesis that matches is
 * therefore checked against the equivalent replica placement (`alternatives`), and callers say how a cause is
 * known (`Confidence`) instead of stating the first match as fact.
 *
 * Hashing is cheap: one topic hash per candidate, and the group hash is re-hashed from a pre-sorted buffer with
 * one 8-byte slot patched, so tens of thousands of candidates over a thousand topics cost well under a second.
 */
import {computeGroupHash, computeTopicHash, RackTable, xxh3Signed} from '../hash.js'
import type {BrokerMetadata, ClusterMetadata, TopicMetadata} from '../metadata.js'
import {type Uuid, uuidFromString, uuidToString} from '../uuid.js'

export type HypothesisKind =
  | 'partition-count' // the topic had fewer partitions
  | 'topic-absent' // the topic did not exist (created since)
  | 'topic-id' // the topic had another id (deleted and recreated since)
  | 'topic-deleted' // the topic existed then, under an id seen in the records (deleted since)
  | 'broker-rack' // a broker had another rack (or none)
  | 'broker-unregistered' // a broker registered now was not registered then
  | 'broker-registered' // a broker id that is a replica but unregistered now was registered then, with a rack
  | 'replica-placement' // partitions of one topic had replicas on other brokers/racks (a reassignment)
  | 'reassignment-started' // partitions under reassignment now had their original replicas then (before it started)
  | 'combined' // a topic change and a broker change together (`parts`)

/**
 * How a cause is known. `exact`: a recorded source saw the metadata before and after (history, the records);
 * `inferred-unique`: one change reproduces the stored hash and no other change tried does; `inferred-ambiguous`:
 * several do (listed as alternatives); `evident`: certain from the records and today's metadata although the old
 * hash cannot be rebuilt (a subscribed topic whose id is in the records and which no longer exists);
 * `unexplained`: nothing tried reproduces it.
 */
export type Confidence = 'exact' | 'inferred-unique' | 'inferred-ambiguous' | 'evident' | 'unexplained'

export interface Hypothesis {
  kind: HypothesisKind
  topic?: string
  broker?: number
  /** replica-placement, reassignment-started: the partitions whose replicas were different then. */
  partitions?: number[]
  /** The value then (what reproduces the stored hash). */
  then: string
  /** The value now. */
  now: string
  /** One sentence, Kafka words. */
  description: string
  /** replica-placement, reassignment-started: the replica lists then (one example placement of those racks). */
  replicasThen?: Array<{partition: number; replicas: number[]}>
  /** combined: the changes that together reproduce the hash. */
  parts?: Hypothesis[]
}

/** A reassignment in flight (ListPartitionReassignments): `replicas` is the current, wider list. */
export interface ReassignmentInFlight {
  topic: string
  partition: number
  replicas: readonly number[]
  addingReplicas: readonly number[]
  removingReplicas: readonly number[]
}

export interface HypothesisSearch {
  /** The stored group hash to reproduce. */
  target: bigint
  /** The group's topic set at that time (subscribed names and resolved regex topics). */
  topics: readonly string[]
  /** Live metadata (today). */
  metadata: ClusterMetadata
  /** Topic ids seen in the group's records (assignments), per topic name, to test recreation. */
  knownTopicIds?: ReadonlyMap<string, readonly string[]>
  /**
   * Rack names known from elsewhere (members' RackId in the records, history): a rack that no registered
   * broker has today can only be tested if we know its name.
   */
  extraRacks?: readonly string[]
  /**
   * Layouts (partitions and replicas) to try for subscribed topics absent from `metadata`, with the ids of
   * knownTopicIds: "it existed then and was deleted since". Typically today's layout of a topic re-created later.
   */
  absentTemplates?: ReadonlyMap<string, TopicMetadata>
  /** Topics to try first (e.g. whose assigned partitions changed in the bump's records): only the order changes. */
  priorityTopics?: ReadonlySet<string>
  /** Reassignments in flight: their original replica lists are tried as the state before they started. */
  reassignments?: readonly ReassignmentInFlight[]
  /** Upper bound on single-change candidates tried (default 100,000). */
  maxCandidates?: number
  /** Upper bound on topic+broker pairs tried when no single change matches (default 20,000; 0 = none). */
  maxPairs?: number
  /**
   * Upper bound on replica placements tried when no other change matches (default 40,000: every single-replica
   * move of ~4,000 partitions; topics under reassignment first, then in the order given).
   */
  maxPlacements?: number
}

export interface HypothesisResult {
  /** The live group hash (no change). */
  liveHash: bigint
  /** True when the live metadata already reproduces the target. */
  unchanged: boolean
  matches: Hypothesis[]
  /**
   * Replica placements (with today's brokers and racks) that hash like a matching broker change: the same
   * per-partition rack lists. Not in `matches` (they do not change the verdict), but they make a match ambiguous.
   */
  alternatives: Hypothesis[]
  tried: number
  /** Pairs (topic change + broker change) tried. */
  pairsTried: number
  /** Replica placements tried. */
  placementsTried: number
  /** True when the search stopped at maxCandidates, maxPairs or maxPlacements. */
  truncated: boolean
}

const s_ = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
const rackText = (r: string | null) => (r === null ? 'no rack' : `rack ${r}`)

let scratch = Buffer.alloc(0)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** A buffer of `bytes` (a multiple of 8) with a 64-bit view over it where the platform order is Kafka's (LE). */
function slotBuffer(bytes: number): [Buffer, BigInt64Array | undefined] {
  const ab = new ArrayBuffer(bytes)
  return [Buffer.from(ab), LITTLE_ENDIAN ? new BigInt64Array(ab) : undefined]
}

/**
 * Group hash over sorted topic names, with one topic's hash replaced or removed cheaply. The topic hashes live only
 * in the hashed buffer (8 bytes each, in name order): a derived patcher copies that buffer, nothing else.
 */
class GroupHashPatcher {
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
}

/**
 * A topic-level change: the topic's layout then (undefined = absent then), and what it means. Both are made only
 * when needed (`then` on a cache miss, `h` on a match): most candidates are hashed and dropped.
 */
interface TopicCandidate {
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
function rackTable(brokers: readonly BrokerMetadata[]): {table: RackTable; key: number} {
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
function replicaBrokersOf(t: TopicMetadata): number[] {
  let ids = replicaBrokersCache.get(t)
  if (!ids) {
    const set = new Set<number>()
    for (const p of t.partitions) for (const b of p.replicas) set.add(b)
    replicaBrokersCache.set(t, (ids = [...set]))
  }
  return ids
}

function topicHash(
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
function liveTopicHashes(byName: ReadonlyMap<string, TopicMetadata>, names: Iterable<string>, rt: {table: RackTable; key: number}): Map<string, bigint> {
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

export function searchHypotheses(s: HypothesisSearch): HypothesisResult {
  const max = s.maxCandidates ?? 100_000
  const maxPairs = s.maxPairs ?? 20_000
  const rt = rackTable(s.metadata.brokers)
  const table = rt.table
  const byName = new Map(s.metadata.topics.map(t => [t.name, t]))
  const topicSet = [...new Set(s.topics)]
  const existing = topicSet.filter(t => byName.has(t))
  const patcher = new GroupHashPatcher(liveTopicHashes(byName, existing, rt))
  const liveHash = patcher.hash()
  const result: HypothesisResult = {
    liveHash,
    unchanged: liveHash === s.target,
    matches: [],
    alternatives: [],
    tried: 0,
    pairsTried: 0,
    placementsTried: 0,
    truncated: false,
  }
  if (result.unchanged) return result

  const test = (hash: () => bigint, h: () => Hypothesis) => {
    if (result.tried >= max) {
      result.truncated = true
      return
    }
    result.tried++
    if (hash() === s.target) result.matches.push(h())
  }

  // ---- broker changes first: each alters every topic with a replica on that broker
  const rackNames = [...new Set([...table.racks, ...(s.extraRacks ?? [])])].sort()
  const racks: Array<string | null> = [...rackNames, null]
  const onBroker = new Map<number, string[]>()
  for (const n of existing) {
    for (const id of replicaBrokersOf(byName.get(n)!)) {
      const list = onBroker.get(id)
      if (list) list.push(n)
      else onBroker.set(id, [n])
    }
  }
  const replicaBrokers = new Set(onBroker.keys())
  const brokers = new Map(s.metadata.brokers.map(b => [b.id, b]))
  const brokerCandidates: Array<{brokers: BrokerMetadata[]; h: Hypothesis}> = []
  for (const id of [...replicaBrokers].sort((a, b) => a - b)) {
    const b = brokers.get(id)
    const others = s.metadata.brokers.filter(x => x.id !== id)
    if (b) {
      for (const rack of racks) {
        if (rack === b.rack) continue
        brokerCandidates.push({
          brokers: [...others, {...b, rack}],
          h: {
            kind: 'broker-rack',
            broker: id,
            then: rack ?? 'no rack',
            now: b.rack ?? 'no rack',
            description: `broker ${id} had ${rackText(rack)} then (${rackText(b.rack)} now)`,
          },
        })
      }
      if (b.rack !== null) {
        brokerCandidates.push({
          brokers: others,
          h: {
            kind: 'broker-unregistered',
            broker: id,
            then: 'not registered',
            now: `registered, rack ${b.rack}`,
            description: `broker ${id} was not registered then (registered now with rack ${b.rack})`,
          },
        })
      }
    } else {
      for (const rack of rackNames) {
        brokerCandidates.push({
          brokers: [...s.metadata.brokers, {id, rack, fenced: false}],
          h: {
            kind: 'broker-registered',
            broker: id,
            then: `registered, rack ${rack}`,
            now: 'not registered',
            description: `broker ${id} was registered with rack ${rack} then (unregistered now, but still a replica)`,
          },
        })
      }
    }
  }
  const underBrokers = new Map<Hypothesis, {rt: {table: RackTable; key: number}; patcher: GroupHashPatcher}>()
  const brokerState = (c: {brokers: BrokerMetadata[]; h: Hypothesis}) => {
    let x = underBrokers.get(c.h)
    if (!x) {
      const t = rackTable(c.brokers)
      // only topics with a replica on the broker change
      const touched = c.h.broker === undefined ? existing : (onBroker.get(c.h.broker) ?? [])
      x = {rt: t, patcher: patcher.derive(liveTopicHashes(byName, touched, t))}
      underBrokers.set(c.h, x)
    }
    return x
  }

  // ---- topic changes (kept for the pairs below; placements are tried alone only, to bound the pairs)
  const topicCandidates: TopicCandidate[] = []
  // Two different changes to one topic give two different topic hashes, hence two different group hashes (but
  // for a 64-bit collision): once one topic change matches, no other can, and the rest are not tried. The same
  // holds between a partition-count, absence or id change and any broker change (a broker change keeps every
  // topic's partitions and id): whichever kind matches first rules the other out. Placements (the same
  // partitions and id) can hash like a broker change, so they are tried regardless.
  let topicMatched = false
  const tryTopic = (c: TopicCandidate, pairable = true, placementLike = false) => {
    if (pairable) topicCandidates.push(c)
    if (topicMatched && !placementLike) return
    const before = result.matches.length
    test(() => patcher.with(c.topic, topicHash(c, rt)), c.h)
    if (result.matches.length > before) topicMatched = true
  }
  // The topics whose assignment changed in the bump come first, then the broker changes (each re-hashes every topic
  // with a replica on the broker: the costliest candidates, skipped when a priority topic's change matched), then
  // the other topics.
  const prio = s.priorityTopics
  const first = prio ? existing.filter(n => prio.has(n)) : []
  const brokersAt = first.length
  const ordered = [...first, ...(prio ? existing.filter(n => !prio.has(n)) : existing)]
  let brokersTried = false
  const tryBrokers = () => {
    brokersTried = true
    if (topicMatched) return
    for (const c of brokerCandidates)
      test(
        () => brokerState(c).patcher.hash(),
        () => c.h,
      )
    if (result.matches.length > 0) topicMatched = true
  }
  for (const [i, name] of ordered.entries()) {
    if (i === brokersAt) tryBrokers()
    // once a change matched, no further topic change can (above) and the pairs are not searched: stop building them
    if (topicMatched) break
    const topic = byName.get(name)!
    const id = uuidToString(topic.topicId)
    tryTopic({
      topic: name,
      base: topic,
      variant: 'absent',
      then: undefined,
      h: () => ({kind: 'topic-absent', topic: name, then: 'absent', now: id, description: `topic ${name} did not exist then (created since, id ${id})`}),
    })
    for (let n = topic.partitions.length - 1; n >= 1; n--) {
      tryTopic({
        topic: name,
        base: topic,
        variant: `n${n}`,
        then: () => ({...topic, partitions: topic.partitions.slice(0, n)}),
        h: () => ({
          kind: 'partition-count',
          topic: name,
          then: String(n),
          now: String(topic.partitions.length),
          description: `topic ${name} had ${s_(n, 'partition')} then (${topic.partitions.length} now)`,
        }),
      })
    }
    for (const other of s.knownTopicIds?.get(name) ?? []) {
      if (other === id) continue
      const uuid = parseUuid(other)
      if (!uuid) continue
      tryTopic({
        topic: name,
        base: topic,
        variant: `id${other}`,
        then: () => ({...topic, topicId: uuid}),
        h: () => ({
          kind: 'topic-id',
          topic: name,
          then: other,
          now: id,
          description: `topic ${name} had id ${other} then: it was deleted and recreated (id ${id} now)`,
        }),
      })
    }
  }
  if (!brokersTried) tryBrokers()
  for (const name of topicSet.filter(t => !byName.has(t))) {
    const template = s.absentTemplates?.get(name)
    if (!template) continue
    for (const other of s.knownTopicIds?.get(name) ?? []) {
      const uuid = parseUuid(other)
      if (!uuid) continue
      tryTopic({
        topic: name,
        base: template,
        variant: `deleted:${name}:${other}`,
        then: () => ({...template, name, topicId: uuid}),
        h: () => ({
          kind: 'topic-deleted',
          topic: name,
          then: other,
          now: 'absent',
          description: `topic ${name} existed then with id ${other} (${s_(template.partitions.length, 'partition')}): it was deleted since`,
        }),
      })
    }
  }
  // reassignments in flight: the original replicas (before the adding ones joined), all partitions of a topic at once
  const inFlight = new Map<string, ReassignmentInFlight[]>()
  for (const r of s.reassignments ?? []) if (byName.has(r.topic) && existing.includes(r.topic)) inFlight.set(r.topic, [...(inFlight.get(r.topic) ?? []), r])
  for (const [name, rs] of inFlight) {
    const topic = byName.get(name)!
    const original = new Map(rs.map(r => [r.partition, r.replicas.filter(b => !r.addingReplicas.includes(b))]))
    const then: TopicMetadata = {
      ...topic,
      partitions: topic.partitions.map(p => (original.has(p.partition) ? {...p, replicas: original.get(p.partition)!} : p)),
    }
    const parts = rs.map(r => r.partition).sort((a, b) => a - b)
    tryTopic(
      {
        topic: name,
        base: topic,
        variant: `rs${JSON.stringify([...original])}`,
        then: () => then,
        h: () => ({
          kind: 'reassignment-started',
          topic: name,
          partitions: parts,
          then: 'original replicas',
          now: 'reassignment in flight',
          replicasThen: parts.map(p => ({partition: p, replicas: original.get(p)!})),
          description: `the reassignment in flight of ${partitionsText(name, parts)} had not started then (replicas ${rs.map(r => `[${original.get(r.partition)!.join(',')}]`).join(' ')} then, [${rs.map(r => r.replicas.join(',')).join('] [')}] now with the adding replicas)`,
        }),
      },
      true,
      true,
    )
  }

  // ---- replica placements, only when no other change fits: a placement that hashes like a broker change is found
  // from the broker change (alternatives below), and no topic-level change hashes like a placement (they change the
  // partition count or the id). After the broker changes, so a big topic's variants cannot use up their budget.
  // Per partition: one replica on another rack, one more replica (the wider list of a reassignment in flight
  // then), or one fewer (a reassignment in flight now).
  const brokerRack = new Map(s.metadata.brokers.map(b => [b.id, b.rack]))
  const maxPlacements = s.maxPlacements ?? 40_000
  const placementOrder = [...existing].sort((a, b) => Number(inFlight.has(b)) - Number(inFlight.has(a)))
  if (result.matches.length === 0)
    placements: for (const name of placementOrder) {
      const topic = byName.get(name)!
      for (const p of topic.partitions) {
        // one placement matched: any other placement gives another topic hash or another topic, so none can
        if (topicMatched) break placements
        for (const replicas of placementVariants(p.replicas, s.metadata.brokers, brokerRack)) {
          if (result.placementsTried >= maxPlacements) {
            result.truncated = true
            break placements
          }
          result.placementsTried++
          tryTopic(
            {
              topic: name,
              base: topic,
              variant: undefined,
              then: () => ({...topic, partitions: topic.partitions.map(x => (x.partition === p.partition ? {...x, replicas} : x))}),
              h: () => placementHypothesis(name, [{partition: p.partition, now: p.replicas, then: replicas}], brokerRack),
            },
            false,
          )
        }
      }
    }

  // ---- one topic change and one broker change in the same bump (e.g. a broker change the coordinator's cache
  // hid, then partitions added): only when no single change fits
  if (result.matches.length === 0 && maxPairs > 0) {
    outer: for (const b of brokerCandidates) {
      const {rt: t, patcher: p} = brokerState(b)
      for (const c of topicCandidates) {
        if (result.pairsTried >= maxPairs) {
          result.truncated = true
          break outer
        }
        result.pairsTried++
        if (p.with(c.topic, topicHash(c, t)) === s.target) {
          const h = c.h()
          result.matches.push({
            kind: 'combined',
            topic: c.topic,
            broker: b.h.broker,
            then: `${h.then}; ${b.h.then}`,
            now: `${h.now}; ${b.h.now}`,
            description: `${h.description}, and ${b.h.description}`,
            parts: [h, b.h],
          })
        }
      }
    }
  }

  // ---- a broker change hashes like the replica placement that gives the same rack lists
  const seen = new Set(result.matches.filter(m => m.kind === 'replica-placement').map(placementKey))
  for (const m of result.matches) {
    if (!isBrokerChange(m)) continue
    const alt = placementEquivalent(applyHypothesis(s.metadata, m), s.metadata, existing)
    if (alt && !seen.has(placementKey(alt))) {
      seen.add(placementKey(alt))
      result.alternatives.push(alt)
    }
  }
  return result
}

/**
 * The confidence of an attribution from a search (not from history): unique when one change explains it,
 * ambiguous when several do (the first match is listed first, the rest are alternatives).
 */
export function confidenceOf(r: Pick<HypothesisResult, 'matches' | 'alternatives'>): Confidence {
  const n = r.matches.length + r.alternatives.length
  return n === 0 ? 'unexplained' : n === 1 ? 'inferred-unique' : 'inferred-ambiguous'
}

/** How to make an inferred-ambiguous or unexplained metadata cause exact. */
export const PIN_DOWN_STEP =
  'to answer it: record history with `audit` at an interval shorter than the time between metadata changes (e.g. every 5 minutes from cron), or give a copy of the metadata log (`--metadata-log`; `rebalance-doctor cluster metadata-log` says where each broker keeps it)'

function parseUuid(id: string): Uuid | undefined {
  try {
    return uuidFromString(id)
  } catch {
    return undefined
  }
}

function partitionsText(topic: string, ps: readonly number[]): string {
  return `${ps.length === 1 ? 'partition' : 'partitions'} ${ps.join(', ')} of ${topic}`
}

const racksOf = (replicas: readonly number[], rack: ReadonlyMap<number, string | null>) =>
  replicas
    .map(b => rack.get(b) ?? null)
    .filter((r): r is string => r !== null)
    .sort()

/**
 * Replica lists one step from `replicas` whose rack lists differ (only those change the hash): one replica on a
 * broker of another rack, one more replica, one fewer. One list per distinct rack list.
 */
function placementVariants(replicas: readonly number[], brokers: readonly BrokerMetadata[], rack: ReadonlyMap<number, string | null>): number[][] {
  const out: number[][] = []
  const seen = new Set([racksOf(replicas, rack).join('\u0000')])
  const add = (list: number[]) => {
    const k = racksOf(list, rack).join('\u0000')
    if (seen.has(k)) return
    seen.add(k)
    out.push(list)
  }
  const free = brokers.filter(b => !replicas.includes(b.id))
  for (let i = 0; i < replicas.length; i++) {
    for (const b of free) if (b.rack !== (rack.get(replicas[i]) ?? null)) add(replicas.map((x, j) => (j === i ? b.id : x)))
  }
  for (const b of free) if (b.rack !== null) add([...replicas, b.id])
  if (replicas.length > 1) for (let i = 0; i < replicas.length; i++) add(replicas.filter((_, j) => j !== i))
  return out
}

function placementHypothesis(
  topic: string,
  changed: Array<{partition: number; now: readonly number[]; then: number[]}>,
  rack: ReadonlyMap<number, string | null>,
): Hypothesis {
  const parts = changed.map(c => c.partition)
  const shown = changed.slice(0, 3).map(c => {
    const r = (l: readonly number[]) => racksOf(l, rack).join(', ') || 'none'
    return `${changed.length > 1 ? `partition ${c.partition}: ` : ''}racks ${r(c.then)} then, e.g. brokers ${c.then.join(', ')} (now ${r(c.now)} on ${c.now.join(', ')})`
  })
  const kind = changed.every(c => c.then.length > c.now.length)
    ? 'a reassignment in flight then (its wider replica list)'
    : changed.every(c => c.then.length < c.now.length)
      ? 'a reassignment in flight now, or replicas added'
      : 'a reassignment'
  return {
    kind: 'replica-placement',
    topic,
    partitions: parts,
    then: changed.map(c => `${c.partition}:[${c.then.join(',')}]`).join(' '),
    now: changed.map(c => `${c.partition}:[${c.now.join(',')}]`).join(' '),
    replicasThen: changed.map(c => ({partition: c.partition, replicas: c.then})),
    description: `${partitionsText(topic, parts)} had replicas on other racks then (${kind}: ${shown.join('; ')}${changed.length > 3 ? `; and ${changed.length - 3} more` : ''})`,
  }
}

function placementKey(h: Hypothesis): string {
  return `${h.topic}|${h.then}`
}

/**
 * The replica placement, with today's brokers and racks, that gives every topic in `topics` the per-partition rack
 * lists it has under `then` (another broker set or racks). Undefined when no placement of today's brokers does,
 * or when more than one topic would have to change (then it is not "one topic's placement").
 */
export function placementEquivalent(then: ClusterMetadata, now: ClusterMetadata, topics: readonly string[]): Hypothesis | undefined {
  const rackNow = new Map(now.brokers.map(b => [b.id, b.rack]))
  const rackThen = new Map(then.brokers.map(b => [b.id, b.rack]))
  const byRack = new Map<string | null, number[]>()
  for (const b of now.brokers) byRack.set(b.rack, [...(byRack.get(b.rack) ?? []), b.id])
  const changes: Array<{topic: string; partition: number; now: readonly number[]; then: number[]}> = []
  for (const t of now.topics) {
    if (!topics.includes(t.name)) continue
    for (const p of t.partitions) {
      const want = racksOf(p.replicas, rackThen)
      if (want.join('\u0000') === racksOf(p.replicas, rackNow).join('\u0000')) continue
      // keep what still fits, fill the rest from brokers of the wanted racks (replica count unchanged)
      const need = [...want]
      const kept: number[] = []
      for (const b of p.replicas) {
        const r = rackNow.get(b) ?? null
        const i = r === null ? -1 : need.indexOf(r)
        if (i >= 0) {
          need.splice(i, 1)
          kept.push(b)
        }
      }
      const list = [...kept]
      for (const r of need) {
        const b = (byRack.get(r) ?? []).find(x => !list.includes(x))
        if (b === undefined) return undefined
        list.push(b)
      }
      // the rest on rackless brokers; without any, fewer replicas then (e.g. before a reassignment added one)
      while (list.length < p.replicas.length) {
        const b = (byRack.get(null) ?? []).find(x => !list.includes(x))
        if (b === undefined) break
        list.push(b)
      }
      changes.push({topic: t.name, partition: p.partition, now: p.replicas, then: list})
    }
  }
  const names = new Set(changes.map(c => c.topic))
  if (names.size !== 1) return undefined
  return placementHypothesis([...names][0], changes, rackNow)
}

/**
 * The metadata as it was if the hypothesis holds (the inverse of the change it names). A deleted topic comes back
 * with the layout of `absentTemplates` (as searched).
 */
export function applyHypothesis(md: ClusterMetadata, h: Hypothesis, absentTemplates?: ReadonlyMap<string, TopicMetadata>): ClusterMetadata {
  switch (h.kind) {
    case 'topic-deleted': {
      const template = absentTemplates?.get(h.topic!)
      if (!template) throw new Error(`no layout for the deleted topic ${h.topic}`)
      return {...md, topics: [...md.topics.filter(t => t.name !== h.topic), {...template, name: h.topic!, topicId: uuidFromString(h.then)}]}
    }
    case 'partition-count':
      return {...md, topics: md.topics.map(t => (t.name === h.topic ? {...t, partitions: t.partitions.slice(0, Number(h.then))} : t))}
    case 'topic-absent':
      return {...md, topics: md.topics.filter(t => t.name !== h.topic)}
    case 'topic-id':
      return {...md, topics: md.topics.map(t => (t.name === h.topic ? {...t, topicId: uuidFromString(h.then)} : t))}
    case 'broker-rack':
      return {...md, brokers: md.brokers.map(b => (b.id === h.broker ? {...b, rack: h.then === 'no rack' ? null : h.then} : b))}
    case 'broker-unregistered':
      return {...md, brokers: md.brokers.filter(b => b.id !== h.broker)}
    case 'broker-registered':
      return {...md, brokers: [...md.brokers, {id: h.broker!, rack: h.then.replace(/^registered, rack /, ''), fenced: false}]}
    case 'replica-placement':
    case 'reassignment-started': {
      const lists = new Map((h.replicasThen ?? []).map(x => [x.partition, x.replicas]))
      return {
        ...md,
        topics: md.topics.map(t =>
          t.name === h.topic ? {...t, partitions: t.partitions.map(p => (lists.has(p.partition) ? {...p, replicas: lists.get(p.partition)!} : p))} : t,
        ),
      }
    }
    case 'combined':
      return (h.parts ?? []).reduce((m, p) => applyHypothesis(m, p, absentTemplates), md)
  }
}

/** Topic-level changes make the coordinator recompute on the next heartbeat; broker-level ones do not. */
export function isBrokerChange(h: Hypothesis): boolean {
  return h.kind === 'broker-rack' || h.kind === 'broker-unregistered' || h.kind === 'broker-registered'
}
