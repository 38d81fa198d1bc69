/** The audit history on disk: load a cluster's history as moments (core/history/view.ts), record an audit. */
import {type HistoryView, historyView} from '../core/history/view.js'
import {defaultHistoryDir, loadHistory} from './store.js'

export {defaultHistoryDir, HISTORY_DIR_ENV, historyStamp, loadHistory, recordHistory} from './store.js'

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
