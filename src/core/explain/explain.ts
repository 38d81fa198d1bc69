/**
 * `group explain`: the epoch timeline with a cause for every bump, metadata changes attributed to a topic or a
 * broker where the hashes allow it, and a verdict for now (stored vs live metadata hash, pending assignment,
 * members still reconciling). Pure: the replayed log and the live metadata come in, a report goes out.
 */
import {TopicHasher} from '../hash.js'
import type {BrokerHealth} from './brokers.js'
import type {ClusterMetadata} from '../metadata.js'
import {
  type BumpCause,
  classifyBump,
  collectTopicIds,
  type EpochChange,
  type EpochMark,
  type GroupRules,
  type GroupSnapshot,
  type GroupState,
  type GroupSummary,
  type GroupType,
  groupTypeOf,
  type ReplayResult,
  diffSubscriptionMetadata,
  rulesOf,
  storedSubscriptionMetadata,
  subscribedTopicsOf,
  subscriptionMetadataFromLive,
  subscriptionMetadataFromRecord,
  type TopicSubscriptionMetadata,
} from '../replay/index.js'
import {isoTime} from '../time.js'
import {uuidToString} from '../uuid.js'
import {type CauseView, causeView} from './causes.js'
import {
  applyHypothesis,
  cachedGroupHash,
  type Confidence,
  confidenceOf,
  type Hypothesis,
  type HypothesisResult,
  isBrokerChange,
  PIN_DOWN_STEP,
  type ReassignmentInFlight,
  searchHypotheses,
} from './hypotheses.js'
import {type ClassicMemberDetail, classicMembers, liveTopicIds} from './classic.js'
import type {GroupOffsets} from './offsets.js'
import {type DowngradeReadiness, downgradeReadiness, type MigrationReadiness, migrationReadiness} from './migration.js'
import type {Churn} from './churn.js'
import {type LeaveFacts, type MemberPartitions, memberPartitions, topicNamesById, whyLeft} from './members.js'

export type VerdictCode =
  | 'IN_SYNC' // stored hash = live hash, no assignment pending, nobody reconciling
  | 'REBALANCE_PENDING' // live metadata changed: the next heartbeat bumps the epoch
  | 'STALE_COORDINATOR_CACHE' // a broker change the coordinator's topic-hash cache has not seen
  | 'HASH_DIFFERS' // stored ≠ live, no single change explains it
  | 'ASSIGNMENT_PENDING' // group epoch ahead of the target assignment epoch
  | 'RECONCILING' // members have not caught up with the target assignment
  | 'EMPTY_GROUP' // no members: nothing rebalances until one joins
  | 'CLASSIC_GROUP' // no metadata hash in the classic protocol
  | 'GROUP_DELETED' // the group's metadata record was tombstoned
  | 'NOT_FOUND' // no record of the group in its __consumer_offsets partition
  | 'NO_LIVE_METADATA' // explained from records only

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
  /** Classic groups: can the first consumer-protocol member upgrade it online, and what it will cause (migration.ts). */
  migration?: MigrationReadiness
  /** Consumer groups with classic-protocol members: when and under which configs it goes back to classic (migration.ts). */
  downgrade?: DowngradeReadiness
  /** Set by `group explain` over the timeline shown (after --since/--last): bumps by cause, clients that come and go (churn.ts). */
  churn?: Churn
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
  /** Rack names known from other sources (history): racks no broker has today can only be tested by name. */
  knownRacks?: readonly string[]
  /** Partition reassignments in flight (ListPartitionReassignments): a finding, and hypotheses for past bumps. */
  reassignments?: readonly ReassignmentInFlight[]
}

const STATE_NAMES: Record<'consumer' | 'share' | 'streams', Record<number, string>> = {
  consumer: {0: 'STABLE', 1: 'UNREVOKED_PARTITIONS', 2: 'UNRELEASED_PARTITIONS', 127: 'UNKNOWN'},
  share: {0: 'STABLE', 1: 'UNREVOKED_PARTITIONS', 2: 'UNRELEASED_PARTITIONS', 127: 'UNKNOWN'},
  streams: {1: 'STABLE', 2: 'UNREVOKED_TASKS', 3: 'UNRELEASED_TASKS', 127: 'UNKNOWN'},
}

