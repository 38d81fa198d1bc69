/**
 * First-cut causes of an epoch bump, derived only from the records of the write and the state
 * before it (reference §3–4, §8). Kinds, not sentences: `group explain` (issue 6) words them and
 * adds what needs live metadata (which topic's partitions/racks changed).
 */
import {RECORD_TYPE} from '../records/index.js'
import {type ClassicLeave, classicCauses, type PartitionCountSeen} from './classic-causes.js'
import type {FieldChange} from './diff.js'
import {diffSubscriptionMetadata, fromRecord, storedSubscriptionMetadata, type SubscriptionMetadataChange} from './subscription-metadata.js'
import type {EpochChange} from './replay.js'
import type {GroupType} from './state.js'
import type * as V from './values.js'

export type BumpCause =
  | {readonly kind: 'group-created'}
  /** Online upgrade: the consumer group starts at the classic generation. */
  | {readonly kind: 'converted-from-classic'; readonly generation: number | undefined}
  /** No earlier metadata record in the log (compacted away): the history starts here. */
  | {readonly kind: 'history-starts'}
  | {
      readonly kind: 'member-joined'
      readonly memberId: string
      readonly instanceId: string | null
      readonly subscribedTopicNames: readonly string[]
      readonly subscribedTopicRegex: string | null
    }
  /**
   * Leave, static leave (-1), or fenced (session/rebalance timeout): the records look the same.
   * lastMemberEpoch -2 means a static member had left temporarily and did not come back in time.
   */
  | {readonly kind: 'member-left'; readonly memberId: string; readonly instanceId: string | null; readonly lastMemberEpoch: number | undefined}
  | {readonly kind: 'subscription-changed'; readonly memberId: string; readonly added: readonly string[]; readonly removed: readonly string[]}
  | {readonly kind: 'regex-changed'; readonly memberId: string; readonly before: string | null; readonly after: string | null}
  | {readonly kind: 'regex-resolution-changed'; readonly regex: string; readonly added: readonly string[]; readonly removed: readonly string[]}
  /**
   * The regex's resolution record was tombstoned: its last subscribed member left or changed its regex (the
   * coordinator deletes the resolved regular expression then). The regex still matches the same topics.
   */
  | {readonly kind: 'regex-resolution-deleted'; readonly regex: string; readonly topics: readonly string[]}
  /** The hash moved while the group's topic set did not: topic metadata changed (partitions, id, racks) or a cache effect. */
  | {readonly kind: 'metadata-hash-changed'; readonly before: bigint; readonly after: bigint; readonly topics: readonly string[]}
  /**
   * Kafka 4.0's rules: the subscription metadata record written with the bump differs from the one before it for
   * topics subscribed on both sides (created, deleted, recreated, partition count). Read from the records: exact.
   */
  | {readonly kind: 'subscription-metadata-changed'; readonly changes: readonly SubscriptionMetadataChange[]}
  /** First recomputation after 4.0 → 4.1+: stored hash 0 (absent) becomes non-zero. */
  | {readonly kind: 'upgrade-from-4.0'; readonly after: bigint; readonly partitionMetadataTombstoned: boolean}
  /** Kafka 4.1 streams fence: the write stored metadata hash 0 in place of `before` (fence-zero.ts); no topic changed. */
  | {readonly kind: 'streams-hash-zeroed'; readonly before: bigint}
  /**
   * The coordinator recomputed the hash that a 4.1 streams fence had stored as 0 (at `fenceEpoch`): it bumps whatever
   * the metadata. `sameAsBefore`: the new hash equals the one stored before that fence, so no topic changed since.
   */
  | {readonly kind: 'streams-hash-recomputed'; readonly fenceEpoch: number; readonly before: bigint; readonly after: bigint; readonly sameAsBefore: boolean}
  | {readonly kind: 'assignor-changed'; readonly before: string | null; readonly after: string | null}
  | {readonly kind: 'share-initialization'; readonly topics: readonly V.TopicPartitionsInfo[]}
  | {
      readonly kind: 'streams-topology-changed'
      readonly epochBefore: number | undefined
      readonly epochAfter: number | undefined
      readonly topicsAdded: readonly string[]
      readonly topicsRemoved: readonly string[]
    }
  | {readonly kind: 'streams-topology-validated'; readonly before: number; readonly after: number}
  /**
   * The first epoch a Kafka 4.2+ coordinator wrote for a group whose records before came from 4.1: 4.1 stored neither
   * the validated topology epoch nor the assignment configs, so 4.2+ loads -1 and none, and bumps once when it
   * records them (4.2.1's streamsGroupHeartbeat). Replaces streams-topology-validated and
   * streams-assignment-configs-changed for that write: neither the topology nor (as far as the records tell) the
   * configs changed.
   */
  | {readonly kind: 'streams-upgrade-from-4.1'; readonly validatedTopologyEpoch: number; readonly assignmentConfigs: readonly FieldChange[]}
  | {readonly kind: 'streams-assignment-configs-changed'; readonly changes: readonly FieldChange[]}
  | {readonly kind: 'streams-member-changed'; readonly memberId: string; readonly fields: readonly string[]}
  /** A new member id took over a static member's instance id in the same write. */
  | {readonly kind: 'static-member-replaced'; readonly instanceId: string; readonly previousMemberId: string; readonly memberId: string}
  | {
      readonly kind: 'classic-rebalance'
      readonly generation: number
      readonly membersAdded: readonly string[]
      readonly membersRemoved: readonly string[]
      readonly protocol: string | null | undefined
    }
  /** Classic: a member is gone; how (leave, session or poll timeout) is inferred from its partitions' commit times. */
  | {readonly kind: 'classic-member-left'; readonly memberId: string; readonly instanceId: string | null; readonly clientId: string; readonly how: ClassicLeave}
  /** Classic: every remaining member added the same topics (their subscriptions list matched topics, not a pattern). */
  | {readonly kind: 'classic-pattern-match'; readonly topics: readonly string[]}
  | {readonly kind: 'classic-assignor-changed'; readonly before: string | null; readonly after: string | null}
  /**
   * Classic: same members, subscriptions and assignor: a member (the Java client: the leader, on a metadata change of
   * a subscribed topic) rejoined. partitionCounts: topics whose assignments cover another number of partitions.
   */
  | {readonly kind: 'classic-metadata-rejoin'; readonly leader: string | null; readonly partitionCounts: readonly PartitionCountSeen[]}
  /** Online downgrade: the consumer group's records were tombstoned in the write that stored the classic group. */
  | {readonly kind: 'converted-from-consumer'}
  /** Nothing in the records explains the bump (e.g. the hash was recomputed to the same value). */
  | {readonly kind: 'unexplained'}

