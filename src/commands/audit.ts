import * as Flags from '@oclif/core/flags'
import {EXIT} from '../cli/base-command.js'
import {LiveCommand} from '../cli/live-command.js'
import {type AuditSummary, auditContext, type FindingKind, parseFailOn, summarize} from '../core/audit/audit.js'
import {
  AuditPass,
  exitWithHistory,
  exitWithPrometheus,
  historyFailed as failedToRecord,
  historyGroups,
  type HistoryStatus,
  type IncrementalStatus,
  type PrometheusStatus,
} from '../core/audit/pass.js'
import {type AuditDocument, auditDocument, ndjsonLines, parsePrometheusLabels, prometheusText, type SeriesOptions} from '../core/audit/output.js'
import {basename} from 'node:path'
import {SCHEMAS} from '../core/documents.js'
import {asUsage, InputError} from '../core/errors.js'
import {durationFlag, groupPatternFlag, groupTypesFlag, retentionFlag, watchIntervalFlag} from '../cli/flag-types.js'
import {defaultHistoryDir, HISTORY_DIR_ENV, recordHistory} from '../history/store.js'
import {inFlightReassignments} from '../sources/reassignments.js'
import {ENV, MAX_TIMEOUT_MS} from '../config/client-config.js'
import {timeoutFlag} from '../cli/connection-flags.js'
import {describeWriteError, writeOutputFile} from '../io/atomic-file.js'
import {failureOf, writeFailureFile} from '../io/prometheus-file.js'
import {colorFlags, styleOf, timeFlags, outputFlags} from '../cli/output-flags.js'
import {forTerminal, terminalSafeJson} from '../render/terminal.js'
import {type CheckpointStore, checkpointStore, type MemoryCheckpointStore, memoryCheckpointStore} from '../sources/audit-checkpoint.js'
import {type BumpEvent, type BumpRevision, newBumpEvents, newStuckEvents, OpenBumps, orderBumps, PrintedBumps} from '../core/audit/watch.js'
import {explainGroup, type ExplainReport} from '../core/explain/explain.js'
import type {GroupType, ReplayResult} from '../core/replay/index.js'
import {annotateFromHistory, historyRacks, loadHistoryView} from '../history/index.js'
import {printBumps, printRevisions, printStuck, runWatch} from '../io/watch-loop.js'
import {checkpointErrorWarnings, fullReadWarnings} from '../render/partition-warnings.js'
import {scanOffsets} from '../sources/audit-scan.js'
import {rowCacheKey} from '../core/audit/row-cache.js'
import {type AuditRow, fullRow} from '../core/audit/stored-row.js'
import {withLag} from '../core/audit/lag.js'
import {readGroupLags} from '../sources/group-lag.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'
import type {AuditMetadataLog} from '../sources/metadata-log-audit.js'

