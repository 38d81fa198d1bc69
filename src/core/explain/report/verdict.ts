/**
 * The verdict for now: the stored metadata hash (or, under Kafka 4.0's rules, the stored subscription metadata)
 * against the live metadata, what a difference means (a rebalance coming, a stale coordinator cache, a change no
 * single candidate explains), and the findings that go with it. Pure.
 */
import {TopicHasher} from '../../hash.js'
import type {ClusterMetadata} from '../../metadata.js'
import {
  diffSubscriptionMetadata,
  type GroupSummary,
  internalTopics,
  type ReplayResult,
  storedSubscriptionMetadata,
  subscribedTopicsOf,
  subscriptionMetadataFromLive,
  subscriptionMetadataFromRecord,
} from '../../replay/index.js'
import {uuidToString} from '../../uuid.js'
import {knownRacks, knownTopicIds, reassignmentFinding} from '../evidence/hash-search.js'
import type {FactFields, GroupFacts} from './facts.js'
import {type DescribedGroup, describedTopics} from './described.js'
import {
  confidenceOf,
  consistentWith,
  type HypothesisResult,
  type HypothesisSearch,
  isBrokerChange,
  PIN_DOWN_STEP,
  searchHypotheses,
} from '../search/hypotheses.js'
import {memberName} from './member-status.js'
import type {ExplainOptions, Finding, HashDetails, TopicStatus, Verdict} from './report.js'

/** The verdict and what the live metadata adds to the report. */
export interface Judgement {
  verdict: Verdict
  inSync: boolean | null
  liveMetadataHash: string | null
  topics: TopicStatus[]
  /** Subscribed topics that do not exist. */
  missing: string[]
  findings: Finding[]
}

type Modern = NonNullable<GroupFacts['modern']>

/** The verdict of a group the records do not settle. */
export function judge(facts: GroupFacts, replay: ReplayResult | GroupSummary, options: ExplainOptions): Judgement {
  const none = {inSync: null, liveMetadataHash: null, topics: [], missing: [], findings: []}
  if (facts.settled) return {verdict: facts.settled, ...none}
  const modern = facts.modern!
  const reconciling = facts.fields.members.filter(m => m.reconciling).length
  if (!options.live) {
    const what = modern.rules === '4.0' ? 'subscription metadata' : 'hash'
    const pending = modern.assignmentPending || reconciling > 0
    return {
      verdict: {code: 'NO_LIVE_METADATA', message: `explained from the records only: without live metadata the stored ${what} cannot be compared`, pending},
      ...none,
    }
  }
  const o = {facts: facts.fields, modern, replay, live: options.live, reconciling}
  return modern.rules === '4.0' ? judge40(o) : judgeHash(o, options)
}

interface Inputs {
  facts: FactFields
  modern: Modern
  replay: ReplayResult | GroupSummary
  live: ClusterMetadata
  reconciling: number
}

