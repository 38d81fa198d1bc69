/**
 * Replays one group's records in log order into its coordinator state and an epoch timeline.
 * Records of one coordinator write (a CoordinatorResult) share a record batch, so the unit of
 * replay is the write: the state is snapshotted before and after any write that changes a group
 * epoch (or a classic generation), and the records of that write travel with the timeline entry.
 * Pure: the network reader feeds records in; nothing here does I/O.
 */
import {GROUP_METADATA_TYPES, type DecodedRecord, type KnownRecord} from '../records/index.js'
import {diffGroup, type GroupDiff} from './diff.js'
import {applyRecord, emptyGroupState, snapshot, type GroupSnapshot, type GroupState, type GroupType} from './state.js'

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
  /** How records were grouped into the write: by batch, or (no batch info) same timestamp and adjacent offsets. */
  readonly grouping: 'batch' | 'timestamp-and-adjacent-offsets'
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
  /** The target assignment that first covered this epoch (4.3+ may compute it in a later write). */
  assignment?: {readonly assignmentEpoch: number; readonly offset: bigint; readonly timestamp: number}
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
}

export interface ReplayResult {
  readonly state: GroupState
  readonly timeline: readonly EpochChange[]
  readonly skipped: readonly SkippedRecord[]
}

const EPOCH_TYPES: ReadonlyMap<number, GroupType> = new Map(Object.entries(GROUP_METADATA_TYPES).map(([k, v]) => [v, k as GroupType]))
const ASSIGNMENT_METADATA: ReadonlyMap<number, GroupType> = new Map([[6, 'consumer'], [12, 'share'], [20, 'streams']])

function currentEpoch(s: GroupState, type: GroupType): number | undefined {
  return type === 'classic' ? s.classic?.value?.generation : s[type]?.epoch
}

function currentHash(s: GroupState, type: GroupType): bigint | undefined {
  return type === 'classic' ? undefined : s[type]?.epoch === undefined ? undefined : s[type]!.metadataHash
}

function epochOf(r: KnownRecord): number | undefined {
  if (r.value === null) return undefined
  return (r.type === 2 ? r.value.generation : r.value.Epoch) as number
}

export class GroupReplay {
  readonly state: GroupState
  readonly timeline: EpochChange[] = []
  readonly skipped: SkippedRecord[] = []
  private pending: LoggedRecord[] = []
  private awaitingAssignment: EpochChange[] = []

  constructor(readonly groupId: string, private readonly options: ReplayOptions = {}) {
    this.state = emptyGroupState(groupId)
  }

  /** Feeds the next record in log order; records of other groups are ignored. */
  push(r: LoggedRecord): void {
    const groupId = r.record.kind === 'record' ? r.record.groupId : r.record.groupId
    if (groupId !== this.groupId) return
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
    const write = this.pending
    if (write.length === 0) return
    this.pending = []
    const bumps = write.filter(({record: r}) => {
      if (r.kind !== 'record' || !EPOCH_TYPES.has(r.type) || r.value === null) return false
      return epochOf(r) !== currentEpoch(this.state, EPOCH_TYPES.get(r.type)!)
    })
    const before = bumps.length ? snapshot(this.state) : undefined
    const prior = bumps.map(({record}) => {
      const type = EPOCH_TYPES.get(record.type)!
      return {type, epoch: currentEpoch(this.state, type), hash: currentHash(this.state, type)}
    })
    for (const lr of write) this.apply(lr)
    if (!before) return this.matchAssignments(write)
    const after = snapshot(this.state)
    const info: WriteInfo = {
      firstOffset: write[0].offset,
      lastOffset: write[write.length - 1].offset,
      batchBaseOffset: write[0].batchBaseOffset,
      grouping: write[0].batchBaseOffset === undefined ? 'timestamp-and-adjacent-offsets' : 'batch',
    }
    bumps.forEach((lr, i) => {
      const r = lr.record as KnownRecord
      const {type, epoch, hash} = prior[i]
      const entry: EpochChange = {
        groupType: type,
        previousEpoch: epoch,
        epoch: epochOf(r)!,
        previousMetadataHash: hash,
        metadataHash: type === 'classic' ? undefined : (r.value!.MetadataHash as bigint | undefined) ?? 0n,
        offset: lr.offset,
        timestamp: lr.timestamp,
        write: info,
        records: write,
        before: before,
        after,
        diff: diffGroup(type, before, after, write),
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
      this.awaitingAssignment = this.awaitingAssignment.filter((e) => {
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
    } else if (r.legacy && r.type !== 0) {
      // Types 9 and 18: the coordinator skips them on load; type 0 offsets still count.
      this.skipped.push({offset: lr.offset, type: r.type, version: r.version, reason: 'legacy', note: r.legacy})
    } else {
      applyRecord(this.state, r, lr.offset)
    }
    this.options.onRecord?.(lr, this.state)
  }
}

function sameWrite(a: LoggedRecord, b: LoggedRecord): boolean {
  if (a.batchBaseOffset !== undefined && b.batchBaseOffset !== undefined) return a.batchBaseOffset === b.batchBaseOffset
  return a.timestamp === b.timestamp && b.offset === a.offset + 1n
}

/** Replays `records` (any order-preserving iterable, e.g. a partition read) for one group. */
export function replayGroup(groupId: string, records: Iterable<LoggedRecord>, options?: ReplayOptions): ReplayResult {
  const replay = new GroupReplay(groupId, options)
  for (const r of records) replay.push(r)
  return replay.finish()
}
