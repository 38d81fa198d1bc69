/** The audit history for `group explain`: load a cluster's history and attribute metadata bumps from it. */
import type {ExplainReport} from '../core/explain/explain.js'
import type {ReplayResult} from '../core/replay/index.js'
import {annotateFromHistory, historyView} from './attribute.js'
import {defaultHistoryDir, loadHistory} from './store.js'

export {annotateFromHistory, attributeBump, historyView, type HistoryAttribution, type HistoryView} from './attribute.js'
export {defaultHistoryDir, HISTORY_DIR_ENV, loadHistory, recordHistory} from './store.js'

/**
 * Annotates the report's metadata-hash-changed causes from the recorded history of `clusterId` (in place).
 * History is optional: a missing or unreadable store attributes nothing. Returns what was used.
 */
export function explainWithHistory(report: ExplainReport, replay: ReplayResult, clusterId: string | undefined, dir = defaultHistoryDir()): {dir: string; moments: number; attributed: number} {
  if (!clusterId) return {dir, moments: 0, attributed: 0}
  try {
    const loaded = loadHistory(dir, clusterId)
    const view = historyView(loaded.entries, clusterId)
    return {dir: loaded.dir, moments: view.moments.length, attributed: annotateFromHistory(report, replay, view)}
  } catch {
    return {dir, moments: 0, attributed: 0}
  }
}
