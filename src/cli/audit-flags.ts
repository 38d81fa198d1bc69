/** `audit`'s flags and help text (the command itself is src/commands/audit.ts). */
import * as Flags from '@oclif/core/flags'
import {ENV, MAX_TIMEOUT_MS} from '../config/client-config.js'
import type {FindingKind} from '../core/audit/audit.js'
import {parseFailOn} from '../core/audit/audit.js'
import {parsePrometheusLabels} from '../core/audit/output.js'
import {asUsage, InputError} from '../core/errors.js'
import type {GroupType} from '../core/replay/index.js'
import {HISTORY_DIR_ENV} from '../history/store.js'
import type {AuditSettings} from '../operations/audit/pass.js'
import {type PrometheusTarget, prometheusTarget} from '../operations/audit/prometheus.js'
import {timeoutFlag} from './connection-flags.js'
import {durationFlag, groupPatternFlag, groupTypesFlag, retentionFlag, watchIntervalFlag} from './flag-types.js'
import {colorFlags, outputFlags, timeFlags} from './output-flags.js'

export const AUDIT_DESCRIPTION = `Reads every __consumer_offsets partition from its leader (read-only: ListOffsets and Fetch, no group
joined), replays every group as the coordinator does, hashes each topic of the live metadata once, and reports per
group: stored vs live metadata hash (drift, and the topic or broker change that explains it), target assignment
behind the group epoch (pending), members reconciling longer than --stuck-after (stuck), subscribed topics that do
not exist (missing-topics), records of unknown types or versions (unknown-records), partition reassignments in
flight on subscribed topics (reassignment: REASSIGNMENT_IN_FLIGHT, the group bumps when they complete). Offset
commits are skipped.
An empty group's drift is reported but is no finding (nothing rebalances until a member joins).

DESCRIBE ONLY: when the Fetch of __consumer_offsets is refused (READ on that topic missing; a warning names it and
the kafka-acls grant), or with --describe-only, every group from ListGroups (same --group and --type) is answered
from its describe, OffsetFetch and the live metadata, as group explain answers one group: the verdict from the
epochs and members (EPOCHS_IN_SYNC, ASSIGNMENT_PENDING, RECONCILING, EMPTY_GROUP), findings pending and
missing-topics, members reconciling (whether one is stuck needs the records), lag. Each row and the summary carry
reading: {mode: "describe-only", reason, missing}; --prometheus adds rebalance_doctor_group_describe_only. drift,
stuck, unknown-records and reassignment need the records and never fire; no history is written.

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

export const auditFlags = {
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
    description: `One line per new bump (--ndjson: one {schema: {name: "rebalance-doctor/bump", version: 1}, ...} object per bump; see docs/output.md); the first pass only reads (it prints no bump), then says on stderr what it watches; started again after a watch of the same cluster and filters stopped (with the same --history-dir, the history on), the first pass prints once, marked (afterRestart), the bumps stored since that watch last printed (the last 24 h, at most 1,000; the rest counted on stderr; read describe-only: each group whose epoch moved since that watch's last polls, as one observation); a member newly stuck is printed once (--ndjson: a rebalance-doctor/stuck-member object). Each pass also rewrites the --prometheus file atomically and records the history (unless --no-record), so metadata changes are named exactly to the interval; with the history on, the checkpoints are written as --incremental writes them (not with --group). A failed pass (broker restart, coordinator move) is reported on stderr and retried at the next interval. SIGINT or SIGTERM ends the watch after the running pass has written everything, exit code 0 (a second signal exits at once, 130); so does an output whose reader is gone (| head).`,
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
  'describe-only': Flags.boolean({
    summary: 'Do not read __consumer_offsets: answer every group from its describe, OffsetFetch and the live metadata (what DESCRIBE allows).',
    description:
      'Automatic when READ on __consumer_offsets is refused (a warning names the refusal and the grant). No stored metadata hash: drift, stuck, unknown-records and reassignment cannot be found (--fail-on on them cannot fire), and no history is written; each row and the summary say so in `reading`, with the grant that gives the rest. With --watch the describes are polled: each epoch bump a poll sees is explained from what changed since the poll before (members, subscriptions, the live metadata), the epochs recorded in the history. Not with --incremental or --metadata-log.',
    // (--incremental and --metadata-log are refused in run(): oclif's usage line shows one group of
    // exclusive flags per flag, and those already belong to others)
  }),
  concurrency: Flags.integer({summary: 'Partitions read at the same time.', default: 4, min: 1, max: 64, helpValue: 'N'}),
  ...timeFlags,
  ...colorFlags,
}

/** The flags an audit run reads, parsed (a bad --fail-on or --prometheus-label is a usage error). */
export function auditSettingsOf(flags: {
  'fail-on': string
  type?: ReadonlySet<GroupType>
  group?: {accept(group: string): boolean}
  'history-retention': number
  'stuck-after'?: number
  concurrency: number
  record: boolean
  'history-dir'?: string
  'metadata-log'?: string
  lag: boolean
  prometheus?: string
  'prometheus-label'?: string[]
  'describe-only'?: boolean
  watch?: unknown
  incremental?: boolean
}): {settings: AuditSettings; prometheus: PrometheusTarget | undefined} {
  if (flags['describe-only'] && (flags.incremental || flags['metadata-log'] !== undefined))
    throw new InputError(
      '--describe-only cannot be used with --incremental or --metadata-log',
      'Drop --describe-only to read the records, or drop the others: a describe-only audit has no records to resume or attribute.',
    )
  const failOn: FindingKind[] = asUsage(() => parseFailOn(flags['fail-on']), 'For example --fail-on drift,stuck; --fail-on none never exits 3.', 'BAD_FAIL_ON')
  const settings: AuditSettings = {
    failOn,
    types: flags.type,
    match: flags.group ? g => flags.group!.accept(g) : () => true,
    filtered: flags.group !== undefined || flags.type !== undefined,
    retentionMs: flags['history-retention'],
    // undefined: each group's own default (half its members' smallest rebalance timeout)
    stuckAfterMs: flags['stuck-after'],
    concurrency: flags.concurrency,
    record: flags.record,
    historyDir: flags['history-dir'],
    metadataLogDir: flags['metadata-log'],
    lag: flags.lag,
  }
  const labels = () =>
    asUsage(
      () => parsePrometheusLabels(flags['prometheus-label'] ?? []),
      'For example --prometheus-label cluster=prod --prometheus-label env=eu-1.',
      'BAD_PROMETHEUS_LABEL',
    )
  return {settings, prometheus: flags.prometheus === undefined ? undefined : prometheusTarget(flags.prometheus, labels())}
}
