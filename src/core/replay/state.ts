/**
 * The coordinator's per-group state as the records rebuild it (GroupMetadataManager.replay):
 * one section per group type, because a group id can move between types (classic ⇄ consumer)
 * and the log keeps both kinds of records. Decoded values are never mutated, so a snapshot is a
 * copy of the maps, not of the values.
 */
import {type KnownRecord, RECORD_TYPE as RT} from '../records/index.js'
import type * as V from './values.js'

export interface AssignmentState<T, C> {
  targetAssignmentEpoch: number | undefined
  /** 4.3+ (0 when absent). */
  targetAssignmentTimestamp: bigint
  targetAssignment: Map<string, T>
  currentAssignment: Map<string, C>
}

/** Where a record was written: for "since when" questions (e.g. a member reconciling since). */
export interface RecordAt {
  readonly offset: bigint
  readonly timestamp: number
}

export interface MemberWrites {
  metadata?: RecordAt
  targetAssignment?: RecordAt
  currentAssignment?: RecordAt
}

export interface ModernGroupState<M, T, C> extends AssignmentState<T, C> {
  /** undefined until a metadata record is seen, and again after its tombstone. */
  epoch: number | undefined
  metadataHash: bigint
  members: Map<string, M>
  /** The last metadata record (epoch and hash) and target-assignment metadata record. */
  epochAt: RecordAt | undefined
  targetAssignmentAt: RecordAt | undefined
  /** Per member, the last record of each kind (dropped when all three are tombstoned). */
  memberWrites: Map<string, MemberWrites>
}

export interface RegexResolution extends V.RegularExpressionValue {
  readonly offset: bigint
}

export interface ConsumerGroupState
  extends ModernGroupState<V.ConsumerGroupMemberMetadataValue, V.ConsumerTargetAssignmentMemberValue, V.ConsumerCurrentMemberAssignmentValue> {
  regexes: Map<string, RegexResolution>
  /** The 4.0 ConsumerGroupPartitionMetadata record, until 4.1+ tombstones it. */
  partitionMetadata: V.PartitionMetadataValue | null
}

export interface ShareGroupState
  extends ModernGroupState<V.ShareGroupMemberMetadataValue, V.ConsumerTargetAssignmentMemberValue, V.ShareCurrentMemberAssignmentValue> {
  statePartitionMetadata: V.ShareGroupStatePartitionMetadataValue | null
  /** 4.0 ShareGroupPartitionMetadata (type 9), kept only to report it. */
  partitionMetadata: V.PartitionMetadataValue | null
}

export interface StreamsGroupState
  extends ModernGroupState<V.StreamsGroupMemberMetadataValue, V.StreamsTargetAssignmentMemberValue, V.StreamsCurrentMemberAssignmentValue> {
  topology: V.StreamsGroupTopologyValue | null
  validatedTopologyEpoch: number
  lastAssignmentConfigs: readonly V.KeyValue[] | null
  storedDescriptionTopologyEpoch: number
  failedDescriptionTopologyEpoch: number
  /**
   * The stored metadata hash is the 0 that a Kafka 4.1 coordinator writes when it fences a streams member (leave,
   * session or rebalance timeout; `streamsGroupFenceMember` in 4.1.0–4.1.2, fixed in 4.2.0): the epoch of that write
   * and the hash stored before it. Set by the replay (it needs the whole write); cleared by a non-zero hash.
   */
  hashZeroedByFence: {readonly epoch: number; readonly hashBefore: bigint} | null
}

export interface ClassicGroupState {
  value: V.GroupMetadataValue | null
}

export interface OffsetCommitState {
  readonly topic: string
  readonly partition: number
  readonly value: V.OffsetCommitValue
  readonly offset: bigint
}

export interface GroupState {
  readonly groupId: string
  consumer: ConsumerGroupState | null
  share: ShareGroupState | null
  streams: StreamsGroupState | null
  classic: ClassicGroupState | null
  /** Latest committed offset per `topic:partition` (not part of snapshots). */
  readonly offsets: Map<string, OffsetCommitState>
}

