/**
 * Everything an explanation is made from besides the group's records, read once for one group or many: the live
 * metadata of the topics, the reassignments in flight, the audit history and (with --metadata-log) the KRaft
 * metadata log. The pipeline (core/explain/explain.ts) turns them into evidence; nothing here decides a cause.
 */
import type {ExplainOptions} from '../../core/explain/explain.js'
import {recordedHistory} from '../../core/history/view.js'
import {loadHistoryView} from '../../history/index.js'
import type {ClusterReader} from '../../kafka/cluster-reader.js'
import type {Progress} from '../../render/progress.js'
import {inFlightReassignments} from '../../sources/reassignments.js'
import type {Session} from '../session.js'

/** What a `group explain` asks for: the flags that shape the report. */
export interface ExplainRequest {
  now: number
  stuckAfterMs: number | undefined
  historyDir: string | undefined
  metadataLogDir?: string
  /** Only timeline entries at or after this time (ms). */
  since?: number
  /** Only the last N timeline entries. */
  last?: number
}

export async function readExplainInputs(
  session: Session,
  client: ClusterReader,
  progress: Progress,
  topics: ReadonlySet<string>,
  o: ExplainRequest,
): Promise<ExplainOptions & {live: NonNullable<ExplainOptions['live']>}> {
  // (neither answer needs the other: one round trip, not two)
  progress.update('reading live metadata and partition reassignments in flight')
  const [live, reassignments] = await Promise.all([client.clusterMetadata({topics: [...topics]}), inFlightReassignments(client, m => session.warn(m))])
  const history = recordedHistory(loadHistoryView(live.clusterId, o.historyDir).view)
  const metadataLog = o.metadataLogDir ? await readMetadataLogEvidence(session, o.metadataLogDir, topics) : undefined
  return {live, now: o.now, stuckAfterMs: o.stuckAfterMs, reassignments, history, ...(metadataLog ? {metadataLog} : {})}
}

/** The metadata log, replayed once tracking the given topics; its damage or partial tail is a warning. */
export async function readMetadataLogEvidence(session: Pick<Session, 'warn'>, dir: string, topics: ReadonlySet<string>) {
  // (loaded with --metadata-log only)
  const {metadataLogSourceInfo, metadataLogView, metadataLogWarnings, replayMetadataLog} = await import('../../sources/metadata-log.js')
  const r = await replayMetadataLog(dir, {trackTopics: new Set(topics)})
  const source = metadataLogSourceInfo(r)
  for (const w of [...r.notes, ...metadataLogWarnings(source)]) session.warn(w)
  return {view: metadataLogView(r), source}
}
