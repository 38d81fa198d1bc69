/**
 * `audit --metadata-log DIR`: one replay of the log for the topics of every group that needs it; drifting groups
 * get the exact changes since their stored hash. (The new bumps of a --watch take the log as evidence through the
 * explain pipeline, like `group explain --metadata-log`.)
 */
import type {GroupAudit} from '../../core/audit/audit.js'
import {type AuditRow, StoredRow} from '../../core/audit/stored-row.js'
import type {ExplainOptions, ExplainReport} from '../../core/explain/explain.js'
import {attributeDrift} from '../../core/metadata-log/attribute.js'
import {type ReplayResult, topicsEverUsed} from '../../core/replay/index.js'
import type {MetadataLogSource} from '../../sources/metadata-log.js'
import type {Session} from '../session.js'
import {readMetadataLogEvidence} from '../explain/inputs.js'

/** summary.metadataLog: the log read, and what it attributed. */
export interface AuditMetadataLog extends MetadataLogSource {
  groupsDrifting: number
  driftsAttributed: number
  bumpsAttributed: number
}

type LogEvidence = NonNullable<ExplainOptions['metadataLog']>

// (a row read back from a checkpoint is never drifting: those are recomputed every run)
const drifting = (rows: readonly AuditRow[]) =>
  rows.filter(
    (r): r is GroupAudit =>
      !(r instanceof StoredRow) && r.inSync === false && r.storedMetadataHash !== null && r.liveMetadataHash !== null && !r.hashZeroedByFence?.sameAsLive,
  )

/** The log, read once for the drifting groups' topics and those of the bumps to explain. */
export async function readAuditMetadataLog(session: Session, dir: string, rows: readonly AuditRow[], replays: readonly ReplayResult[]): Promise<LogEvidence> {
  const topics = new Set<string>()
  for (const r of drifting(rows)) for (const t of r.topics) topics.add(t)
  for (const replay of replays) for (const t of topicsEverUsed(replay)) topics.add(t)
  return readMetadataLogEvidence(session, dir, topics)
}

/** Names each drifting group's changes since its stored hash (row.driftFromLog) and sums up what the log attributed. */
export function attributeAuditDrifts(log: LogEvidence, rows: readonly AuditRow[], bumps: readonly ExplainReport[], now: number): AuditMetadataLog {
  const groups = drifting(rows)
  let driftsAttributed = 0
  for (const row of groups) {
    // (after a Kafka 4.1 streams fence's 0, the drift is since the hash stored before that fence)
    const from = row.hashZeroedByFence?.hashBefore ?? row.storedMetadataHash!
    row.driftFromLog = attributeDrift(log.view, row.topics, BigInt(from), BigInt(row.liveMetadataHash!), now)
    if (row.driftFromLog.exact) driftsAttributed++
  }
  const bumpsAttributed = bumps.reduce((n, r) => n + (r.metadataLog?.attributed ?? 0), 0)
  return {...log.source, groupsDrifting: groups.length, driftsAttributed, bumpsAttributed}
}
