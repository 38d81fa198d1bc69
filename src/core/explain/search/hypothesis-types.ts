import type {ClusterMetadata, TopicMetadata} from '../../metadata.js'

export type HypothesisKind =
  | 'partition-count' // the topic had fewer partitions
  | 'topic-absent' // the topic did not exist (created since)
  | 'topic-id' // the topic had another id (deleted and recreated since)
  | 'topic-deleted' // the topic existed then, under an id seen in the records (deleted since)
  | 'broker-rack' // a broker had another rack (or none)
  | 'broker-unregistered' // a broker registered now was not registered then
  | 'broker-registered' // a broker id that is a replica but unregistered now was registered then, with a rack
  | 'replica-placement' // partitions of one topic had replicas on other brokers/racks (a reassignment)
  | 'replica-racks' // recorded (history): partitions of one topic kept their replicas, whose brokers' racks changed
  | 'reassignment-started' // partitions under reassignment now had their original replicas then (before it started)
  | 'combined' // a topic change and a broker change, or two topics' changes, together (`parts`)

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
  /**
   * Per topic, the partitions the group's target assignment covered before the bump (the highest assigned partition
   * + 1, from the records): when no single change nor pair fits, every topic with fewer partitions then than now is
   * tested as one change (a script that altered many topics within one heartbeat).
   */
  assignedPartitionsBefore?: ReadonlyMap<string, number>
  /**
   * Topics that may all have been created since, together (a streams topology's internal topics, which the
   * coordinator creates before it validates the topology): tested as one change when nothing above fits.
   */
  absentTogether?: readonly string[]
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

export const s_ = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
export const rackText = (r: string | null) => (r === null ? 'no rack' : `rack ${r}`)