/** The verdict when the stored metadata hash equals the live one (explain; audit reuses it without hashing twice). */
export function inSyncVerdict(o: {
  empty: boolean
  epoch: number | null
  topicCount: number
  assignmentPending: boolean
  reconciling: number
  rules?: string | null
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
  const topics = `${o.topicCount} topic${o.topicCount === 1 ? '' : 's'}`
  if (o.rules === '4.0')
    return {
      code: 'IN_SYNC',
      message: `in sync: the stored subscription metadata equals live metadata (${topics}; Kafka 4.0 rules: topic ids and partition counts, racks do not count); no rebalance pending. ${UPGRADE_NOTE}`,
      pending: false,
    }
  return {code: 'IN_SYNC', message: `in sync: the stored metadata hash equals the hash of the live metadata (${topics}); no rebalance pending`, pending: false}
}

/** Said of every group under 4.0 rules: the records cannot tell which version the coordinator runs now. */
const UPGRADE_NOTE =
  "The group's records were written by a Kafka 4.0 coordinator; if its coordinator runs 4.1 or later now, its first recomputation stores a metadata hash and bumps the epoch once"

function missingTopicsFinding(facts: FactFields, missing: readonly string[], what: string): Finding | undefined {
  if (missing.length === 0) return undefined
  const subscribers = facts.members.filter(m => m.subscribedTopicNames.some(t => missing.includes(t)))
  return {
    code: 'MISSING_TOPICS',
    message: `subscribed topics that do not exist: ${missing.join(', ')}${subscribers.length ? ` (members ${subscribers.map(memberName).join(', ')})` : ''}; creating one will change the ${what} and rebalance the group`,
    details: {topics: [...missing], members: subscribers.map(m => m.memberId)},
  }
}

/**
 * The verdict of a group read describe-only: from the epochs and members alone. The live metadata hash of its
 * topics is computed, but without the stored one (READ on __consumer_offsets) nothing says whether the coordinator
 * has seen the latest metadata: `inSync` stays null.
 */
export function judgeDescribed(facts: GroupFacts, described: DescribedGroup | null, options: ExplainOptions): Judgement {
  const none = {inSync: null, liveMetadataHash: null, topics: [], missing: [], findings: []}
  if (facts.settled || !described) return {verdict: facts.settled!, ...none}
  const topics = describedTopics(described)
  const live = options.live ? liveTopics(topics, options.hasher ?? new TopicHasher(options.live)) : undefined
  const missing = live?.missing ?? []
  const findings = [missingTopicsFinding(facts.fields, missing, 'hash')].filter(f => f !== undefined)
  return {
    verdict: describedVerdict(facts.fields, topics.length),
    inSync: null,
    liveMetadataHash: live?.hash ?? null,
    topics: live?.statuses ?? [],
    missing,
    findings,
  }
}

function liveTopics(topics: readonly string[], hasher: TopicHasher): {hash: string; statuses: TopicStatus[]; missing: string[]} {
  const detail = hasher.groupHashDetail(topics)
  const statuses: TopicStatus[] = topics.map(name => {
    const t = hasher.topic(name)
    return t
      ? {name, exists: true, topicId: uuidToString(t.topicId), partitions: t.partitions.length, hash: hasher.topicHash(name).toString()}
      : {name, exists: false}
  })
  return {hash: detail.hash.toString(), statuses, missing: detail.missing}
}

const NEEDS_STORED_HASH = 'whether a metadata change is still to be seen by the coordinator needs the stored metadata hash (READ on __consumer_offsets)'

/** Empty, assignment pending, members reconciling, or in sync as far as the epochs and assignments show. */
function describedVerdict(f: FactFields, topicCount: number): Verdict {
  if (f.members.length === 0)
    return {code: 'EMPTY_GROUP', message: `the group has no members: nothing rebalances until a member joins; ${NEEDS_STORED_HASH}`, pending: false}
  if (f.groupEpoch !== null && f.assignmentEpoch !== null && f.assignmentEpoch < f.groupEpoch)
    return {
      code: 'ASSIGNMENT_PENDING',
      message: `a rebalance is pending: group epoch ${f.groupEpoch} is above assignment epoch ${f.assignmentEpoch}, the target for it is not computed yet`,
      pending: true,
    }
  const reconciling = f.members.filter(m => m.reconciling)
  if (reconciling.length > 0)
    return {
      code: 'RECONCILING',
      message: `a rebalance is in progress: ${reconciling.length} member(s) not yet at the target assignment of epoch ${f.assignmentEpoch ?? '-'} (see the findings for what each waits on); the describe does not say since when, so whether one is stuck needs the records or a watch`,
      pending: true,
    }
  return {
    code: 'EPOCHS_IN_SYNC',
    message: `in sync as far as the epochs and assignments show: every member is at assignment epoch ${f.assignmentEpoch ?? '-'} = group epoch ${f.groupEpoch ?? '-'} with its target assignment (${topicCount} topic${topicCount === 1 ? '' : 's'}); ${NEEDS_STORED_HASH}`,
    pending: false,
  }
}

/** Under Kafka 4.0's rules: the stored subscription metadata against what the coordinator would compute now. */
function judge40({facts, modern, replay, live, reconciling}: Inputs): Judgement {
  const type = modern.type as 'consumer' | 'share'
  const topics = subscribedTopicsOf(type, replay.state)
  const stored = subscriptionMetadataFromRecord(storedSubscriptionMetadata(type, replay.state))
  const now = subscriptionMetadataFromLive(topics, live)
  const changes = diffSubscriptionMetadata(stored, now)
  const statuses: TopicStatus[] = topics.map(name => {
    const t = now.get(name)
    return t ? {name, exists: true, topicId: t.topicId, partitions: t.numPartitions} : {name, exists: false}
  })
  const missing = topics.filter(t => !now.has(t))
  const findings = [missingTopicsFinding(facts, missing, 'subscription metadata')].filter(f => f !== undefined)
  const base = {inSync: changes.length === 0, liveMetadataHash: null, topics: statuses, missing, findings}
  const empty = modern.g.members.size === 0
  if (base.inSync) {
    const verdict = inSyncVerdict({
      empty,
      epoch: modern.g.epoch,
      topicCount: topics.length,
      assignmentPending: modern.assignmentPending,
      reconciling,
      rules: '4.0',
    })
    return {...base, verdict}
  }
  const described = changes.map(c => c.description).join('; ')
  if (empty)
    return {
      ...base,
      verdict: {
        code: 'EMPTY_GROUP',
        message: `the group has no members: its stored subscription metadata differs from live metadata (${described}), which matters only when a member joins`,
        pending: false,
      },
    }
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
  const verdict: Verdict = {
    code: 'REBALANCE_PENDING',
    message: `a rebalance is coming: the stored subscription metadata (Kafka 4.0 rules) differs from live metadata: ${described}. A 4.0 coordinator compares them on the group's next heartbeat after the change reaches it and bumps the epoch`,
    pending: true,
  }
  return {...base, verdict, findings: [...findings, {code: 'REBALANCE_PENDING', message: verdict.message, details}]}
}

/** Under Kafka 4.1+'s rules: the stored metadata hash against the hash of the live metadata. */
function judgeHash(o: Inputs, options: ExplainOptions): Judgement {
  const {facts, modern, replay, live, reconciling} = o
  const {type, g} = modern
  const topics = subscribedTopicsOf(type, replay.state)
  const hasher = options.hasher ?? new TopicHasher(live)
  const detail = hasher.groupHashDetail(topics)
  const inSync = detail.hash === g.metadataHash
  const statuses: TopicStatus[] = topics.map(name => {
    const t = hasher.topic(name)
    return t
      ? {name, exists: true, topicId: uuidToString(t.topicId), partitions: t.partitions.length, hash: hasher.topicHash(name).toString()}
      : {name, exists: false}
  })
  const findings: Finding[] = []
  const missingFinding = missingTopicsFinding(facts, detail.missing, 'hash')
  if (missingFinding) findings.push(missingFinding)
  const inFlight = reassignmentFinding(topics, live, options.reassignments ?? [], hasher, inSync)
  if (inFlight) findings.push(inFlight)
  const base = {inSync, liveMetadataHash: detail.hash.toString(), topics: statuses, missing: detail.missing}
  const empty = g.members.size === 0
  const pendingNow = modern.assignmentPending || reconciling > 0

  // A Kafka 4.1 streams fence stored 0 (fence-zero.ts): the metadata is compared with the hash stored before it.
  const zeroed = type === 'streams' && g.metadataHash === 0n ? (replay.state.streams?.hashZeroedByFence ?? null) : null
  if (zeroed) {
    const same = zeroed.hashBefore === detail.hash
    const message = `the stored metadata hash is 0: the Kafka 4.1 coordinator (4.1.0–4.1.2; fixed in 4.2.0) stores 0 when a streams member leaves or is fenced, as it did at group epoch ${zeroed.epoch}. The hash stored before it (${zeroed.hashBefore}) ${same ? 'equals the live one: no topic changed since' : `differs from the live one (${detail.hash})`}. The coordinator bumps the epoch once more when it next recomputes the hash (a change to one of the group's topics, a topology update, a coordinator reload)${same ? '; that bump will be this artefact, not a metadata change' : ''}`
    findings.push({code: 'HASH_ZEROED_BY_FENCE', message, details: {fenceEpoch: zeroed.epoch, hashBefore: zeroed.hashBefore.toString(), sameAsLive: same}})
    if (same) {
      const verdict: Verdict = empty
        ? {code: 'EMPTY_GROUP', message: `the group has no members; ${message}`, pending: false}
        : {code: 'HASH_ZEROED_BY_FENCE', message, pending: pendingNow}
      return {...base, verdict, findings}
    }
  }
  if (inSync) {
    const verdict = inSyncVerdict({empty, epoch: g.epoch, topicCount: topics.length, assignmentPending: modern.assignmentPending, reconciling})
    return {...base, verdict, findings}
  }
  // stored ≠ live: which change to today's metadata reproduces the stored hash?
  const target = zeroed?.hashBefore ?? g.metadataHash
  const search = searchOnce(options.searches, {
    target,
    topics,
    absentTogether: type === 'streams' ? internalTopics(replay.state.streams?.topology ?? null) : undefined,
    metadata: live,
    knownTopicIds: knownTopicIds(replay, live, topics),
    extraRacks: knownRacks(replay, options),
    reassignments: options.reassignments,
  })
  const details: HashDetails = {
    stored: g.metadataHash.toString(),
    ...(zeroed ? {comparedWith: target.toString()} : {}),
    live: detail.hash.toString(),
    changes: search.matches,
    confidence: confidenceOf(search),
    alternatives: search.alternatives,
    candidatesTried: search.tried,
    pairsTried: search.pairsTried,
  }
  const drift = driftVerdict(search, {stored: g.metadataHash, live: detail.hash, empty, pendingNow})
  if (drift.finding) findings.push({code: drift.finding, message: drift.verdict.message, details} as Finding)
  return {...base, verdict: drift.verdict, findings}
}

/**
 * The search's result from `memo` when a search with the same inputs ran before; a search is a function of its
 * inputs. The memo belongs to one live metadata and one list of reassignments (an audit's), so every other input,
 * whichever the search is given, is the key.
 */
function searchOnce(memo: Map<string, HypothesisResult> | undefined, s: HypothesisSearch): HypothesisResult {
  if (!memo) return searchHypotheses(s)
  const {metadata: _live, reassignments: _inFlight, ...inputs} = s
  const key = JSON.stringify(inputs, (_, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Map || v instanceof Set ? [...v] : v))
  let result = memo.get(key)
  if (!result) memo.set(key, (result = searchHypotheses(s)))
  return result
}

/** What a stored hash that differs from the live one means, from what the search found. */
function driftVerdict(
  search: HypothesisResult,
  o: {stored: bigint; live: bigint; empty: boolean; pendingNow: boolean},
): {verdict: Verdict; finding?: 'STALE_COORDINATOR_CACHE' | 'REBALANCE_PENDING' | 'HASH_DIFFERS'} {
  const described = consistentWith(search)
  if (o.empty)
    return {
      verdict: {
        code: 'EMPTY_GROUP',
        message: `the group has no members: the stored hash differs from live metadata (${described}), which matters only when a member joins`,
        pending: false,
      },
    }
  if (search.matches.length > 0 && search.matches.every(isBrokerChange)) {
    const message = `the stored hash looks stale in the coordinator's topic-hash cache: ${described}. Broker changes do not evict that cache, so no rebalance happens until a change to one of the group's topics (even a leader or ISR change), the last group on the coordinator dropping the topic, or a coordinator reload (a leader move of the group's __consumer_offsets partition); then the epoch bumps`
    return {verdict: {code: 'STALE_COORDINATOR_CACHE', message, pending: o.pendingNow}, finding: 'STALE_COORDINATOR_CACHE'}
  }
  if (search.matches.length > 0) {
    const message = `a rebalance is coming: the live metadata differs from what the stored hash covers, ${described}. The coordinator recomputes the hash on the group's next heartbeat and bumps the epoch`
    return {verdict: {code: 'REBALANCE_PENDING', message, pending: true}, finding: 'REBALANCE_PENDING'}
  }
  const message = `the stored hash (${o.stored}) differs from the live one (${o.live}) and no single topic or broker change, nor a pair of them, explains it (${search.tried} candidates and ${search.pairsTried} pairs tried). Expect a bump on a heartbeat that recomputes the hash; several changes at once, a rack no broker has today, or a coordinator cache that predates several changes would explain it; ${PIN_DOWN_STEP}`
  return {verdict: {code: 'HASH_DIFFERS', message, pending: true}, finding: 'HASH_DIFFERS'}
}
