/** The `group explain` report: its types and the inputs it is made from (explain.ts makes it). */
import type {ClusterReleases} from '../../broker-release.js'
import type {RebalanceCost} from '../../cost/index.js'
import type {TopicHasher} from '../../hash.js'
import type {BrokerHealth} from './brokers.js'
import type {ClusterMetadata} from '../../metadata.js'
import type {GroupRules, GroupState, GroupType, TopicSubscriptionMetadata} from '../../replay/index.js'
import type {CauseView} from './causes.js'
import type {Confidence, Hypothesis, HypothesisResult, ReassignmentInFlight} from '../search/hypotheses.js'
import type {ClassicMemberDetail} from './classic.js'
import type {GroupOffsets} from './offsets.js'
import type {DowngradeReadiness, MigrationReadiness} from './migration.js'
import type {Churn} from './churn.js'
import type {MemberPartitions} from './members.js'
import type {MetadataLogSource} from '../evidence/recorded.js'
import type {RecordedEpochs} from '../evidence/history-epochs.js'
import type {RecordedHistory} from '../../history/view.js'
import type {MetadataLogView} from '../../metadata-log/attribute.js'

export type VerdictCode =
  | 'IN_SYNC' // stored hash = live hash, no assignment pending, nobody reconciling
  | 'REBALANCE_PENDING' // live metadata changed: the next heartbeat bumps the epoch
  | 'STALE_COORDINATOR_CACHE' // a broker change the coordinator's topic-hash cache has not seen
  | 'HASH_DIFFERS' // stored ≠ live, no single change explains it
  | 'ASSIGNMENT_PENDING' // group epoch ahead of the target assignment epoch
  | 'HASH_ZEROED_BY_FENCE' // stored hash 0 from a Kafka 4.1 streams fence; the hash before it equals the live one
  | 'RECONCILING' // members have not caught up with the target assignment
  | 'EMPTY_GROUP' // no members: nothing rebalances until one joins
  | 'CLASSIC_GROUP' // no metadata hash in the classic protocol
  | 'GROUP_DELETED' // the group's metadata record was tombstoned
  | 'NOT_FOUND' // no record of the group in its __consumer_offsets partition
  | 'NO_LIVE_METADATA' // explained from records only
  | 'EPOCHS_IN_SYNC' // describe-only: epochs and assignments in sync; the stored hash (READ on __consumer_offsets) unknown

export interface Verdict {
  code: VerdictCode
  message: string
  /** A rebalance is pending or in progress (what --fail-on-pending tests). */
  pending: boolean
}

/**
 * Stored vs live hash and the changes to today's metadata that reproduce the stored one. Under Kafka 4.0's rules
 * (no hash kept) `stored` and `live` are null and `changes` are the exact differences between the stored
 * subscription metadata and live metadata (`confidence: exact`, `subscriptionMetadata` set).
 */
export interface HashDetails {
  stored: string | null
  live: string | null
  /** The stored hash is a Kafka 4.1 streams fence's 0: the hash stored before that fence, which the search reproduced. */
  comparedWith?: string
  /** 4.0 rules: the subscription metadata the group's records hold and what the coordinator would compute now. */
  subscriptionMetadata?: {stored: TopicSubscriptionMetadata[]; live: TopicSubscriptionMetadata[]}
  changes: Hypothesis[]
  confidence: Confidence
  alternatives: Hypothesis[]
  candidatesTried: number
  pairsTried: number
}

/** A partition reassignment in flight on one of the group's topics. */
export interface ReassignmentTopic {
  topic: string
  partitions: Array<{partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[]}>
  /** The topic's rack lists change when the removing replicas leave: one more bump. */
  bumpOnCompletion: boolean
}

type FindingOf<C extends string, D> = {code: C; message: string; details: D}

/** What `group explain` found, by code; `details` has one shape per code (the --json contract). */
export type Finding =
  | FindingOf<'UNKNOWN_RECORDS', {records: Array<{offset: string; type: number; version: number | null; reason: string}>}>
  | FindingOf<'ASSIGNMENT_PENDING', {groupEpoch: number; assignmentEpoch: number | undefined; since: string | null}>
  | FindingOf<
      'MEMBER_RECONCILING',
      {memberId: string; clientId: string | null; memberEpoch: number | null; state: string | null; since: string | null; stuck: boolean}
    >
  | FindingOf<'MISSING_TOPICS', {topics: string[]; members: string[]}>
  | FindingOf<'REASSIGNMENT_IN_FLIGHT', {topics: ReassignmentTopic[]; expectedFurtherBumps: number}>
  | FindingOf<'STALE_COORDINATOR_CACHE', HashDetails>
  | FindingOf<'REBALANCE_PENDING', HashDetails>
  | FindingOf<'HASH_DIFFERS', HashDetails>
  | FindingOf<'HASH_ZEROED_BY_FENCE', {fenceEpoch: number; hashBefore: string; sameAsLive: boolean}>

