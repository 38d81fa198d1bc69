/**
 * Who held which partitions (streams: active tasks) over time, one lane per member, for a picture of the bumps: made
 * from the bumps' moves (each a release and an acquisition with their record timestamps) walked backwards from what
 * every member holds after the records read (CostTracker.holdings). Walking back from the end keeps a window right
 * (--since, --last) and a compacted log, whose early records are gone: a partition held since before the window is
 * held from the window's start. Classic generations carry no release time: their moves happen at the generation's
 * record. Standby and warm-up tasks are spans of their own (`others`): they do not stop processing when they move,
 * so no release or gap is marked for them. Pure.
 */
import type {MemberHolding} from './tracker.js'
import type {MemberRef, MovedUnit, RebalanceCost, SlowestMember, UnitRef} from './types.js'

/** The units a member held without a change, from `fromMs` to `toMs`. */
export interface OwnedSpan {
  readonly fromMs: number
  readonly toMs: number
  /** How many units; `units` names them (empty on an aggregated lane). */
  readonly count: number
  readonly units: readonly string[]
}

export interface Release {
  readonly atMs: number
  readonly unit: string
  readonly by: MovedUnit['releasedBy']
  readonly epoch: number
}

/** The member was the slowest of the bump `epoch` (SlowestMember), from fromMs to toMs. */
export interface SlowMark {
  readonly epoch: number
  readonly doing: SlowestMember['doing']
  readonly fromMs: number
  readonly toMs: number
  readonly ongoing: boolean
  readonly units: number
}

export interface MemberLane {
  readonly member: MemberRef
  readonly spans: readonly OwnedSpan[]
  /** Streams: the standby and warm-up tasks it held (absent elsewhere, and on an aggregated lane). */
  readonly others?: readonly OwnedSpan[]
  readonly releases: readonly Release[]
  readonly slow: readonly SlowMark[]
  /** Set when the lane stands for several members (aggregateLanes): how many. */
  readonly members?: number
}

/** A partition without an owner: released at fromMs, owned again at toMs (`open`: not yet, toMs is the last record). */
export interface UnownedGap {
  readonly unit: string
  readonly fromMs: number
  readonly toMs: number
  readonly open: boolean
  readonly epoch: number
}

export interface OwnershipLanes {
  readonly fromMs: number
  readonly toMs: number
  readonly lanes: readonly MemberLane[]
  readonly gaps: readonly UnownedGap[]
}

/** Kafka's names: a topic partition `orders-3`, a streams task `0_3` (subtopology_partition). */
export function unitLabel(u: UnitRef): string {
  if (u.kind === 'partition') return `${u.topic ?? u.topicId}-${u.partition}`
  return `${u.kind === 'active' ? '' : `${u.kind} `}${u.subtopologyId}_${u.partition}`
}

const drawn = (u: UnitRef) => u.kind === 'partition' || u.kind === 'active'
const other = (u: UnitRef) => !drawn(u)

interface Change {
  readonly t: number
  readonly memberId: string
  readonly unit: string
  readonly gain: boolean
}

/**
 * What a picture shows: from a little before the first bump shown (its line off the edge, and what was held before
 * it) to a little after the last record read (what every member holds after it: the records show no change since);
 * with no bump, the last minute of records.
 */
export function pictureRange(firstBumpMs: number | undefined, lastRecordMs: number): {fromMs: number; toMs: number} {
  const last = Math.max(lastRecordMs, firstBumpMs ?? lastRecordMs)
  const start = firstBumpMs ?? last - 60_000
  const pad = Math.max(1000, Math.round((last - start) * 0.02))
  return {fromMs: start - pad, toMs: last + pad}
}

