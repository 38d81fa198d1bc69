/**
 * The cost of every epoch bump of one group, from its records in log order. Feed it the same LoggedRecords as the
 * replay (`replayGroup(id, records, {onRecord: r => tracker.push(r)})`, or a fold of its own), then `finish()`.
 * Pure; keeps per member only its current holdings and per bump only its moves (see modern.ts).
 */
import type {ClusterMetadata} from '../metadata.js'
import {type KnownRecord, RECORD_TYPE as RT} from '../records/index.js'
import type {GroupSnapshot, LoggedRecord} from '../replay/index.js'
import {isoTime} from '../time.js'
import {uuidToString} from '../uuid.js'
import {type ClassicDraft, ClassicCostFold, type ClassicFoldState, classicProtocol} from './classic.js'
import {type BumpDraft, type Candidate, ModernCostFold, type ModernFoldState, type ModernType, type MoveDraft, modernRole, type PendingDraft} from './modern.js'
import {BumpSums} from './sums.js'
import {
  CANNOT_TELL,
  type BumpBrief,
  type Convergence,
  type MemberRef,
  type MovedUnit,
  type PendingMember,
  type RebalanceCost,
  type SlowestMember,
  type UnitRef,
} from './types.js'
import {unitRef} from './units.js'

export interface CostOptions {
  /** Topic id → name (e.g. topicNamesOf(live metadata)); without it, topics are shown by id. */
  readonly topicNames?: ReadonlyMap<string, string>
}

/** A member and the units (partitions, tasks) it holds. */
export interface MemberHolding {
  readonly member: MemberRef
  readonly units: readonly UnitRef[]
}

export interface FinishOptions {
  /** What "now" is for what is still pending or without an owner: default, the group's last record. */
  readonly asOfMs?: number
  /** Topic id → name, when the live metadata was read after the records. */
  readonly topicNames?: ReadonlyMap<string, string>
}

const GROUP_METADATA = RT.GroupMetadata

/** Record types per group type and role (modern.ts's table, the other way round). */
const SEED_TYPES = {
  consumer: {
    epoch: RT.ConsumerGroupMetadata,
    member: RT.ConsumerGroupMemberMetadata,
    target: RT.ConsumerGroupTargetAssignmentMetadata,
    current: RT.ConsumerGroupCurrentMemberAssignment,
  },
  share: {
    epoch: RT.ShareGroupMetadata,
    member: RT.ShareGroupMemberMetadata,
    target: RT.ShareGroupTargetAssignmentMetadata,
    current: RT.ShareGroupCurrentMemberAssignment,
  },
  streams: {
    epoch: RT.StreamsGroupMetadata,
    member: RT.StreamsGroupMemberMetadata,
    target: RT.StreamsGroupTargetAssignmentMetadata,
    current: RT.StreamsGroupCurrentMemberAssignment,
  },
} as const

/** A record as the state holds its value, before every record read (offset -1). */
function seedRecord(groupId: string, type: number, value: Record<string, unknown>, timestamp: number, memberId?: string): LoggedRecord {
  const key = memberId === undefined ? {GroupId: groupId} : {GroupId: groupId, MemberId: memberId}
  const record = {kind: 'record', offset: -1n, type, name: '', group: 'consumer', groupId, key, version: 0, value} as unknown as KnownRecord
  return {offset: -1n, timestamp, batchBaseOffset: -1n, record}
}

/** Pending partitions listed per member (the count is always whole). */
const UNITS_LISTED = 10

export {BumpSums}

/** A tracker's state between two reads (save/restore): what figures() needs, bounded (see DoneBumps). */
export interface CostState {
  readonly v: 1
  readonly windowMs: number
  readonly lastMs: number
  readonly modern: readonly ModernFoldState[]
  readonly classic: ClassicFoldState | null
}

export function topicNamesOf(md: ClusterMetadata): Map<string, string> {
  return new Map(md.topics.map(t => [uuidToString(t.topicId), t.name]))
}

