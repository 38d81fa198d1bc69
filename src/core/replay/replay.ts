/**
 * Replays one group's records in log order into its coordinator state and an epoch timeline.
 * The unit of replay is the coordinator write (a CoordinatorResult): its records share a batch and
 * a timestamp. A batch can hold several writes (group.coordinator.append.linger.ms: 5 ms in 4.1,
 * adaptive later), which then differ in timestamp, or, within one millisecond, show up as a second
 * epoch record of the same group (splitWrites). The state is snapshotted before and after any write
 * that changes a group epoch (or classic generation); the write's records travel with the entry.
 * Pure: the network reader feeds records in; nothing here does I/O.
 */
import {noteFenceZero, streamsBeforeWrite} from './fence-zero.js'
import {GROUP_METADATA_TYPES, type DecodedRecord, type KnownRecord, RECORD_TYPE as RT} from '../records/index.js'
import {departedCommitTimes} from './classic-causes.js'
import {diffGroup, type GroupDiff, subscribedTopicsOf} from './diff.js'
import {applyRecord, emptyGroupState, snapshot, type GroupSnapshot, type GroupState, type GroupType} from './state.js'
import type * as V from './values.js'

export interface LoggedRecord {
  readonly offset: bigint
  /** Record timestamp, ms (the coordinator's append time). */
  readonly timestamp: number
  /** Base offset of the record batch: records of one coordinator write share it. */
  readonly batchBaseOffset?: bigint
  readonly record: DecodedRecord
}

export interface WriteInfo {
  readonly firstOffset: bigint
  readonly lastOffset: bigint
  readonly batchBaseOffset: bigint | undefined
  /**
   * How the write was delimited: same batch and timestamp; same timestamp and adjacent offsets (no
   * batch info); or split heuristically inside one millisecond of a batch (record kinds that start a
   * write, such as member metadata or tombstones, after the previous write's epoch record).
   */
  readonly grouping: 'batch' | 'timestamp-and-adjacent-offsets' | 'split-within-batch'
}

export interface EpochChange {
  readonly groupType: GroupType
  readonly previousEpoch: number | undefined
  readonly epoch: number
  /** undefined for classic groups, and when no earlier metadata record was seen. */
  readonly previousMetadataHash: bigint | undefined
  readonly metadataHash: bigint | undefined
  /** The metadata record (type 3/11/17) or classic GroupMetadata (type 2) that carries the epoch. */
  readonly offset: bigint
  readonly timestamp: number
  readonly write: WriteInfo
  /** The group's records written with it (the same write), in log order. */
  readonly records: readonly LoggedRecord[]
  readonly before: GroupSnapshot
  readonly after: GroupSnapshot
  readonly diff: GroupDiff
  /** Classic: the latest commit time (ms) per "topic:partition" before the write (see classic-causes.ts). */
  readonly classicCommits?: ReadonlyMap<string, number>
  /**
   * Streams, Kafka 4.1: this write fenced members and stored metadata hash 0 in place of previousMetadataHash
   * (`streamsGroupFenceMember` of 4.1.0–4.1.2 writes 0; 4.2.0 keeps the hash). Nothing about the topics changed.
   */
  readonly fenceStoredZeroHash?: true
  /**
   * The previous stored hash is such a fence's 0: the fence's epoch and the hash stored before it, which is what the
   * metadata is compared with (the coordinator compares with 0, so its next recomputation bumps in any case).
   */
  readonly zeroedByFence?: {readonly epoch: number; readonly hashBefore: bigint}
  /** The target assignment that first covered this epoch (4.3+ may compute it in a later write). */
  assignment?: {readonly assignmentEpoch: number; readonly offset: bigint; readonly timestamp: number}
}

/** The hash the bump's metadata is compared with: the stored one, or the one before a Kafka 4.1 streams fence's 0. */
export function metadataHashBefore(e: EpochChange): bigint | undefined {
  return e.zeroedByFence?.hashBefore ?? e.previousMetadataHash
}