/** The lanes over [fromMs, toMs] (the window shown: from its first bump to the last record read). */
export function ownershipLanes(costs: readonly RebalanceCost[], holdings: readonly MemberHolding[], range: {fromMs: number; toMs: number}): OwnershipLanes {
  const refs = new Map<string, MemberRef>()
  const seen = (m: MemberRef) => {
    const had = refs.get(m.memberId)
    if (!had || (had.clientId === null && m.clientId !== null)) refs.set(m.memberId, m)
  }
  for (const h of holdings) seen(h.member)
  const held = heldIntervals(changesOf(costs, seen, drawn), holdings, range, drawn)
  const otherHeld = heldIntervals(changesOf(costs, seen, other), holdings, range, other)
  const marks = marksOf(costs, range)
  const lanes: MemberLane[] = []
  for (const [memberId, member] of refs) {
    const spans = spansOf(held.get(memberId) ?? [])
    const others = spansOf(otherHeld.get(memberId) ?? [])
    const releases = marks.releases.get(memberId) ?? []
    const slow = marks.slow.get(memberId) ?? []
    if (spans.length + others.length + releases.length + slow.length > 0) lanes.push({member, spans, ...(others.length > 0 ? {others} : {}), releases, slow})
  }
  lanes.sort((a, b) => firstMs(a) - firstMs(b) || laneName(a).localeCompare(laneName(b)))
  return {fromMs: range.fromMs, toMs: range.toMs, lanes, gaps: gapsOf(costs, range)}
}

function firstMs(l: MemberLane): number {
  return Math.min(l.spans[0]?.fromMs ?? Infinity, l.releases[0]?.atMs ?? Infinity, l.slow[0]?.fromMs ?? Infinity)
}

/** The client id, else the member id: how a lane is named. */
export function laneName(l: MemberLane): string {
  return l.member.clientId ?? l.member.memberId
}

function changesOf(costs: readonly RebalanceCost[], seen: (m: MemberRef) => void, pick: (u: UnitRef) => boolean): Change[] {
  const out: Change[] = []
  for (const c of costs)
    for (const m of c.moved) {
      if (!pick(m)) continue
      const unit = unitLabel(m)
      const ownedMs = m.ownedAtMs ?? c.atMs
      if (m.from) seen(m.from), out.push({t: m.releasedAtMs ?? ownedMs, memberId: m.from.memberId, unit, gain: false})
      if (m.to) seen(m.to), out.push({t: ownedMs, memberId: m.to.memberId, unit, gain: true})
    }
  // latest first; at one time a gain is undone before a loss (forwards, a release comes before the acquisition)
  return out.sort((a, b) => b.t - a.t || Number(b.gain) - Number(a.gain))
}

interface Interval {
  readonly unit: string
  readonly fromMs: number
  readonly toMs: number
}

/** Per member, the intervals it held each unit, clipped to the range: from the holdings at the end, backwards. */
function heldIntervals(
  changes: readonly Change[],
  holdings: readonly MemberHolding[],
  range: {fromMs: number; toMs: number},
  pick: (u: UnitRef) => boolean,
): Map<string, Interval[]> {
  const open = new Map<string, Map<string, number>>()
  const openOf = (id: string) => open.get(id) ?? open.set(id, new Map()).get(id)!
  for (const h of holdings) for (const u of h.units) if (pick(u)) openOf(h.member.memberId).set(unitLabel(u), range.toMs)
  const out = new Map<string, Interval[]>()
  const close = (id: string, unit: string, fromMs: number, toMs: number) => {
    if (toMs > fromMs) (out.get(id) ?? out.set(id, []).get(id)!).push({unit, fromMs, toMs})
  }
  for (const c of changes) {
    if (c.t < range.fromMs) break
    const held = openOf(c.memberId)
    const end = held.get(c.unit)
    if (c.gain && end !== undefined) close(c.memberId, c.unit, Math.min(c.t, range.toMs), end), held.delete(c.unit)
    else if (!c.gain && end === undefined) held.set(c.unit, Math.min(c.t, range.toMs))
  }
  for (const [id, held] of open) for (const [unit, end] of held) close(id, unit, range.fromMs, end)
  return out
}

/** Intervals → consecutive spans with the same units (no span where nothing is held): one sweep over their ends. */
function spansOf(intervals: readonly Interval[]): OwnedSpan[] {
  const ends = intervals.flatMap(i => [
    {t: i.fromMs, unit: i.unit, add: true},
    {t: i.toMs, unit: i.unit, add: false},
  ])
  ends.sort((a, b) => a.t - b.t || Number(a.add) - Number(b.add))
  const held = new Map<string, number>()
  const spans: OwnedSpan[] = []
  for (let k = 0; k < ends.length; k++) {
    const e = ends[k]
    const n = (held.get(e.unit) ?? 0) + (e.add ? 1 : -1)
    if (n > 0) held.set(e.unit, n)
    else held.delete(e.unit)
    const next = ends[k + 1]
    if (next && next.t > e.t && held.size > 0) spans.push({fromMs: e.t, toMs: next.t, count: held.size, units: [...held.keys()].sort()})
  }
  return spans
}

