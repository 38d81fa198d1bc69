/**
 * audit's machine outputs, all pure: the --json document, --ndjson lines and the Prometheus text exposition
 * format (node_exporter textfile collector). The human table and summary line are in src/render/audit.ts.
 *
 * JSON document (schema {name: "rebalance-doctor/audit", version: 1}; 64-bit values as decimal strings):
 *   {schema, summary: AuditSummary, groups: GroupAudit[], warnings}
 * NDJSON: one line per group: {"schema":{"name":"rebalance-doctor/audit-group","version":1},"time":…,"clusterId":…, ...GroupAudit},
 *   then one last line {"schema":{"name":"rebalance-doctor/audit-summary","version":1}, ...AuditSummary, "warnings":[…]}.
 */
import {type Document, SCHEMAS, toDocument, type Warning} from '../documents.js'
import {type AuditSummary, FINDING_KINDS, RECORDS_ONLY_FINDINGS, type RowFacts} from './audit.js'
import {type AuditRow, StoredRow} from './stored-row.js'
import type {AuditCost} from './cost.js'

/** (groups: rows read back from a checkpoint are StoredRows, whose JSON is the row's: json-stream.ts writes their text as read) */
export type AuditDocument = Document<{summary: AuditSummary; groups: AuditRow[]}>

export function auditDocument(summary: AuditSummary, groups: AuditRow[], warnings: readonly Warning[] = []): AuditDocument {
  return toDocument(SCHEMAS.audit, {summary, groups}, warnings)
}

/** One line per group (schema, time and cluster first), then the summary line, which carries the warnings. */
export function ndjsonLines(summary: AuditSummary, groups: readonly AuditRow[], warnings: readonly Warning[] = []): string {
  const out: string[] = []
  // each row's JSON spliced after the head: the line JSON.stringify({...head, ...row}) gives (a row has none of the
  // head's keys), and a row read back from a checkpoint is not parsed for it
  const head = JSON.stringify({schema: SCHEMAS.auditGroup, time: summary.time, clusterId: summary.clusterId}).slice(0, -1)
  for (const g of groups) out.push(`${head},${(g instanceof StoredRow ? g.jsonText() : JSON.stringify(g)).slice(1)}`)
  out.push(JSON.stringify(toDocument(SCHEMAS.auditSummary, summary, warnings)))
  return `${out.join('\n')}\n`
}

// ---------------------------------------------------------------- Prometheus text format

/** Label value escaping of the text exposition format: backslash, double quote, line feed. */
export function escapeLabel(v: string): string {
  return v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')
}

/** A label set rendered once (k="v",… escaped, without cluster_id): a group's is shared by its ten series. */
function labels(l: Record<string, string>): string {
  return Object.entries(l)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',')
}

interface Metric {
  name: string
  help: string
  type: 'gauge' | 'counter'
  samples: Array<[Record<string, string> | string, number]>
}

