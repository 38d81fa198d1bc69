/**
 * The cost of each bump of a consumer, streams or share group, folded over its records in log order.
 *
 * Ownership: a member holds a partition (streams: an active task) from the current-assignment record that lists it,
 * assigned or pending revocation, to the record without it (revocation acknowledged) or its current-assignment
 * tombstone (left or fenced). The coordinator gives a partition to its new owner only once the old one released it
 * (UNRELEASED_PARTITIONS until then), so the time between the release and the new owner's record is the time it had
 * no owner; a move is attributed to the bump in whose window the partition was released.
 *
 * Convergence: the first record after which the target assignment covers the bump's epoch and every member is at
 * that assignment epoch, STABLE, with nothing pending revocation. A bump overtaken by the next one before that is
 * `superseded`: measured to the next bump (what was pending then is listed), and `settled` gives the group's next
 * convergence, whichever bump it reached (so the two figures answer "was this bump ever finished" and "how long
 * until the group was quiet again").
 *
 * Memory: per member its held sets (what the current assignment holds anyway), per unit its holder, the gaps still
 * open, and per bump its moves (the output). No record is kept.
 */
import type {LoggedRecord} from '../replay/index.js'
import type {MemberRef, PendingMember} from './types.js'
import {consumerUnits, type HeldUnits, sameUnits, shareUnits, stateOf, streamsUnits, UnitKeys} from './units.js'
import {type BumpTuple, DoneBumps, type DoneState} from './sums.js'

export type ModernType = 'consumer' | 'share' | 'streams'

/** Where a record is: the LoggedRecord itself while it is pushed (no copy per record), copied by `keep` when stored. */
export interface At {
  readonly offset: bigint
  readonly timestamp: number
  readonly batchBaseOffset?: bigint
}

function keep(at: At): At {
  return {offset: at.offset, timestamp: at.timestamp, batchBaseOffset: at.batchBaseOffset}
}

export interface MoveDraft {
  readonly unit: string
  from: MemberRef | null
  to: MemberRef | null
  readonly releasedBy: 'revocation' | 'member-removed' | null
  released: At | undefined
  owned: At | undefined
  /** Time without an owner is measured (consumer partitions, active tasks). */
  readonly gap: boolean
}

export interface Candidate {
  readonly member: MemberRef
  readonly doing: 'revoking' | 'not-heartbeating' | 'joined-late'
  readonly fromMs: number
  readonly toMs: number
  readonly ongoing: boolean
  readonly removed: boolean
  readonly units: readonly string[]
}

export interface BumpDraft {
  readonly id: number
  readonly epoch: number
  readonly previousEpoch: number | null
  readonly at: At
  moves: MoveDraft[]
  /** Members removed inside the window (not by the bump's own write). */
  readonly departed: Candidate[]
  end?:
    | {readonly kind: 'converged'; readonly at: At}
    | {readonly kind: 'superseded'; readonly byEpoch: number; readonly at: At; readonly pending: readonly PendingDraft[]}
  settled?: At
  slowest?: Candidate | null
}

export interface PendingDraft {
  readonly member: MemberRef
  readonly memberEpoch: number | null
  readonly state: PendingMember['state']
  readonly pending: readonly string[]
  readonly sinceMs: number
}

interface Track {
  readonly id: string
  held: HeldUnits | null
  /** The decoded current-assignment value `held` was read from. */
  value: Record<string, unknown> | undefined
  pendingSince: number | undefined
  revocation: {readonly fromMs: number; readonly toMs: number; readonly units: readonly string[]} | undefined
  lastMs: number
  readonly joinedMs: number
  window: number
  firstInWindowMs: number
  settled: boolean
}

const TYPES: {type: ModernType; role: 'epoch' | 'member' | 'target' | 'current'}[] = []
for (const [type, role] of Object.entries({
  3: {type: 'consumer', role: 'epoch'},
  5: {type: 'consumer', role: 'member'},
  6: {type: 'consumer', role: 'target'},
  8: {type: 'consumer', role: 'current'},
  10: {type: 'share', role: 'member'},
  11: {type: 'share', role: 'epoch'},
  12: {type: 'share', role: 'target'},
  14: {type: 'share', role: 'current'},
  17: {type: 'streams', role: 'epoch'},
  19: {type: 'streams', role: 'member'},
  20: {type: 'streams', role: 'target'},
  22: {type: 'streams', role: 'current'},
} as const))
  TYPES[Number(type)] = role

