/** `group explain`'s flags, argument and help text (the command itself is src/commands/group/explain.ts). */
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {type ErrorCode, InputError} from '../core/errors.js'
import {isGroupPattern} from '../core/group-filter.js'
import {HISTORY_DIR_ENV} from '../history/store.js'
import {durationFlag, timeSpecFlag, watchIntervalFlag} from './flag-types.js'
import {colorFlags, outputFlags, timeFlags} from './output-flags.js'

export const EXPLAIN_DESCRIPTION = `Reads the group's records from __consumer_offsets (read-only), replays them as the group coordinator does,
and names the cause of every group epoch bump: members joining or leaving, subscription or regex changes, streams
topology changes, and metadata changes attributed to a topic (partitions added, topic created, recreated or
deleted, replicas moved) or a broker (rack changed, unregistered) by testing which change to today's metadata
reproduces the stored hash; each says how it is known (confidence exact, inferred-unique, inferred-ambiguous with
the alternatives, evident, unexplained). Reports partition reassignments in flight on the group's topics.
The verdict compares the stored metadata hash with the hash of the live metadata: in sync, a rebalance pending on
the next heartbeat, or a hash stale in the coordinator's cache; and reports pending assignments and members still
reconciling. Without READ on __consumer_offsets (or with --describe-only) a group is answered from its describe,
OffsetFetch and the live metadata instead (a pattern or --all: every matching group of the listing, without its
offsets): no timeline, no stored hash (the report's reading says so and the grant).
Works for consumer, share and streams groups (classic groups have no metadata hash: their members,
offsets and lag come from the stored GroupMetadata value; see docs/output.md).

--json prints {schema, group, type, groupEpoch, assignmentEpoch, storedMetadataHash, liveMetadataHash, inSync,
verdict: {code, message, pending}, findings: [{code, message, details}], topics, members, stuckAfter: {ms, source, smallestRebalanceTimeoutMs},
timeline: [{epoch, previousEpoch, timestamp, time, offset, metadataHash, previousMetadataHash, assignmentEpoch,
causes: [{kind, message, confidence, alternatives, details}]}], skippedRecords, offsets: {partitions: [{topic, topicId,
partition, committedOffset, logEndOffset, lag, memberId, clientId, host, logEndError}], totalLag, uncommitted}, warnings}.
Hashes and offsets are decimal strings. Offsets and lag per partition (consumer and classic groups) are those kafka-consumer-groups
--describe shows: committed offsets from the group's records, log end offsets from ListOffsets (read-only).

SEVERAL GROUPS: a GROUP with * or ? (a glob over the whole id, [abc] classes too) or between slashes (/regex/flags) is a pattern, as
audit --group takes (--literal: the exact id); --all explains every group. Every __consumer_offsets partition is
read once. Text: one report per group; --json: {schema: {name: "rebalance-doctor/group-explain-list", version: 1},
pattern, all, groups: [report...], warnings}; --ndjson: one group-explain document per line. Exit 4 when nothing
matches, 3 with --fail-on-pending when any group is pending. Offsets and lag (offsets) are for one group only: null here.`

export const explainArgs = {
  group: Args.string({
    description: 'group id, or a pattern: a glob (orders-*, ? [abc], whole id) or /regex/flags, as audit --group takes (--literal: the id as it is)',
  }),
}