/**
 * Metrics (gauges, and one counter). Every sample carries `cluster_id` (the cluster id of the run; "" when the cluster reports
 * none): one label set across runs, so a failed run replaces the series of the last good one instead of leaving
 * them beside new ones; then the --prometheus-label labels; then, only while no cluster id is known, `file` (the
 * file's name: two files in one textfile directory never hold the same series). Per group labels {…, group, type}:
 *   rebalance_doctor_group_metadata_hash_in_sync   1 stored = live metadata hash, 0 drift (groups with a hash, and
 *                                                   groups under Kafka 4.0's rules: stored = live subscription metadata)
 *   rebalance_doctor_group_epoch                    group epoch (classic: generation)
 *   rebalance_doctor_group_epoch_timestamp_seconds  time of the last group epoch record (the last bump)
 *   rebalance_doctor_group_assignment_epoch         target assignment epoch
 *   rebalance_doctor_group_assignment_pending       1 when the assignment epoch is behind the group epoch
 *   rebalance_doctor_group_members                  members
 *   rebalance_doctor_group_lag                      total lag: log end − committed offset summed over the committed
 *                                                   partitions (kafka-consumer-groups' LAG); consumer, classic and
 *                                                   streams groups whose offsets were read
 *   rebalance_doctor_group_members_reconciling      members not yet at the target assignment
 *   rebalance_doctor_group_members_stuck            members reconciling longer than --stuck-after
 *   rebalance_doctor_group_missing_topics           subscribed topics that do not exist
 *   rebalance_doctor_group_unknown_records          records of unknown types or versions skipped
 *   rebalance_doctor_group_last_rebalance_convergence_seconds  the last bump's time to converge (when it converged)
 *   rebalance_doctor_group_last_rebalance_not_converged         1 while the last bump has not converged, else 0
 *   rebalance_doctor_group_last_rebalance_not_converged_seconds audit time − the last bump's time, while not converged
 *   rebalance_doctor_group_last_rebalance_unowned_partition_seconds  its partition-seconds without an owner
 *   rebalance_doctor_group_last_rebalance_partitions_moved     partitions (tasks) it moved
 *   rebalance_doctor_group_partitions_moved_total (counter)    partitions moved over the bumps of the records read
 *                                                   (the cost series: only groups whose row has a cost, cost.ts)
 *   rebalance_doctor_group_verdict{group,type,verdict}  1 for the group's verdict code
 *   rebalance_doctor_group_describe_only            1 when the group was read from its describe (no records), else 0;
 *                                                   then the series that need the records (in_sync, epoch timestamp,
 *                                                   members_stuck, unknown_records) are absent for it, not 0
 *   rebalance_doctor_audit_groups{type}             groups audited per type
 *   rebalance_doctor_audit_groups_with_finding{finding}  groups per finding kind (a describe-only audit: only the
 *                                                   kinds that can be seen without the records)
 *   rebalance_doctor_audit_describe_only            1 when this audit was read describe-only
 *   rebalance_doctor_audit_groups_refused           groups listed but left out, their describe refused (describe-only)
 *   rebalance_doctor_audit_records_scanned, rebalance_doctor_audit_decode_errors, rebalance_doctor_audit_duration_seconds,
 *   rebalance_doctor_audit_last_run_timestamp_seconds, rebalance_doctor_audit_exit_code,
 *   rebalance_doctor_history_write_failed, rebalance_doctor_up (1: this run read the cluster; see prometheusFailureText)
 */
export function prometheusText(summary: AuditSummary, groups: readonly RowFacts[], options: {historyWriteFailed?: boolean} & SeriesOptions = {}): string {
  const metrics: Metric[] = []
  const gauge = (name: string, help: string, samples: Metric['samples']) => metrics.push({name: `rebalance_doctor_${name}`, help, type: 'gauge', samples})
  const groupLabels = groups.map(g => labels({group: g.group, type: g.type ?? 'unknown'}))
  const per = (pick: (g: RowFacts) => number | null | undefined) => {
    const out: Metric['samples'] = []
    groups.forEach((g, i) => {
      const v = pick(g)
      if (v !== null && v !== undefined) out.push([groupLabels[i], v])
    })
    return out
  }
  // a group read describe-only has no records: a 0 there would claim "none found" where nothing was looked at
  const fromRecords = (pick: (g: RowFacts) => number | null | undefined) => per(g => (g.reading ? null : pick(g)))
  gauge('up', UP_HELP, [[{}, 1]])
  gauge(
    'group_metadata_hash_in_sync',
    'Stored metadata hash equals the hash of the live metadata (1) or not (0); under Kafka 4.0 rules (no hash), the stored subscription metadata equals live metadata.',
    per(g => (g.inSync === null ? null : g.inSync ? 1 : 0)),
  )
  gauge(
    'group_epoch',
    'Group epoch (classic groups: generation); changes() counts its bumps.',
    per(g => g.groupEpoch),
  )
  gauge(
    'group_epoch_timestamp_seconds',
    'Time of the last group epoch record seen in __consumer_offsets (the last bump), Unix time.',
    fromRecords(lastEpochSeconds),
  )
  gauge(
    'group_assignment_epoch',
    'Target assignment epoch.',
    per(g => g.assignmentEpoch),
  )
  gauge(
    'group_assignment_pending',
    'The target assignment epoch is behind the group epoch.',
    per(g => (g.type === 'classic' ? null : g.assignmentPending ? 1 : 0)),
  )
  gauge(
    'group_members',
    'Members of the group.',
    per(g => g.members),
  )
  gauge(
    'group_lag',
    "Total lag: log end offset minus committed offset, summed over the group's committed partitions (kafka-consumer-groups' LAG column).",
    per(g => (g.lag && g.lag.error === null ? Number(g.lag.totalLag) : null)),
  )
  gauge(
    'group_members_reconciling',
    'Members not yet at the target assignment.',
    per(g => g.membersReconciling),
  )
  gauge(
    'group_members_stuck',
    'Members reconciling longer than --stuck-after.',
    fromRecords(g => g.stuckMembers.length),
  )
  gauge(
    'group_missing_topics',
    'Subscribed topics that do not exist.',
    per(g => g.missingTopics.length),
  )
  gauge(
    'group_unknown_records',
    'Records of unknown types or versions skipped.',
    fromRecords(g => g.unknownRecords),
  )
  gauge(
    'group_describe_only',
    'The group was read from its describe, without its records (READ on __consumer_offsets refused, or --describe-only): 1, else 0.',
    per(g => (g.reading ? 1 : 0)),
  )
  costSeries(metrics, groups, groupLabels, Date.parse(summary.time))
  gauge(
    'group_verdict',
    "The group's verdict code (1 for the current one).",
    groups.map((g, i) => [`${groupLabels[i]},${labels({verdict: g.verdict.code})}`, 1]),
  )
  auditSeries(gauge, summary, options.historyWriteFailed === true)
  return exposition(metrics, seriesLabels(summary.clusterId, options))
}