export type FindingCode = Finding['code']

export interface TimelineEntry {
  epoch: number
  previousEpoch: number | null
  timestamp: number
  time: string
  /** Offset of the epoch record in __consumer_offsets. */
  offset: string
  /** null where the write was made under Kafka 4.0's rules (no hash kept), and for classic groups. */
  metadataHash: string | null
  previousMetadataHash: string | null
  /** Whose rules the write was made under: `4.0` (subscription metadata record, no hash) or `4.1+`; null for classic. */
  rules: GroupRules | null
  /** The target assignment epoch that first covered this epoch, when seen. */
  assignmentEpoch: number | null
  causes: CauseView[]
  /** What the bump cost (core/cost), when the group's records were read for it (`group explain`). */
  cost?: RebalanceCost
  /** Seen by a describe-only watch: the two polls it lies between (evidence/describes.ts). Absent otherwise. */
  polls?: PollWindow
}

/** How a describe-only watch's polls bound a bump it saw. */
export interface PollWindow {
  /** The poll before the bump and the poll that saw it (ISO-8601): the bump happened between them. */
  previousPoll: string
  poll: string
  /** Bumps between the two polls (the epoch's move); above 1 they are seen as one observation. */
  bumps: number
}

export interface TopicStatus {
  name: string
  exists: boolean
  topicId?: string
  partitions?: number
  hash?: string
}

export interface MemberStatus {
  memberId: string
  /** The client.id the member sent (ClientId of its member metadata record). */
  clientId: string | null
  /** The client's host as the coordinator saw it (ClientHost, e.g. /10.0.0.7). */
  clientHost: string | null
  instanceId: string | null
  memberEpoch: number | null
  /** STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS (streams: …_TASKS), UNKNOWN. */
  state: string | null
  subscribedTopicNames: string[]
  subscribedTopicRegex: string | null
  rackId: string | null
  reconciling: boolean
  /** When the member's epoch fell behind the group's (the bump it has not caught up with). */
  reconcilingSince: string | null
  /**
   * Current vs target partitions by topic name, what is pending, whom it waits on; null for streams groups. Classic
   * groups: the stored assignment (current = target, nothing pending); null when it is not the consumer protocol.
   */
  partitions: MemberPartitions | null
  /** Classic groups only: timeouts, the decoded consumer-protocol subscription, what could not be decoded. */
  classic?: ClassicMemberDetail
}

export interface ExplainReport {
  group: string
  type: GroupType | null
  groupEpoch: number | null
  assignmentEpoch: number | null
  /** null for classic groups, and for groups under Kafka 4.0's rules: a 4.0 coordinator keeps no metadata hash. */
  storedMetadataHash: string | null
  liveMetadataHash: string | null
  /**
   * Whose rules wrote the group's current records: `4.0` (the subscription metadata record, no hash; compared
   * field by field) or `4.1+` (the metadata hash); null for classic, deleted or unknown groups.
   */
  rules: GroupRules | null
  inSync: boolean | null
  verdict: Verdict
  findings: Finding[]
  topics: TopicStatus[]
  members: MemberStatus[]
  timeline: TimelineEntry[]
  /** Records of unknown types or newer versions, reported and skipped. */
  skippedRecords: Array<{offset: string; type: number; version: number | null; reason: string}>
  /** How long a member may reconcile before it is called stuck, and where that came from. */
  stuckAfter: StuckAfter
  /**
   * Committed offset, log end offset and lag per partition, as `kafka-consumer-groups --describe` shows them
   * (consumer groups; set by `group explain` from the live cluster, see offsets.ts); null for other group types.
   */
  offsets?: GroupOffsets | null
  /** Set by the command from the live metadata: brokers up, fenced, and unregistered ones still named as replicas of the group's topics. */
  brokers?: BrokerHealth
  /** Set by `group explain`: each broker's release from its ApiVersions, the coordinator's, and what follows (broker-release.ts). */
  releases?: ClusterReleases
  /** With --metadata-log: the log read, and how many bumps it attributed exactly. */
  metadataLog?: MetadataLogSource & {attributed: number}
  /** Classic groups: can the first consumer-protocol member upgrade it online, and what it will cause (migration.ts). */
  migration?: MigrationReadiness
  /** Consumer groups with classic-protocol members: when and under which configs it goes back to classic (migration.ts). */
  downgrade?: DowngradeReadiness
  /** Set when the report was read describe-only (no records of the group): why, and what that leaves unknown. */
  reading?: Reading
  /**
   * Read describe-only with a history recorded by earlier runs (--history-dir) holding the group: its epochs as
   * those runs saw them and the causes the history gives each rise (evidence/history-epochs.ts).
   */
  history?: RecordedEpochs
  /** Set by `group explain` over the timeline shown (after --since/--last): bumps by cause, clients that come and go (churn.ts). */
  churn?: Churn
}