/** The verdict when the stored metadata hash equals the live one (explain; audit reuses it without hashing twice). */
export function inSyncVerdict(o: {
  empty: boolean
  epoch: number | null
  topicCount: number
  assignmentPending: boolean
  reconciling: number
  rules?: GroupRules | null
}): Verdict {
  const what = o.rules === '4.0' ? 'subscription metadata (Kafka 4.0 rules)' : 'metadata hash'
  if (o.empty)
    return {
      code: 'EMPTY_GROUP',
      message: `the group has no members; its stored ${what} matches live metadata, and nothing rebalances until a member joins`,
      pending: false,
    }
  if (o.assignmentPending)
    return {code: 'ASSIGNMENT_PENDING', message: `${what} in sync, but the target for epoch ${o.epoch} is not computed yet`, pending: true}
  if (o.reconciling > 0)
    return {code: 'RECONCILING', message: `${what} in sync; a rebalance is in progress: ${o.reconciling} member(s) not yet at epoch ${o.epoch}`, pending: true}
  if (o.rules === '4.0')
    return {
      code: 'IN_SYNC',
      message: `in sync: the stored subscription metadata equals live metadata (${o.topicCount} topic${o.topicCount === 1 ? '' : 's'}; Kafka 4.0 rules: topic ids and partition counts, racks do not count); no rebalance pending. ${UPGRADE_NOTE}`,
      pending: false,
    }
  return {
    code: 'IN_SYNC',
    message: `in sync: the stored metadata hash equals the hash of the live metadata (${o.topicCount} topic${o.topicCount === 1 ? '' : 's'}); no rebalance pending`,
    pending: false,
  }
}

/** Said of every group under 4.0 rules: the records cannot tell which version the coordinator runs now. */
const UPGRADE_NOTE =
  "The group's records were written by a Kafka 4.0 coordinator; if its coordinator runs 4.1 or later now, its first recomputation stores a metadata hash and bumps the epoch once"

/** The verdict under Kafka 4.0's rules: the stored subscription metadata against what the coordinator would compute now. */
function verdict40(
  base: ExplainReport,
  g: {epoch: number; members: ReadonlyMap<string, unknown>},
  type: 'consumer' | 'share',
  topics: readonly string[],
  state: GroupSnapshot,
  live: ClusterMetadata,
  assignmentPending: boolean,
): ExplainReport {
  const stored = subscriptionMetadataFromRecord(storedSubscriptionMetadata(type, state))
  const now = subscriptionMetadataFromLive(topics, live)
  const changes = diffSubscriptionMetadata(stored, now)
  base.inSync = changes.length === 0
  base.topics = topics.map(name => {
    const t = now.get(name)
    return t ? {name, exists: true, topicId: t.topicId, partitions: t.numPartitions} : {name, exists: false}
  })
  const missing = topics.filter(t => !now.has(t))
  if (missing.length > 0) {
    const subscribers = base.members.filter(m => m.subscribedTopicNames.some(t => missing.includes(t)))
    base.findings.push({
      code: 'MISSING_TOPICS',
      message: `subscribed topics that do not exist: ${missing.join(', ')}${subscribers.length ? ` (members ${subscribers.map(memberName).join(', ')})` : ''}; creating one will change the subscription metadata and rebalance the group`,
      details: {topics: missing, members: subscribers.map(m => m.memberId)},
    })
  }
  const reconciling = base.members.filter(m => m.reconciling).length
  const empty = g.members.size === 0
  if (base.inSync) {
    base.verdict = inSyncVerdict({empty, epoch: g.epoch, topicCount: topics.length, assignmentPending, reconciling, rules: '4.0'})
    return base
  }
  const described = changes.map(c => c.description).join('; ')
  const details: HashDetails = {
    stored: null,
    live: null,
    changes,
    confidence: 'exact',
    alternatives: [],
    candidatesTried: 0,
    pairsTried: 0,
    subscriptionMetadata: {stored: [...stored.values()], live: [...now.values()]},
  }
  if (empty) {
    base.verdict = {
      code: 'EMPTY_GROUP',
      message: `the group has no members: its stored subscription metadata differs from live metadata (${described}), which matters only when a member joins`,
      pending: false,
    }
    return base
  }
  base.verdict = {
    code: 'REBALANCE_PENDING',
    message: `a rebalance is coming: the stored subscription metadata (Kafka 4.0 rules) differs from live metadata: ${described}. A 4.0 coordinator compares them on the group's next heartbeat after the change reaches it and bumps the epoch`,
    pending: true,
  }
  base.findings.push({code: 'REBALANCE_PENDING', message: base.verdict.message, details})
  return base
}

/**
 * A full replay, or (audit) a group's summary: then `timeline: false` is implied, and the bumps the verdict reads
 * ("since when") are the summary's last ones.
 */