/**
 * What the last rebalance of each group cost (cost.ts), for the groups whose row has it: a group resumed from a
 * checkpoint, read describe-only or without a bump has none of these series (nothing measured is not 0).
 */
function costSeries(metrics: Metric[], groups: readonly RowFacts[], groupLabels: readonly string[], auditMs: number): void {
  const costs = groups.map(costOfRow)
  const per = (pick: (c: AuditCost) => number | null | undefined) => {
    const out: Metric['samples'] = []
    costs.forEach((c, i) => {
      const v = c && pick(c)
      if (v !== null && v !== undefined) out.push([groupLabels[i], v])
    })
    return out
  }
  const measured = (c: AuditCost) => c.last !== null && c.last.status !== 'not-measured'
  const add = (name: string, type: Metric['type'], help: string, samples: Metric['samples']) =>
    metrics.push({name: `rebalance_doctor_${name}`, help, type, samples})
  add(
    'group_last_rebalance_convergence_seconds',
    'gauge',
    'Time the last rebalance (group epoch bump) took to converge: from its epoch record to the record after which every member was at the new assignment with nothing pending revocation (record timestamps). Consumer and streams groups whose last rebalance converged.',
    per(c => (c.last?.status === 'converged' ? c.last.afterMs! / 1000 : null)),
  )
  add(
    'group_last_rebalance_not_converged',
    'gauge',
    'The last rebalance has not converged as of the last record read (1), or has (0). Consumer and streams groups.',
    per(c => (measured(c) ? (c.last!.status === 'not-converged' ? 1 : 0) : null)),
  )
  add(
    'group_last_rebalance_not_converged_seconds',
    'gauge',
    'How long the last rebalance has not converged: the audit time minus its epoch record time. Only while it has not converged.',
    per(c => (c.last?.status === 'not-converged' ? Math.max(0, auditMs - c.last.atMs) / 1000 : null)),
  )
  add(
    'group_last_rebalance_unowned_partition_seconds',
    'gauge',
    'Partition-seconds without an owner in the last rebalance: for each moved partition (streams: active task), from the record where its old owner released it to the record where its new owner holds it (open gaps to the last record read).',
    per(c => (measured(c) ? c.last!.unownedPartitionMs / 1000 : null)),
  )
  add(
    'group_last_rebalance_partitions_moved',
    'gauge',
    'Partitions (streams: tasks) whose owner changed in the last rebalance.',
    per(c => c.last?.partitionsMoved),
  )
  add(
    'group_partitions_moved_total',
    'counter',
    "Partitions (streams: tasks) whose owner changed, summed over the group's rebalances in the records read; log compaction removes old records and so can lower it, which Prometheus takes as a counter reset.",
    per(c => c.total?.partitionsMoved),
  )
}