export default class Audit extends LiveCommand<typeof Audit> {
  static override schema = SCHEMAS.audit
  static override summary = 'Every group in one pass: metadata-hash drift, pending assignments, stuck members; exit codes for cron.'
  static override description = `Reads every __consumer_offsets partition from its leader (read-only: ListOffsets and Fetch, no group
joined), replays every group as the coordinator does, hashes each topic of the live metadata once, and reports per
group: stored vs live metadata hash (drift, and the topic or broker change that explains it), target assignment
behind the group epoch (pending), members reconciling longer than --stuck-after (stuck), subscribed topics that do
not exist (missing-topics), records of unknown types or versions (unknown-records), partition reassignments in
flight on subscribed topics (reassignment: REASSIGNMENT_IN_FLIGHT, the group bumps when they complete). Offset
commits are skipped.
An empty group's drift is reported but is no finding (nothing rebalances until a member joins).

--group takes a glob (* ? [abc], whole id) or an RE2 regular expression between slashes (/^orders-/i, searched).

HISTORY: each audit records the cluster's per-topic metadata (id, partitions, replica racks, topic hash),
brokers' racks and each audited group's stored hash and epoch, in
$XDG_STATE_HOME/rebalance-doctor/history/<cluster id>/ (default ~/.local/state/...; --history-dir or
${HISTORY_DIR_ENV} override it) as checksummed NDJSON day segments; --no-record turns it off.
\`group explain\` uses it to name past metadata changes exactly.

--json prints {schema: {name: "rebalance-doctor/audit", version: 1}, summary, groups: [...], warnings: [...]};
--ndjson one object per group per line and a last summary line (with the warnings); --prometheus FILE writes node_exporter textfile metrics atomically, every series labelled cluster_id (see docs/output.md);
a failed run replaces it with its failure: rebalance_doctor_up 0, the exit code, the time of the run and the error code.

The report is always written, also when the history cannot be (unwritable directory, full disk, a lock held
by another audit): the failure is then on stderr, in summary.history of --json/--ndjson and in the metric
rebalance_doctor_history_write_failed.

EXIT CODES: 0 no findings; 3 findings of the kinds in --fail-on (default all: drift, pending, stuck,
missing-topics, unknown-records, reassignment; "none" never); 4 --group/--type matched no group; 5 no such finding,
but the history could not be written; 1 runtime or Kafka error (or the --prometheus file could not be written); 2 usage
error.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> -b localhost:9092',
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --type consumer,share --group "orders-*" --fail-on drift,stuck',
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --ndjson --prometheus /var/lib/node_exporter/textfile/rebalance_doctor.prom',
  ]

  static override flags = {
    ...outputFlags('ndjson', 'watch'),
    // not the interactive commands' default and variable: an audit reads every group
    timeout: timeoutFlag({
      summary: 'Give up after this long (the whole audit): a duration (10m) or milliseconds; default 10m.',
      description: `Env: ${ENV.auditTimeout} (not ${ENV.timeout}, which the interactive commands read; nor a --profile's timeout). At most ${MAX_TIMEOUT_MS} ms (about 24.8 days).`,
      env: ENV.auditTimeout,
      default: 600_000,
      helpGroup: 'CONNECTION',
      helpValue: 'DURATION',
    }),
    type: groupTypesFlag({summary: 'Only these group types: consumer, share, streams, classic (comma list).', helpValue: 'TYPES'}),
    group: groupPatternFlag({summary: 'Only groups whose id matches: a glob (orders-*) or /regex/flags.', helpValue: 'PATTERN'}),
    'stuck-after': durationFlag({
      summary: 'A member reconciling longer than this is stuck (duration), for every group.',
      description:
        'Default, per group: half the smallest RebalanceTimeoutMs its members declared (so "stuck" is reported before the coordinator fences them), 5m when none did; as group explain. Each group\'s threshold is in its JSON row (stuckAfter: {ms, source, smallestRebalanceTimeoutMs}).',
      helpValue: 'DURATION',
    }),
    'fail-on': Flags.string({
      summary: 'Findings that make the exit code 3: all, none, or a list of drift,pending,stuck,missing-topics,unknown-records,reassignment.',
      default: 'all',
      helpValue: 'KINDS',
    }),
    all: Flags.boolean({summary: 'Table: list every group, not only those with findings or not in sync.'}),
    quiet: Flags.boolean({
      char: 'q',
      summary: 'Print nothing when the run exits 0 (no finding): for cron, which mails only what a job prints.',
      description:
        'A run that exits 0 prints neither the table nor the summary line nor the history note; any other exit code (findings, no group matched, history not written, an error) prints as without --quiet, and warnings always go to stderr. The --prometheus file and the history are written as usual. Not with --json, --ndjson, -o, --watch or --all.',
      // (--json, --ndjson, -o and --watch are refused in run(): oclif's usage line shows one group of exclusive
      // flags per flag, and those four already form the output group)
      exclusive: ['all'],
    }),
    ndjson: Flags.boolean({summary: 'One JSON object per group per line, then a summary line (for log pipelines).', exclusive: ['json']}),
    prometheus: Flags.string({
      summary: "Also write metrics in Prometheus text format to FILE (node_exporter's textfile collector), atomically.",
      helpValue: 'FILE',
    }),
    'prometheus-label': Flags.string({
      summary: 'A label NAME=VALUE on every series of the --prometheus file (repeatable), e.g. cluster=prod.',
      description:
        'Names as Prometheus allows ([a-zA-Z_][a-zA-Z0-9_]*, not __…), not one the tool writes (cluster_id, file, group, type, verdict, finding, code); values are escaped. Give each audit writing into one textfile directory its own labels: node_exporter drops a series that two files hold.',
      multiple: true,
      dependsOn: ['prometheus'],
      helpValue: 'NAME=VALUE',
    }),
    record: Flags.boolean({summary: 'Record this audit in the history (default; --no-record to skip).', default: true, allowNo: true, helpGroup: 'HISTORY'}),
    'history-dir': Flags.string({
      summary: 'History directory.',
      description: `Env: ${HISTORY_DIR_ENV}. Default $XDG_STATE_HOME/rebalance-doctor/history or ~/.local/state/rebalance-doctor/history.`,
      env: HISTORY_DIR_ENV,
      helpValue: 'DIR',
      helpGroup: 'HISTORY',
    }),
    'history-retention': retentionFlag({
      summary: 'Delete history older than this (h, d, w).',
      default: 30 * 86_400_000,
      defaultHelp: async () => '30d',
      helpValue: 'DURATION',
      helpGroup: 'HISTORY',
    }),
    incremental: Flags.boolean({
      summary: 'Read only what is new since the last --incremental audit: each partition resumes from its checkpoint.',
      description: `Checkpoints (per __consumer_offsets partition: the offset reached, the last batch's offsets and leader epoch, the log start offset, the reduced state of its groups and each group's audit row) are kept next to the history, in <history dir>/<cluster id>/audit-checkpoint/, written atomically. Only groups with new records are rebuilt; a group's row is reused while the live hash of its topics is unchanged, it has no member reconciling and no reassignment on its topics (see docs/output.md). The results are those of a full read. A partition whose checkpoint no longer fits (the log start moved past it, the log was truncated or diverged, another cluster id, a damaged file) is read in full, with a warning. Not with --group (a checkpoint holds every group).`,
      exclusive: ['group'],
      helpGroup: 'HISTORY',
    }),
    watch: watchIntervalFlag({
      summary: 'Keep running: an incremental audit every DURATION (10s), printing each new epoch bump once with its causes.',
      description: `One line per new bump (--ndjson: one {schema: {name: "rebalance-doctor/bump", version: 1}, ...} object per bump; see docs/output.md); the first pass only reads (it prints no bump), then says on stderr what it watches; a member newly stuck is printed once (--ndjson: a rebalance-doctor/stuck-member object). Each pass also rewrites the --prometheus file atomically and records the history (unless --no-record), so metadata changes are named exactly to the interval; with the history on, the checkpoints are written as --incremental writes them (not with --group). A failed pass (broker restart, coordinator move) is reported on stderr and retried at the next interval. SIGINT or SIGTERM ends the watch after the running pass has written everything, exit code 0 (a second signal exits at once, 130); so does an output whose reader is gone (| head).`,
      exclusive: ['json', 'incremental', 'all'],
      helpValue: 'DURATION',
    }),
    'metadata-log': Flags.string({
      summary: 'A KRaft metadata log directory (__cluster_metadata-0, read-only): name drift and --watch bumps exactly from it.',
      description:
        'For each group whose stored hash differs from the live one, the metadata log states that give the stored hash and the live hash are found, and the changes between them are listed with their times (groups[].driftFromLog, exact: true); where the log does not reach back that far, or no state gives the stored hash, it says so (exact: false) and the inferred drift stays. With --watch, new metadata bumps are attributed from the log as group explain --metadata-log does (the log is read again on each pass that has new bumps). summary.metadataLog says what was read.',
      helpValue: 'DIR',
    }),
    lag: Flags.boolean({
      summary: "Read each group's lag (OffsetFetch + ListOffsets, read-only; default; --no-lag to skip).",
      description:
        "groups[].lag: {totalLag, partitions, partitionsUnknown, error} per consumer, classic and streams group (kafka-consumer-groups' LAG summed over its committed partitions), and rebalance_doctor_group_lag in --prometheus. One OffsetFetch per 200 groups at each coordinator and one ListOffsets per partition leader.",
      default: true,
      allowNo: true,
    }),
    concurrency: Flags.integer({summary: 'Partitions read at the same time.', default: 4, min: 1, max: 64, helpValue: 'N'}),
    ...timeFlags,
    ...colorFlags,
  }

  /** The cluster id this run read (for the --prometheus file of a run that fails after reading it). */
  private clusterIdOfRun: string | undefined
  /** --incremental: every checkpoint failed as the history did (said in the history's warning). */
  private checkpointsFailedWithHistory = false
  /** The --prometheus file's own labels (--prometheus-label once valid; its name while no cluster id is known). */
  private series: SeriesOptions = {}

  async run(): Promise<AuditDocument> {
    const started = Date.now()
    try {
      return await this.audit(started)
    } catch (error) {
      // a failed run replaces the file with its failure: a stale exit code or timestamp would never alert
      if (this.flags.prometheus) this.writeFailure(this.flags.prometheus, error, started, this.clusterIdOfRun)
      throw error
    }
  }

  private writeFailure(file: string, error: unknown, started: number, clusterId: string | undefined, context = ''): void {
    const failed = writeFailureFile(
      file,
      {clusterId, startedAt: started, durationMs: Date.now() - started, ...failureOf(error)},
      {...this.series, fileName: basename(file)},
    )
    if (failed) process.stderr.write(forTerminal(`Error: ${context}could not write ${file}: ${failed}\n`))
  }

  private async audit(started: number): Promise<AuditDocument> {
    const {flags} = this
    if (flags.quiet && (this.jsonEnabled() || flags.ndjson || flags.watch !== undefined)) {
      throw new InputError(
        '--quiet cannot be used with --json, --ndjson, -o json|yaml or --watch',
        'Drop --quiet: those outputs are for programs, which ignore what they do not need; --quiet is for the table in cron.',
      )
    }
    const failOn: FindingKind[] = asUsage(
      () => parseFailOn(flags['fail-on']),
      'For example --fail-on drift,stuck; --fail-on none never exits 3.',
      'BAD_FAIL_ON',
    )
    if (flags.prometheus)
      this.series = {
        labels: asUsage(
          () => parsePrometheusLabels(flags['prometheus-label'] ?? []),
          'For example --prometheus-label cluster=prod --prometheus-label env=eu-1.',
          'BAD_PROMETHEUS_LABEL',
        ),
        fileName: basename(flags.prometheus),
      }
    const types = flags.type
    const match = flags.group?.accept ?? (() => true)
    const retentionMs = flags['history-retention']
    // undefined: each group's own default (half its members' smallest rebalance timeout)
    const stuckAfterMs = flags['stuck-after']
    // a wrong directory is a usage error before anything is read from the cluster
    if (flags['metadata-log']) await (await import('../sources/metadata-log.js')).listMetadataLog(flags['metadata-log'])
    if (flags.watch !== undefined) {
      await this.watch(flags.watch.ms, {stuckAfterMs, failOn, types, match, retentionMs})
      return auditDocument(
        summarize([], {partitions: 0, recordsScanned: 0, decodeErrors: 0, durationMs: Date.now() - started}, failOn, null, started),
        [],
        this.warnings,
      )
    }
    const quiet = this.jsonEnabled() || flags.ndjson
    const {
      rows,
      summary: coreSummary,
      history,
      historyNote,
      incremental,
      metadataLog,
    } = await this.pass({
      started,
      stuckAfterMs,
      failOn,
      types,
      match,
      retentionMs,
      quiet: quiet || flags.quiet,
      checkpoints: clusterId => {
        if (!flags.incremental) return undefined
        if (clusterId === null) {
          this.warn(
            "--incremental: the cluster reports no cluster id, so checkpoints cannot be told apart from another cluster's; reading every partition in full",
          )
          return undefined
        }
        return {
          store: checkpointStore(flags['history-dir'] ?? defaultHistoryDir(), clusterId),
          clusterId,
          rowsKey: rowCacheKey(this.config.version, stuckAfterMs),
        }
      },
    })

    const historyFailed = failedToRecord(history)
    const exitCode = exitWithHistory(coreSummary, history)
    let prometheus: PrometheusStatus | undefined
    if (flags.prometheus) {
      // a failure here is reported, never thrown: it must not cost the report on stdout
      try {
        writeOutputFile(flags.prometheus, prometheusText({...coreSummary, exitCode}, rows, {historyWriteFailed: historyFailed, ...this.series}))
        prometheus = {file: flags.prometheus, written: true}
      } catch (error) {
        prometheus = {file: flags.prometheus, written: false, error: describeWriteError(error)}
      }
    }
    const finalExit = exitWithPrometheus(exitCode, prometheus)
    // --quiet: a run with nothing to say prints nothing (warnings were printed on stderr as they came)
    const silent = flags.quiet && finalExit === EXIT.ok
    const summary = {
      ...coreSummary,
      exitCode: finalExit,
      history,
      ...(prometheus ? {prometheus} : {}),
      ...(incremental ? {incremental} : {}),
      ...(metadataLog ? {metadataLog} : {}),
    }
    if (historyFailed) this.addWarning('HISTORY_NOT_WRITTEN', `the audit history could not be written to ${history.dir}: ${history.error}`)
    if (prometheus && !prometheus.written) this.addWarning('PROMETHEUS_NOT_WRITTEN', `could not write ${prometheus.file}: ${prometheus.error}`)
    if (flags.ndjson) process.stdout.write(terminalSafeJson(ndjsonLines(summary, rows, this.warnings)))
    else if (!this.jsonEnabled() && !silent) {
      // loaded for a table only (cli-table3, colours): a cron job's --json run does without it
      const [{renderAuditTable, summaryLine}, {wrapProse}] = await Promise.all([import('../render/audit.js'), import('../render/table.js')])
      const style = styleOf(flags)
      const table = renderAuditTable(rows, {all: flags.all}, style)
      if (table) this.logRendered(table)
      this.log(wrapProse(summaryLine(summary), style.width ?? 0, 2))
    }
    if (historyFailed) {
      process.stderr.write(
        forTerminal(
          `Warning: the audit history could not be written to ${history.dir}: ${history.error}${this.checkpointsFailedWithHistory ? ', nor the --incremental checkpoints (the next run reads every partition in full)' : ''}. The report is complete; \`group explain\` will lack this audit. Try this: --history-dir DIR (or $${HISTORY_DIR_ENV}) naming a writable directory with space; --no-record turns the history off.\n`,
        ),
      )
    } else if (historyNote && !quiet && !silent) this.note(historyNote)
    if (metadataLog && !quiet && !silent) this.note(metadataLogNote(metadataLog))
    if (prometheus && !prometheus.written) {
      process.stderr.write(
        forTerminal(
          `Error: could not write ${prometheus.file}: ${prometheus.error}. The previous file, if any, is unchanged; check the directory exists, is writable and has space.\n`,
        ),
      )
    }
    if (finalExit === EXIT.notFound) {
      const asked = [flags.group === undefined ? '' : `--group ${flags.group.text}`, flags.type === undefined ? '' : `--type ${[...flags.type].join(',')}`]
        .filter(Boolean)
        .join(' ')
      this.note(`no group matches ${asked}. Try this: drop the filters to list every group (\`audit --all\`).`)
    }
    if (finalExit !== 0) process.exitCode = finalExit
    return auditDocument(summary, rows, this.warnings)
  }

  /** One audit: live metadata, every partition (resumed from checkpoints when given), history. */
  private async pass(p: PassOptions): Promise<PassResult> {
    const {flags} = this
    const {started, stuckAfterMs, failOn, types, match, retentionMs} = p
    return this.withCluster(
      async (client, progress) => {
        // live metadata first, so each partition's groups are audited as soon as it is read and then dropped:
        // memory follows the partitions being read, not every group of the cluster
        const [live, reassignments] = await Promise.all([client.clusterMetadata(), inFlightReassignments(client, m => this.warn(m))])
        const ctx = auditContext(live, started, stuckAfterMs, reassignments)
        const audit = new AuditPass(ctx, types)
        const clusterId = live.clusterId ?? null
        this.clusterIdOfRun = clusterId ?? ''
        const checkpoints = p.checkpoints(clusterId)
        const scan = await scanOffsets(client, {
          checkpoints,
          concurrency: flags.concurrency,
          acceptGroup: match,
          trackFrom: p.trackFrom,
          onProgress: (done, total, records) =>
            progress.update(`reading __consumer_offsets: ${done}/${total} partitions, ${records} records, ${audit.audited} groups audited`),
          onPartition: (_partition, groups, newBumps) => audit.addScanned(groups, newBumps),
        })
        const rows = audit.rows()
        const {bumps} = audit
        // (one warning per cause, not per partition)
        const flag = p.watch ? '--watch' : '--incremental'
        for (const w of fullReadWarnings(scan.fullReads, flag)) this.warn(w)
        const incremental: IncrementalStatus | undefined = checkpoints && {
          dir: checkpoints.store.dir,
          partitionsResumed: scan.resumed,
          recordsRead: scan.recordsRead,
          fullReads: scan.fullReads,
          checkpointErrors: scan.checkpointErrors,
        }
        const summary = audit.summary(
          {partitions: scan.partitions, recordsScanned: scan.recordsScanned, decodeErrors: scan.decodeErrors, durationMs: Date.now() - started},
          failOn,
          clusterId,
          started,
          flags.group !== undefined || flags.type !== undefined,
        )
        let historyNote: string | undefined
        let history: HistoryStatus
        if (flags.record) {
          progress.update('recording history')
          const dir = flags['history-dir'] ?? defaultHistoryDir()
          try {
            const res = recordHistory({dir, retentionMs, now: started}, clusterId ?? 'unknown-cluster', live, historyGroups(rows), ctx.hasher)
            history = {recorded: true, dir, file: res.file}
            historyNote = `history: ${res.full ? 'new segment' : 'appended'} ${res.file} (${res.topicsWritten} topics, ${res.groupsWritten} groups changed)${res.expired.length ? `; expired ${res.expired.length} segment(s)` : ''}`
          } catch (error) {
            // the report matters more than its history: never lose it for this (issue: cron user without a home)
            history = {recorded: false, dir, error: describeWriteError(error)}
          }
        } else {
          history = {recorded: false, disabled: true}
        }
        // the checkpoints live under the history directory: when every one failed for the very cause the history did
        // (a cron user without a home directory), the history's warning says both: one warning, not two
        const cause = (e: {error: string; code?: string}) => describeWriteError(Object.assign(new Error(e.error), {code: e.code}))
        const historyError = 'error' in history ? history.error : undefined
        this.checkpointsFailedWithHistory =
          !p.watch && historyError !== undefined && scan.checkpointErrors.length > 0 && scan.checkpointErrors.every(e => cause(e) === historyError)
        if (!this.checkpointsFailedWithHistory)
          for (const w of checkpointErrorWarnings(scan.checkpointErrors, flag, checkpoints?.store.dir ?? '', cause, HISTORY_DIR_ENV)) this.warn(w)
        // causes of the new bumps (watch), after this pass's history is recorded: a metadata change between two
        // passes is then named exactly from the two moments around it
        const explained: Array<{report: ExplainReport; replay: ReplayResult}> = []
        // and the bumps printed earlier with a cause not known exactly, explained again with what was recorded since
        const again = p.open?.replays(started) ?? []
        const reexplained: Array<{report: ExplainReport; replay: ReplayResult}> = []
        if (p.watch && (bumps.length > 0 || again.length > 0)) {
          const {view} = loadHistoryView(clusterId ?? undefined, flags['history-dir'])
          const explain = (group: string, replay: ReplayResult) => {
            const report = explainGroup(group, replay, {live, hasher: ctx.hasher, now: started, stuckAfterMs, reassignments, knownRacks: historyRacks(view)})
            annotateFromHistory(report, replay, view)
            return {report, replay}
          }
          for (const {group, replay} of bumps) explained.push(explain(group, replay))
          for (const {group, replay} of again) reexplained.push(explain(group, replay))
        }
        // after the history: the log's exact names replace what the hashes alone inferred
        const dir = flags['metadata-log']
        // (--watch: only on passes with bumps to name)
        const named = [...explained, ...reexplained]
        const metadataLog =
          dir && (!p.watch || named.length > 0)
            ? await (await import('../sources/metadata-log-audit.js')).auditFromMetadataLog(dir, rows, named, started)
            : undefined
        const revisions = reexplained.flatMap(({report}) => p.open!.revise(report, clusterId))
        if (metadataLog) for (const w of (await import('../sources/metadata-log.js')).metadataLogWarnings(metadataLog)) this.warn(w)
        const lags = flags.lag ? await this.lags(client, rows, progress) : undefined
        return {rows: withLag(rows, lags), summary, history, historyNote, incremental, bumps: explained, revisions, metadataLog}
      },
      p.watch ? {} : {progress: 'reading __consumer_offsets', quiet: p.quiet},
    )
  }

  /** Each group's lag; what cannot be read is a warning and lag null, never the audit's failure. */
  private async lags(client: ClusterReader, rows: readonly AuditRow[], progress: {update(text: string): void}) {
    try {
      return await readGroupLags(client, rows, (done, total) => progress.update(`reading committed offsets: ${done}/${total} groups`))
    } catch (error) {
      this.warn(`per-group lag not read (groups[].lag null): ${(error as Error).message}`)
      return undefined
    }
  }

  /**
   * --watch: an incremental pass every interval (checkpoints held in memory, and written as --incremental writes
   * them when the history is on), each new bump printed once with its causes, the --prometheus file and the
   * history rewritten each pass; a failed pass is reported on stderr and retried; SIGINT/SIGTERM stop it after
   * the running pass has written everything.
   */
  private async watch(intervalMs: number, base: Pick<PassOptions, 'stuckAfterMs' | 'failOn' | 'types' | 'match' | 'retentionMs'>): Promise<void> {
    const {flags} = this
    const printed = new PrintedBumps()
    const printedStuck = new PrintedBumps()
    // bumps printed with a cause not known exactly: explained again each pass, revised when it names them exactly
    const open = new OpenBumps()
    // said once, after the first pass that read the cluster (stderr: stdout holds only bumps)
    let announced = false
    let memory: {clusterId: string; store: MemoryCheckpointStore} | undefined
    await runWatch({
      interval: flags.watch!.text,
      intervalMs,
      unit: 'cycle',
      cycle: async n => {
        const started = Date.now()
        try {
          const r = await this.pass({
            ...base,
            started,
            watch: true,
            checkpoints: clusterId => {
              const id = clusterId ?? 'unknown-cluster'
              // on disk only with the history on, a real cluster id and every group (a --group checkpoint lacks the others)
              const backing =
                flags.record && clusterId !== null && flags.group === undefined
                  ? checkpointStore(flags['history-dir'] ?? defaultHistoryDir(), clusterId)
                  : undefined
              if (memory?.clusterId !== id) memory = {clusterId: id, store: memoryCheckpointStore(backing)}
              return {store: memory.store, clusterId: id, rowsKey: rowCacheKey(this.config.version, base.stuckAfterMs)}
            },
            trackFrom: partition => memory?.store.nextOffset(partition),
            open,
          })
          // marked printed only now, when they are written (a pass that failed marked nothing)
          const replayOf = new Map<BumpEvent, ReplayResult>()
          const bumps = orderBumps(
            r.bumps.flatMap(({report, replay}) => newBumpEvents(report, r.summary.clusterId, printed).map(e => (replayOf.set(e, replay), e))),
          )
          printRevisions(r.revisions, flags.ndjson)
          printBumps(bumps, flags.ndjson)
          open.add(bumps, e => replayOf.get(e)!, started)
          // members newly stuck, once each (a stuck member writes no record, so it makes no bump to print)
          printStuck(newStuckEvents(r.rows.filter(row => row.stuckMembers.length > 0).map(fullRow), r.summary.clusterId, printedStuck), flags.ndjson, started)
          if (!announced) {
            announced = true
            const filters = [flags.group ? `--group ${flags.group.text}` : '', flags.type ? `--type ${[...flags.type].join(',')}` : '']
              .filter(Boolean)
              .join(' ')
            process.stderr.write(
              forTerminal(
                `watching ${r.summary.groups} group${r.summary.groups === 1 ? '' : 's'}${filters ? ` (${filters})` : ''} of cluster ${r.summary.clusterId ?? '(no id)'} every ${flags.watch!.text}: each new epoch bump and each member newly stuck is printed as it is read (SIGINT/Ctrl-C stops)\n`,
              ),
            )
          }
          memory?.store.commit()
          const {history} = r
          const historyFailed = failedToRecord(history)
          if (historyFailed)
            process.stderr.write(forTerminal(`Warning: --watch cycle ${n}: the audit history could not be written to ${history.dir}: ${history.error}\n`))
          if (flags.prometheus) {
            const exitCode = exitWithHistory(r.summary, r.history)
            try {
              writeOutputFile(flags.prometheus, prometheusText({...r.summary, exitCode}, r.rows, {historyWriteFailed: historyFailed, ...this.series}))
            } catch (error) {
              process.stderr.write(forTerminal(`Error: --watch cycle ${n}: could not write ${flags.prometheus}: ${describeWriteError(error)}\n`))
            }
          }
          if (flags.debug)
            process.stderr.write(
              forTerminal(
                `[debug] --watch cycle ${n}: ${r.summary.groups} groups, ${r.incremental?.recordsRead ?? r.summary.recordsScanned} records read, ${bumps.length} new bumps, ${Date.now() - started} ms, rss ${Math.round(process.memoryUsage().rss / 1e6)} MB, heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB\n`,
              ),
            )
        } catch (error) {
          // resumed next cycle from where the last good one ended: no bump of this cycle is lost
          memory?.store.rollback()
          if (flags.prometheus) this.writeFailure(flags.prometheus, error, started, this.clusterIdOfRun, `--watch cycle ${n}: `)
          throw error
        } finally {
          // nothing accumulates across cycles (the warnings were printed on stderr as they came)
          this.warnings.length = 0
        }
      },
    })
  }
}