export type GroupType = 'consumer' | 'share' | 'streams' | 'classic'

/** The group sections without offsets; what the timeline keeps before and after each bump. */
export type GroupSnapshot = Pick<GroupState, 'groupId' | 'consumer' | 'share' | 'streams' | 'classic'>

export function emptyGroupState(groupId: string): GroupState {
  return {groupId, consumer: null, share: null, streams: null, classic: null, offsets: new Map()}
}

function modern<M, T, C>(): ModernGroupState<M, T, C> {
  return {
    epoch: undefined,
    metadataHash: 0n,
    members: new Map(),
    targetAssignmentEpoch: undefined,
    targetAssignmentTimestamp: 0n,
    targetAssignment: new Map(),
    currentAssignment: new Map(),
    epochAt: undefined,
    targetAssignmentAt: undefined,
    memberWrites: new Map(),
  }
}

const MEMBER_RECORD: Record<number, keyof MemberWrites> = {
  [RT.ConsumerGroupMemberMetadata]: 'metadata',
  [RT.ConsumerGroupTargetAssignmentMember]: 'targetAssignment',
  [RT.ConsumerGroupCurrentMemberAssignment]: 'currentAssignment',
  [RT.ShareGroupMemberMetadata]: 'metadata',
  [RT.ShareGroupTargetAssignmentMember]: 'targetAssignment',
  [RT.ShareGroupCurrentMemberAssignment]: 'currentAssignment',
  [RT.StreamsGroupMemberMetadata]: 'metadata',
  [RT.StreamsGroupTargetAssignmentMember]: 'targetAssignment',
  [RT.StreamsGroupCurrentMemberAssignment]: 'currentAssignment',
}

function noteWrite(g: ModernGroupState<unknown, unknown, unknown>, r: KnownRecord, at: RecordAt): void {
  if (r.type === RT.ConsumerGroupMetadata || r.type === RT.ShareGroupMetadata || r.type === RT.StreamsGroupMetadata)
    g.epochAt = r.value === null ? undefined : at
  else if (
    r.type === RT.ConsumerGroupTargetAssignmentMetadata ||
    r.type === RT.ShareGroupTargetAssignmentMetadata ||
    r.type === RT.StreamsGroupTargetAssignmentMetadata
  )
    g.targetAssignmentAt = r.value === null ? undefined : at
  const kind = MEMBER_RECORD[r.type]
  if (!kind) return
  const id = r.key.MemberId as string
  const prev = g.memberWrites.get(id)
  // a new object each time (snapshots share the map's values): built field by field, no spread or delete
  const w: MemberWrites = {}
  if (prev?.metadata && kind !== 'metadata') w.metadata = prev.metadata
  if (prev?.targetAssignment && kind !== 'targetAssignment') w.targetAssignment = prev.targetAssignment
  if (prev?.currentAssignment && kind !== 'currentAssignment') w.currentAssignment = prev.currentAssignment
  if (r.value !== null) w[kind] = at
  if (w.metadata || w.targetAssignment || w.currentAssignment) g.memberWrites.set(id, w)
  else g.memberWrites.delete(id)
}

function consumer(s: GroupState): ConsumerGroupState {
  return (s.consumer ??= {...modern(), regexes: new Map(), partitionMetadata: null})
}

function share(s: GroupState): ShareGroupState {
  return (s.share ??= {...modern(), statePartitionMetadata: null, partitionMetadata: null})
}

function streams(s: GroupState): StreamsGroupState {
  return (s.streams ??= {
    ...modern(),
    topology: null,
    validatedTopologyEpoch: -1,
    lastAssignmentConfigs: null,
    storedDescriptionTopologyEpoch: -1,
    failedDescriptionTopologyEpoch: -1,
    hashZeroedByFence: null,
  })
}

