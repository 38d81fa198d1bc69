/**
 * `group explain`: the epoch timeline with a cause for every bump, metadata changes attributed to a topic or a
 * broker where the hashes allow it, and a verdict for now (stored vs live metadata hash, pending assignment,
 * members still reconciling). Pure: the replayed log and the live metadata come in, a report goes out.
 */
import {TopicHasher} from '../hash.js'
import type {ClusterMetadata} from '../metadata.js'
import {
  classifyBump,
  type EpochMark,
  type GroupRules,
  type GroupSnapshot,
  type GroupSummary,
  groupTypeOf,
  internalTopics,
  type ReplayResult,
  diffSubscriptionMetadata,
  rulesOf,
  storedSubscriptionMetadata,
  subscribedTopicsOf,
  subscriptionMetadataFromLive,
  subscriptionMetadataFromRecord,
} from '../replay/index.js'
import {isoTime} from '../time.js'
import {uuidToString} from '../uuid.js'
import {confidenceOf, isBrokerChange, PIN_DOWN_STEP, searchHypotheses} from './search/hypotheses.js'
import {classicMembers, liveTopicIds} from './classic.js'
import {downgradeReadiness, migrationReadiness} from './migration.js'
import {topicNamesById} from './members.js'
import {attributeMetadataChanges, consistentWith, knownRacks, knownTopicIds, reassignmentFinding} from './attribution.js'
import {memberName, membersOf} from './member-status.js'
import type {ExplainOptions, ExplainReport, HashDetails, Verdict} from './report.js'
import {timelineEntry} from './timeline-entry.js'
import {stuckAfterOf} from './report.js'

export * from './report.js'
export {reassignmentFinding} from './attribution.js'

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
  // An empty group has nothing to assign: up to 4.3.1 the coordinator leaves the assignment epoch behind when it
  // fences the last member (KAFKA-20442, fixed in 4.3.2 and 4.4.0 by a target-assignment record in that write).
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

  // A Kafka 4.1 streams fence stored 0 (fence-zero.ts): the metadata is compared with the hash stored before it.
  const zeroed = type === 'streams' && g.metadataHash === 0n ? (state.streams?.hashZeroedByFence ?? null) : null
  if (zeroed) {
    const same = zeroed.hashBefore === detail.hash
    const message = `the stored metadata hash is 0: the Kafka 4.1 coordinator (4.1.0–4.1.2; fixed in 4.2.0) stores 0 when a streams member leaves or is fenced, as it did at group epoch ${zeroed.epoch}. The hash stored before it (${zeroed.hashBefore}) ${same ? 'equals the live one: no topic changed since' : `differs from the live one (${detail.hash})`}. The coordinator bumps the epoch once more when it next recomputes the hash (a change to one of the group's topics, a topology update, a coordinator reload)${same ? '; that bump will be this artefact, not a metadata change' : ''}`
    base.findings.push({code: 'HASH_ZEROED_BY_FENCE', message, details: {fenceEpoch: zeroed.epoch, hashBefore: zeroed.hashBefore.toString(), sameAsLive: same}})
    if (same) {
      base.verdict = empty
        ? {code: 'EMPTY_GROUP', message: `the group has no members; ${message}`, pending: false}
        : {code: 'HASH_ZEROED_BY_FENCE', message, pending: assignmentPending || reconciling}
      return base
    }
  }
  const target = zeroed?.hashBefore ?? g.metadataHash

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
    target,
    topics,
    absentTogether: type === 'streams' ? internalTopics(state.streams?.topology ?? null) : undefined,
    metadata: options.live,
    knownTopicIds: knownTopicIds(replay, options.live, topics),
    extraRacks: knownRacks(replay, options),
    reassignments: options.reassignments,
  })
  const confidence = confidenceOf(search)
  const described = [consistentWith(search)]
  const details: HashDetails = {
    stored: g.metadataHash.toString(),
    ...(zeroed ? {comparedWith: target.toString()} : {}),
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