export interface SkippedRecord {
  readonly offset: bigint
  readonly type: number
  readonly version: number | undefined
  readonly reason: 'unknown-type' | 'unknown-version' | 'legacy'
  readonly note?: string
}

export interface ReplayOptions {
  /** Called after each record is applied, with the live (mutable) state. */
  readonly onRecord?: (record: LoggedRecord, state: GroupState) => void
  /** Continue from this state (watch: the group as the last cycle left it; owned by the replay from now on):
   * the timeline then holds only the bumps of the records pushed after it. */
  readonly initialState?: GroupState
}

export interface ReplayResult {
  readonly state: GroupState
  readonly timeline: readonly EpochChange[]
  readonly skipped: readonly SkippedRecord[]
}

/** Record types that carry a group epoch (classic: generation), by type. */
export const EPOCH_TYPES: ReadonlyMap<number, GroupType> = new Map(Object.entries(GROUP_METADATA_TYPES).map(([k, v]) => [v, k as GroupType]))
const ASSIGNMENT_METADATA: ReadonlyMap<number, GroupType> = new Map([
  [6, 'consumer'],
  [12, 'share'],
  [20, 'streams'],
])

export function currentEpoch(s: GroupState, type: GroupType): number | undefined {
  return type === 'classic' ? s.classic?.value?.generation : s[type]?.epoch
}

function currentHash(s: GroupState, type: GroupType): bigint | undefined {
  return type === 'classic' ? undefined : s[type]?.epoch === undefined ? undefined : s[type]!.metadataHash
}

export function epochOf(r: KnownRecord): number | undefined {
  if (r.value === null) return undefined
  return (r.type === RT.GroupMetadata ? r.value.generation : r.value.Epoch) as number
}

export class GroupReplay {
  readonly state: GroupState
  readonly timeline: EpochChange[] = []
  readonly skipped: SkippedRecord[] = []
  private pending: LoggedRecord[] = []
  private awaitingAssignment: EpochChange[] = []

  constructor(
    readonly groupId: string,
    private readonly options: ReplayOptions = {},
  ) {
    this.state = options.initialState ?? emptyGroupState(groupId)
  }

  /** Feeds the next record in log order; records of other groups are ignored. */
  push(r: LoggedRecord): void {
    if (r.record.groupId !== this.groupId) return
    const last = this.pending[this.pending.length - 1]
    if (last && !sameWrite(last, r)) this.flush()
    this.pending.push(r)
  }

  /** Applies the last buffered write; call at the end of the log (or before reading state). */
  finish(): ReplayResult {
    this.flush()
    return {state: this.state, timeline: this.timeline, skipped: this.skipped}
  }

  private flush(): void {
    const pending = this.pending
    if (pending.length === 0) return
    this.pending = []
    const writes = splitWrites(pending)
    for (const write of writes) this.flushWrite(write, writes.length > 1)
  }