export function explainGroup(groupId: string, replay: ReplayResult | GroupSummary, options: ExplainOptions = {}): ExplainReport {
  const now = options.now ?? Date.now()
  const {state} = replay
  const full = 'timeline' in replay ? replay : undefined
  const marks: readonly EpochMark[] = full ? full.timeline : (replay as GroupSummary).recent
  // A group whose records were all tombstoned (deleted once empty and without offsets) keeps its history.
  const type = groupTypeOf(state) ?? marks.at(-1)?.groupType ?? null
  const skippedRecords = replay.skipped.map(s => ({offset: s.offset.toString(), type: s.type, version: s.version ?? null, reason: s.reason}))
  const timelineOfType = options.timeline === false || !full ? [] : full.timeline.filter(e => e.groupType === type)
  const attributions =
    full && timelineOfType.length > 0 && options.live && type && type !== 'classic'
      ? attributeMetadataChanges(timelineOfType, options.live, full, options)
      : new Map()
  const bumps = timelineOfType.map(e => classifyBump(e))
  // every join, for telling a leave that was followed by a rejoin (same member id, or same instance id)
  const joins = timelineOfType.flatMap((e, i) =>
    bumps[i].flatMap(c =>
      c.kind === 'member-joined' || c.kind === 'static-member-replaced'
        ? [{memberId: c.memberId, instanceId: c.instanceId ?? null, epoch: e.epoch, at: e.timestamp, offset: e.offset}]
        : [],
    ),
  )
  const timeline = timelineOfType.map((e, i) =>
    timelineEntry(
      e,
      attributions.get(e),
      bumps[i],
      joins.filter(j => j.offset > e.offset),
    ),
  )
  const base: ExplainReport = {
    group: groupId,
    type,
    groupEpoch: null,
    assignmentEpoch: null,
    storedMetadataHash: null,
    liveMetadataHash: null,
    rules: null,
    inSync: null,
    verdict: {code: 'NOT_FOUND', message: '', pending: false},
    findings: [],
    topics: [],
    members: [],
    timeline,
    skippedRecords,
    stuckAfter: stuckAfterOf(options.stuckAfterMs, state, type),
  }
  const stuckAfter = base.stuckAfter.ms
  if (skippedRecords.length > 0) {
    base.findings.push({
      code: 'UNKNOWN_RECORDS',
      message: `${skippedRecords.length} record(s) of unknown types or newer versions were skipped`,
      details: {records: skippedRecords},
    })
  }
  if (type === null) {
    base.verdict = {
      code: 'NOT_FOUND',
      message: `no record of group ${groupId} in its __consumer_offsets partition: it does not exist, or its records were deleted`,
      pending: false,
    }
    return base
  }
  const deleted = (last: number | null) =>
    `the ${type} group was deleted: its records were tombstoned${last === null ? '' : ` after epoch ${last}`}. The coordinator deletes a group that is empty and has no committed offsets left (offsets retention), or on DeleteGroups; an online conversion to another group type tombstones the old type's records too`
  if (type === 'classic') {
    if (!state.classic?.value) {
      base.verdict = {code: 'GROUP_DELETED', message: deleted(marks.findLast(e => e.groupType === type)?.epoch ?? null), pending: false}
      return base
    }
    const v = state.classic?.value
    base.groupEpoch = v?.generation ?? null
    base.members = classicMembers(v, liveTopicIds(options.live)).map(m => ({
      ...m,
      memberEpoch: null,
      state: null,
      subscribedTopicRegex: null,
      reconciling: false,
      reconcilingSince: null,
    }))
    base.verdict = {
      code: 'CLASSIC_GROUP',
      message: `classic group at generation ${v?.generation ?? '-'}: the classic protocol keeps no metadata hash; clients rejoin on metadata changes themselves`,
      pending: false,
    }
    base.migration = migrationReadiness(v, options.live)
    return base
  }

  const section = state[type]
  if (!section || section.epoch === undefined) {
    base.assignmentEpoch = section?.targetAssignmentEpoch ?? null
    base.verdict = {code: 'GROUP_DELETED', message: deleted(marks.findLast(e => e.groupType === type)?.epoch ?? null), pending: false}
    return base
  }
  const g = section as typeof section & {epoch: number}
  base.groupEpoch = g.epoch ?? null
  base.assignmentEpoch = g.targetAssignmentEpoch ?? null
  base.rules = rulesOf(type, state)
  // a 4.0 coordinator keeps no hash: the absent field's 0 is not a hash
  base.storedMetadataHash = base.rules === '4.0' ? null : g.metadataHash.toString()
  const topics = subscribedTopicsOf(type, state)
  base.members = membersOf(type, state, marks, topicNamesById(options.live))
  if (type === 'consumer') {
    const down = downgradeReadiness((g.members as Map<string, {ClassicMemberMetadata?: unknown}>).values())
    if (down) base.downgrade = down
  }

  // Assignment and reconciliation: true whatever the metadata says.
  // An empty group has nothing to assign: 4.1 leaves the assignment epoch behind when the last member goes.
  const assignmentPending = g.targetAssignmentEpoch !== undefined && g.targetAssignmentEpoch < g.epoch && g.members.size > 0
  if (assignmentPending) {
    const since = marks.find(e => e.groupType === type && e.epoch > (g.targetAssignmentEpoch ?? 0))
    base.findings.push({
      code: 'ASSIGNMENT_PENDING',
      message: `the target assignment is at epoch ${g.targetAssignmentEpoch}, behind group epoch ${g.epoch}${since ? ` since ${isoTime(since.timestamp)}` : ''}: the coordinator has not computed the new assignment yet`,
      details: {groupEpoch: g.epoch, assignmentEpoch: g.targetAssignmentEpoch, since: since ? isoTime(since.timestamp) : null},
    })
  }
  for (const m of base.members.filter(x => x.reconciling)) {
    const stuck = m.reconcilingSince !== null && now - Date.parse(m.reconcilingSince) > stuckAfter
    base.findings.push({
      code: 'MEMBER_RECONCILING',
      message: `member ${memberName(m)} is ${stuck ? 'stuck ' : ''}reconciling: member epoch ${m.memberEpoch ?? '-'}, state ${m.state ?? '-'}${m.reconcilingSince ? `, since ${m.reconcilingSince}` : ''}`,
      details: {memberId: m.memberId, clientId: m.clientId, memberEpoch: m.memberEpoch, state: m.state, since: m.reconcilingSince, stuck},
    })
  }

  if (!options.live) {
    base.verdict = {
      code: 'NO_LIVE_METADATA',
      message: `explained from the records only: without live metadata the stored ${base.rules === '4.0' ? 'subscription metadata' : 'hash'} cannot be compared`,
      pending: assignmentPending || base.members.some(m => m.reconciling),
    }
    return base
  }
  if (base.rules === '4.0') return verdict40(base, g, type as 'consumer' | 'share', topics, state, options.live, assignmentPending)

  const hasher = options.hasher ?? new TopicHasher(options.live)
  const detail = hasher.groupHashDetail(topics)
  base.liveMetadataHash = detail.hash.toString()
  base.inSync = detail.hash === g.metadataHash
  base.topics = topics.map(name => {
    const t = hasher.topic(name)
    return t
      ? {name, exists: true, topicId: uuidToString(t.topicId), partitions: t.partitions.length, hash: hasher.topicHash(name).toString()}
      : {name, exists: false}
  })
  if (detail.missing.length > 0) {
    const subscribers = base.members.filter(m => m.subscribedTopicNames.some(t => detail.missing.includes(t)))
    const who = subscribers.map(m => m.memberId)
    base.findings.push({
      code: 'MISSING_TOPICS',
      message: `subscribed topics that do not exist: ${detail.missing.join(', ')}${who.length ? ` (members ${subscribers.map(memberName).join(', ')})` : ''}; creating one will change the hash and rebalance the group`,
      details: {topics: detail.missing, members: who},
    })
  }
  const inFlight = reassignmentFinding(topics, options.live, options.reassignments ?? [], hasher, base.inSync)
  if (inFlight) base.findings.push(inFlight)
  const reconciling = base.members.some(m => m.reconciling)
  const empty = g.members.size === 0

  if (base.inSync) {
    base.verdict = inSyncVerdict({
      empty,
      epoch: g.epoch,
      topicCount: topics.length,
      assignmentPending,
      reconciling: base.members.filter(m => m.reconciling).length,
    })
    return base
  }

  // Stored ≠ live: which change to today's metadata reproduces the stored hash?
  const search = searchHypotheses({
    target: g.metadataHash,
    topics,
    metadata: options.live,
    knownTopicIds: knownTopicIds(replay, options.live, topics),
    extraRacks: knownRacks(replay, options),
    reassignments: options.reassignments,
  })
  const confidence = confidenceOf(search)
  const described = [consistentWith(search)]
  const details: HashDetails = {
    stored: g.metadataHash.toString(),
    live: detail.hash.toString(),
    changes: search.matches,
    confidence,
    alternatives: search.alternatives,
    candidatesTried: search.tried,
    pairsTried: search.pairsTried,
  }
  if (empty) {
    base.verdict = {
      code: 'EMPTY_GROUP',
      message: `the group has no members: the stored hash differs from live metadata${described.length ? ` (${described.join('; ')})` : ''}, which matters only when a member joins`,
      pending: false,
    }
  } else if (search.matches.length > 0 && search.matches.every(isBrokerChange)) {
    base.verdict = {
      code: 'STALE_COORDINATOR_CACHE',
      message: `the stored hash looks stale in the coordinator's topic-hash cache: ${described.join('; ')}. Broker changes do not evict that cache, so no rebalance happens until a change to one of the group's topics (even a leader or ISR change), the last group on the coordinator dropping the topic, or a coordinator reload (a leader move of the group's __consumer_offsets partition); then the epoch bumps`,
      pending: assignmentPending || reconciling,
    }
    base.findings.push({code: 'STALE_COORDINATOR_CACHE', message: base.verdict.message, details})
  } else if (search.matches.length > 0) {
    base.verdict = {
      code: 'REBALANCE_PENDING',
      message: `a rebalance is coming: the live metadata differs from what the stored hash covers, ${described.join('; ')}. The coordinator recomputes the hash on the group's next heartbeat and bumps the epoch`,
      pending: true,
    }
    base.findings.push({code: 'REBALANCE_PENDING', message: base.verdict.message, details})
  } else {
    base.verdict = {
      code: 'HASH_DIFFERS',
      message: `the stored hash (${g.metadataHash}) differs from the live one (${detail.hash}) and no single topic or broker change, nor a pair of them, explains it (${search.tried} candidates and ${search.pairsTried} pairs tried). Expect a bump on a heartbeat that recomputes the hash; several changes at once, a rack no broker has today, or a coordinator cache that predates several changes would explain it; ${PIN_DOWN_STEP}`,
      pending: true,
    }
    base.findings.push({code: 'HASH_DIFFERS', message: base.verdict.message, details})
  }
  return base
}