export type BumpCauseKind = BumpCause['kind']

export function classifyBump(e: EpochChange): BumpCause[] {
  if (e.groupType === 'classic') return classicBumpCauses(e)
  const start = startCauses(e)
  const causes: BumpCause[] = [
    ...start,
    ...memberCauses(
      e,
      start.some(c => c.kind === 'group-created'),
    ),
    ...subscriptionCauses(e),
    ...(e.groupType === 'streams' ? streamsCauses(e) : []),
    ...subscriptionMetadataCauses(e),
    ...hashCauses(e),
  ]
  if (causes.length === 0) causes.push({kind: 'unexplained'})
  return causes
}

/** A classic group's generation: the rebalance, and what its records say caused it. */
function classicBumpCauses(e: EpochChange): BumpCause[] {
  const d = e.diff
  const downgraded =
    e.previousEpoch === undefined && e.records.some(({record: r}) => r.kind === 'record' && r.type === RECORD_TYPE.ConsumerGroupMetadata && r.value === null)
  return [
    ...(downgraded ? [{kind: 'converted-from-consumer'} as const] : []),
    {
      kind: 'classic-rebalance',
      generation: e.epoch,
      membersAdded: d.classic!.members.added,
      membersRemoved: d.classic!.members.removed,
      protocol: d.classic!.protocol.after,
    },
    ...(downgraded || !e.after.classic?.value
      ? []
      : classicCauses({before: e.before.classic?.value, after: e.after.classic.value, at: e.timestamp, lastCommits: e.classicCommits ?? new Map()})),
  ]
}

/** The first epoch in the records: a group created, converted from classic, or records that start later. */
function startCauses(e: EpochChange): BumpCause[] {
  const d = e.diff
  const causes: BumpCause[] = []
  if (e.previousEpoch === undefined) {
    if (d.classicTombstoned || e.before.classic?.value) causes.push({kind: 'converted-from-classic', generation: e.before.classic?.value?.generation})
    else if (e.epoch <= 2) causes.push({kind: 'group-created'})
    else causes.push({kind: 'history-starts'})
  }
  return causes
}

