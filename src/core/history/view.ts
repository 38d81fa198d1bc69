/**
 * The audit history as moments: each audit's time and the cluster's topics and brokers as they were after it.
 * Evidence for past bumps is read from these moments (core/explain/evidence/history.ts). Pure.
 */
import {applyEntry, type HistoryEntry, type HistoryState, type TopicObservation} from './format.js'

/** One recorded moment: the audit time and the state after that audit's line. */
export interface Moment {
  at: number
  topics: ReadonlyMap<string, TopicObservation>
  brokers: ReadonlyArray<{id: number; rack: string | null}> | undefined
}

/** A group's epoch as one recorded moment saw it (`moment`: its index in `moments`). */
export interface EpochSeen {
  moment: number
  at: number
  type: string
  epoch: number
}

export interface HistoryView {
  clusterId: string | null
  moments: Moment[]
  /** Each group's epochs in time order, one per recorded change of epoch or type (a full line repeating it adds none). */
  groups?: ReadonlyMap<string, EpochSeen[]>
}

export const EMPTY_HISTORY: HistoryView = {clusterId: null, moments: []}

/** Folds entries (all segments, in time order) into moments. Each moment shares unchanged topic objects. */
export function historyView(entries: readonly HistoryEntry[], clusterId: string | null = null): HistoryView {
  const sorted = [...entries].sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
  const s: HistoryState = {brokers: undefined, topics: new Map(), groups: new Map()}
  const moments: Moment[] = []
  const groups = new Map<string, EpochSeen[]>()
  for (const e of sorted) {
    applyEntry(s, e)
    s.groups.clear() // only each group's epochs are kept (below), not the state: keep memory to topics
    const at = Date.parse(e.at)
    for (const [id, g] of Object.entries(e.groups)) addEpoch(groups, id, {moment: moments.length, at, type: g.type, epoch: g.epoch})
    moments.push({at, topics: new Map(s.topics), brokers: s.brokers})
  }
  return {clusterId, moments, groups}
}

function addEpoch(groups: Map<string, EpochSeen[]>, id: string, seen: EpochSeen): void {
  const list = groups.get(id) ?? []
  const last = list.at(-1)
  if (last?.epoch === seen.epoch && last.type === seen.type) return
  list.push(seen)
  groups.set(id, list)
}

/** Every rack the history saw on a broker: names to test in hypotheses when no broker has them today. */
export function historyRacks(view: HistoryView): string[] {
  const racks = new Set<string>()
  let last: Moment['brokers']
  for (const m of view.moments) {
    if (m.brokers === last) continue
    last = m.brokers
    for (const b of m.brokers ?? []) if (b.rack !== null) racks.add(b.rack)
  }
  return [...racks].sort()
}

/** The history as explain uses it: the moments, and the racks they saw, gathered once for every group. */
export interface RecordedHistory {
  view: HistoryView
  racks: readonly string[]
}

export const recordedHistory = (view: HistoryView): RecordedHistory => ({view, racks: historyRacks(view)})