export class CostTracker {
  private readonly modern = new Map<ModernType, ModernCostFold>()
  private classic: ClassicCostFold | undefined
  private lastMs = 0
  /** Saved or restored: its early bumps are sums only, so only figures() answers (with the window saved). */
  private compactedFor: number | undefined

  /** Topic id → name for the units named (the options', or those given to finish). */
  private names: ReadonlyMap<string, string> | undefined

  constructor(
    readonly groupId: string,
    options: CostOptions = {},
  ) {
    this.names = options.topicNames
  }

  /**
   * Only figures() (and save()) will be asked of this tracker, not finish(): its folds keep the bumps that can change
   * no more as sums as they go (ModernCostFold.keepFiguresOnly), so a group costs less than its bumps' moves.
   */
  keepFiguresOnly(): this {
    this.compactedFor = Number.POSITIVE_INFINITY
    for (const fold of this.modern.values()) fold.keepFiguresOnly()
    return this
  }

  /** The next record in log order (other groups' records are ignored). */
  push(lr: LoggedRecord): void {
    const r = lr.record
    // offset commits are most of a partition: the type is looked at first
    if (r.kind !== 'record' || (r.type !== GROUP_METADATA && !modernRole(r.type)) || r.groupId !== this.groupId) return
    if (r.type === GROUP_METADATA) {
      this.lastMs = lr.timestamp
      return (this.classic ??= new ClassicCostFold()).push(lr)
    }
    const role = modernRole(r.type)!
    this.lastMs = lr.timestamp
    let fold = this.modern.get(role.type)
    if (!fold) {
      this.modern.set(role.type, (fold = new ModernCostFold(role.type)))
      if (this.compactedFor === Number.POSITIVE_INFINITY) fold.keepFiguresOnly()
    }
    fold.push(lr, role.role)
  }

  /** The timestamp of the group's last record pushed (0: none). */
  get lastRecordMs(): number {
    return this.lastMs
  }

  /**
   * Starts from a group's state rather than its first record (a watch reads only the records after its last read):
   * the members, their current assignments and the epochs the state holds, as records before any read (offset -1)
   * at the times of their last records; the bump they make is not one of the costs. What was under way before is
   * not known: a partition released before and owned after is a move from nobody with no time measured, and a
   * revocation under way counts from its member's last current-assignment record (the one that set it pending).
   */
  seed(state: GroupSnapshot): void {
    for (const type of ['consumer', 'share', 'streams'] as const) {
      const g = state[type]
      if (g?.epoch === undefined) continue
      const rt = SEED_TYPES[type]
      const records: Array<[number, Record<string, unknown>, number, string?]> = []
      for (const [id, m] of g.members) records.push([rt.member, m as never, g.memberWrites.get(id)?.metadata?.timestamp ?? 0, id])
      records.push([rt.epoch, {Epoch: g.epoch}, g.epochAt?.timestamp ?? 0])
      if (g.targetAssignmentEpoch !== undefined) records.push([rt.target, {AssignmentEpoch: g.targetAssignmentEpoch}, g.targetAssignmentAt?.timestamp ?? 0])
      for (const [id, c] of g.currentAssignment) records.push([rt.current, c as never, g.memberWrites.get(id)?.currentAssignment?.timestamp ?? 0, id])
      for (const [recordType, value, timestamp, memberId] of records) this.push(seedRecord(this.groupId, recordType, value, timestamp, memberId))
      this.modern.get(type)?.drafts.splice(0)
    }
    const classic = state.classic?.value
    if (classic) {
      this.push(seedRecord(this.groupId, GROUP_METADATA, classic as never, 0))
      this.classic?.drafts.splice(0)
    }
  }