function timelineEntry(
  e: EpochChange,
  attribution: Attribution | undefined,
  bumpCauses: readonly BumpCause[],
  laterJoins: LeaveFacts['laterJoins'],
): TimelineEntry {
  const rules = rulesOf(e.groupType, e.after)
  const causes = bumpCauses.map(c => {
    const view = causeView(c)
    if (c.kind === 'member-left' && e.groupType !== 'classic') {
      const type = e.groupType
      const g = e.before[type]
      const cur = g?.currentAssignment.get(c.memberId) as {State?: number} | undefined
      const at = g?.memberWrites.get(c.memberId)?.currentAssignment?.timestamp
      const timeout = (g?.members.get(c.memberId) as {RebalanceTimeoutMs?: number} | undefined)?.RebalanceTimeoutMs
      const leave = whyLeft({
        type,
        memberId: c.memberId,
        instanceId: c.instanceId,
        lastMemberEpoch: c.lastMemberEpoch,
        at: e.timestamp,
        lastState: cur?.State !== undefined && at !== undefined ? {state: cur.State, name: STATE_NAMES[type][cur.State] ?? String(cur.State), at} : null,
        rebalanceTimeoutMs: typeof timeout === 'number' && timeout > 0 ? timeout : null,
        laterJoins,
      })
      view.details.leave = leave
      view.message = `member ${c.memberId}${c.instanceId ? ` (instance ${c.instanceId})` : ''} left: ${leave.reason}`
    }
    if ('memberId' in c && typeof c.memberId === 'string' && e.groupType !== 'classic') {
      // who the member is, in the operator's terms: the client.id it sent (the member id is a random UUID)
      const m = (e.after[e.groupType]?.members.get(c.memberId) ?? e.before[e.groupType]?.members.get(c.memberId)) as {ClientId?: string} | undefined
      if (m?.ClientId) {
        view.details.clientId = m.ClientId
        view.message = view.message.replace(`member ${c.memberId}`, `member ${c.memberId} (client ${m.ClientId})`)
      }
    }
    if (c.kind === 'metadata-hash-changed') {
      if (attribution) {
        view.details.changes = attribution.matches
        view.confidence = attribution.confidence
        view.alternatives = attribution.alternatives
        if (attribution.evident) view.details.evident = attribution.evident
        view.message =
          attribution.confidence === 'evident'
            ? `metadata changed: ${attribution.note}`
            : attribution.matches.length > 0
              ? `metadata changed, ${consistentWith(attribution)}`
              : `${view.message}; ${attribution.note}`
      }
      if (view.confidence === 'inferred-ambiguous' || view.confidence === 'unexplained') {
        view.details.nextStep = PIN_DOWN_STEP
        view.message += `; ${PIN_DOWN_STEP}`
      }
    }
    return view
  })
  return {
    epoch: e.epoch,
    previousEpoch: e.previousEpoch ?? null,
    timestamp: e.timestamp,
    time: isoTime(e.timestamp),
    offset: e.offset.toString(),
    metadataHash: e.metadataHash === undefined || rules === '4.0' ? null : e.metadataHash.toString(),
    previousMetadataHash: e.previousMetadataHash === undefined || rulesOf(e.groupType, e.before) === '4.0' ? null : e.previousMetadataHash.toString(),
    rules,
    assignmentEpoch: e.assignment?.assignmentEpoch ?? null,
    causes,
  }
}

