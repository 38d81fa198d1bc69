import {readReleases} from '../../sources/releases.js'
import {churnOf} from '../../core/explain/churn.js'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {EXIT} from '../../cli/base-command.js'
import {LiveCommand} from '../../cli/live-command.js'
import {InputError} from '../../core/errors.js'
import {durationFlag, parseGroupPattern, timeSpecFlag, watchIntervalFlag} from '../../cli/flag-types.js'
import {replayMatchingGroups} from '../../sources/groups-replay.js'
import {isGroupPattern} from '../../core/group-filter.js'
import {type SchemaId, SCHEMAS, toDocument} from '../../core/documents.js'
import {type ExplainReport, explainGroup} from '../../core/explain/explain.js'
import {GroupReplay, type GroupState, type ReplayResult, topicsEverUsed} from '../../core/replay/index.js'
import {type BumpEvent, type BumpRevision, newBumpEvents, OpenBumps, PrintedBumps} from '../../core/audit/watch.js'
import {printBumps, printRevisions, runWatch} from '../../io/watch-loop.js'
import {forTerminal, terminalSafeJson} from '../../render/terminal.js'
import {renderExplain} from '../../render/explain.js'
import {brokerHealth} from '../../core/explain/brokers.js'
import {colorFlags, styleOf, timeFlags, outputFlags} from '../../cli/output-flags.js'
import {readGroupLog} from '../../sources/group-log.js'
import {annotateFromHistory, historyRacks, HISTORY_DIR_ENV, loadHistoryView} from '../../history/index.js'
import {inFlightReassignments} from '../../sources/reassignments.js'
import {readGroupOffsets} from '../../sources/group-offsets.js'
import {explainFromMetadataLog, explainManyFromMetadataLog} from '../../sources/metadata-log-explain.js'
import {metadataLogWarnings} from '../../sources/metadata-log.js'

/** `group explain PATTERN` / `--all` --json: {schema: group-explain-list v1, pattern, all, groups: [report...], warnings}. */
export interface ExplainList {
  /** The pattern given (null with --all). */
  pattern: string | null
  all: boolean
  groups: ExplainReport[]
}