export function modernRole(type: number): {type: ModernType; role: 'epoch' | 'member' | 'target' | 'current'} | undefined {
  return TYPES[type]
}

const READ: Record<ModernType, (v: never, keys: UnitKeys) => HeldUnits> = {consumer: consumerUnits, share: shareUnits, streams: streamsUnits}

/** Bumps kept whole before keepFiguresOnly's fold first compacts their head (then twice those it keeps). */
const COMPACT_AT = 4

/** A move the fold refers to: [index of its bump in the saved drafts, index in its moves], or the move itself (in no bump kept). */
type MoveRef = readonly [number, number] | MoveDraft

/** What a fold needs to go on from a batch boundary (save/restore), as plain data: Maps, bigints, no Track.value. */
export interface ModernFoldState {
  readonly type: ModernType
  readonly epoch: number | null
  readonly targetEpoch: number | null
  readonly lastMs: number
  readonly nextId: number
  readonly tracks: readonly Omit<Track, 'value'>[]
  readonly unsettled: readonly string[]
  readonly clientIds: ReadonlyMap<string, string>
  readonly holder: ReadonlyMap<string, string>
  /** The bumps kept whole: the current one, and those that can still change (see DoneBumps). */
  readonly drafts: readonly BumpDraft[]
  readonly current: number | null
  readonly waiting: readonly number[]
  readonly openGaps: ReadonlyArray<readonly [string, MoveRef]>
  readonly lostOther: ReadonlyArray<readonly [string, MoveRef]>
  readonly gainedOther: ReadonlyArray<readonly [string, MoveRef]>
  readonly done: DoneState
}

export class ModernCostFold {
  /** The bumps kept whole, in log order (after compact(): only those that can still change). */
  readonly drafts: BumpDraft[] = []
  /** The bumps compact() dropped from `drafts`, as sums. */
  done = new DoneBumps()
  private nextId = 0
  private epoch: number | undefined
  private targetEpoch: number | undefined
  private current: BumpDraft | undefined
  private waiting: BumpDraft[] = []
  private readonly tracks = new Map<string, Track>()
  private readonly unsettled = new Set<string>()
  private readonly clientIds = new Map<string, string>()
  private readonly holder = new Map<string, string>()
  private readonly openGaps = new Map<string, MoveDraft>()
  /** Made at the first unit without a measured gap (streams' standby and warm-up tasks): most folds never have one. */
  private lostOther: Map<string, MoveDraft> | undefined
  private gainedOther: Map<string, MoveDraft> | undefined
  private readonly keys = new UnitKeys()
  /** keepFiguresOnly: the number of bumps kept whole at which the next bump moves those ended at their head to `done`. */
  private compactAt = Number.POSITIVE_INFINITY
  lastMs = 0

  constructor(readonly type: ModernType) {}

  push(lr: LoggedRecord, role: 'epoch' | 'member' | 'target' | 'current'): void {
    const r = lr.record
    if (r.kind !== 'record') return
    const at: At = lr
    this.lastMs = lr.timestamp
    const value = r.value as Record<string, unknown> | null
    if (role === 'epoch') {
      if (value !== null && value.Epoch !== this.epoch) this.bump(value.Epoch as number, at)
      return
    }
    if (role === 'target') {
      if (value === null) return
      this.targetEpoch = value.AssignmentEpoch as number
      this.unsettled.clear()
      for (const t of this.tracks.values()) this.settle(t)
    } else {
      const memberId = r.key.MemberId as string
      if (role === 'member') this.member(memberId, value as {ClientId: string} | null, at)
      else if (value === null) this.removed(memberId, at)
      else this.assignment(memberId, value, at)
    }
    this.maybeConverged(at)
  }

  private ref(memberId: string): MemberRef {
    return {memberId, clientId: this.clientIds.get(memberId) ?? null}
  }