  /** Every bump's cost, in log order. Can be called again after more records. */
  finish(opts: FinishOptions = {}): RebalanceCost[] {
    if (this.compactedFor !== undefined) throw new Error('unreachable: a saved cost tracker keeps only the figures')
    const asOfMs = opts.asOfMs ?? this.lastMs
    // (topic names come from the live metadata, often read after the records)
    if (opts.topicNames) this.names = opts.topicNames
    const out: RebalanceCost[] = []
    for (const fold of this.modern.values()) {
      const end = fold.finish(asOfMs)
      for (const d of fold.drafts) out.push(this.modernCost(fold.type, d, end.pending, asOfMs))
    }
    for (const d of this.classic?.drafts ?? []) out.push(this.classicCost(d))
    return out.sort((a, b) => (BigInt(a.offset) < BigInt(b.offset) ? -1 : 1))
  }

  private classicCost(d: ClassicDraft): RebalanceCost {
    const moved: MovedUnit[] = d.moves.map(m => ({...unitRef(m.unit, undefined, true), ...NO_TIMES, from: m.from, to: m.to}))
    return {
      ...head(this.groupId, 'classic', d.epoch, d.previousEpoch, d.offset, d.timestamp),
      moved,
      movedCount: moved.length,
      unownedPartitionMs: 0,
      convergence: {status: 'not-measured', reason: 'classic-group'},
      slowest: null,
      protocol: classicProtocol(d.assignor),
      assignor: d.assignor,
      cannotTell: [CANNOT_TELL.classic, CANNOT_TELL.clock],
    }
  }

  /**
   * What figures(windowMs) needs to go on after the records pushed (at a batch boundary): the bumps that can still
   * change whole, the others as sums. The tracker keeps only that from now on (finish() is not available).
   */
  save(windowMs: number): CostState {
    this.compactedFor = windowMs
    return {
      v: 1,
      windowMs,
      lastMs: this.lastMs,
      modern: [...this.modern.values()].map(f => f.save(windowMs)),
      classic: this.classic?.save(windowMs) ?? null,
    }
  }

  /** A tracker going on from save()'s state; undefined when `state` is not one (of another version, damaged). */
  static restore(groupId: string, state: unknown): CostTracker | undefined {
    const s = state as CostState | undefined
    if (!s || typeof s !== 'object' || s.v !== 1 || !Array.isArray(s.modern) || typeof s.lastMs !== 'number' || typeof s.windowMs !== 'number') return undefined
    try {
      const t = new CostTracker(groupId)
      t.compactedFor = s.windowMs
      t.lastMs = s.lastMs
      for (const m of s.modern) t.modern.set(m.type, ModernCostFold.restore(m))
      if (s.classic) t.classic = ClassicCostFold.restore(s.classic)
      return t
    } catch {
      return undefined
    }
  }

  /** What each member holds after the records read (partitions, tasks), as units: where the lanes of a picture end. */
  holdings(): MemberHolding[] {
    const of = (hs: ReturnType<ClassicCostFold['holdings']>, named: boolean) =>
      hs.map(h => ({member: h.member, units: h.units.map(u => unitRef(u, this.names, named))}))
    return [...[...this.modern.values()].flatMap(f => of(f.holdings(), false)), ...of(this.classic?.holdings() ?? [], true)]
  }