export default class GroupExplain extends LiveCommand<typeof GroupExplain> {
  static override schema = SCHEMAS.groupExplain
  static override summary = 'Why did this group rebalance, and is a rebalance coming? The epoch timeline with causes, and a verdict.'
  static override description = `Reads the group's records from __consumer_offsets (read-only), replays them as the group coordinator does,
and names the cause of every group epoch bump: members joining or leaving, subscription or regex changes, streams
topology changes, and metadata changes attributed to a topic (partitions added, topic created, recreated or
deleted, replicas moved) or a broker (rack changed, unregistered) by testing which change to today's metadata
reproduces the stored hash; each says how it is known (confidence exact, inferred-unique, inferred-ambiguous with
the alternatives, evident, unexplained). Reports partition reassignments in flight on the group's topics.
The verdict compares the stored metadata hash with the hash of the live metadata: in sync, a rebalance pending on
the next heartbeat, or a hash stale in the coordinator's cache; and reports pending assignments and members still
reconciling. Works for consumer, share and streams groups (classic groups have no metadata hash: their members,
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

  static override examples = [
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092',
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092 --last 5',
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092 --fail-on-pending --json',
    '<%= config.bin %> <%= command.id %> "orders-*" -b localhost:9092 --ndjson',
    '<%= config.bin %> <%= command.id %> --all -b localhost:9092 --fail-on-pending',
  ]

  static override args = {
    group: Args.string({
      description: 'group id, or a pattern: a glob (orders-*, ? [abc], whole id) or /regex/flags, as audit --group takes (--literal: the id as it is)',
    }),
  }

  static override flags = {
    ...outputFlags('ndjson', 'watch'),
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
        'A line per new bump; with --ndjson the report as one line, then one {schema: {name: "rebalance-doctor/bump", version: 1}, ...} object per bump (see docs/output.md). A failed read (broker restart, coordinator move) is reported on stderr and retried at the next interval. SIGINT or SIGTERM ends the watch after the running read, exit code 0 (a second signal exits at once, 130). Metadata bumps are named exactly when an `audit --watch` (or a cron audit) records the history meanwhile.',
      exclusive: ['json', 'since', 'last', 'fail-on-pending', 'metadata-log'],
      helpValue: 'DURATION',
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

  protected override documentSchema(result: unknown): SchemaId {
    return result !== null && typeof result === 'object' && 'groups' in result ? SCHEMAS.groupExplainList : SCHEMAS.groupExplain
  }

  async run(): Promise<ExplainReport | ExplainList> {
    const {flags} = this
    const {since} = flags
    const now = Date.now()
    const stuckAfterMs = flags['stuck-after']
    const arg = this.args.group
    if (flags.all && arg !== undefined)
      throw new InputError(
        `give a group id or pattern, or --all, not both (got "${arg}" and --all)`,
        'Drop the argument to explain every group, or drop --all.',
        'BAD_GROUP_PATTERN',
      )
    if (!flags.all && arg === undefined)
      throw new InputError(
        'give a group id, a pattern (orders-*) or --all',
        'For example: group explain orders-consumer, or group explain "orders-*".',
        'BAD_GROUP_PATTERN',
      )
    const pattern = flags.all ? undefined : flags.literal ? undefined : isGroupPattern(arg!) ? arg : undefined
    if (flags.ndjson && this.jsonEnabled())
      throw new InputError('--json and --ndjson: choose one', '--json prints one document, --ndjson one line per report.', 'BAD_INPUT')
    if (flags.all || pattern !== undefined) {
      if (flags.watch !== undefined)
        throw new InputError(
          `--watch follows one group; ${pattern === undefined ? '--all' : `"${pattern}"`} is several`,
          'Give one group id (--literal for an id with * or ? in it), or use `audit --watch --group PATTERN`.',
          'BAD_GROUP_PATTERN',
        )
      return this.explainMany(pattern, {since, now, stuckAfterMs})
    }
    if (flags.ndjson && flags.watch === undefined)
      throw new InputError('--ndjson is for several groups (a pattern or --all) or --watch', 'Use --json for one group.', 'BAD_INPUT')
    const group = arg!
    let watchFrom: {state: GroupState; nextOffset: bigint} | undefined
    const report = await this.withCluster(
      async (client, progress) => {
        // streamed into the replay as read: the partition's other groups are skipped by key, undecoded
        const replaying = new GroupReplay(group)
        const log = await readGroupLog(client, group, {
          onProgress: n => progress.update(`reading __consumer_offsets: ${n} records`),
          onRecord: r => replaying.push(r),
        })
        const replay = replaying.finish()
        if (flags.watch !== undefined) watchFrom = {state: structuredClone(replay.state), nextOffset: log.endOffset}
        // every topic the group used at any epoch: the attribution walks back through them
        const topics = topicsEverUsed(replay)
        progress.update('reading live metadata')
        const live = await client.clusterMetadata({topics: [...topics]})
        progress.update('reading partition reassignments in flight')
        const reassignments = await inFlightReassignments(client, m => this.warn(m))
        // metadata bumps the hashes alone cannot pin down: exact from the audit history, when recorded; its racks
        // are names to test where no broker has them today
        const {view} = loadHistoryView(live.clusterId, flags['history-dir'])
        const report = explainGroup(group, replay, {live, now, stuckAfterMs, reassignments, knownRacks: historyRacks(view)})
        report.brokers = brokerHealth(
          live,
          report.topics.map(t => t.name),
        )
        annotateFromHistory(report, replay, view)
        progress.update('reading log end offsets')
        report.offsets = await readGroupOffsets(client, replay.state, live, m => this.warn(m))
        progress.update("reading the brokers' API versions")
        report.releases = await readReleases(client, group, report.rules)
        // exact, from the cluster's own metadata log, when given
        if (flags['metadata-log']) {
          await explainFromMetadataLog(report, replay, flags['metadata-log'], [...topics])
          for (const w of metadataLogWarnings(report.metadataLog!)) this.warn(w)
        }
        return report
      },
      {progress: `reading ${group}'s records`},
    )

    if (since !== undefined) report.timeline = report.timeline.filter(e => e.timestamp >= since)
    if (flags.last) report.timeline = report.timeline.slice(-flags.last)
    report.churn = churnOf(report.timeline)
    if (flags.watch !== undefined) {
      if (flags.ndjson) process.stdout.write(`${terminalSafeJson(JSON.stringify(toDocument(SCHEMAS.groupExplain, report, this.warnings)))}\n`)
      else this.logRendered(renderExplain(report, styleOf(flags, now)))
      this.warnings.length = 0
      await this.watch(group, stuckAfterMs, watchFrom!)
      return report
    }
    if (!this.jsonEnabled()) this.logRendered(renderExplain(report, styleOf(flags, now)))
    if (flags['fail-on-pending'] && report.verdict.pending) process.exitCode = EXIT.finding
    if (report.verdict.code === 'NOT_FOUND') {
      this.note('Try this: check the group id (`group list` lists every group).')
      process.exitCode = EXIT.notFound
    }
    return report
  }

  /**
   * A pattern or --all: every matching group's records (every __consumer_offsets partition read once), one
   * report each, the live metadata, reassignments and history read once for all. Exit 4 when nothing matches,
   * 3 with --fail-on-pending when any is pending.
   */
  private async explainMany(pattern: string | undefined, o: {since?: number; now: number; stuckAfterMs?: number}): Promise<ExplainList> {
    const {flags} = this
    const accept = pattern === undefined ? () => true : parseGroupPattern(pattern).accept
    const reports = await this.withCluster(
      async (client, progress) => {
        const {groups} = await replayMatchingGroups(client, accept, {
          concurrency: flags.concurrency,
          onProgress: (done, total, records) => progress.update(`reading __consumer_offsets: ${done}/${total} partitions, ${records} records`),
        })
        if (groups.size === 0) return []
        const topics = new Set<string>()
        for (const replay of groups.values()) for (const t of topicsEverUsed(replay)) topics.add(t)
        progress.update('reading live metadata')
        const live = await client.clusterMetadata({topics: [...topics]})
        const reassignments = await inFlightReassignments(client, m => this.warn(m))
        const {view} = loadHistoryView(live.clusterId, flags['history-dir'])
        const out: Array<{report: ExplainReport; replay: ReplayResult}> = []
        for (const [group, replay] of groups) {
          progress.update(`explaining ${out.length + 1}/${groups.size} groups`)
          const report = explainGroup(group, replay, {live, now: o.now, stuckAfterMs: o.stuckAfterMs, reassignments, knownRacks: historyRacks(view)})
          report.brokers = brokerHealth(
            live,
            report.topics.map(t => t.name),
          )
          annotateFromHistory(report, replay, view)
          // the partitions' offset commits are skipped unread when every group is read: no offsets and lag here
          report.offsets = null
          if (o.since !== undefined) report.timeline = report.timeline.filter(e => e.timestamp >= o.since!)
          if (flags.last) report.timeline = report.timeline.slice(-flags.last)
          report.churn = churnOf(report.timeline)
          out.push({report, replay})
        }
        // one read of the metadata log for every group (before the --since/--last cut: bumps are matched by offset)
        if (flags['metadata-log']) {
          await explainManyFromMetadataLog(out, flags['metadata-log'], [...topics])
          const source = out[0]?.report.metadataLog
          if (source) for (const w of metadataLogWarnings(source)) this.warn(w)
        }
        return out.map(({report}) => report)
      },
      {progress: 'reading __consumer_offsets', quiet: this.jsonEnabled() || flags.ndjson},
    )

    const asked = pattern === undefined ? '--all' : pattern
    if (flags.ndjson) {
      // one group-explain document per line; the run's warnings ride on the last line
      const lines = reports.map((r, i) => terminalSafeJson(JSON.stringify(toDocument(SCHEMAS.groupExplain, r, i === reports.length - 1 ? this.warnings : []))))
      if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`)
    } else if (!this.jsonEnabled()) {
      const style = styleOf(flags, o.now)
      reports.forEach((r, i) => this.logRendered(`${i === 0 ? '' : '\n'}${renderExplain(r, style)}`))
      if (reports.length > 0) {
        const pending = reports.filter(r => r.verdict.pending).length
        this.log(
          `\n${reports.length} group${reports.length === 1 ? '' : 's'} matched ${asked}${pending ? `; ${pending} with a rebalance pending or in progress` : ''}`,
        )
      }
    }
    if (reports.length === 0) {
      this.note(
        `no group matches ${asked}. Try this: \`group list\` lists every group${pattern === undefined ? '' : '; for a group id with * or ? in it, add --literal'}.`,
      )
      process.exitCode = EXIT.notFound
    } else if (flags['fail-on-pending'] && reports.some(r => r.verdict.pending)) process.exitCode = EXIT.finding
    return {pattern: pattern ?? null, all: flags.all === true, groups: reports}
  }

  /**
   * --watch: every interval, the group's records after the last read, replayed from the state the last read left
   * (a copy: a read that fails half-way changes nothing), and each new bump printed once with its causes.
   */
  private async watch(group: string, stuckAfterMs: number | undefined, from: {state: GroupState; nextOffset: bigint}): Promise<void> {
    const {flags} = this
    const printed = new PrintedBumps()
    // bumps printed with a cause not known exactly: explained again each read, revised when history names them
    const open = new OpenBumps()
    let at = from
    await runWatch({
      interval: flags.watch!.text,
      intervalMs: flags.watch!.ms,
      unit: 'read',
      cycle: async n => {
        if (n === 1) return // the report was the first read
        try {
          const events = await this.withCluster(async client => {
            let replaying = new GroupReplay(group, {initialState: structuredClone(at.state)})
            let log = await readGroupLog(client, group, {fromOffset: at.nextOffset, onRecord: r => replaying.push(r)})
            let since = at.nextOffset
            const misfit =
              log.logStartOffset > at.nextOffset
                ? `the log start (${log.logStartOffset}) moved past the last read (${at.nextOffset})`
                : log.endOffset < at.nextOffset
                  ? `the log ends at ${log.endOffset}, before the last read (${at.nextOffset}): truncated`
                  : undefined
            if (misfit) {
              // read it all again; bumps from the old end on are new (those already printed stay printed)
              process.stderr.write(forTerminal(`Warning: --watch: ${misfit}; reading the group's records in full\n`))
              replaying = new GroupReplay(group)
              log = await readGroupLog(client, group, {onRecord: r => replaying.push(r)})
              since = log.endOffset < at.nextOffset ? log.logStartOffset : at.nextOffset
            }
            const replay = replaying.finish()
            const fresh = {...replay, timeline: replay.timeline.filter(e => e.offset >= since)}
            let events: BumpEvent[] = []
            let revisions: BumpRevision[] = []
            const now = Date.now()
            const again = open.replays(now)
            if (fresh.timeline.length > 0 || again.length > 0) {
              const topics = new Set([...topicsEverUsed(fresh), ...again.flatMap(o => [...topicsEverUsed(o.replay)])])
              const live = await client.clusterMetadata({topics: [...topics]})
              const {view} = loadHistoryView(live.clusterId, flags['history-dir'])
              const explain = (r: ReplayResult) => {
                const report = explainGroup(group, r, {live, now, stuckAfterMs, knownRacks: historyRacks(view)})
                annotateFromHistory(report, r, view)
                return report
              }
              revisions = again.flatMap(o => open.revise(explain(o.replay), live.clusterId ?? null))
              if (fresh.timeline.length > 0) {
                events = newBumpEvents(explain(fresh), live.clusterId ?? null, printed)
                open.add(events, () => fresh, now)
              }
            }
            at = {state: replay.state, nextOffset: log.endOffset}
            return {events, revisions}
          })
          printRevisions(events.revisions, flags.ndjson)
          printBumps(events.events, flags.ndjson)
        } finally {
          this.warnings.length = 0
        }
      },
    })
  }
}