/** Members joined, left or replaced (a static member under a new member id); at creation, the members written before the first epoch. */
function memberCauses(e: EpochChange, created: boolean): BumpCause[] {
  const d = e.diff
  const type = e.groupType as Exclude<GroupType, 'classic'> // classicBumpCauses has the classic groups
  const causes: BumpCause[] = []
  // A static member rejoining under a new member id replaces the old one (same instance id).
  const replaced = new Map<string, string>()
  for (const m of d.membersRemoved) if (m.instanceId !== null && d.membersAdded.some(a => a.instanceId === m.instanceId)) replaced.set(m.instanceId, m.memberId)
  // At creation, members written before the first epoch record (a new regex member waits for its
  // resolution; 4.3+ groups start at epoch 1 in memory) joined too.
  const early = created
    ? [
        ...((e.before[type]?.members ?? new Map()) as Map<
          string,
          {InstanceId?: string | null; SubscribedTopicNames?: readonly string[]; SubscribedTopicRegex?: string | null}
        >),
      ]
    : []
  for (const [memberId, m] of early) {
    if (!e.after[type]?.members.has(memberId)) continue
    causes.push({
      kind: 'member-joined',
      memberId,
      instanceId: m.InstanceId ?? null,
      subscribedTopicNames: [...(m.SubscribedTopicNames ?? [])].sort(),
      subscribedTopicRegex: m.SubscribedTopicRegex || null,
    })
  }
  for (const m of d.membersAdded) {
    const previous = m.instanceId === null ? undefined : replaced.get(m.instanceId)
    causes.push(
      previous === undefined
        ? {kind: 'member-joined', ...m}
        : {kind: 'static-member-replaced', instanceId: m.instanceId!, previousMemberId: previous, memberId: m.memberId},
    )
  }
  for (const m of d.membersRemoved) {
    if (m.instanceId === null || !replaced.has(m.instanceId))
      causes.push({kind: 'member-left', memberId: m.memberId, instanceId: m.instanceId, lastMemberEpoch: m.lastMemberEpoch})
  }
  return causes
}

/** Subscriptions, regexes and their resolutions, the preferred assignor and share initialization. */
function subscriptionCauses(e: EpochChange): BumpCause[] {
  const d = e.diff
  const causes: BumpCause[] = []
  for (const s of d.subscriptionChanges) causes.push({kind: 'subscription-changed', ...s})
  for (const r of d.regexChanges) causes.push({kind: 'regex-changed', ...r})
  for (const r of d.regexResolutions) {
    if (r.before !== null && r.after === null) causes.push({kind: 'regex-resolution-deleted', regex: r.regex, topics: r.removed})
    else if (r.added.length || r.removed.length) causes.push({kind: 'regex-resolution-changed', regex: r.regex, added: r.added, removed: r.removed})
  }
  // 4.3.2 and 4.4+ bump when an existing member's ServerAssignor change moves the group's preferred assignor (KAFKA-20434;
  // hasPreferredServerAssignorChanged, in 4.3.2's and 4.4.0's GroupMetadataManager, not in 4.3.1's);
  // a join or leave that moves it is already explained by the join or leave.
  const assignorEdited = d.membersChanged.some(m => m.changes.some(c => c.field === 'ServerAssignor'))
  if (e.groupType === 'consumer' && e.previousEpoch !== undefined && assignorEdited && d.preferredAssignor.before !== d.preferredAssignor.after) {
    causes.push({kind: 'assignor-changed', before: d.preferredAssignor.before, after: d.preferredAssignor.after})
  }
  if (e.groupType === 'share' && d.shareInitializedNotInTarget?.length) causes.push({kind: 'share-initialization', topics: d.shareInitializedNotInTarget})
  return causes
}

