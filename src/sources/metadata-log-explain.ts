/** `group explain --metadata-log DIR`: replays the log tracking the group's topics and annotates the report. */
import type {ExplainReport} from '../core/explain/explain.js'
import {annotateFromMetadataLog} from '../core/metadata-log/attribute.js'
import type {ReplayResult} from '../core/replay/index.js'
import {metadataLogSourceInfo, replayMetadataLog} from './metadata-log.js'

export async function explainFromMetadataLog(report: ExplainReport, replay: ReplayResult, dir: string, topics: readonly string[]): Promise<number> {
  const r = await replayMetadataLog(dir, {trackTopics: new Set(topics)})
  const n = annotateFromMetadataLog(report, replay, {hashes: r.replay.hashes, changes: r.replay.changes, historyStart: r.historyStart.timestamp})
  ;(report as ExplainReport & {metadataLog?: Record<string, unknown>}).metadataLog = {...metadataLogSourceInfo(r), attributed: n}
  return n
}
