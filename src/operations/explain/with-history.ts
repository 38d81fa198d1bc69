/**
 * The step every explain flow shares: explain a replay against live metadata with the racks the audit history saw,
 * then name from that history what it recorded exactly. The history's racks are gathered once per view (a walk
 * over every moment), not once per group.
 */
import {explainGroup, type ExplainOptions, type ExplainReport} from '../../core/explain/explain.js'
import type {ReplayResult} from '../../core/replay/index.js'
import {annotateFromHistory, historyRacks, type HistoryView} from '../../history/index.js'

export interface ExplainHistory {
  view: HistoryView
  racks: string[]
}

export const withRacks = (view: HistoryView): ExplainHistory => ({view, racks: historyRacks(view)})

export function explainWithHistory(group: string, replay: ReplayResult, options: Omit<ExplainOptions, 'knownRacks'>, history: ExplainHistory): ExplainReport {
  const report = explainGroup(group, replay, {...options, knownRacks: history.racks})
  annotateFromHistory(report, replay, history.view)
  return report
}
