/**
 * What one hypothesis search shares between its stages: today's group hash and its patcher, the budget, the matches
 * so far, the topic-level changes kept for the pairs, and whether a match already rules the other changes out. Pure.
 */
import type {RackTable} from '../../hash.js'
import type {TopicMetadata} from '../../metadata.js'
import {type BrokerCandidate, brokerChanges, topicsByReplicaBroker} from './broker-candidates.js'
import {SearchBudget} from './budget.js'
import {GroupHashPatcher, liveTopicHashes, rackTable, type TopicCandidate, topicHash} from './hash-patcher.js'
import type {Hypothesis, HypothesisResult, HypothesisSearch, ReassignmentInFlight} from './hypothesis-types.js'

/** A rack assignment (its table and cache key) and the group hash patcher over it. */
export interface RackedPatcher {
  rt: {table: RackTable; key: number}
  patcher: GroupHashPatcher
}

export class SearchState {
  readonly rt: {table: RackTable; key: number}
  readonly byName: ReadonlyMap<string, TopicMetadata>
  /** The group's topics, each once, in the order given. */
  readonly topicSet: readonly string[]
  /** Those of them that exist today. */
  readonly existing: readonly string[]
  readonly patcher: GroupHashPatcher
  readonly liveHash: bigint
  readonly budget: SearchBudget
  readonly matches: Hypothesis[] = []
  readonly alternatives: Hypothesis[] = []
  /** Topic-level changes in the order generated, for the pairs (placements are tried alone only, to bound the pairs). */
  readonly pairable: TopicCandidate[] = []
  /**
   * A change matched, and so no other topic-level or broker change can. Two different changes to one topic give two
   * different topic hashes, hence two different group hashes (but for a 64-bit collision): once one topic change
   * matches, no other can. The same holds between a partition-count, absence or id change and any broker change (a
   * broker change keeps every topic's partitions and id): whichever kind matches first rules the other out.
   */
  settled = false
  private brokers?: {changes: BrokerCandidate[]; onBroker: Map<number, string[]>}
  private readonly underBrokers = new Map<BrokerCandidate, RackedPatcher>()
  private inFlightByTopic?: Map<string, ReassignmentInFlight[]>

  constructor(readonly s: HypothesisSearch) {
    this.rt = rackTable(s.metadata.brokers)
    this.byName = new Map(s.metadata.topics.map(t => [t.name, t]))
    this.topicSet = [...new Set(s.topics)]
    this.existing = this.topicSet.filter(t => this.byName.has(t))
    this.patcher = new GroupHashPatcher(liveTopicHashes(this.byName, this.existing, this.rt))
    this.liveHash = this.patcher.hash()
    this.budget = SearchBudget.of(s)
  }

  get unchanged(): boolean {
    return this.liveHash === this.s.target
  }

  /** Every broker change to try (built on first use: a search that ends early needs none). */
  get brokerChanges(): readonly BrokerCandidate[] {
    return this.brokerIndex().changes
  }

  /** Reassignments in flight of the group's topics that exist today, per topic (in the order listed). */
  get inFlight(): ReadonlyMap<string, readonly ReassignmentInFlight[]> {
    if (!this.inFlightByTopic) {
      const m = new Map<string, ReassignmentInFlight[]>()
      for (const r of this.s.reassignments ?? [])
        if (this.byName.has(r.topic) && this.existing.includes(r.topic)) m.set(r.topic, [...(m.get(r.topic) ?? []), r])
      this.inFlightByTopic = m
    }
    return this.inFlightByTopic
  }

  /**
   * Hashes one candidate within the budget; a candidate that reproduces the stored hash becomes a match (its
   * hypothesis is built only then). True on a match.
   */
  test(hash: () => bigint, h: () => Hypothesis): boolean {
    if (!this.budget.candidate()) return false
    if (hash() !== this.s.target) return false
    this.matches.push(h())
    return true
  }

  /**
   * Tries a topic-level change unless a match already rules it out (`evenIfSettled`: a change of the replica lists
   * only, which can hash like a broker change). `pairable`: kept for the pairs.
   */
  tryTopic(c: TopicCandidate, how: {pairable?: boolean; evenIfSettled?: boolean} = {}): void {
    if (how.pairable ?? true) this.pairable.push(c)
    if (this.settled && !how.evenIfSettled) return
    if (this.test(() => this.patcher.with(c.topic, topicHash(c, this.rt)), c.h)) this.settled = true
  }

  /** The rack assignment and patcher under a broker change: only topics with a replica on the broker are re-hashed. */
  underBroker(c: BrokerCandidate): RackedPatcher {
    let x = this.underBrokers.get(c)
    if (!x) {
      const t = rackTable(c.brokers)
      const touched = c.h.broker === undefined ? this.existing : (this.brokerIndex().onBroker.get(c.h.broker) ?? [])
      x = {rt: t, patcher: this.patcher.derive(liveTopicHashes(this.byName, touched, t))}
      this.underBrokers.set(c, x)
    }
    return x
  }

  result(): HypothesisResult {
    const {tried, pairsTried, placementsTried, truncated} = this.budget
    const {liveHash, unchanged, matches, alternatives} = this
    return {liveHash, unchanged, matches, alternatives, tried, pairsTried, placementsTried, truncated}
  }

  private brokerIndex(): {changes: BrokerCandidate[]; onBroker: Map<number, string[]>} {
    if (!this.brokers) {
      const onBroker = topicsByReplicaBroker(this.byName, this.existing)
      this.brokers = {changes: brokerChanges(this.s.metadata, onBroker.keys(), this.rt.table.racks, this.s.extraRacks), onBroker}
    }
    return this.brokers
  }
}
