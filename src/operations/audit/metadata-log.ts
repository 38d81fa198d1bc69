/**
 * `audit --metadata-log DIR`: one replay of the log for the topics of every group that needs it; drifting groups
 * get the exact changes since their stored hash, and (with --watch) new bumps their exact causes.
 */
import type {GroupAudit} from '../../core/audit/audit.js'
import {type AuditRow, StoredRow} from '../../core/audit/stored-row.js'
import type {ExplainReport} from '../../core/explain/explain.js'
import {annotateFromMetadataLog, attributeDrift, type MetadataLogView} from '../../core/metadata-log/attribute.js'
import {type ReplayResult, topicsEverUsed} from '../../core/replay/index.js'
import {type MetadataLogSource, metadataLogSourceInfo, metadataLogView, replayMetadataLog} from '../../sources/metadata-log.js'

/** summary.metadataLog: the log read, and what it attributed. */
export interface AuditMetadataLog extends MetadataLogSource {
  groupsDrifting: number
  driftsAttributed: number
  bumpsAttributed: number
}

export async function auditFromMetadataLog(
  dir: string,
  rows: readonly AuditRow[],
  bumps: ReadonlyArray<{report: ExplainReport; replay: ReplayResult}>,
  now: number,
): Promise<AuditMetadataLog> {
  // (a row read back from a checkpoint is never drifting: those are recomputed every run)
  const drifting = rows.filter(
    (r): r is GroupAudit =>
      !(r instanceof StoredRow) && r.inSync === false && r.storedMetadataHash !== null && r.liveMetadataHash !== null && !r.hashZeroedByFence?.sameAsLive,
  )
  const topics = new Set<string>()
  for (const r of drifting) for (const t of r.topics) topics.add(t)
  for (const {replay} of bumps) for (const t of topicsEverUsed(replay)) topics.add(t)
  const r = await replayMetadataLog(dir, {trackTopics: topics})
  const view: MetadataLogView = metadataLogView(r)
  let driftsAttributed = 0
  for (const row of drifting) {
    // (after a Kafka 4.1 streams fence's 0, the drift is since the hash stored before that fence)
    const from = row.hashZeroedByFence?.hashBefore ?? row.storedMetadataHash!
    row.driftFromLog = attributeDrift(view, row.topics, BigInt(from), BigInt(row.liveMetadataHash!), now)
    if (row.driftFromLog.exact) driftsAttributed++
  }
  let bumpsAttributed = 0
  for (const {report, replay} of bumps) bumpsAttributed += annotateFromMetadataLog(report, replay, view)
  return {...metadataLogSourceInfo(r), groupsDrifting: drifting.length, driftsAttributed, bumpsAttributed}
}
