import {basename} from 'node:path'
import {summarize} from '../core/audit/audit.js'
import {type AuditDocument, auditDocument, ndjsonLines} from '../core/audit/output.js'
import {SCHEMAS} from '../core/documents.js'
import {InputError} from '../core/errors.js'
import {AUDIT_DESCRIPTION, auditFlags, auditSettingsOf} from '../cli/audit-flags.js'
import {HISTORY_DIR_ENV} from '../history/store.js'
import {EXIT} from '../cli/base-command.js'
import {LiveCommand} from '../cli/live-command.js'
import {styleOf} from '../cli/style-flags.js'
import {printBumps, printRevisions, printStuck} from '../io/watch-loop.js'
import {type AuditOutcome, auditOnce} from '../operations/audit/once.js'
import {writePrometheusFailure} from '../operations/audit/prometheus.js'
import {watchAudit} from '../operations/audit/watch.js'
import {auditNotices} from '../render/audit-notices.js'
import {terminalSafeJson} from '../render/terminal.js'
import {print} from '../io/stdout.js'

export default class Audit extends LiveCommand<typeof Audit> {
  static override schema = SCHEMAS.audit
  static override summary = 'Every group in one pass: hash drift, pending assignments, stuck members.'
  static override description = AUDIT_DESCRIPTION
  static override examples = [
    '<%= config.bin %> <%= command.id %> -b localhost:9092',
    '<%= config.bin %> <%= command.id %> -b kafka:9092 --group "orders-*" --fail-on stuck',
    '<%= config.bin %> <%= command.id %> -b kafka:9092 --prometheus /var/lib/textfile/rd.prom',
  ]
  static override flags = auditFlags

  async run(): Promise<AuditDocument> {
    const started = Date.now()
    try {
      return await this.audit(started)
    } catch (error) {
      // a run that fails before its pass (a usage error) replaces the --prometheus file with its failure too
      // (a failing pass has written it with the cluster id it read: auditOnce, watchAudit)
      const file = this.flags.prometheus
      if (file && !this.passStarted) {
        const failed = writePrometheusFailure({file, series: {fileName: basename(file)}}, error, started, undefined)
        if (failed) this.report(`Error: could not write ${file}: ${failed}`)
      }
      throw error
    }
  }

  /** Set when the pass (or the watch) starts: from then on, the operation writes a failure's --prometheus file. */
  private passStarted = false

  private async audit(started: number): Promise<AuditDocument> {
    const {flags} = this
    if (flags.quiet && (this.jsonEnabled() || flags.ndjson || flags.watch !== undefined)) {
      throw new InputError(
        '--quiet cannot be used with --json, --ndjson, -o json|yaml or --watch',
        'Drop --quiet: those outputs are for programs, which ignore what they do not need; --quiet is for the table in cron.',
      )
    }
    const {settings, prometheus} = auditSettingsOf(flags)
    // a wrong directory is a usage error before anything is read from the cluster
    if (flags['metadata-log']) await (await import('../sources/metadata-log.js')).listMetadataLog(flags['metadata-log'])
    this.passStarted = true
    if (flags.watch !== undefined) {
      const ndjson = flags.ndjson
      await watchAudit(
        this.session,
        settings,
        {
          interval: flags.watch,
          version: this.config.version,
          // on disk only with the history on and every group (a --group checkpoint lacks the others)
          persistCheckpoints: flags.record && flags.group === undefined,
          prometheus,
          filters: this.filters(),
          debug: flags.debug,
          describeOnly: flags['describe-only'],
        },
        {
          bumps: e => printBumps(e, ndjson),
          revisions: e => printRevisions(e, ndjson),
          stuck: (e, now) => printStuck(e, ndjson, now),
          passEnded: () => void (this.warnings.length = 0),
        },
      )
      const empty = summarize([], {partitions: 0, recordsScanned: 0, decodeErrors: 0, durationMs: Date.now() - started}, settings.failOn, null, started)
      return auditDocument(empty, [], this.warnings)
    }
    const quiet = this.jsonEnabled() || flags.ndjson
    const outcome = await auditOnce(this.session, settings, {
      started,
      quiet: quiet || flags.quiet,
      incremental: flags.incremental,
      version: this.config.version,
      prometheus,
      describeOnly: flags['describe-only'],
    })
    await this.print(outcome, quiet)
    this.exitWith(outcome.summary.exitCode)
    return auditDocument(outcome.summary, outcome.rows, this.warnings)
  }

  /** The table, the summary line and the notes (stderr); --ndjson's lines. */
  private async print(outcome: AuditOutcome, quiet: boolean): Promise<void> {
    const {rows, summary, historyFailed} = outcome
    const {flags} = this
    const {history, prometheus} = summary
    if (historyFailed && 'error' in history)
      this.addWarning('HISTORY_NOT_WRITTEN', `the audit history could not be written to ${history.dir}: ${history.error}`)
    if (prometheus && !prometheus.written) this.addWarning('PROMETHEUS_NOT_WRITTEN', `could not write ${prometheus.file}: ${prometheus.error}`)
    // --quiet: a run with nothing to say prints nothing (warnings were printed on stderr as they came)
    const silent = flags.quiet && summary.exitCode === EXIT.ok
    if (flags.ndjson) print(terminalSafeJson(ndjsonLines(summary, rows, this.warnings)))
    else if (!this.jsonEnabled() && !silent) {
      // loaded for a table only (cli-table3, colours): a cron job's --json run does without it
      const [{renderAuditTable, summaryLine}, {wrapProse}] = await Promise.all([import('../render/audit.js'), import('../render/table.js')])
      const style = styleOf(flags)
      const table = renderAuditTable(rows, {all: flags.all}, style)
      if (table) this.logRendered(table)
      this.log(wrapProse(summaryLine(summary), style.width ?? 0, 2))
    }
    for (const n of auditNotices(outcome, {notes: !quiet && !silent, filters: this.filters(), historyDirEnv: HISTORY_DIR_ENV}))
      if (n.report) this.report(n.text)
      else this.note(n.text)
  }

  private filters(): string {
    const {group, type} = this.flags
    return [group === undefined ? '' : `--group ${group.text}`, type === undefined ? '' : `--type ${[...type].join(',')}`].filter(Boolean).join(' ')
  }
}