interface Attribution {
  matches: Hypothesis[]
  alternatives: Hypothesis[]
  confidence: Confidence
  note: string
  /** evident: the deleted topics and the ids the records hold for them. */
  evident?: {deletedTopics: string[]; topicIds: string[]}
}

/** An inferred cause in words that say it is inferred: "consistent with X" or "consistent with any of: X; or Y". */
function consistentWith(r: Pick<HypothesisResult, 'matches' | 'alternatives'>): string {
  const all = [...r.matches, ...r.alternatives].map(m => m.description)
  if (all.length === 0) return 'no change tried reproduces the stored hash'
  if (all.length === 1) return `consistent with: ${all[0]} (inferred from the stored hashes; no other change tried reproduces them)`
  return `consistent with any of: ${all.join('; or ')} (inferred from the stored hashes, which these changes produce alike)`
}

const unexplained = (note: string): Attribution => ({matches: [], alternatives: [], confidence: 'unexplained', note})

/**
 * REASSIGNMENT_IN_FLIGHT: subscribed topics with partitions under reassignment. Their replica lists are the wider
 * list (adding + removing) now; the group bumps when that list's racks enter the hash, and again when the
 * reassignment completes if the rack lists without the removing replicas differ.
 */
export function reassignmentFinding(
  topics: readonly string[],
  live: ClusterMetadata,
  reassignments: readonly ReassignmentInFlight[],
  hasher: TopicHasher,
  inSync: boolean | null,
): Extract<Finding, {code: 'REASSIGNMENT_IN_FLIGHT'}> | undefined {
  const mine = reassignments.filter(r => topics.includes(r.topic))
  if (mine.length === 0) return undefined
  const byTopic = new Map<string, ReassignmentInFlight[]>()
  for (const r of mine) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r])
  const perTopic = [...byTopic].map(([topic, rs]) => {
    const t = hasher.topic(topic)
    let bumpOnCompletion = false
    if (t) {
      const after = new Map(rs.map(r => [r.partition, r.replicas.filter(b => !r.removingReplicas.includes(b))]))
      const done: ClusterMetadata = {
        ...live,
        topics: [{...t, partitions: t.partitions.map(p => (after.has(p.partition) ? {...p, replicas: after.get(p.partition)!} : p))}],
      }
      bumpOnCompletion = new TopicHasher(done).topicHash(topic) !== hasher.topicHash(topic)
    }
    return {
      topic,
      partitions: rs.map(r => ({
        partition: r.partition,
        replicas: [...r.replicas],
        addingReplicas: [...r.addingReplicas],
        removingReplicas: [...r.removingReplicas],
      })),
      bumpOnCompletion,
    }
  })
  const expectedBumps = (inSync === false ? 1 : 0) + perTopic.filter(t => t.bumpOnCompletion).length
  const text = perTopic.map(
    t =>
      `${t.topic} partition${t.partitions.length === 1 ? '' : 's'} ${t.partitions.map(p => `${p.partition} (adding ${p.addingReplicas.join(',') || 'none'}, removing ${p.removingReplicas.join(',') || 'none'})`).join(', ')}`,
  )
  const completing = perTopic.filter(t => t.bumpOnCompletion).map(t => t.topic)
  return {
    code: 'REASSIGNMENT_IN_FLIGHT',
    message: `partition reassignment in flight on subscribed topics: ${text.join('; ')}. ${inSync === false ? 'The live replica lists (adding + removing) are not in the stored hash yet: the group bumps on its next heartbeat. ' : 'The wider replica lists (adding + removing) are in the stored hash already. '}${completing.length ? `Expect one more bump when it completes (the removing replicas leave and the rack lists of ${completing.join(', ')} change)` : 'No further bump is expected when it completes (the rack lists stay the same without the removing replicas)'}`,
    details: {topics: perTopic, expectedFurtherBumps: expectedBumps},
  }
}