/** A row's cost (a row read back from a checkpoint is parsed for it: only for --prometheus); undefined in rows cached before costs were kept. */
function costOfRow(g: RowFacts): AuditCost | undefined {
  return 'cost' in g ? (g as {cost: AuditCost}).cost : g instanceof StoredRow ? g.row().cost : undefined
}

/** The audit's own series (not per group). */
function auditSeries(gauge: (name: string, help: string, samples: Metric['samples']) => void, summary: AuditSummary, historyWriteFailed: boolean): void {
  gauge(
    'audit_groups',
    'Groups audited, per type.',
    Object.entries(summary.byType)
      .sort()
      .map(([type, n]) => [{type}, n]),
  )
  gauge(
    'audit_groups_with_finding',
    'Groups with each kind of finding.',
    FINDING_KINDS.filter(k => !summary.reading || !RECORDS_ONLY_FINDINGS.includes(k)).map(k => [{finding: k}, summary.findings[k]]),
  )
  gauge('audit_describe_only', 'This audit was read from the describes, without __consumer_offsets (1), or from its records (0).', [
    [{}, summary.reading ? 1 : 0],
  ])
  // a group left out for a refused describe has no series of its own: this count keeps it from vanishing unseen
  gauge('audit_groups_refused', 'Groups listed but left out because their describe (or FindCoordinator) was refused (DESCRIBE on the group missing).', [
    [{}, summary.refused?.length ?? 0],
  ])
  gauge('audit_records_scanned', 'Records read from __consumer_offsets.', [[{}, summary.recordsScanned]])
  gauge('audit_decode_errors', 'Records of __consumer_offsets that could not be decoded.', [[{}, summary.decodeErrors]])
  gauge('audit_duration_seconds', DURATION_HELP, [[{}, summary.durationMs / 1000]])
  gauge('audit_last_run_timestamp_seconds', TIMESTAMP_HELP, [[{}, Date.parse(summary.time) / 1000]])
  gauge('audit_exit_code', EXIT_HELP, [[{}, summary.exitCode]])
  gauge('history_write_failed', '1 when this audit could not record its history (the report is still complete).', [[{}, historyWriteFailed ? 1 : 0]])
}

/** A row's lastEpochTime in seconds (a row read back from a checkpoint is parsed for it: only for --prometheus). */
function lastEpochSeconds(g: RowFacts): number | null {
  const t = 'lastEpochTime' in g ? (g as {lastEpochTime: string | null}).lastEpochTime : g instanceof StoredRow ? g.row().lastEpochTime : null
  const ms = t ? Date.parse(t) : Number.NaN
  return Number.isFinite(ms) ? ms / 1000 : null
}

/** Labels every series of a file carries besides cluster_id. */
export interface SeriesOptions {
  /** --prometheus-label k=v, in the order given (validated by parsePrometheusLabels). */
  labels?: ReadonlyArray<readonly [string, string]>
  /**
   * The file's name (not its directory): a label only when no cluster id is known, so that two files of runs that
   * never reached their clusters (cluster_id="") are never the same series set in one textfile directory.
   */
  fileName?: string
}

/** Label names the tool writes itself, which --prometheus-label may not set. */
export const RESERVED_LABELS = ['cluster_id', 'file', 'group', 'type', 'verdict', 'finding', 'code'] as const

/**
 * --prometheus-label values ("k=v") as pairs: a name as Prometheus allows ([a-zA-Z_][a-zA-Z0-9_]*, not __…), none
 * of the tool's own, each once; the value any text (escaped when written). Throws an Error naming the bad one.
 */
