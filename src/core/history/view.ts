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

export interface HistoryView {
  clusterId: string | null
  moments: Moment[]
}

export const EMPTY_HISTORY: HistoryView = {clusterId: null, moments: []}

/** Folds entries (all segments, in time order) into moments. Each moment shares unchanged topic objects. */
export function historyView(entries: readonly HistoryEntry[], clusterId: string | null = null): HistoryView {
  const sorted = [...entries].sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
  const s: HistoryState = {brokers: undefined, topics: new Map(), groups: new Map()}
  const moments: Moment[] = []
  for (const e of sorted) {
    applyEntry(s, e)
    s.groups.clear() // groups are not needed for attribution; keep memory to topics
    moments.push({at: Date.parse(e.at), topics: new Map(s.topics), brokers: s.brokers})
  }
  return {clusterId, moments}
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
