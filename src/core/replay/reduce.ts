/**
 * A group's records reduced to what `audit` needs, as they are read: the coordinator state, the skipped records
 * and the last few epoch bumps, each kept as four numbers plus the evidence explain's hypothesis search reads
 * from it (topic ids in the bump's write, members' racks before and after it). GroupReplay keeps two snapshots,
 * a diff and the records of every bump; this keeps none of them, so a group costs its live state and no more.
 * The write grouping and bump detection are GroupReplay's (same functions), so audit results are the same as
 * from a full replay whose timeline is trimmed to the same number of bumps (test/unit/audit/reduce.test.ts).
 */
import {noteFenceZero, streamsBeforeWrite} from './fence-zero.js'
import {currentEpoch, EPOCH_TYPES, epochOf, epochRecordCount, type LoggedRecord, sameWrite, type SkippedRecord, splitWrites} from './replay.js'
import {applyRecord, emptyGroupState, type GroupState, type GroupType} from './state.js'

/** One epoch bump, without its snapshots (what "since when" questions need). */
export interface EpochMark {
  readonly groupType: GroupType
  readonly epoch: number
  readonly offset: bigint
  readonly timestamp: number
}

export interface KeptMark extends EpochMark {
  readonly topicIds: readonly string[]
  readonly racks: readonly string[]
}

/** What audit reads of a group: its state, skipped records, and its last bumps with their evidence. */
export interface GroupSummary {
  readonly state: GroupState
  readonly skipped: readonly SkippedRecord[]
  /** The last bumps of any type, oldest first (at most the reducer's `keep`). */
  readonly recent: readonly EpochMark[]
  /** Topic ids in the records written with those bumps (ids of deleted topics show up here). */
  readonly topicIds: ReadonlySet<string>
  /** Members' rack ids before and after those bumps (racks no broker has today). */
  readonly racks: ReadonlySet<string>
}

/** Adds every string TopicId found in a decoded value (any depth) to `into`. */
export function collectTopicIds(v: unknown, into: Set<string>): void {
  if (v === null || typeof v !== 'object') return
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) collectTopicIds(v[i], into)
  } else if (!(v instanceof Uint8Array)) {
    // a for-in over a decoded value (a plain object: own enumerable keys only, in Object.entries' order) allocates
    // no entry arrays; primitives are stepped over before the call
    const o = v as Record<string, unknown>
    for (const k in o) {
      const x = o[k]
      if (k === 'TopicId' && typeof x === 'string') into.add(x)
      else if (x !== null && typeof x === 'object') collectTopicIds(x, into)
    }
  }
}

const MODERN_TYPES = ['consumer', 'share', 'streams'] as const

function memberRacks(s: GroupState, into: Set<string>): void {
  for (const type of MODERN_TYPES) {
    const members = s[type]?.members as ReadonlyMap<string, {RackId?: string | null}> | undefined
    if (members) for (const m of members.values()) if (m.RackId) into.add(m.RackId)
  }
}

/** Sets a bump's evidence is collected in (emptied for each bump; a reducer never re-enters another's flush). */
const scratchRacks = new Set<string>()
const scratchTopicIds = new Set<string>()

/** The list holds the set's items in the set's order. */
function sameItems(list: readonly string[], set: ReadonlySet<string>): boolean {
  if (list.length !== set.size) return false
  let i = 0
  for (const x of set) if (list[i++] !== x) return false
  return true
}

/** A reducer's whole state between writes (an incremental audit's checkpoint keeps it). */
export interface ReducerData {
  readonly state: GroupState
  readonly skipped: readonly SkippedRecord[]
  readonly recent: readonly KeptMark[]
}

export class GroupReducer {
  readonly state: GroupState
  readonly skipped: SkippedRecord[] = []
  private readonly recent: KeptMark[] = []
  private pending: LoggedRecord[] = []

  constructor(
    readonly groupId: string,
    private readonly keep = 3,
    from?: ReducerData,
  ) {
    this.state = from?.state ?? emptyGroupState(groupId)
    if (from) {
      this.skipped.push(...from.skipped)
      this.recent.push(...from.recent)
    }
  }