/**
 * Walks the timeline backwards from today's metadata: at each bump whose hash changed with the same topic set,
 * finds the change that turns the metadata after the bump into the metadata before it, and carries that
 * reconstructed metadata to the older bumps. Stops attributing where no change fits or the change is ambiguous
 * in a way that matters for older bumps.
 */
function attributeMetadataChanges(
  timeline: readonly EpochChange[],
  live: ClusterMetadata,
  replay: ReplayResult,
  options: ExplainOptions,
): Map<EpochChange, Attribution> {
  const out = new Map<EpochChange, Attribution>()
  let md: ClusterMetadata | undefined = live
  /** The group epoch of the bump where the walk back stopped (its change could not be reconstructed). */
  let stoppedAt: number | undefined
  // racks of today's brokers too: the metadata reconstructed for older bumps may have lost a broker with its rack
  const extraRacks = [...new Set([...knownRacks(replay, options), ...live.brokers.flatMap(b => (b.rack === null ? [] : [b.rack]))])]
  const reassignments = options.reassignments
  // a topic deleted before a bump and re-created later: try today's layout under the ids the records saw
  const absentTemplates = new Map(live.topics.map(t => [t.name, t]))
  // Matches that hash alike (a broker with no rack and an unregistered one both add nothing) are the same step back.
  const allTopics = [...new Set(timeline.flatMap(e => [...subscribedTopicsOf(e.groupType, e.before), ...subscribedTopicsOf(e.groupType, e.after)]))]
  const stepBack = (cur: ClusterMetadata, matches: readonly Hypothesis[]): ClusterMetadata | undefined => {
    if (matches.length === 0) return undefined
    // of a rackless and an unregistered broker, the unregistered one is what usually happened
    const ordered = [...matches].sort(
      (a, b) => Number(a.kind === 'broker-rack' && a.then === 'no rack') - Number(b.kind === 'broker-rack' && b.then === 'no rack'),
    )
    const candidates = ordered.map(m => applyHypothesis(cur, m, absentTemplates))
    if (candidates.length === 1) return candidates[0]
    const key = (x: ClusterMetadata) => {
      const h = new TopicHasher(x)
      return allTopics.map(t => (h.topic(t) ? h.topicHash(t).toString() : '-')).join(',')
    }
    const first = key(candidates[0])
    return candidates.every(c => key(c) === first) ? candidates[0] : undefined
  }
  const firstSeen = topicIdsFirstSeen(replay)
  const liveIds = new Set(live.topics.map(t => uuidToString(t.topicId)))
  // ids in the records that no live topic has: ids of deleted topics (the same walk as knownTopicIds, done once)
  const deadIds = [...firstSeen.keys()].filter(id => !liveIds.has(id))
  for (let i = timeline.length - 1; i >= 0; i--) {
    const e = timeline[i]
    if (e.metadataHash === undefined || e.previousMetadataHash === undefined || e.metadataHash === e.previousMetadataHash) continue
    const causes = classifyBump(e)
    if (!causes.some((c: BumpCause) => c.kind === 'metadata-hash-changed')) continue
    if (!md) {
      // (the walk goes back in time: what stopped it is a LATER change)
      out.set(
        e,
        unexplained(
          `the later metadata change at group epoch ${stoppedAt ?? '?'} could not be reconstructed, so the metadata before it (and this bump's) cannot be rebuilt from live metadata`,
        ),
      )
      continue
    }
    const topicsAfter = subscribedTopicsOf(e.groupType, e.after)
    const topicsBefore = subscribedTopicsOf(e.groupType, e.before)
    const ids = new Map(topicsBefore.map(t => [t, deadIds]))
    // Bring md to "just after this bump" if a later, unrecorded change happened since.
    if (cachedGroupHash(md, topicsAfter) !== e.metadataHash) {
      const later = searchHypotheses({
        target: e.metadataHash,
        topics: topicsAfter,
        metadata: md,
        knownTopicIds: ids,
        extraRacks,
        absentTemplates,
        reassignments,
      })
      md = stepBack(md, later.matches)
      if (!md) {
        stoppedAt = e.epoch
        out.set(e, unexplained('the metadata changed again later in ways the hashes cannot separate'))
        continue
      }
    }
    const r = searchHypotheses({
      target: e.previousMetadataHash,
      topics: topicsBefore,
      metadata: md,
      knownTopicIds: ids,
      extraRacks,
      absentTemplates,
      reassignments,
      priorityTopics: assignmentChanged(e, md, live),
    })
    if (r.matches.length === 0) {
      // a subscribed topic that is gone, whose id the records hold: deleted, even though its old hash is unknown
      const cur = md
      const gone = topicsBefore.filter(t => !cur.topics.some(x => x.name === t))
      // an id assigned before the bump (so a topic of the group existed then) that no topic has today
      const assignedBefore = assignedTopicIds(e)
      const deadIds = [...firstSeen]
        .filter(([id, offset]) => !liveIds.has(id) && (assignedBefore ? assignedBefore.has(id) : offset < e.offset))
        .map(([id]) => id)
      if (gone.length > 0 && deadIds.length > 0) {
        out.set(e, {
          matches: [],
          alternatives: [],
          confidence: 'evident',
          evident: {deletedTopics: gone, topicIds: deadIds},
          note: `${gone.length === 1 ? `topic ${gone[0]} was` : `topics ${gone.join(', ')} were`} deleted (evident: the group's assignment records hold topic id${deadIds.length === 1 ? '' : 's'} ${deadIds.join(', ')}, which no topic has today, and no topic ${gone.join(' or ')} exists); whether anything else changed in the same bump cannot be told, since the deleted topic's hash is gone`,
        })
      } else {
        out.set(
          e,
          unexplained(
            `no single topic or broker change, nor a pair of them, reproduces the previous hash (${r.tried} candidates and ${r.pairsTried} pairs tried): several things changed, a rack name never seen, or the coordinator's cache was stale (a coordinator reload recomputes every topic)`,
          ),
        )
      }
      md = undefined
      stoppedAt = e.epoch
      continue
    }
    out.set(e, {matches: r.matches, alternatives: r.alternatives, confidence: confidenceOf(r), note: ''})
    md = stepBack(md, r.matches)
    if (!md) stoppedAt = e.epoch
  }
  return out
}

