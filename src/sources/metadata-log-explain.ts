/** `group explain --metadata-log DIR`: replays the log tracking the group's topics and annotates the report. */
import type {ExplainReport} from '../core/explain/explain.js'
import {annotateFromMetadataLog} from '../core/metadata-log/attribute.js'
import type {ReplayResult} from '../core/replay/index.js'
import {type MetadataLogSource, metadataLogSourceInfo, replayMetadataLog} from './metadata-log.js'

declare module '../core/explain/explain.js' {
  interface ExplainReport {
    /** With --metadata-log: the log read, and how many bumps it attributed exactly. */
    metadataLog?: MetadataLogSource & {attributed: number}
  }
}

export async function explainFromMetadataLog(report: ExplainReport, replay: ReplayResult, dir: string, topics: readonly string[]): Promise<number> {
  const r = await replayMetadataLog(dir, {trackTopics: new Set(topics)})
  const n = annotateFromMetadataLog(report, replay, {hashes: r.replay.hashes, changes: r.replay.changes, historyStart: r.historyStart.timestamp})
  report.metadataLog = {...metadataLogSourceInfo(r), attributed: n}
  return n
}
