/**
 * `audit` read describe-only (READ on `__consumer_offsets` refused, or --describe-only): each row is made from
 * `group explain`'s describe-only report of the group (explainDescribed), so the verdict and its findings are
 * explain's own; what only the records give (the stored hash and so drift, how long a member has reconciled and so
 * stuck, unknown records, the reassignments' bump) is left null or empty, and the row says so in `reading`. Pure.
 */
import type {Denial, GroupRefusal} from '../errors.js'
import {describeOnlyReading, type ExplainReport, type Reading} from '../explain/explain.js'
import {noCost} from './cost.js'
import {type AuditSummary, type FindingKind, type GroupAudit, type ScanStats, summarize} from './audit.js'

/** What the summary's `reading` says the records would add to a describe-only audit. */
const AUDIT_MISSING = 'stored metadata hash (drift), how long members have reconciled (stuck), unknown records, the reassignments and the history'

/** The audit row of a group from its describe-only explain report. */
export function describedAuditRow(report: ExplainReport): GroupAudit {
  const missing = report.topics.filter(t => !t.exists).map(t => t.name)
  const assignmentPending = report.findings.some(f => f.code === 'ASSIGNMENT_PENDING')
  const findings: FindingKind[] = []
  if (assignmentPending) findings.push('pending')
  if (missing.length > 0) findings.push('missing-topics')
  return {
    group: report.group,
    type: report.type,
    verdict: report.verdict,
    groupEpoch: report.groupEpoch,
    assignmentEpoch: report.assignmentEpoch,
    storedMetadataHash: null,
    liveMetadataHash: report.liveMetadataHash,
    rules: null,
    inSync: null,
    drift: [],
    topics: report.topics.map(t => t.name),
    missingTopics: missing,
    members: report.members.length,
    membersReconciling: report.members.filter(m => m.reconciling).length,
    // the describe does not say since when a member reconciles: "stuck" is never claimed (the verdict says so)
    stuckMembers: [],
    stuckAfter: report.stuckAfter,
    assignmentPending,
    unknownRecords: 0,
    reassignments: [],
    lastEpochTime: null,
    findings,
    ...(report.reading ? {reading: report.reading} : {}),
    cost: noCost('describe-only'),
  }
}

/**
 * The summary of a describe-only pass: no partition read, `reading` naming the refusal (or the flag) and the grant;
 * `filtered` (--group or --type given) with no group is exit 4, as in a pass over the records. A group whose describe
 * was refused is listed in `refused` and makes it exit 1, findings or not: the audit is incomplete, as `group explain
 * --all` and `impact` say it.
 */
export function describedSummary(
  rows: readonly GroupAudit[],
  stats: Pick<ScanStats, 'durationMs'>,
  o: {failOn: readonly FindingKind[]; clusterId: string | null; startedAt: number; filtered: boolean; denial?: Denial; refused?: readonly GroupRefusal[]},
): AuditSummary & {reading: Reading} {
  const summary = summarize(rows, {partitions: 0, recordsScanned: 0, decodeErrors: 0, durationMs: stats.durationMs}, o.failOn, o.clusterId, o.startedAt)
  if (rows.length === 0 && o.filtered) summary.exitCode = 4
  const refused = o.refused ?? []
  if (refused.length > 0) summary.exitCode = 1
  return {...summary, reading: describeOnlyReading(o.denial, AUDIT_MISSING), ...(refused.length > 0 ? {refused: [...refused]} : {})}
}
