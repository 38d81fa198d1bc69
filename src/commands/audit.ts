import {Flags} from '@oclif/core'
import {closeSync, fsyncSync, openSync, renameSync, writeSync} from 'node:fs'
import {dirname, basename, join} from 'node:path'
import {BaseCommand, EXIT} from '../base-command.js'
import {auditContext, auditGroup, type FindingKind, type GroupAudit, groupMatcher, isDeleted, parseFailOn, parseTypes, summarize} from '../core/audit/audit.js'
import {type AuditDocument, auditDocument, ndjsonLines, prometheusText, renderAuditTable, summaryLine} from '../core/audit/output.js'
import {InputError, RuntimeError} from '../core/errors.js'
import {groupTypeOf} from '../core/replay/index.js'
import {parseDuration} from '../core/time.js'
import {parseRetention} from '../history/format.js'
import {defaultHistoryDir, HISTORY_DIR_ENV, recordHistory} from '../history/store.js'
import {inFlightReassignments} from '../sources/reassignments.js'
import {ENV} from '../config/client-config.js'
import {connectionFlags} from '../kafka/flags.js'
import {withKafka} from '../kafka/session.js'
import {startProgress} from '../render/progress.js'
import {scanOffsets} from '../sources/audit-scan.js'

export default class Audit extends BaseCommand<typeof Audit> {
  static override summary = 'Every group in one pass: metadata-hash drift, pending assignments, stuck members; exit codes for cron.'
  static override description = `Reads every __consumer_offsets partition from its leader (read-only: ListOffsets and Fetch, no group
joined), replays every group as the coordinator does, hashes each topic of the live metadata once, and reports per
group: stored vs live metadata hash (drift, and the topic or broker change that explains it), target assignment
behind the group epoch (pending), members reconciling longer than --stuck-after (stuck), subscribed topics that do
not exist (missing-topics), records of unknown types or versions (unknown-records), partition reassignments in
flight on subscribed topics (reassignment: REASSIGNMENT_IN_FLIGHT, the group bumps when they complete). Offset
commits are skipped.
An empty group's drift is reported but is no finding (nothing rebalances until a member joins).

--group takes a glob (* ? [abc], whole id) or a regular expression between slashes (/^orders-/i, searched).

HISTORY: each audit records the cluster's per-topic metadata (id, partitions, replica racks, topic hash),
brokers' racks and each audited group's stored hash and epoch, in
$XDG_STATE_HOME/rebalance-doctor/history/<cluster id>/ (default ~/.local/state/...; --history-dir or
${HISTORY_DIR_ENV} override it) as checksummed NDJSON day segments; --no-record turns it off.
\`group explain\` uses it to name past metadata changes exactly.

--json prints {schema: "rebalance-doctor/audit-v1", summary, groups: [...]}; --ndjson one object per group per line
and a last summary line; --prometheus FILE writes node_exporter textfile metrics atomically (see README).

EXIT CODES: 0 no findings; 3 findings of the kinds in --fail-on (default all: drift, pending, stuck,
missing-topics, unknown-records, reassignment; "none" never); 1 runtime or Kafka error; 2 usage error.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> -b localhost:9092',
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --type consumer,share --group "orders-*" --fail-on drift,stuck',
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --ndjson --prometheus /var/lib/node_exporter/textfile/rebalance_doctor.prom',
  ]

  static override flags = {
    ...connectionFlags,
    timeout: Flags.integer({
      summary: 'Give up after this many milliseconds (the whole audit; default 10 minutes).',
      description: `Env: ${ENV.auditTimeout} (not ${ENV.timeout}, which the interactive commands read).`,
      env: ENV.auditTimeout,
      default: 600_000,
      min: 1,
      helpGroup: 'CONNECTION',
      helpValue: 'MS',
    }),
    type: Flags.string({summary: 'Only these group types: consumer, share, streams, classic (comma list).', helpValue: 'TYPES'}),
    group: Flags.string({summary: 'Only groups whose id matches: a glob (orders-*) or /regex/flags.', helpValue: 'PATTERN'}),
    'stuck-after': Flags.string({summary: 'A member reconciling longer than this is stuck (duration, default 5m).', default: '5m', helpValue: 'DURATION'}),
    'fail-on': Flags.string({summary: 'Findings that make the exit code 3: all, none, or a list of drift,pending,stuck,missing-topics,unknown-records,reassignment.', default: 'all', helpValue: 'KINDS'}),
    all: Flags.boolean({summary: 'Table: list every group, not only those with findings or not in sync.'}),
    ndjson: Flags.boolean({summary: 'One JSON object per group per line, then a summary line (for log pipelines).', exclusive: ['json']}),
    prometheus: Flags.string({summary: "Also write metrics in Prometheus text format to FILE (node_exporter's textfile collector), atomically.", helpValue: 'FILE'}),
    record: Flags.boolean({summary: 'Record this audit in the history (default; --no-record to skip).', default: true, allowNo: true, helpGroup: 'HISTORY'}),
    'history-dir': Flags.string({summary: 'History directory.', description: `Env: ${HISTORY_DIR_ENV}. Default $XDG_STATE_HOME/rebalance-doctor/history or ~/.local/state/rebalance-doctor/history.`, env: HISTORY_DIR_ENV, helpValue: 'DIR', helpGroup: 'HISTORY'}),
    'history-retention': Flags.string({summary: 'Delete history older than this (h, d, w).', default: '30d', helpValue: 'DURATION', helpGroup: 'HISTORY'}),
    concurrency: Flags.integer({summary: 'Partitions read at the same time.', default: 4, min: 1, max: 64, helpValue: 'N'}),
  }

  async run(): Promise<AuditDocument> {
    const {flags} = this
    // the core's parsers throw plain errors naming the value; here they become usage errors with what to give
    const usage = <T>(f: () => T, hint: string, code: string): T => {
      try {
        return f()
      } catch (error) {
        throw new InputError((error as Error).message, hint, code)
      }
    }
    const failOn: FindingKind[] = usage(() => parseFailOn(flags['fail-on']), 'For example --fail-on drift,stuck; --fail-on none never exits 3.', 'BAD_FAIL_ON')
    const types = flags.type ? usage(() => parseTypes(flags.type!), 'Give a comma list of consumer, share, streams, classic.', 'BAD_GROUP_TYPE') : undefined
    const match = usage(() => groupMatcher(flags.group), 'Give a glob over the whole group id (orders-*) or /regex/flags.', 'BAD_GROUP_PATTERN')
    const retentionMs = usage(() => parseRetention(flags['history-retention']), 'Give hours, days or weeks: 48h, 30d, 12w.', 'BAD_RETENTION')
    const started = Date.now()
    const stuckAfterMs = parseDuration(flags['stuck-after'], 'stuck-after')
    const quiet = this.jsonEnabled() || flags.ndjson
    const progress = await startProgress('reading __consumer_offsets', !quiet)

    const {rows, summary, historyNote} = await withKafka(flags, {debug: flags.debug, warn: m => this.warn(m)}, async client => {
      const [scan, live, reassignments] = await Promise.all([
        scanOffsets(client, {
          concurrency: flags.concurrency,
          acceptGroup: match,
          onProgress: (done, total, records) => progress.update(`reading __consumer_offsets: ${done}/${total} partitions, ${records} records`),
        }),
        client.clusterMetadata(),
        inFlightReassignments(client, m => this.warn(m)),
      ])
      progress.update(`auditing ${scan.groups.size} groups`)
      const ctx = auditContext(live, started, stuckAfterMs, reassignments)
      const rows: GroupAudit[] = []
      let deleted = 0
      for (const [id, replay] of [...scan.groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (isDeleted(replay)) {
          deleted++
          continue
        }
        const type = groupTypeOf(replay.state)
        if (types && (!type || !types.has(type))) continue
        rows.push(auditGroup(id, replay, ctx))
      }
      const clusterId = live.clusterId ?? null
      const summary = summarize(rows, {partitions: scan.partitions, recordsScanned: scan.recordsScanned, decodeErrors: scan.decodeErrors, durationMs: Date.now() - started, deletedGroupsSkipped: deleted}, failOn, clusterId, started)
      let historyNote: string | undefined
      if (flags.record) {
        try {
          const groups = new Map(rows.filter(r => r.type && r.type !== 'classic' && r.groupEpoch !== null && r.storedMetadataHash !== null).map(r => [r.group, {type: r.type!, epoch: r.groupEpoch!, hash: r.storedMetadataHash!}]))
          const dir = flags['history-dir'] ?? defaultHistoryDir()
          const res = recordHistory({dir, retentionMs, now: started}, clusterId ?? 'unknown-cluster', live, groups, ctx.hasher)
          historyNote = `history: ${res.full ? 'new segment' : 'appended'} ${res.file} (${res.topicsWritten} topics, ${res.groupsWritten} groups changed)${res.expired.length ? `; expired ${res.expired.length} segment(s)` : ''}`
        } catch (error) {
          throw new RuntimeError(`could not record the audit history: ${(error as Error).message}`, 'Check --history-dir is writable, or run with --no-record.', 'HISTORY_WRITE')
        }
      }
      return {rows, summary, historyNote}
    }).finally(() => progress.stop())

    if (flags.prometheus) writeAtomically(flags.prometheus, prometheusText(summary, rows))
    if (flags.ndjson) process.stdout.write(ndjsonLines(summary, rows))
    else if (!this.jsonEnabled()) {
      const table = renderAuditTable(rows, {all: flags.all})
      if (table) this.log(table)
      this.log(summaryLine(summary))
    }
    if (historyNote && !quiet) process.stderr.write(`${historyNote}\n`)
    if (summary.exitCode === 3) process.exitCode = EXIT.finding
    return auditDocument(summary, rows)
  }
}

/** temp file in the same directory + fsync + rename: the collector never reads a half-written file. */
function writeAtomically(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.tmp-${process.pid}`)
  try {
    const fd = openSync(tmp, 'w', 0o644)
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, file)
  } catch (error) {
    throw new RuntimeError(`could not write ${file}: ${(error as Error).message}`, 'Check the directory exists and is writable.', 'PROMETHEUS_WRITE')
  }
}