/** How a report was read when not from the group's records: from its describe, the live metadata and OffsetFetch. */
export interface Reading {
  mode: 'describe-only'
  /** Why: the refusal of the Fetch of __consumer_offsets (its message), or that --describe-only was given. */
  reason: string
  /** What the records would have given, the permission that gives it and the grant. */
  missing: Array<{
    what: string
    needs: {resourceType: 'topic'; resourceName: string; operation: 'READ'}
    grant: string
  }>
}

/**
 * `flag`: given (--stuck-after); `rebalance-timeout`: half the smallest RebalanceTimeoutMs the members declared, so
 * "stuck" is reported before the coordinator fences them; `default`: 5 minutes, when no member declared one.
 */
export interface StuckAfter {
  ms: number
  source: 'flag' | 'rebalance-timeout' | 'default'
  /** The smallest RebalanceTimeoutMs among today's members (null when none declared one). */
  smallestRebalanceTimeoutMs: number | null
}

export const DEFAULT_STUCK_AFTER_MS = 5 * 60_000

/** The stuck threshold: the one given, else half the smallest declared rebalance timeout, else the default. */
export function stuckAfterOf(given: number | undefined, state: GroupState, type: GroupType | null): StuckAfter {
  const g = type && type !== 'classic' ? state[type] : null
  const declared = g
    ? [...(g.members.values() as Iterable<{RebalanceTimeoutMs?: number}>)]
        .map(m => m.RebalanceTimeoutMs)
        .filter((t): t is number => typeof t === 'number' && t > 0)
    : []
  const smallest = declared.length > 0 ? Math.min(...declared) : null
  if (given !== undefined) return {ms: given, source: 'flag', smallestRebalanceTimeoutMs: smallest}
  if (smallest !== null) return {ms: Math.floor(smallest / 2), source: 'rebalance-timeout', smallestRebalanceTimeoutMs: smallest}
  return {ms: DEFAULT_STUCK_AFTER_MS, source: 'default', smallestRebalanceTimeoutMs: null}
}

export interface ExplainOptions {
  /** Live cluster metadata; without it the verdict is NO_LIVE_METADATA and no hash is attributed. */
  live?: ClusterMetadata
  now?: number
  /** A member reconciling longer than this is reported as stuck (ms); default: half the smallest rebalance timeout
   * the members declared, or 5 minutes when none did (see stuckAfterOf). */
  stuckAfterMs?: number
  /** The hasher over `live` when the caller has one already (audit hashes each topic once for all groups). */
  hasher?: TopicHasher
  /** false: no timeline in the report, no cause classification or attribution of past bumps (audit needs only
   * the current state and verdict). */
  timeline?: boolean
  /** The audit history: evidence for past bumps, and racks no broker has today (tested by name in the search). */
  history?: RecordedHistory
  /** Each bump's cost, computed from the records as they were read (core/cost). */
  costs?: readonly RebalanceCost[]
  /** `--metadata-log`: the KRaft metadata log read, evidence for past bumps. */
  metadataLog?: {view: MetadataLogView; source: MetadataLogSource}
  /** Partition reassignments in flight (ListPartitionReassignments): a finding, and hypotheses for past bumps. */
  reassignments?: readonly ReassignmentInFlight[]
  /**
   * Hypothesis searches over `live` and `reassignments` already made, by their other inputs (audit: groups of the
   * same topics whose stored hashes drifted alike, as after a change to a topic many groups read, search once).
   */
  searches?: Map<string, HypothesisResult>
}
