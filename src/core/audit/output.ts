/**
 * audit outputs, all pure strings: the human table and summary line, the --json document, --ndjson lines and
 * the Prometheus text exposition format (node_exporter textfile collector).
 *
 * JSON document (schema "rebalance-doctor/audit-v1"; 64-bit values as decimal strings):
 *   {schema, summary: AuditSummary, groups: GroupAudit[]}
 * NDJSON: one line per group: {"schema":"rebalance-doctor/audit-group-v1","time":…,"clusterId":…, ...GroupAudit},
 *   then one last line {"schema":"rebalance-doctor/audit-summary-v1", ...AuditSummary}.
 */
import {renderTable} from '../../render/table.js'
import {type AuditSummary, FINDING_KINDS, type GroupAudit} from './audit.js'

export const AUDIT_SCHEMA = 'rebalance-doctor/audit-v1'

export interface AuditDocument {
  schema: typeof AUDIT_SCHEMA
  summary: AuditSummary
  groups: GroupAudit[]
}

export function auditDocument(summary: AuditSummary, groups: GroupAudit[]): AuditDocument {
  return {schema: AUDIT_SCHEMA, summary, groups}
}

export function ndjsonLines(summary: AuditSummary, groups: readonly GroupAudit[]): string {
  const out: string[] = []
  for (const g of groups) out.push(JSON.stringify({schema: 'rebalance-doctor/audit-group-v1', time: summary.time, clusterId: summary.clusterId, ...g}))
  out.push(JSON.stringify({schema: 'rebalance-doctor/audit-summary-v1', ...summary}))
  return `${out.join('\n')}\n`
}

const short = (h: string | null) => (h === null ? '-' : h)

/** The table: problems first, then by group id. */
export function renderAuditTable(groups: readonly GroupAudit[], options: {all?: boolean} = {}): string {
  const rows = [...groups]
    .filter(g => options.all || g.findings.length > 0 || (g.verdict.code !== 'IN_SYNC' && g.verdict.code !== 'EMPTY_GROUP' && g.verdict.code !== 'CLASSIC_GROUP'))
    .sort((a, b) => b.findings.length - a.findings.length || a.group.localeCompare(b.group))
    .map(g => [
      g.group,
      g.type ?? '-',
      g.verdict.code,
      g.groupEpoch ?? '-',
      g.assignmentEpoch ?? '-',
      g.inSync === null ? '-' : g.inSync ? 'yes' : 'NO',
      `${g.members}${g.membersReconciling ? ` (${g.membersReconciling} reconciling)` : ''}`,
      details(g),
    ])
  if (rows.length === 0) return ''
  return renderTable(['GROUP', 'TYPE', 'VERDICT', 'EPOCH', 'ASSIGNED', 'IN SYNC', 'MEMBERS', 'DETAILS'], rows, ['left', 'left', 'left', 'right', 'right', 'left', 'left', 'left'])
}

function details(g: GroupAudit): string {
  const parts: string[] = []
  if (g.inSync === false) {
    parts.push(g.drift.length > 0 ? `drift${g.drift.length > 1 ? ', consistent with any of' : ', consistent with'}: ${g.drift.map(d => d.description).join('; or ')}` : `drift: stored ${short(g.storedMetadataHash)} ≠ live ${short(g.liveMetadataHash)}`)
  }
  if (g.assignmentPending) parts.push(`assignment epoch ${g.assignmentEpoch} behind group epoch ${g.groupEpoch}`)
  if (g.stuckMembers.length > 0) parts.push(`stuck: ${g.stuckMembers.map(m => `${m.memberId}${m.since ? ` since ${m.since}` : ''}`).join(', ')}`)
  if (g.missingTopics.length > 0) parts.push(`missing topics: ${g.missingTopics.join(', ')}`)
  if (g.unknownRecords > 0) parts.push(`${g.unknownRecords} unknown record(s)`)
  if (g.reassignments.length > 0) parts.push(`reassignment in flight: ${g.reassignments.map(r => `${r.topic} [${r.partitions.map(p => p.partition).join(',')}]${r.bumpOnCompletion ? ' (bumps again when it completes)' : ''}`).join(', ')}`)
  return parts.join('\n')
}

export function summaryLine(s: AuditSummary): string {
  const kinds = FINDING_KINDS.filter(k => s.findings[k] > 0).map(k => `${k} ${s.findings[k]}`)
  const types = Object.entries(s.byType).sort().map(([t, n]) => `${n} ${t}`).join(', ')
  return [
    `${s.groups} group${s.groups === 1 ? '' : 's'}${types ? ` (${types})` : ''}${s.deletedGroupsSkipped ? `, ${s.deletedGroupsSkipped} deleted skipped` : ''}`,
    s.groupsWithFindings === 0 ? 'no findings' : `${s.groupsWithFindings} with findings: ${kinds.join(', ')}`,
    ...(s.decodeErrors > 0 ? [`${s.decodeErrors} undecodable record(s)`] : []),
    `${s.recordsScanned} records in ${s.partitions} partitions, ${(s.durationMs / 1000).toFixed(1)} s`,
    `exit ${s.exitCode}${s.failOn.length === 0 ? ' (--fail-on none)' : ''}`,
  ].join(' · ')
}