/**
 * Topics whose assigned partitions (the union of the members' target assignments) differ before and after the bump:
 * partitions added, a topic created or deleted show there. A hint for the search order only.
 */
function assignmentChanged(e: EpochChange, md: ClusterMetadata, live: ClusterMetadata): Set<string> {
  if (e.groupType === 'classic' || e.groupType === 'streams') return new Set()
  const union = (s: EpochChange['before']) => {
    const out = new Map<string, number>()
    for (const v of (s[e.groupType as 'consumer' | 'share']?.targetAssignment.values() ?? []) as Iterable<{
      TopicPartitions?: Array<{TopicId: string; Partitions: number[]}>
    }>) {
      for (const tp of v.TopicPartitions ?? []) out.set(tp.TopicId, (out.get(tp.TopicId) ?? 0) + tp.Partitions.length)
    }
    return out
  }
  const a = union(e.before)
  const b = union(e.after)
  const names = new Map([...live.topics, ...md.topics].map(t => [uuidToString(t.topicId), t.name]))
  const out = new Set<string>()
  for (const id of new Set([...a.keys(), ...b.keys()])) if (a.get(id) !== b.get(id) && names.has(id)) out.add(names.get(id)!)
  return out
}

/** Topic ids in the members' target assignments before the bump (consumer and share groups; else undefined). */
function assignedTopicIds(e: EpochChange): Set<string> | undefined {
  if (e.groupType !== 'consumer' && e.groupType !== 'share') return undefined
  const out = new Set<string>()
  for (const v of (e.before[e.groupType]?.targetAssignment.values() ?? []) as Iterable<{TopicPartitions?: Array<{TopicId: string}>}>) {
    for (const tp of v.TopicPartitions ?? []) out.add(tp.TopicId)
  }
  return out
}