function put<K, T>(map: Map<K, T>, key: K, value: unknown): void {
  if (value === null) map.delete(key)
  else map.set(key, value as T)
}

function applyMetadata(g: ModernGroupState<unknown, unknown, unknown>, v: V.GroupMetadataValueLike | null): void {
  g.epoch = v?.Epoch
  g.metadataHash = v?.MetadataHash ?? 0n
}

function applyAssignmentMetadata(g: AssignmentState<unknown, unknown>, v: V.TargetAssignmentMetadataValue | null): void {
  g.targetAssignmentEpoch = v?.AssignmentEpoch
  g.targetAssignmentTimestamp = v?.AssignmentTimestamp ?? 0n
}

const empty = (g: ModernGroupState<unknown, unknown, unknown> | null) =>
  g !== null &&
  g.epoch === undefined &&
  g.members.size === 0 &&
  g.targetAssignment.size === 0 &&
  g.currentAssignment.size === 0 &&
  g.targetAssignmentEpoch === undefined &&
  g.memberWrites.size === 0

/** A section is gone once nothing of it is left (the coordinator deletes the group then). */
function prune(s: GroupState): void {
  if (empty(s.consumer) && s.consumer!.regexes.size === 0 && s.consumer!.partitionMetadata === null) s.consumer = null
  if (empty(s.share) && s.share!.statePartitionMetadata === null && s.share!.partitionMetadata === null) s.share = null
  if (empty(s.streams) && s.streams!.topology === null) s.streams = null
  if (s.classic && s.classic.value === null) s.classic = null
}

/**
 * Applies one record to the group's state, as the coordinator's replay does. Returns false for
 * records that do not change coordinator state (unknown types are handled by the caller).
 * long because: one case per coordinator record type (24), each a line or two, as flat as the coordinator's own
 * replay dispatch; split, the table of which record changes what would be spread over several functions.
 */