  private bump(epoch: number, at: At): void {
    const previous = this.current
    const draft: BumpDraft = {id: this.nextId++, epoch, previousEpoch: this.epoch ?? null, at: keep(at), moves: [], departed: []}
    if (previous && !previous.end) {
      // a member whose join made this bump (its metadata record is in this write) was not pending on the previous one
      previous.end = {kind: 'superseded', byEpoch: epoch, at: keep(at), pending: this.pending(at.timestamp)}
      previous.slowest = this.slowest(previous, at.timestamp, true)
    }
    if (previous) {
      // a leave or fence that caused this bump is written before the epoch record, in the same write
      let i = previous.moves.length
      while (i > 0 && sameWrite(previous.moves[i - 1].released, at)) i--
      if (i < previous.moves.length) draft.moves = previous.moves.splice(i)
    }
    // (cleared, not replaced: a bump is the fold's most frequent allocation site after the records themselves)
    // (and only when not empty: clearing a Map allocates a new table even then)
    if (this.lostOther !== undefined && this.lostOther.size > 0) this.lostOther.clear()
    if (this.gainedOther !== undefined && this.gainedOther.size > 0) this.gainedOther.clear()
    this.epoch = epoch
    this.current = draft
    this.drafts.push(draft)
    if (this.type !== 'share') this.waiting.push(draft)
    if (this.drafts.length >= this.compactAt) this.compactHead()
  }

  /**
   * Only figures() and save() will be asked of this fold (an audit row's cost): the bumps that can change no more at
   * the head of `drafts` go to `done` as the fold goes (a group's bumps then cost the fold their sums, not their
   * moves), in log order and untrimmed, so its figures and its save() are those of a fold that kept them whole.
   */
  keepFiguresOnly(): void {
    this.compactAt = COMPACT_AT
  }

  /** Moves the final bumps at the head of `drafts` to `done` (the current one is never final: one is left). */
  private compactHead(): void {
    let n = 0
    while (this.final(this.drafts[n])) this.done.add(this.brief(this.drafts[n++], 0))
    if (n > 0) {
      this.drafts.splice(0, n)
      // (ids grow in log order: the waiting bumps compacted are those before the first kept)
      const first = this.drafts[0].id
      if (this.waiting.length > 0 && this.waiting[0].id < first) this.waiting = this.waiting.filter(d => d.id >= first)
    }
    this.compactAt = Math.max(COMPACT_AT, 2 * this.drafts.length)
  }

  private member(memberId: string, value: {ClientId: string} | null, at: At): void {
    if (value === null) {
      this.clientIds.delete(memberId)
      if (this.tracks.has(memberId)) this.removed(memberId, at)
      return
    }
    this.clientIds.set(memberId, value.ClientId)
    if (!this.tracks.has(memberId)) this.track(memberId, at)
  }

  /** A member first seen now (its metadata record; or, in a compacted log, its current assignment). */
  private track(memberId: string, at: At): Track {
    const t: Track = {
      id: memberId,
      held: null,
      value: undefined,
      pendingSince: undefined,
      revocation: undefined,
      lastMs: at.timestamp,
      joinedMs: at.timestamp,
      window: -1,
      firstInWindowMs: 0,
      settled: false,
    }
    this.tracks.set(memberId, t)
    this.settle(t)
    return t
  }

  private assignment(memberId: string, value: Record<string, unknown>, at: At): void {
    const t = this.tracks.get(memberId) ?? this.track(memberId, at)
    const before = t.held
    // most records only move the member to the new epoch: the same units, nothing to compare
    if (before && t.value && sameUnits(this.type, t.value, value)) {
      const state = stateOf(this.type, value.State as number)
      t.held = {epoch: value.MemberEpoch as number, state, owning: before.owning, other: before.other, pending: before.pending}
      t.value = value
      this.touch(t, at)
      return this.settle(t)
    }
    const held = READ[this.type](value as never, this.keys)
    t.value = value
    if (!before || !same(before.owning, held.owning)) {
      this.release(memberId, before?.owning ?? [], new Set(held.owning), 'revocation', at)
      this.acquire(memberId, new Set(before?.owning ?? []), held.owning, at)
    }
    if (!before || !same(before.other, held.other)) this.moveOther(memberId, before?.other ?? [], held.other, at)
    if (held.pending.length > 0 && t.pendingSince === undefined) t.pendingSince = at.timestamp
    else if (held.pending.length === 0 && t.pendingSince !== undefined) {
      t.revocation = {fromMs: t.pendingSince, toMs: at.timestamp, units: before?.pending ?? []}
      t.pendingSince = undefined
    }
    t.held = held
    this.touch(t, at)
    this.settle(t)
  }