  private flushWrite(write: LoggedRecord[], split: boolean): void {
    const bumps = write.filter(({record: r}) => {
      if (r.kind !== 'record' || !EPOCH_TYPES.has(r.type) || r.value === null) return false
      return epochOf(r) !== currentEpoch(this.state, EPOCH_TYPES.get(r.type)!)
    })
    const before = bumps.length ? snapshot(this.state) : undefined
    const streamsBefore = bumps.some(({record}) => EPOCH_TYPES.get(record.type) === 'streams') ? streamsBeforeWrite(this.state) : undefined
    const prior = bumps.map(({record}) => {
      const type = EPOCH_TYPES.get(record.type)!
      return {
        type,
        epoch: currentEpoch(this.state, type),
        hash: currentHash(this.state, type),
        zeroed: type === 'streams' ? (this.state.streams?.hashZeroedByFence ?? undefined) : undefined,
      }
    })
    for (const lr of write) this.apply(lr)
    if (!before) return this.matchAssignments(write)
    const fenceZero = noteFenceZero(this.state, streamsBefore)
    const after = snapshot(this.state)
    const info: WriteInfo = {
      firstOffset: write[0].offset,
      lastOffset: write[write.length - 1].offset,
      batchBaseOffset: write[0].batchBaseOffset,
      grouping: split ? 'split-within-batch' : write[0].batchBaseOffset === undefined ? 'timestamp-and-adjacent-offsets' : 'batch',
    }
    bumps.forEach((lr, i) => {
      const r = lr.record as KnownRecord
      const {type, epoch, hash, zeroed} = prior[i]
      const metadataHash = type === 'classic' ? undefined : ((r.value!.MetadataHash as bigint | undefined) ?? 0n)
      const diff = diffGroup(type, before, after, write)
      const entry: EpochChange = {
        groupType: type,
        previousEpoch: epoch,
        epoch: epochOf(r)!,
        previousMetadataHash: hash,
        metadataHash,
        ...(fenceZero && type === 'streams' ? {fenceStoredZeroHash: true as const} : {}),
        ...(zeroed && hash === 0n ? {zeroedByFence: zeroed} : {}),
        offset: lr.offset,
        timestamp: lr.timestamp,
        write: info,
        records: write,
        before: before,
        after,
        diff,
        ...(type === 'classic' ? {classicCommits: departedCommitTimes(before.classic?.value, after.classic?.value, this.state.offsets)} : {}),
      }
      this.timeline.push(entry)
      if (type !== 'classic') this.awaitingAssignment.push(entry)
    })
    this.matchAssignments(write)
  }

  private matchAssignments(write: readonly LoggedRecord[]): void {
    for (const lr of write) {
      const r = lr.record
      if (r.kind !== 'record' || r.value === null) continue
      const type = ASSIGNMENT_METADATA.get(r.type)
      if (!type) continue
      const assignmentEpoch = r.value.AssignmentEpoch as number
      this.awaitingAssignment = this.awaitingAssignment.filter(e => {
        if (e.groupType !== type || e.epoch > assignmentEpoch || e.offset > lr.offset) return true
        e.assignment = {assignmentEpoch, offset: lr.offset, timestamp: lr.timestamp}
        return false
      })
    }
  }

  private apply(lr: LoggedRecord): void {
    const r = lr.record
    if (r.kind === 'unknown') {
      this.skipped.push({offset: lr.offset, type: r.type, version: r.version, reason: r.reason})
    } else if (r.legacy && r.type !== RT.LegacyOffsetCommit && r.type !== RT.ShareGroupPartitionMetadata) {
      // Types 9 and 18: the coordinator skips them on load; type 0 offsets still count.
      this.skipped.push({offset: lr.offset, type: r.type, version: r.version, reason: 'legacy', note: r.legacy})
    } else {
      applyRecord(this.state, r, {offset: lr.offset, timestamp: lr.timestamp})
    }
    this.options.onRecord?.(lr, this.state)
  }
}

export function sameWrite(a: LoggedRecord, b: LoggedRecord): boolean {
  if (a.timestamp !== b.timestamp) return false
  if (a.batchBaseOffset !== undefined && b.batchBaseOffset !== undefined) return a.batchBaseOffset === b.batchBaseOffset
  return b.offset === a.offset + 1n
}

/**
 * Records that open a write: member metadata (upsert or tombstone), regex records, tombstones of
 * assignments (fencing), a classic tombstone (conversion), a topology. Target-assignment and
 * current-assignment upserts follow the epoch record in the same write (GroupMetadataManager).
 */
function opensWrite(r: DecodedRecord): boolean {
  if (r.kind !== 'record') return false
  switch (r.type) {
    case RT.GroupMetadata:
    case RT.ConsumerGroupMemberMetadata:
    case RT.ShareGroupMemberMetadata:
    case RT.ConsumerGroupRegularExpression:
    case RT.StreamsGroupMemberMetadata:
    case RT.StreamsGroupTopology:
      return true
    case RT.ConsumerGroupTargetAssignmentMember:
    case RT.ConsumerGroupCurrentMemberAssignment:
    case RT.ShareGroupTargetAssignmentMember:
    case RT.ShareGroupCurrentMemberAssignment:
    case RT.StreamsGroupTargetAssignmentMember:
    case RT.StreamsGroupCurrentMemberAssignment:
      return r.value === null
    default:
      return false
  }
}