interface PassOptions {
  started: number
  stuckAfterMs: number | undefined
  failOn: FindingKind[]
  types: ReadonlySet<GroupType> | undefined
  match: (group: string) => boolean
  retentionMs: number
  /** No progress spinner (--json, --ndjson, --quiet). */
  quiet?: boolean
  checkpoints: (clusterId: string | null) => {store: CheckpointStore; clusterId: string} | undefined
  /** watch: per partition, where the last pass stopped (records after it are replayed for causes). */
  trackFrom?: (partition: number) => bigint | undefined
  watch?: true
  /** watch: bumps printed earlier whose causes this pass may name exactly. */
  open?: OpenBumps
}

interface PassResult {
  rows: AuditRow[]
  summary: AuditSummary
  history: HistoryStatus
  historyNote: string | undefined
  incremental: IncrementalStatus | undefined
  /** watch: explain reports of the groups with new records (their timelines holding only the new bumps), with their replays. */
  bumps: Array<{report: ExplainReport; replay: ReplayResult}>
  /** watch: bumps printed earlier, named exactly by this pass. */
  revisions: BumpRevision[]
  /** --metadata-log: what was read and attributed. */
  metadataLog: AuditMetadataLog | undefined
}

function metadataLogNote(m: AuditMetadataLog): string {
  const span = `${m.historyStart.time ?? 'its first record'} .. ${m.lastTime ?? '?'}${m.damage ? `, damaged at offset ${m.damage.offset}: exact to there only` : ''}`
  return `metadata log ${m.dir} (${span}): ${m.groupsDrifting === 0 ? 'no group drifts' : `drift of ${m.driftsAttributed} of ${m.groupsDrifting} drifting group(s) named exactly`}`
}