export function parsePrometheusLabels(list: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = []
  for (const item of list) {
    const eq = item.indexOf('=')
    const name = eq < 0 ? item : item.slice(0, eq)
    if (eq < 0) throw new Error(`--prometheus-label "${item}" is not NAME=VALUE`)
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) || name.startsWith('__'))
      throw new Error(`--prometheus-label "${item}": "${name}" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`)
    if ((RESERVED_LABELS as readonly string[]).includes(name))
      throw new Error(`--prometheus-label "${item}": the label ${name} is written by rebalance-doctor itself (${RESERVED_LABELS.join(', ')})`)
    if (out.some(([k]) => k === name)) throw new Error(`--prometheus-label ${name} given twice`)
    out.push([name, item.slice(eq + 1)])
  }
  return out
}

/** cluster_id first, then the user's labels, then file when no cluster id is known. */
function seriesLabels(clusterId: string | null | undefined, o: SeriesOptions): Array<readonly [string, string]> {
  const id = clusterId ?? ''
  return [['cluster_id', id], ...(o.labels ?? []), ...(id === '' && o.fileName ? [['file', o.fileName] as const] : [])]
}

const UP_HELP = 'The audit read the cluster and wrote its report (1), or failed (0: see rebalance_doctor_audit_exit_code and _error).'
const DURATION_HELP = 'Wall time of the audit.'
const TIMESTAMP_HELP = 'When the audit ran (Unix time).'
const EXIT_HELP =
  'The exit code of the audit (0 ok, 1 runtime or Kafka error, 2 usage error, 3 findings, 4 no group matched --group/--type, 5 history not written).'

export interface AuditFailure {
  /** The cluster id: of this run when it got that far, else of the previous file (previousClusterId), else "". */
  clusterId: string | null
  /** When the run started (ms since the epoch). */
  startedAt: number
  durationMs: number
  exitCode: number
  /** The error's code (CONNECTION_REFUSED, TIMEOUT, ...; UNEXPECTED when it has none). */
  errorCode: string
}

/**
 * The file of a run that failed before it had a report (connection refused, timeout, any error): up 0, the exit
 * code, the time of the run and the error code, so an alert on up, _exit_code or _last_run_timestamp_seconds fires.
 * The per-group series are left out (nothing was read); a stale value must not look current.
 */
export function prometheusFailureText(f: AuditFailure, options: SeriesOptions = {}): string {
  const metrics: Metric[] = []
  const gauge = (name: string, help: string, samples: Metric['samples']) => metrics.push({name: `rebalance_doctor_${name}`, help, type: 'gauge', samples})
  gauge('up', UP_HELP, [[{}, 0]])
  gauge('audit_error', '1 for the error code of the failed audit (written only when up is 0).', [[{code: f.errorCode}, 1]])
  gauge('audit_duration_seconds', DURATION_HELP, [[{}, f.durationMs / 1000]])
  gauge('audit_last_run_timestamp_seconds', TIMESTAMP_HELP, [[{}, f.startedAt / 1000]])
  gauge('audit_exit_code', EXIT_HELP, [[{}, f.exitCode]])
  return exposition(metrics, seriesLabels(f.clusterId, options))
}

/**
 * The cluster id of an earlier file (its first cluster_id label), so a run that fails before it learns the id
 * keeps the label set of the runs before it. Undefined when the text has none.
 */
export function previousClusterId(text: string): string | undefined {
  const m = /\bcluster_id="((?:[^"\\\n]|\\["\\n])*)"/.exec(text)
  if (!m) return undefined
  return m[1].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c))
}

function exposition(metrics: readonly Metric[], constant: ReadonlyArray<readonly [string, string]>): string {
  const lines: string[] = []
  const cluster = labels(Object.fromEntries(constant))
  for (const m of metrics) {
    lines.push(`# HELP ${m.name} ${m.help}`, `# TYPE ${m.name} ${m.type}`)
    for (const [l, v] of m.samples) {
      const rest = typeof l === 'string' ? l : labels(l)
      lines.push(`${m.name}{${cluster}${rest ? `,${rest}` : ''}} ${Number.isFinite(v) ? v : 'NaN'}`)
    }
  }
  return `${lines.join('\n')}\n`
}