/** A streams group's topology, its validation, assignment configs and member changes. */
function streamsCauses(e: EpochChange): BumpCause[] {
  const d = e.diff
  const causes: BumpCause[] = []
  const t = d.topology!
  if (t.epochBefore !== t.epochAfter || t.subtopologiesAdded.length || t.subtopologiesRemoved.length || t.subtopologiesChanged.length) {
    causes.push({
      kind: 'streams-topology-changed',
      epochBefore: t.epochBefore,
      epochAfter: t.epochAfter,
      topicsAdded: t.requiredTopics.added,
      topicsRemoved: t.requiredTopics.removed,
    })
  }
  const validated = d.validatedTopologyEpoch
  const upgradeFrom41 =
    e.previousEpoch !== undefined && validated?.before === -1 && validated.after >= 0 && !d.assignmentConfigsRecordedBefore && !!d.lastAssignmentConfigs?.length
  if (upgradeFrom41) {
    causes.push({kind: 'streams-upgrade-from-4.1', validatedTopologyEpoch: validated.after, assignmentConfigs: d.lastAssignmentConfigs!})
  } else {
    if (validated && validated.before !== validated.after) causes.push({kind: 'streams-topology-validated', ...validated})
    // At creation the configs are recorded for the first time: not a change.
    if (d.lastAssignmentConfigs?.length && e.previousEpoch !== undefined)
      causes.push({kind: 'streams-assignment-configs-changed', changes: d.lastAssignmentConfigs})
  }
  for (const m of d.membersChanged) causes.push({kind: 'streams-member-changed', memberId: m.memberId, fields: m.changes.map(c => c.field)})
  return causes
}

/** Kafka 4.0's stored subscription metadata, changed in the bump's write. */
function subscriptionMetadataCauses(e: EpochChange): BumpCause[] {
  const d = e.diff
  const causes: BumpCause[] = []
  if (e.groupType === 'consumer' || e.groupType === 'share') {
    // 4.0 writes the new subscription metadata in the bump's write; a topic entering or leaving the group's
    // subscription is a member's change (explained above), the rest is metadata.
    const after = storedSubscriptionMetadata(e.groupType, e.after)
    if (after !== null) {
      const changes = diffSubscriptionMetadata(fromRecord(storedSubscriptionMetadata(e.groupType, e.before)), fromRecord(after), {
        subscribedBefore: new Set(d.subscribedTopics.before),
        subscribedAfter: new Set(d.subscribedTopics.after),
      })
      if (changes.length > 0) causes.push({kind: 'subscription-metadata-changed', changes})
    }
  }
  return causes
}

/** The metadata hash: changed, zeroed and recomputed by a streams fence, or the upgrade from 4.0. */
function hashCauses(e: EpochChange): BumpCause[] {
  const d = e.diff
  const causes: BumpCause[] = []
  const hashAfter = e.metadataHash!
  if (e.fenceStoredZeroHash && e.previousMetadataHash !== undefined) causes.push({kind: 'streams-hash-zeroed', before: e.previousMetadataHash})
  const zeroed = e.zeroedByFence && hashAfter !== 0n ? e.zeroedByFence : undefined
  if (zeroed)
    causes.push({
      kind: 'streams-hash-recomputed',
      fenceEpoch: zeroed.epoch,
      before: zeroed.hashBefore,
      after: hashAfter,
      sameAsBefore: zeroed.hashBefore === hashAfter,
    })
  // (after a 4.1 fence's 0, the metadata is compared with the hash stored before that fence)
  const hashBefore = e.fenceStoredZeroHash ? hashAfter : (zeroed?.hashBefore ?? e.previousMetadataHash)
  if (hashBefore !== undefined && hashBefore !== hashAfter) {
    const topicSetChanged = d.subscribedTopics.added.length > 0 || d.subscribedTopics.removed.length > 0
    // 0 → non-zero is also what a subscribed topic coming into existence looks like; the 4.0
    // ConsumerGroupPartitionMetadata record (or its tombstone in this write) tells them apart.
    // (a 4.1+ coordinator tombstones the consumer record; it leaves a share group's type 9 record, which it skips)
    const had40Record = d.partitionMetadataTombstoned || (e.groupType === 'share' ? e.before.share : e.before.consumer)?.partitionMetadata != null
    if (hashBefore === 0n && (e.groupType === 'consumer' || e.groupType === 'share') && had40Record) {
      causes.push({kind: 'upgrade-from-4.0', after: hashAfter, partitionMetadataTombstoned: d.partitionMetadataTombstoned})
    } else if (!topicSetChanged) {
      causes.push({kind: 'metadata-hash-changed', before: hashBefore, after: hashAfter, topics: d.subscribedTopics.after})
    }
  }
  return causes
}