  /**
   * What the audit needs: the whole cost of the last bump only, and sums over every bump and over those written in
   * the `windowMs` up to the last one, without building every bump's cost (the sums equal costTotals' over finish()).
   */
  figures(windowMs: number, opts: FinishOptions = {}): {last: BumpBrief | null; total: BumpSums; window: BumpSums | null} {
    if (this.compactedFor !== undefined && windowMs > this.compactedFor) throw new Error(`unreachable: saved for a window of ${this.compactedFor} ms`)
    const asOfMs = opts.asOfMs ?? this.lastMs
    const total = new BumpSums()
    const window = new BumpSums()
    let last: {offset: bigint; atMs: number; make: () => BumpBrief} | undefined
    const later = (offset: bigint) => last === undefined || offset > last.offset
    for (const fold of this.modern.values()) {
      const d = fold.drafts.at(-1)
      if (d && later(d.at.offset)) last = {offset: d.at.offset, atMs: d.at.timestamp, make: () => modernBrief(fold, d, asOfMs)}
    }
    const c = this.classic?.drafts.at(-1)
    if (c && later(c.offset)) last = {offset: c.offset, atMs: c.timestamp, make: () => classicBrief(c)}
    if (!last) return {last: null, total, window}
    const fromMs = last.atMs - windowMs
    let exact = true
    for (const fold of this.modern.values()) {
      exact = fold.done.addTo(total, window, fromMs) && exact
      for (const d of fold.drafts) {
        const [atMs, moved, unownedMs, status, afterMs] = fold.brief(d, asOfMs)
        total.add(moved, unownedMs, status, afterMs)
        if (atMs >= fromMs) window.add(moved, unownedMs, status, afterMs)
      }
    }
    if (this.classic) {
      exact = this.classic.done.addTo(total, window, fromMs) && exact
      for (const d of this.classic.drafts) {
        total.add(d.moves.length, 0, 'not-measured', 0)
        if (d.timestamp >= fromMs) window.add(d.moves.length, 0, 'not-measured', 0)
      }
    }
    // (a bump kept as sums only, written within the window by a clock set back: the window is not known)
    return {last: last.make(), total, window: exact ? window : null}
  }

  private modernCost(type: ModernType, d: BumpDraft, pendingNow: readonly PendingDraft[], asOfMs: number): RebalanceCost {
    const moved = d.moves.map(m => this.moved(m, asOfMs))
    const convergence: Convergence = type === 'share' ? {status: 'not-measured', reason: 'share-group'} : this.convergence(d, pendingNow, asOfMs)
    const cannotTell: string[] = type === 'share' ? [CANNOT_TELL.share, CANNOT_TELL.clock] : [CANNOT_TELL.clock, CANNOT_TELL.revocation, CANNOT_TELL.heartbeat]
    if (type === 'streams') cannotTell.push(CANNOT_TELL.standby)
    return {
      ...head(this.groupId, type, d.epoch, d.previousEpoch, d.at.offset, d.at.timestamp),
      moved,
      movedCount: moved.length,
      unownedPartitionMs: moved.reduce((sum, m) => sum + (m.unownedMs ?? 0), 0),
      convergence,
      slowest: d.slowest ? this.slowest(d.slowest) : null,
      protocol: null,
      assignor: null,
      cannotTell,
    }
  }

  private moved(m: MoveDraft, asOfMs: number): MovedUnit {
    const r = m.released
    const o = m.owned
    const u = unitRef(m.unit, this.names)
    return {
      kind: u.kind,
      topicId: u.topicId,
      topic: u.topic,
      subtopologyId: u.subtopologyId,
      partition: u.partition,
      from: m.from,
      to: m.to,
      releasedBy: m.releasedBy,
      releasedAt: r ? isoTime(r.timestamp) : null,
      releasedAtMs: r ? r.timestamp : null,
      releasedOffset: r ? r.offset.toString() : null,
      ownedAt: o ? isoTime(o.timestamp) : null,
      ownedAtMs: o ? o.timestamp : null,
      ownedOffset: o ? o.offset.toString() : null,
      unownedMs: !m.gap || !r ? null : (o?.timestamp ?? asOfMs) - r.timestamp,
      open: m.gap && r !== undefined && o === undefined,
    }
  }

  private convergence(d: BumpDraft, pendingNow: readonly PendingDraft[], asOfMs: number): Convergence {
    const end = d.end
    if (!end) return {status: 'not-converged', asOf: isoTime(asOfMs), asOfMs, afterMs: asOfMs - d.at.timestamp, pending: pendingNow.map(p => this.pending(p))}
    if (end.kind === 'converged')
      return {
        status: 'converged',
        at: isoTime(end.at.timestamp),
        atMs: end.at.timestamp,
        offset: end.at.offset.toString(),
        afterMs: end.at.timestamp - d.at.timestamp,
      }
    const s = d.settled
    return {
      status: 'superseded',
      byEpoch: end.byEpoch,
      at: isoTime(end.at.timestamp),
      atMs: end.at.timestamp,
      afterMs: end.at.timestamp - d.at.timestamp,
      pending: end.pending.map(p => this.pending(p)),
      settled: s ? {at: isoTime(s.timestamp), atMs: s.timestamp, offset: s.offset.toString(), afterMs: s.timestamp - d.at.timestamp} : null,
    }
  }