// ---------------------------------------------------------------- Prometheus text format

/** Label value escaping of the text exposition format: backslash, double quote, line feed. */
export function escapeLabel(v: string): string {
  return v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')
}

function labels(l: Record<string, string>): string {
  const entries = Object.entries(l)
  return entries.length ? `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}` : ''
}

interface Metric {
  name: string
  help: string
  type: 'gauge'
  samples: Array<[Record<string, string>, number]>
}

/**
 * Metrics (all gauges; per group labels {group, type}):
 *   rebalance_doctor_group_metadata_hash_in_sync   1 stored = live metadata hash, 0 drift (groups with a hash only)
 *   rebalance_doctor_group_epoch                    group epoch (classic: generation)
 *   rebalance_doctor_group_assignment_epoch         target assignment epoch
 *   rebalance_doctor_group_assignment_pending       1 when the assignment epoch is behind the group epoch
 *   rebalance_doctor_group_members                  members
 *   rebalance_doctor_group_members_reconciling      members not yet at the target assignment
 *   rebalance_doctor_group_members_stuck            members reconciling longer than --stuck-after
 *   rebalance_doctor_group_missing_topics           subscribed topics that do not exist
 *   rebalance_doctor_group_unknown_records          records of unknown types or versions skipped
 *   rebalance_doctor_group_verdict{group,type,verdict}  1 for the group's verdict code
 *   rebalance_doctor_audit_groups{type}             groups audited per type
 *   rebalance_doctor_audit_groups_with_finding{finding}  groups per finding kind
 *   rebalance_doctor_audit_records_scanned, rebalance_doctor_audit_decode_errors, rebalance_doctor_audit_duration_seconds,
 *   rebalance_doctor_audit_last_run_timestamp_seconds, rebalance_doctor_audit_exit_code
 */
export function prometheusText(summary: AuditSummary, groups: readonly GroupAudit[]): string {
  const metrics: Metric[] = []
  const gauge = (name: string, help: string, samples: Metric['samples']) => metrics.push({name: `rebalance_doctor_${name}`, help, type: 'gauge', samples})
  const per = (pick: (g: GroupAudit) => number | null | undefined) => {
    const out: Metric['samples'] = []
    for (const g of groups) {
      const v = pick(g)
      if (v !== null && v !== undefined) out.push([{group: g.group, type: g.type ?? 'unknown'}, v])
    }
    return out
  }
  gauge('group_metadata_hash_in_sync', 'Stored metadata hash equals the hash of the live metadata (1) or not (0).', per(g => (g.inSync === null ? null : g.inSync ? 1 : 0)))
  gauge('group_epoch', 'Group epoch (classic groups: generation).', per(g => g.groupEpoch))
  gauge('group_assignment_epoch', 'Target assignment epoch.', per(g => g.assignmentEpoch))
  gauge('group_assignment_pending', 'The target assignment epoch is behind the group epoch.', per(g => (g.type === 'classic' ? null : g.assignmentPending ? 1 : 0)))
  gauge('group_members', 'Members of the group.', per(g => g.members))
  gauge('group_members_reconciling', 'Members not yet at the target assignment.', per(g => g.membersReconciling))
  gauge('group_members_stuck', 'Members reconciling longer than --stuck-after.', per(g => g.stuckMembers.length))
  gauge('group_missing_topics', 'Subscribed topics that do not exist.', per(g => g.missingTopics.length))
  gauge('group_unknown_records', 'Records of unknown types or versions skipped.', per(g => g.unknownRecords))
  gauge('group_verdict', "The group's verdict code (1 for the current one).", groups.map(g => [{group: g.group, type: g.type ?? 'unknown', verdict: g.verdict.code}, 1]))
  gauge('audit_groups', 'Groups audited, per type.', Object.entries(summary.byType).sort().map(([type, n]) => [{type}, n]))
  gauge('audit_groups_with_finding', 'Groups with each kind of finding.', FINDING_KINDS.map(k => [{finding: k}, summary.findings[k]]))
  gauge('audit_records_scanned', 'Records read from __consumer_offsets.', [[{}, summary.recordsScanned]])
  gauge('audit_decode_errors', 'Records of __consumer_offsets that could not be decoded.', [[{}, summary.decodeErrors]])
  gauge('audit_duration_seconds', 'Wall time of the audit.', [[{}, summary.durationMs / 1000]])
  gauge('audit_last_run_timestamp_seconds', 'When the audit ran (Unix time).', [[{}, Date.parse(summary.time) / 1000]])
  gauge('audit_exit_code', 'The exit code of the audit (0 ok, 3 findings, 4 no group matched --group/--type, 5 history not written).', [[{}, summary.exitCode]])
  const lines: string[] = []
  for (const m of metrics) {
    lines.push(`# HELP ${m.name} ${m.help}`, `# TYPE ${m.name} ${m.type}`)
    for (const [l, v] of m.samples) lines.push(`${m.name}${labels(l)} ${Number.isFinite(v) ? v : 'NaN'}`)
  }
  return `${lines.join('\n')}\n`
}