export function applyRecord(s: GroupState, r: KnownRecord, at: RecordAt): boolean {
  const logOffset = at.offset
  const v = r.value as never
  const memberId = r.key.MemberId as string
  switch (r.type) {
    case RT.LegacyOffsetCommit:
    case RT.OffsetCommit: {
      const topic = r.key.topic as string
      const partition = r.key.partition as number
      put(s.offsets, `${topic}:${partition}`, r.value === null ? null : {topic, partition, value: r.value, offset: logOffset})
      return true
    }
    case RT.GroupMetadata:
      if (r.value === null) {
        if (s.classic) s.classic.value = null
      } else {
        s.classic = {value: v}
      }
      break
    case RT.ConsumerGroupMetadata:
      applyMetadata(consumer(s), v)
      break
    case RT.ConsumerGroupPartitionMetadata:
      consumer(s).partitionMetadata = v
      break
    case RT.ConsumerGroupMemberMetadata:
      put(consumer(s).members, memberId, v)
      break
    case RT.ConsumerGroupTargetAssignmentMetadata:
      applyAssignmentMetadata(consumer(s), v)
      break
    case RT.ConsumerGroupTargetAssignmentMember:
      put(consumer(s).targetAssignment, memberId, v)
      break
    case RT.ConsumerGroupCurrentMemberAssignment:
      put(consumer(s).currentAssignment, memberId, v)
      break
    case RT.ShareGroupPartitionMetadata:
      share(s).partitionMetadata = v
      break
    case RT.ShareGroupMemberMetadata:
      put(share(s).members, memberId, v)
      break
    case RT.ShareGroupMetadata: {
      // A 4.0 record (decoded with the old layout) has no hash.
      const g = share(s)
      g.epoch = r.value === null ? undefined : (r.value.Epoch as number)
      g.metadataHash = (r.value?.MetadataHash as bigint | undefined) ?? 0n
      break
    }
    case RT.ShareGroupTargetAssignmentMetadata:
      applyAssignmentMetadata(share(s), v)
      break
    case RT.ShareGroupTargetAssignmentMember:
      put(share(s).targetAssignment, memberId, v)
      break
    case RT.ShareGroupCurrentMemberAssignment:
      put(share(s).currentAssignment, memberId, v)
      break
    case RT.ShareGroupStatePartitionMetadata: {
      const val = r.value as V.ShareGroupStatePartitionMetadataValue | null
      // 4.0 layout lacks InitializingTopics.
      share(s).statePartitionMetadata = val && {...val, InitializingTopics: val.InitializingTopics ?? []}
      break
    }
    case RT.ConsumerGroupRegularExpression:
      put(
        consumer(s).regexes,
        r.key.RegularExpression as string,
        r.value === null ? null : {...(r.value as unknown as V.RegularExpressionValue), offset: logOffset},
      )
      break
    case RT.StreamsGroupMetadata: {
      const g = streams(s)
      const val = r.value as V.StreamsGroupMetadataValue | null
      applyMetadata(g, val)
      g.validatedTopologyEpoch = val?.ValidatedTopologyEpoch ?? -1
      g.lastAssignmentConfigs = val?.LastAssignmentConfigs ?? null
      g.storedDescriptionTopologyEpoch = val?.StoredDescriptionTopologyEpoch ?? -1
      g.failedDescriptionTopologyEpoch = val?.FailedDescriptionTopologyEpoch ?? -1
      if (g.metadataHash !== 0n || val === null) g.hashZeroedByFence = null
      break
    }
    case RT.StreamsGroupPartitionMetadata:
      return false // never released; brokers skip it
    case RT.StreamsGroupMemberMetadata:
      put(streams(s).members, memberId, v)
      break
    case RT.StreamsGroupTargetAssignmentMetadata:
      applyAssignmentMetadata(streams(s), v)
      break
    case RT.StreamsGroupTargetAssignmentMember:
      put(streams(s).targetAssignment, memberId, v)
      break
    case RT.StreamsGroupCurrentMemberAssignment:
      put(streams(s).currentAssignment, memberId, v)
      break
    case RT.StreamsGroupTopology:
      streams(s).topology = v
      break
    default:
      return false
  }
  const section = r.group === 'consumer' ? s.consumer : r.group === 'share' ? s.share : r.group === 'streams' ? s.streams : null
  if (section) noteWrite(section, r, at)
  prune(s)
  return true
}

function copyModern<G extends ModernGroupState<unknown, unknown, unknown>>(g: G | null): G | null {
  if (!g) return null
  const out = {
    ...g,
    members: new Map(g.members),
    targetAssignment: new Map(g.targetAssignment),
    currentAssignment: new Map(g.currentAssignment),
    memberWrites: new Map(g.memberWrites),
  }
  if ('regexes' in g) (out as unknown as ConsumerGroupState).regexes = new Map((g as unknown as ConsumerGroupState).regexes)
  return out
}

export function snapshot(s: GroupState): GroupSnapshot {
  return {
    groupId: s.groupId,
    consumer: copyModern(s.consumer),
    share: copyModern(s.share),
    streams: copyModern(s.streams),
    classic: s.classic && {...s.classic},
  }
}

/**
 * The group's current type: the modern section with the latest epoch record (a group id can move between types and
 * the log keeps both), else classic, else a section that has records but no epoch (e.g. only tombstones left).
 */
export function groupTypeOf(s: GroupSnapshot): GroupType | null {
  let best: {type: GroupType; offset: bigint} | undefined
  for (const type of ['consumer', 'share', 'streams'] as const) {
    const g = s[type]
    if (g?.epoch !== undefined && g.epochAt && (!best || g.epochAt.offset > best.offset)) best = {type, offset: g.epochAt.offset}
  }
  if (best) return best.type
  if (s.classic?.value) return 'classic'
  for (const type of ['consumer', 'share', 'streams'] as const) if (s[type]) return type
  return null
}