  private touch(t: Track, at: At): void {
    t.lastMs = at.timestamp
    const d = this.current
    if (d && t.window !== d.id && at.offset > d.at.offset) {
      t.window = d.id
      t.firstInWindowMs = at.timestamp
    }
  }

  private removed(memberId: string, at: At): void {
    const t = this.tracks.get(memberId)
    if (!t) return
    this.release(memberId, t.held?.owning ?? [], new Set(), 'member-removed', at)
    this.moveOther(memberId, t.held?.other ?? [], [], at)
    const d = this.current
    if (d && at.timestamp > d.at.timestamp && !t.settled) {
      const revoking = t.pendingSince !== undefined
      d.departed.push({
        member: this.ref(memberId),
        doing: revoking ? 'revoking' : 'not-heartbeating',
        fromMs: revoking ? t.pendingSince! : Math.max(t.lastMs, d.at.timestamp),
        toMs: at.timestamp,
        ongoing: false,
        removed: true,
        units: t.held?.pending ?? [],
      })
    }
    this.tracks.delete(memberId)
    this.unsettled.delete(memberId)
  }

  private release(memberId: string, before: readonly string[], now: ReadonlySet<string>, why: MoveDraft['releasedBy'], at: At): void {
    for (const u of before) {
      if (now.has(u) || this.holder.get(u) !== memberId) continue
      this.holder.delete(u)
      const move: MoveDraft = {unit: u, from: this.ref(memberId), to: null, releasedBy: why, released: keep(at), owned: undefined, gap: true}
      this.openGaps.set(u, move)
      this.current?.moves.push(move)
    }
  }

  private acquire(memberId: string, before: ReadonlySet<string>, now: readonly string[], at: At): void {
    for (const u of now) {
      if (before.has(u)) continue
      const previous = this.holder.get(u)
      this.holder.set(u, memberId)
      const open = this.openGaps.get(u)
      if (open) {
        this.openGaps.delete(u)
        open.to = this.ref(memberId)
        open.owned = keep(at)
      } else {
        const from = previous === undefined ? null : this.ref(previous)
        this.current?.moves.push({unit: u, from, to: this.ref(memberId), releasedBy: null, released: undefined, owned: keep(at), gap: true})
      }
    }
  }

  /**
   * Units without a measured gap (no revocation step orders them): a loss and a gain of the same unit in one bump
   * window pair up as one move, whichever record comes first.
   */
  private moveOther(memberId: string, before: readonly string[], now: readonly string[], at: At): void {
    if (before.length === 0 && now.length === 0) return
    const had = new Set(before)
    const has = new Set(now)
    for (const u of before) {
      if (has.has(u)) continue
      const gained = this.gainedOther?.get(u)
      if (gained && gained.from === null && gained.to?.memberId !== memberId) {
        this.gainedOther!.delete(u)
        gained.from = this.ref(memberId)
        gained.released = keep(at)
        continue
      }
      const move: MoveDraft = {unit: u, from: this.ref(memberId), to: null, releasedBy: null, released: keep(at), owned: undefined, gap: false}
      ;(this.lostOther ??= new Map()).set(u, move)
      this.current?.moves.push(move)
    }
    for (const u of now) {
      if (had.has(u)) continue
      const lost = this.lostOther?.get(u)
      if (lost && lost.to === null && lost.from?.memberId !== memberId) {
        this.lostOther!.delete(u)
        lost.to = this.ref(memberId)
        lost.owned = keep(at)
        continue
      }
      const move: MoveDraft = {unit: u, from: null, to: this.ref(memberId), releasedBy: null, released: undefined, owned: keep(at), gap: false}
      ;(this.gainedOther ??= new Map()).set(u, move)
      this.current?.moves.push(move)
    }
  }

