/** `group explain --metadata-log DIR`: replays the log tracking the group's topics and annotates the report. */
import type {ExplainReport} from '../../core/explain/explain.js'
import {annotateFromMetadataLog} from '../../core/metadata-log/attribute.js'
import type {ReplayResult} from '../../core/replay/index.js'
import {metadataLogSourceInfo, metadataLogView, replayMetadataLog} from '../../sources/metadata-log.js'

export async function explainFromMetadataLog(report: ExplainReport, replay: ReplayResult, dir: string, topics: readonly string[]): Promise<number> {
  const r = await replayMetadataLog(dir, {trackTopics: new Set(topics)})
  const n = annotateFromMetadataLog(report, replay, metadataLogView(r))
  report.metadataLog = {...metadataLogSourceInfo(r), attributed: n}
  return n
}

/** Several groups (`group explain PATTERN|--all --metadata-log`): one replay of the log for all their topics. */
export async function explainManyFromMetadataLog(
  groups: ReadonlyArray<{report: ExplainReport; replay: ReplayResult}>,
  dir: string,
  topics: readonly string[],
): Promise<void> {
  if (groups.length === 0) return
  const r = await replayMetadataLog(dir, {trackTopics: new Set(topics)})
  const view = metadataLogView(r)
  const source = metadataLogSourceInfo(r)
  for (const {report, replay} of groups) report.metadataLog = {...source, attributed: annotateFromMetadataLog(report, replay, view)}
}