function marksOf(costs: readonly RebalanceCost[], range: {fromMs: number; toMs: number}) {
  const releases = new Map<string, Release[]>()
  const slow = new Map<string, SlowMark[]>()
  const push = <T>(m: Map<string, T[]>, id: string, v: T) => (m.get(id) ?? m.set(id, []).get(id)!).push(v)
  for (const c of costs) {
    for (const m of c.moved)
      if (m.from && m.releasedAtMs !== null && drawn(m) && m.releasedAtMs >= range.fromMs)
        push(releases, m.from.memberId, {atMs: m.releasedAtMs, unit: unitLabel(m), by: m.releasedBy, epoch: c.epoch})
    const s = c.slowest
    if (s && s.toMs >= range.fromMs)
      push(slow, s.member.memberId, {
        epoch: c.epoch,
        doing: s.doing,
        fromMs: Math.max(s.fromMs, range.fromMs),
        toMs: s.toMs,
        ongoing: s.ongoing,
        units: s.units,
      })
  }
  for (const list of releases.values()) list.sort((a, b) => a.atMs - b.atMs)
  return {releases, slow}
}

function gapsOf(costs: readonly RebalanceCost[], range: {fromMs: number; toMs: number}): UnownedGap[] {
  const out: UnownedGap[] = []
  for (const c of costs)
    for (const m of c.moved) {
      if (m.unownedMs === null || m.releasedAtMs === null || !drawn(m)) continue
      const toMs = m.releasedAtMs + m.unownedMs
      if (toMs < range.fromMs) continue
      out.push({unit: unitLabel(m), fromMs: Math.max(m.releasedAtMs, range.fromMs), toMs, open: m.open, epoch: c.epoch})
    }
  return out
}

/**
 * At most `keep` lanes: the busiest keep - 1 (most changes, releases and slowest marks) in their order, the others
 * summed into one lane (`members` says how many) that counts their units without naming them.
 */
export function aggregateLanes(lanes: readonly MemberLane[], keep: number): {lanes: MemberLane[]; aggregated: number} {
  if (lanes.length <= keep) return {lanes: [...lanes], aggregated: 0}
  const busy = (l: MemberLane) => l.spans.length + l.releases.length + l.slow.length
  const ranked = lanes.map((l, i) => ({l, i, b: busy(l)})).sort((x, y) => y.b - x.b || x.i - y.i)
  const kept = new Set(ranked.slice(0, keep - 1).map(r => r.i))
  const rest = lanes.filter((_, i) => !kept.has(i))
  const merged: MemberLane = {
    member: {memberId: `${rest.length} other members`, clientId: null},
    spans: summed(rest),
    releases: rest.flatMap(l => l.releases).sort((a, b) => a.atMs - b.atMs),
    slow: rest.flatMap(l => l.slow),
    members: rest.length,
  }
  return {lanes: [...lanes.filter((_, i) => kept.has(i)), merged], aggregated: rest.length}
}

/** The lanes' unit counts added up over time. */
function summed(lanes: readonly MemberLane[]): OwnedSpan[] {
  const delta = new Map<number, number>()
  for (const l of lanes)
    for (const s of l.spans) delta.set(s.fromMs, (delta.get(s.fromMs) ?? 0) + s.count), delta.set(s.toMs, (delta.get(s.toMs) ?? 0) - s.count)
  const edges = [...delta.keys()].sort((a, b) => a - b)
  const out: OwnedSpan[] = []
  let count = 0
  for (let k = 0; k + 1 < edges.length; k++) {
    count += delta.get(edges[k])!
    if (count > 0) out.push({fromMs: edges[k], toMs: edges[k + 1], count, units: []})
  }
  return out
}