export const explainFlags = {
  ...outputFlags('ndjson', 'watch'),
  group: Flags.string({
    summary: 'The group id or pattern, as the GROUP argument takes it (kafka-consumer-groups spells it --group).',
    helpValue: 'GROUP',
    exclusive: ['all'],
  }),
  since: timeSpecFlag({
    summary: 'Only timeline entries at or after this time: ISO-8601 (UTC unless it names a zone) or a duration ago (2h, 7d).',
    helpValue: 'TIME',
  }),
  last: Flags.integer({summary: 'Only the last N timeline entries.', min: 1, helpValue: 'N'}),
  'fail-on-pending': Flags.boolean({summary: 'Exit 3 when a rebalance is pending or in progress (for scripts).'}),
  'stuck-after': durationFlag({
    summary: 'Call a member reconciling longer than this stuck (duration; default: half the smallest rebalance timeout the members declared, else 5m).',
    helpValue: 'DURATION',
  }),
  'metadata-log': Flags.string({
    summary: 'A KRaft metadata log directory (__cluster_metadata-0, read-only): attribute metadata bumps exactly from it.',
    helpValue: 'DIR',
  }),
  'history-dir': Flags.string({
    summary: 'Audit history to attribute past metadata changes from (written by `audit`).',
    env: HISTORY_DIR_ENV,
    helpValue: 'DIR',
  }),
  ...timeFlags,
  ...colorFlags,
  watch: watchIntervalFlag({
    summary: "Keep running: print the report, then read the group's new records every DURATION (10s) and print each new epoch bump once with its causes.",
    description:
      'A line per new bump; with --ndjson the report as one line, then one {schema: {name: "rebalance-doctor/bump", version: 1}, ...} object per bump (see docs/output.md). Started again after a watch of the group stopped (same history directory, where it keeps its watch state: --history-dir, else the default), the bumps stored since it last printed follow the report once, marked (afterRestart; the last 24 h, at most 1,000; read describe-only: the epoch move since the last poll of that watch, as one observation). A failed read (broker restart, coordinator move) is reported on stderr and retried at the next interval. SIGINT or SIGTERM ends the watch after the running read, exit code 0 (a second signal exits at once, 130). Metadata bumps are named exactly when an `audit --watch` (or a cron audit) records the history meanwhile.',
    exclusive: ['json', 'since', 'last', 'fail-on-pending', 'metadata-log'],
    helpValue: 'DURATION',
  }),
  html: Flags.string({
    summary: 'Also write the timeline as one self-contained HTML page to FILE (- for stdout): a lane per member, every bump with its causes and cost.',
    description:
      "Inline SVG and CSS only: the page loads nothing when opened (no script, font or image). Past 40 members the busiest 39 get a lane each and the others are summed in one; labels are drawn where they fit, every bump is in the page's table. --since and --last narrow it. One group only; not with --watch. See docs/output.md.",
    exclusive: ['watch', 'all'],
    helpValue: 'FILE',
  }),
  'describe-only': Flags.boolean({
    summary: "Do not read the group's records: answer from its describe, OffsetFetch and the live metadata (what DESCRIBE allows).",
    description:
      'Automatic when READ on __consumer_offsets is refused (a warning says so), for one group, a pattern or --all (each matching group of the listing described). The report has no timeline and no stored metadata hash: its `reading` says what that leaves unknown and the grant that gives it. With --watch the group is polled: each epoch bump a poll sees is explained from what changed since the poll before (members, subscriptions, the live metadata), the epochs recorded in the history.',
    exclusive: ['metadata-log'],
  }),
  ndjson: Flags.boolean({summary: 'One JSON object per line: with a pattern or --all one report per group; with --watch the report, then one per new bump.'}),
  all: Flags.boolean({summary: 'Explain every group of the cluster (one report each; every __consumer_offsets partition read once).'}),
  literal: Flags.boolean({summary: 'The GROUP argument is the exact group id, also when it contains * or ? or is between slashes.'}),
  concurrency: Flags.integer({
    summary: 'With a pattern or --all: __consumer_offsets partitions read at the same time.',
    default: 4,
    min: 1,
    max: 64,
    helpValue: 'N',
  }),
}

/** The group asked (the argument or --group, once), checked against --all and --ndjson; a usage error otherwise. */
export function groupArgument(
  positional: string | undefined,
  flags: {group?: string; all?: boolean; ndjson?: boolean; html?: string; literal?: boolean},
  json: boolean,
): string | undefined {
  const bad = (message: string, hint: string, code: ErrorCode = 'BAD_GROUP_PATTERN') => new InputError(message, hint, code)
  if (positional !== undefined && flags.group !== undefined && positional !== flags.group)
    throw bad(`give the group once: "${positional}" and --group "${flags.group}"`, 'Drop the argument or --group.', 'BAD_INPUT')
  const arg = positional ?? flags.group
  if (flags.all && arg !== undefined)
    throw bad(`give a group id or pattern, or --all, not both (got "${arg}" and --all)`, 'Drop the argument to explain every group, or drop --all.')
  if (!flags.all && arg === undefined)
    throw bad('give a group id, a pattern (orders-*) or --all', 'For example: group explain orders-consumer, or group explain "orders-*".')
  if (flags.ndjson && json) throw bad('--json and --ndjson: choose one', '--json prints one document, --ndjson one line per report.', 'BAD_INPUT')
  checkHtml(flags, flags.all || flags.literal || !isGroupPattern(arg!) ? undefined : arg, json)
  return arg
}

/** --html draws one group (`pattern`: the GROUP given, when it is a pattern), and its page cannot share stdout with --json. */
export function checkHtml(flags: {html?: string; all?: boolean}, pattern: string | undefined, json: boolean): void {
  if (flags.html === undefined) return
  if (flags.all || pattern !== undefined)
    throw new InputError(
      `--html draws one group; ${pattern === undefined ? '--all' : `"${pattern}"`} is several`,
      'Give one group id (--literal for an id with * or ? in it).',
      'BAD_INPUT',
    )
  if (flags.html === '-' && json) throw new InputError('--json and --html -: both on stdout', 'Give --html a file name.', 'BAD_INPUT')
}
