/** `audit` for humans: the table of groups (problems first) and the one-line summary. */
import {type AuditSummary, FINDING_KINDS, type GroupAudit} from '../core/audit/audit.js'
import {type AuditRow, fullRow} from '../core/audit/stored-row.js'
import {PLAIN, type Style, formatTime, paint, retime, verdictTone} from './style.js'
import {renderTable} from './table.js'
import {auditCostText} from './cost.js'

const short = (h: string | null) => (h === null ? '-' : h)

/** Verdicts the table leaves out without --all (nothing to act on); EPOCHS_IN_SYNC is IN_SYNC read describe-only. */
const QUIET_VERDICTS: ReadonlySet<string> = new Set(['IN_SYNC', 'EPOCHS_IN_SYNC', 'EMPTY_GROUP', 'CLASSIC_GROUP'])

/** The table: problems first, then by group id. */
/** Terminal-safe (cells are escaped before colour is added): a command prints it as it is. */
export function renderAuditTable(groups: readonly AuditRow[], options: {all?: boolean} = {}, style: Style = PLAIN): string {
  const rows = groups
    .filter(g => options.all || g.findings.length > 0 || !QUIET_VERDICTS.has(g.verdict.code))
    .sort((a, b) => b.findings.length - a.findings.length || a.group.localeCompare(b.group))
    // (only the rows shown are parsed when read back from a checkpoint)
    .map(fullRow)
    .map(g => [
      g.group,
      g.type ?? '-',
      g.verdict.code,
      g.groupEpoch ?? '-',
      g.assignmentEpoch ?? '-',
      g.inSync === null ? '-' : g.inSync ? 'yes' : 'NO',
      `${g.members}${g.membersReconciling ? ` (${g.membersReconciling} reconciling)` : ''}`,
      details(g, style),
    ])
  if (rows.length === 0) return ''
  return renderTable(
    ['GROUP', 'TYPE', 'VERDICT', 'EPOCH', 'ASSIGNED', 'IN SYNC', 'MEMBERS', 'DETAILS'],
    rows,
    ['left', 'left', 'left', 'right', 'right', 'left', 'left', 'left'],
    {
      width: style.width,
      paint: (col, text) => (col === 2 ? paint(text, verdictTone(text), style) : col === 5 && text === 'NO' ? paint(text, 'bad', style) : text),
    },
  )
}

function details(g: GroupAudit, style: Style): string {
  const parts: string[] = []
  if (g.inSync === false) {
    const log = g.driftFromLog
    if (log?.exact && log.changes?.length)
      parts.push(`drift (exact, from the metadata log): ${log.changes.map(c => `${c.description} (${formatTime(c.time, style)})`).join('; ')}`)
    else if (log?.exact) parts.push(`drift: ${log.message}`)
    else
      parts.push(
        g.rules === '4.0' && g.drift.length > 0
          ? `drift (exact, Kafka 4.0 subscription metadata): ${g.drift.map(d => d.description).join('; ')}`
          : g.drift.length > 0
            ? `drift${g.drift.length > 1 ? ', consistent with any of' : ', consistent with'}: ${g.drift.map(d => d.description).join('; or ')}`
            : `drift: stored ${short(g.storedMetadataHash)} ≠ live ${short(g.liveMetadataHash)}`,
      )
    if (log && !log.exact) parts.push(`metadata log: ${log.message}`)
  }
  if (g.assignmentPending) parts.push(`assignment epoch ${g.assignmentEpoch} behind group epoch ${g.groupEpoch}`)
  if (g.stuckMembers.length > 0) parts.push(`stuck: ${g.stuckMembers.map(m => stuckMember(m, style)).join('; ')}`)
  // (read describe-only: the describe does not say since when, so no member is called stuck)
  if (g.reading && g.membersReconciling > 0) parts.push('reconciling since when, and so stuck or not, needs READ on __consumer_offsets')
  if (g.missingTopics.length > 0) parts.push(`missing topics: ${g.missingTopics.join(', ')}`)
  if (g.unknownRecords > 0) parts.push(`${g.unknownRecords} unknown record(s)`)
  // (a row cached before costs were kept has none)
  const cost = g.cost && auditCostText(g.cost, g.type)
  if (cost) parts.push(cost)
  if (g.reassignments.length > 0)
    parts.push(
      `reassignment in flight: ${g.reassignments.map(r => `${r.topic} [${r.partitions.map(p => p.partition).join(',')}]${r.bumpOnCompletion ? ' (bumps again when it completes)' : ''}`).join(', ')}`,
    )
  return retime(parts.join('\n'), style)
}

/** "k1 (client c1 on /10.0.0.7) since T, blocks k2" — the member others wait on named as such. */
function stuckMember(m: GroupAudit['stuckMembers'][number], style: Style): string {
  const who = [m.clientId ? `client ${m.clientId}` : '', m.clientHost ? `on ${m.clientHost}` : ''].filter(Boolean).join(' ')
  return `${m.memberId}${who ? ` (${who})` : ''}${m.state ? ` ${m.state}` : ''}${m.since ? ` since ${formatTime(m.since, style)}` : ''}${m.blocking.length ? `, blocks ${m.blocking.join(', ')}` : ''}${m.waitingOn.length ? `, waits for ${m.waitingOn.join(', ')}` : ''}`
}

export function summaryLine(s: AuditSummary): string {
  const kinds = FINDING_KINDS.filter(k => s.findings[k] > 0).map(k => `${k} ${s.findings[k]}`)
  const types = Object.entries(s.byType)
    .sort()
    .map(([t, n]) => `${n} ${t}`)
    .join(', ')
  return [
    `${s.groups} group${s.groups === 1 ? '' : 's'}${types ? ` (${types})` : ''}${s.deletedGroupsSkipped ? `, ${s.deletedGroupsSkipped} deleted skipped` : ''}`,
    s.groupsWithFindings === 0 ? 'no findings' : `${s.groupsWithFindings} with findings: ${kinds.join(', ')}`,
    ...(s.decodeErrors > 0 ? [`${s.decodeErrors} undecodable record(s)`] : []),
    ...(s.refused ? [`${s.refused.length} refused (not reported): ${s.refused.map(r => r.group).join(', ')}`] : []),
    s.reading
      ? `read describe-only (${s.reading.reason}), ${(s.durationMs / 1000).toFixed(1)} s`
      : `${s.recordsScanned} records in ${s.partitions} partitions, ${(s.durationMs / 1000).toFixed(1)} s`,
    `exit ${s.exitCode}${s.failOn.length === 0 ? ' (--fail-on none)' : ''}`,
  ].join(' · ')
}