/** Every topic id in the group's records, with the offset of the first record that holds it. */
function topicIdsFirstSeen(replay: ReplayResult): Map<string, bigint> {
  const seen = new Map<string, bigint>()
  const walk = (v: unknown, offset: bigint): void => {
    if (Array.isArray(v)) for (const x of v) walk(x, offset)
    else if (v && typeof v === 'object' && !(v instanceof Uint8Array)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'TopicId' && typeof x === 'string') {
          if (!seen.has(x)) seen.set(x, offset)
        } else walk(x, offset)
      }
    }
  }
  for (const e of replay.timeline) for (const r of e.records) if (r.record.kind === 'record' && r.record.value) walk(r.record.value, r.offset)
  return seen
}

/** Rack names to try: members' RackId in the records, and racks from other sources (history). */
function knownRacks(replay: ReplayResult | GroupSummary, options: ExplainOptions): string[] {
  return [...new Set([...memberRacks(replay), ...(options.knownRacks ?? [])])]
}

/** Topic ids the group's assignment records mention that are not live topic ids: ids of deleted topics. */
function knownTopicIds(replay: ReplayResult | GroupSummary, live: ClusterMetadata, topics: readonly string[]): Map<string, string[]> {
  const liveIds = new Set(live.topics.map(t => uuidToString(t.topicId)))
  const seen = new Set<string>('timeline' in replay ? [] : replay.topicIds)
  if ('timeline' in replay)
    for (const e of replay.timeline) for (const r of e.records) if (r.record.kind === 'record' && r.record.value) collectTopicIds(r.record.value, seen)
  for (const type of ['consumer', 'share'] as const) {
    const g = replay.state[type]
    if (g) for (const m of [...g.targetAssignment.values(), ...g.currentAssignment.values()]) collectTopicIds(m, seen)
  }
  const dead = [...seen].filter(id => !liveIds.has(id))
  return new Map(topics.map(t => [t, dead]))
}

/** Rack ids members reported: names of racks that may no longer exist on any broker. */
function memberRacks(replay: ReplayResult | GroupSummary): string[] {
  if (!('timeline' in replay)) return [...replay.racks]
  const racks = new Set<string>()
  for (const e of replay.timeline) {
    for (const s of [e.before, e.after]) {
      for (const type of ['consumer', 'share', 'streams'] as const) {
        for (const m of (s[type]?.members.values() ?? []) as Iterable<{RackId?: string | null}>) if (m.RackId) racks.add(m.RackId)
      }
    }
  }
  return [...racks]
}

function memberName(m: MemberStatus): string {
  return m.clientId ? `${m.memberId} (client ${m.clientId})` : m.memberId
}

function membersOf(
  type: 'consumer' | 'share' | 'streams',
  state: GroupState,
  timeline: readonly EpochMark[],
  topicNames: ReadonlyMap<string, string>,
): MemberStatus[] {
  const g = state[type]!
  const partitions = memberPartitions(type, state, topicNames)
  const stable = type === 'streams' ? 1 : 0
  const out: MemberStatus[] = []
  for (const [memberId, m] of g.members as Map<
    string,
    {
      ClientId?: string
      ClientHost?: string
      InstanceId?: string | null
      RackId?: string | null
      SubscribedTopicNames?: readonly string[]
      SubscribedTopicRegex?: string | null
    }
  >) {
    const cur = g.currentAssignment.get(memberId) as {MemberEpoch: number; State: number} | undefined
    const target = g.targetAssignmentEpoch
    const behind = cur !== undefined && target !== undefined && cur.MemberEpoch < target
    const reconciling = cur === undefined || behind || cur.State !== stable
    let since: string | null = null
    if (reconciling) {
      // no assignment yet: since it joined; behind the target: since the first bump it has not caught up with; at
      // the target epoch but not stable (e.g. waiting for partitions another member has not revoked): since it
      // entered that state
      const writes = g.memberWrites.get(memberId)
      const at = !cur
        ? writes?.metadata?.timestamp
        : behind
          ? timeline.find(e => e.groupType === type && e.epoch > cur.MemberEpoch)?.timestamp
          : writes?.currentAssignment?.timestamp
      since = at === undefined ? null : isoTime(at)
    }
    out.push({
      memberId,
      clientId: m.ClientId || null,
      clientHost: m.ClientHost || null,
      instanceId: m.InstanceId ?? null,
      memberEpoch: cur?.MemberEpoch ?? null,
      state: cur ? (STATE_NAMES[type][cur.State] ?? String(cur.State)) : null,
      subscribedTopicNames: [...(m.SubscribedTopicNames ?? [])].sort(),
      subscribedTopicRegex: m.SubscribedTopicRegex || null,
      rackId: m.RackId ?? null,
      reconciling,
      reconcilingSince: since,
      partitions: partitions?.get(memberId) ?? null,
    })
  }
  return out
}
