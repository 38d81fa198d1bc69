/** The audit history for `group explain`: load a cluster's history and attribute metadata bumps from it. */
import type {ExplainReport} from '../core/explain/explain.js'
import type {ReplayResult} from '../core/replay/index.js'
import {annotateFromHistory, type HistoryView, historyView} from './attribute.js'
import {defaultHistoryDir, loadHistory} from './store.js'

export {annotateFromHistory, attributeBump, historyRacks, historyView, type HistoryAttribution, type HistoryView} from './attribute.js'
export {defaultHistoryDir, HISTORY_DIR_ENV, loadHistory, recordHistory} from './store.js'

/** The cluster's recorded history as a view (empty when there is none or it cannot be read). */
export function loadHistoryView(clusterId: string | undefined, dir = defaultHistoryDir()): {dir: string; view: HistoryView} {
  if (!clusterId) return {dir, view: {clusterId: null, moments: []}}
  try {
    const loaded = loadHistory(dir, clusterId)
    return {dir: loaded.dir, view: historyView(loaded.entries, clusterId)}
  } catch {
    return {dir, view: {clusterId, moments: []}}
  }
}

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