  private settle(t: Track): void {
    const h = t.held
    t.settled = h !== null && h.epoch === this.targetEpoch && h.state === 'stable' && h.pending.length === 0
    if (t.settled) this.unsettled.delete(t.id)
    else this.unsettled.add(t.id)
  }

  private maybeConverged(at: At): void {
    const d = this.current
    if (this.waiting.length === 0 || !d || this.unsettled.size > 0) return
    if (this.targetEpoch === undefined || this.targetEpoch < d.epoch) return
    for (const w of this.waiting) {
      if (w.end) w.settled = keep(at)
      else {
        w.end = {kind: 'converged', at: keep(at)}
        w.slowest = this.slowest(w, at.timestamp, false)
      }
    }
    this.waiting = []
  }

  /** Members not settled now: what holds the group from converging (without those that joined at `joinedBeforeMs` or later). */
  pending(joinedBeforeMs = Number.POSITIVE_INFINITY): PendingDraft[] {
    const out: PendingDraft[] = []
    for (const id of this.unsettled) {
      const t = this.tracks.get(id)!
      if (t.joinedMs >= joinedBeforeMs) continue
      out.push({
        member: this.ref(id),
        memberEpoch: t.held?.epoch ?? null,
        state: t.held?.state ?? 'no-assignment',
        pending: t.held?.pending ?? [],
        sinceMs: t.pendingSince ?? t.lastMs,
      })
    }
    return out
  }

  /** What each member did inside the bump's window; the slowest is the longest (removed members included). */
  slowest(d: BumpDraft, closeMs: number, open: boolean): Candidate | null {
    let best: Candidate | null = null
    let bestMs = 0
    // called once per bump over every member: a candidate object is made only when it is the longest so far
    const offer = (t: Track, doing: Candidate['doing'], fromMs: number, toMs: number, ongoing: boolean, units: readonly string[]) => {
      if (toMs - fromMs <= bestMs) return
      bestMs = toMs - fromMs
      best = {member: this.ref(t.id), doing, fromMs, toMs, ongoing, removed: false, units}
    }
    for (const c of d.departed) if (c.toMs - c.fromMs > bestMs) (best = c), (bestMs = c.toMs - c.fromMs)
    const bumpMs = d.at.timestamp
    for (const t of this.tracks.values()) {
      if (t.pendingSince !== undefined && !t.settled) offer(t, 'revoking', t.pendingSince, closeMs, open, t.held?.pending ?? [])
      else if (t.revocation && t.revocation.toMs > bumpMs) offer(t, 'revoking', t.revocation.fromMs, t.revocation.toMs, false, t.revocation.units)
      if (t.joinedMs >= closeMs) continue
      if (t.joinedMs > bumpMs) offer(t, 'joined-late', bumpMs, t.joinedMs, false, [])
      else if (t.window === d.id) offer(t, 'not-heartbeating', bumpMs, t.firstInWindowMs, false, [])
      else if (!t.settled) offer(t, 'not-heartbeating', bumpMs, closeMs, open, [])
    }
    return best
  }

  /** Each member's units now (owning, then other), by member id. */
  holdings(): Array<{member: MemberRef; units: readonly string[]}> {
    return [...this.tracks.values()].map(t => ({member: this.ref(t.id), units: [...(t.held?.owning ?? []), ...(t.held?.other ?? [])]}))
  }

  /** A bump's figures for the sums (costTotals' reading of its cost), open gaps counted to `asOfMs`. */
  brief(d: BumpDraft, asOfMs: number): BumpTuple {
    let unownedMs = 0
    for (const m of d.moves) if (m.gap && m.released) unownedMs += (m.owned?.timestamp ?? asOfMs) - m.released.timestamp
    const status = this.type === 'share' ? 'not-measured' : (d.end?.kind ?? 'not-converged')
    return [d.at.timestamp, d.moves.length, unownedMs, status, d.end ? d.end.at.timestamp - d.at.timestamp : 0]
  }

  /** Can change no more: not the current bump, ended (share: never measured), no moved partition without an owner. */
  private final(d: BumpDraft): boolean {
    if (d === this.current || (!d.end && this.type !== 'share')) return false
    for (const m of d.moves) if (m.gap && m.released && !m.owned) return false
    return true
  }