  /** Everything needed to continue later (after the last complete write: call at a batch boundary). */
  data(): ReducerData {
    this.flush()
    return {state: this.state, skipped: this.skipped, recent: this.recent}
  }

  /** Feeds the next record of this group in log order. */
  push(r: LoggedRecord): void {
    const last = this.pending[this.pending.length - 1]
    if (last && !sameWrite(last, r)) this.flush()
    this.pending.push(r)
  }

  /**
   * The write being fed is complete (its batch ended: a coordinator write is one batch, so the next record
   * cannot be part of it). Applying it now, not at the next record, keeps its decoded records short-lived.
   */
  endWrite(): void {
    this.flush()
  }

  finish(): GroupSummary {
    this.flush()
    const topicIds = new Set<string>()
    const racks = new Set<string>()
    for (const m of this.recent) {
      for (const id of m.topicIds) topicIds.add(id)
      for (const r of m.racks) racks.add(r)
    }
    return {
      state: this.state,
      skipped: this.skipped,
      recent: this.recent.map(({groupType, epoch, offset, timestamp}) => ({groupType, epoch, offset, timestamp})),
      topicIds,
      racks,
    }
  }

  private flush(): void {
    const pending = this.pending
    if (pending.length === 0) return
    this.pending = []
    // most writes hold at most one epoch record: no split to make (splitWrites would return [pending])
    if (epochRecordCount(pending) < 2) this.flushWrite(pending)
    else for (const write of splitWrites(pending)) this.flushWrite(write)
  }

  private flushWrite(write: LoggedRecord[]): void {
    // the bumps of the write, found before it is applied; a write without one (most) allocates nothing here
    let bumps: LoggedRecord[] | undefined
    for (const lr of write) {
      const r = lr.record
      if (r.kind !== 'record' || r.value === null) continue
      const type = EPOCH_TYPES.get(r.type)
      if (type !== undefined && epochOf(r) !== currentEpoch(this.state, type)) (bumps ??= []).push(lr)
    }
    if (bumps === undefined) {
      for (const lr of write) this.apply(lr)
      return
    }
    const racks = scratchRacks
    racks.clear()
    memberRacks(this.state, racks)
    const streamsBefore = bumps.some(({record}) => EPOCH_TYPES.get(record.type) === 'streams') ? streamsBeforeWrite(this.state) : undefined
    for (const lr of write) this.apply(lr)
    noteFenceZero(this.state, streamsBefore)
    memberRacks(this.state, racks)
    const topicIds = scratchTopicIds
    topicIds.clear()
    for (const {record: r} of write) if (r.kind === 'record' && r.value) collectTopicIds(r.value, topicIds)
    // most bumps name the topics and racks of the bump before: its lists are kept, not copies
    const last = this.recent[this.recent.length - 1]
    const ids = last && sameItems(last.topicIds, topicIds) ? last.topicIds : [...topicIds]
    const rackList = last && sameItems(last.racks, racks) ? last.racks : [...racks]
    for (const {record, offset, timestamp} of bumps) {
      if (record.kind !== 'record') continue
      this.recent.push({groupType: EPOCH_TYPES.get(record.type)!, epoch: epochOf(record)!, offset, timestamp, topicIds: ids, racks: rackList})
    }
    if (this.recent.length > this.keep) this.recent.splice(0, this.recent.length - this.keep)
  }

  private apply(lr: LoggedRecord): void {
    const r = lr.record
    if (r.kind === 'unknown') this.skipped.push({offset: lr.offset, type: r.type, version: r.version, reason: r.reason})
    // type 18: the coordinator skips it on load (as GroupReplay does); type 9 is a 4.0 share group's subscription
    // metadata, which a 4.0 coordinator reads (4.1+ skips it)
    else if (r.legacy && r.type !== 0 && r.type !== 9)
      this.skipped.push({offset: lr.offset, type: r.type, version: r.version, reason: 'legacy', note: r.legacy})
    else applyRecord(this.state, r, {offset: lr.offset, timestamp: lr.timestamp})
  }
}