  private pending(p: PendingDraft): PendingMember {
    return {
      member: p.member,
      memberEpoch: p.memberEpoch,
      state: p.state,
      pendingRevocation: p.pending.length,
      pendingUnits: p.pending.slice(0, UNITS_LISTED).map(u => unitRef(u, this.names)),
      since: isoTime(p.sinceMs),
      sinceMs: p.sinceMs,
    }
  }

  private slowest(c: Candidate): SlowestMember {
    return {
      member: c.member,
      doing: c.doing,
      ms: c.toMs - c.fromMs,
      fromMs: c.fromMs,
      toMs: c.toMs,
      ongoing: c.ongoing,
      removed: c.removed,
      units: c.units.length,
      unitRefs: c.units.slice(0, UNITS_LISTED).map(u => unitRef(u, this.names)),
    }
  }
}

const NO_TIMES = {
  releasedBy: null,
  releasedAt: null,
  releasedAtMs: null,
  releasedOffset: null,
  ownedAt: null,
  ownedAtMs: null,
  ownedOffset: null,
  unownedMs: null,
  open: false,
} as const

function head(groupId: string, groupType: RebalanceCost['groupType'], epoch: number, previousEpoch: number | null, offset: bigint, ms: number) {
  return {groupId, groupType, epoch, previousEpoch, offset: offset.toString(), at: isoTime(ms), atMs: ms}
}

/** modernCost's figures for the last bump `d` of `fold` (its slowest member and what is pending, as of `asOfMs`), without its lists. */
function modernBrief(fold: ModernCostFold, d: BumpDraft, asOfMs: number): BumpBrief {
  // (finish sets the slowest member of a bump not converged yet)
  const pendingNow = fold.finish(asOfMs).pending
  const [, moved, unownedMs, status] = fold.brief(d, asOfMs)
  let open = 0
  for (const m of d.moves) if (m.gap && m.released && !m.owned) open++
  const end = d.end
  const s = d.slowest
  return {
    epoch: d.epoch,
    previousEpoch: d.previousEpoch,
    at: isoTime(d.at.timestamp),
    atMs: d.at.timestamp,
    offset: d.at.offset.toString(),
    status,
    afterMs: status === 'not-measured' ? null : (end ? end.at.timestamp : asOfMs) - d.at.timestamp,
    asOf: status === 'not-converged' ? isoTime(asOfMs) : null,
    membersPending: status === 'not-converged' ? pendingNow.length : end?.kind === 'superseded' && status === 'superseded' ? end.pending.length : 0,
    partitionsMoved: moved,
    unownedPartitionMs: unownedMs,
    partitionsWithoutOwner: open,
    slowest: s ? {member: s.member, doing: s.doing, ms: s.toMs - s.fromMs, ongoing: s.ongoing} : null,
  }
}

function classicBrief(d: ClassicDraft): BumpBrief {
  const at = head('', 'classic', d.epoch, d.previousEpoch, d.offset, d.timestamp)
  const b = {epoch: d.epoch, previousEpoch: d.previousEpoch, at: at.at, atMs: at.atMs, offset: at.offset, status: 'not-measured' as const}
  return {...b, afterMs: null, asOf: null, membersPending: 0, partitionsMoved: d.moves.length, unownedPartitionMs: 0, partitionsWithoutOwner: 0, slowest: null}
}

/** The costs of `groupId`'s bumps over `records` (a fold of its own; use CostTracker to ride along a replay). */
export function rebalanceCosts(groupId: string, records: Iterable<LoggedRecord>, options: CostOptions & FinishOptions = {}): RebalanceCost[] {
  const t = new CostTracker(groupId, options)
  for (const r of records) t.push(r)
  return t.finish(options)
}