  /**
   * Keeps whole only the bumps that can still change; the others go to `done` as sums (and tuples while they may
   * fall in a window of `windowMs` before the last bump). finish() then no longer has every bump: for figures().
   */
  compact(windowMs: number): void {
    const live = this.drafts.filter(d => !this.final(d) || (this.done.add(this.brief(d, 0)), false))
    this.drafts.length = 0
    this.drafts.push(...live)
    this.waiting = this.waiting.filter(d => live.includes(d))
    const last = this.current?.at.timestamp
    if (last !== undefined) this.done.trim(last, windowMs)
  }

  /** The fold's state after compact(windowMs), to go on with restore(). */
  save(windowMs: number): ModernFoldState {
    this.compact(windowMs)
    const drafts = this.drafts
    const current = this.current === undefined ? -1 : drafts.indexOf(this.current)
    if (current < 0 && this.current) throw new Error('unreachable: a seeded fold is not saved')
    const where = new Map<MoveDraft, MoveRef>()
    drafts.forEach((d, i) => d.moves.forEach((m, j) => where.set(m, [i, j])))
    const refs = (ms: Map<string, MoveDraft> | undefined) => (ms === undefined ? [] : [...ms].map(([u, m]) => [u, where.get(m) ?? m] as const))
    return {
      type: this.type,
      epoch: this.epoch ?? null,
      targetEpoch: this.targetEpoch ?? null,
      lastMs: this.lastMs,
      nextId: this.nextId,
      tracks: [...this.tracks.values()].map(t => ({...t, value: undefined})),
      unsettled: [...this.unsettled],
      clientIds: this.clientIds,
      holder: this.holder,
      drafts,
      current: current < 0 ? null : current,
      waiting: this.waiting.map(d => drafts.indexOf(d)),
      openGaps: refs(this.openGaps),
      lostOther: refs(this.lostOther),
      gainedOther: refs(this.gainedOther),
      done: this.done.save(),
    }
  }

  /** A fold going on from save()'s state (read back from a checkpoint: throws when of the wrong shape). */
  static restore(s: ModernFoldState): ModernCostFold {
    const f = new ModernCostFold(s.type)
    if (!READ[s.type] || !Array.isArray(s.drafts) || !Array.isArray(s.tracks)) throw new Error('a cost state of the wrong shape')
    f.epoch = s.epoch ?? undefined
    f.targetEpoch = s.targetEpoch ?? undefined
    f.lastMs = s.lastMs
    f.nextId = s.nextId
    for (const t of s.tracks) f.tracks.set(t.id, {...t, value: undefined})
    for (const id of s.unsettled) f.unsettled.add(id)
    for (const [k, v] of s.clientIds) f.clientIds.set(k, v)
    for (const [k, v] of s.holder) f.holder.set(k, v)
    f.drafts.push(...s.drafts)
    f.current = s.current === null ? undefined : s.drafts[s.current]
    f.waiting = s.waiting.map(i => s.drafts[i])
    const move = (r: MoveRef): MoveDraft => (Array.isArray(r) ? s.drafts[r[0]].moves[r[1]] : (r as MoveDraft))
    for (const [u, r] of s.openGaps) f.openGaps.set(u, move(r))
    for (const [u, r] of s.lostOther) (f.lostOther ??= new Map()).set(u, move(r))
    for (const [u, r] of s.gainedOther) (f.gainedOther ??= new Map()).set(u, move(r))
    f.done = DoneBumps.restore(s.done)
    return f
  }

  /** Ends the fold: the last bump, if not converged, is `not-converged` as of the last record (or `asOfMs`). */
  finish(asOfMs: number): {openGaps: ReadonlyMap<string, MoveDraft>; pending: PendingDraft[]; asOfMs: number} {
    const d = this.current
    const pending = this.pending()
    if (d && !d.end && this.type !== 'share') d.slowest = this.slowest(d, asOfMs, true)
    return {openGaps: this.openGaps, pending, asOfMs}
  }
}

/** Same keys in the same order (keys are interned by UnitKeys, and the coordinator writes a set in a stable order). */
function same(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function sameWrite(a: At | undefined, b: At): boolean {
  return a !== undefined && a.timestamp === b.timestamp && a.batchBaseOffset === b.batchBaseOffset
}