/** The epoch records (group metadata upserts, any type) among `records`; splitWrites splits only at two or more. */
export function epochRecordCount(records: readonly LoggedRecord[]): number {
  let n = 0
  for (const {record: r} of records) if (r.kind === 'record' && r.value !== null && EPOCH_TYPES.has(r.type)) n++
  return n
}

/** Splits records of one batch and millisecond into writes, so that each write has at most one epoch change per group type. */
export function splitWrites(records: LoggedRecord[]): LoggedRecord[][] {
  if (epochRecordCount(records) < 2) return [records]
  const out: LoggedRecord[][] = [[]]
  let afterEpoch = false
  for (const lr of records) {
    const r = lr.record
    const isEpoch = r.kind === 'record' && EPOCH_TYPES.has(r.type) && r.value !== null
    if (afterEpoch && (isEpoch || opensWrite(r))) {
      out.push([])
      afterEpoch = false
    }
    out[out.length - 1].push(lr)
    if (isEpoch) afterEpoch = true
  }
  return out
}

/** Replays `records` (any order-preserving iterable, e.g. a partition read) for one group. */
export function replayGroup(groupId: string, records: Iterable<LoggedRecord>, options?: ReplayOptions): ReplayResult {
  const replay = new GroupReplay(groupId, options)
  for (const r of records) replay.push(r)
  return replay.finish()
}

/**
 * Every group of a `__consumer_offsets` partition in one pass (audit): records are routed to one
 * GroupReplay per group id. Options apply to each group.
 */
export class PartitionReplay {
  readonly groups = new Map<string, GroupReplay>()

  constructor(private readonly options: ReplayOptions = {}) {}

  push(r: LoggedRecord): void {
    const groupId = r.record.groupId
    if (groupId === undefined) return
    let g = this.groups.get(groupId)
    if (!g) this.groups.set(groupId, (g = new GroupReplay(groupId, this.options)))
    g.push(r)
  }

  finish(): Map<string, ReplayResult> {
    return new Map([...this.groups].map(([id, g]) => [id, g.finish()]))
  }
}

/**
 * Every topic the group subscribed to at any epoch of the replay and now: the topics an attribution walks back
 * through (live metadata, the audit history and the metadata log are read for these).
 */
export function topicsEverUsed(replay: Pick<ReplayResult, 'state' | 'timeline'>): Set<string> {
  const topics = new Set<string>()
  for (const e of replay.timeline)
    if (e.groupType !== 'classic') for (const s of [e.before, e.after]) for (const t of subscribedTopicsOf(e.groupType, s)) topics.add(t)
  for (const type of ['consumer', 'share', 'streams'] as const) if (replay.state[type]) for (const t of subscribedTopicsOf(type, replay.state)) topics.add(t)
  for (const t of classicTopicsOf(replay.state.classic?.value ?? null)) topics.add(t)
  return topics
}

/**
 * A classic group's topics now: what its consumer-protocol members subscribe to and are assigned (decoded by the
 * record codec; other protocol types have none), so that explain names them with live topic ids.
 */
export function classicTopicsOf(v: V.GroupMetadataValue | null): Set<string> {
  const out = new Set<string>()
  for (const m of v?.members ?? []) {
    const s = m.subscriptionDecoded as {ok?: boolean; value?: {Topics?: readonly string[]}} | undefined
    const a = m.assignmentDecoded as {ok?: boolean; value?: {AssignedPartitions?: readonly {Topic: string}[]}} | undefined
    if (s?.ok) for (const t of s.value?.Topics ?? []) out.add(t)
    if (a?.ok) for (const tp of a.value?.AssignedPartitions ?? []) out.add(tp.Topic)
  }
  return out
}
