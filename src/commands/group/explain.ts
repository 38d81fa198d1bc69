import {Args, Flags} from '@oclif/core'
import {BaseCommand, EXIT, patternHint} from '../../base-command.js'
import {SCHEMAS, toDocument} from '../../core/documents.js'
import {type ExplainReport, explainGroup} from '../../core/explain/explain.js'
import {GroupReplay, type GroupState, subscribedTopicsOf} from '../../core/replay/index.js'
import {type BumpEvent, newBumpEvents, PrintedBumps} from '../../core/audit/watch.js'
import {printBumps, runWatch, watchInterval} from '../../io/watch-loop.js'
import {forTerminal, terminalSafeJson} from '../../render/terminal.js'
import {parseDuration, parseTimeSpec} from '../../core/time.js'
import {connectionFlags} from '../../kafka/flags.js'
import {withKafka} from '../../kafka/session.js'
import {startProgress} from '../../render/progress.js'
import {renderExplain} from '../../render/explain.js'
import {colorFlags, styleOf, timeFlags} from '../../output-flags.js'
import {readGroupLog} from '../../sources/group-log.js'
import {annotateFromHistory, historyRacks, HISTORY_DIR_ENV, loadHistoryView} from '../../history/index.js'
import {inFlightReassignments} from '../../sources/reassignments.js'
import {readGroupOffsets} from '../../sources/group-offsets.js'
import {explainFromMetadataLog} from '../../sources/metadata-log-explain.js'

export default class GroupExplain extends BaseCommand<typeof GroupExplain> {
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
reconciling. Works for consumer, share and streams groups (classic groups have no metadata hash).

--json prints {schema, group, type, groupEpoch, assignmentEpoch, storedMetadataHash, liveMetadataHash, inSync,
verdict: {code, message, pending}, findings: [{code, message, details}], topics, members, stuckAfter: {ms, source, smallestRebalanceTimeoutMs},
timeline: [{epoch, previousEpoch, timestamp, time, offset, metadataHash, previousMetadataHash, assignmentEpoch,
causes: [{kind, message, confidence, alternatives, details}]}], skippedRecords, offsets: {partitions: [{topic, topicId,
partition, committedOffset, logEndOffset, lag, memberId, clientId, host, logEndError}], totalLag, uncommitted}, warnings}.
Hashes and offsets are decimal strings. Offsets and lag per partition (consumer groups) are those kafka-consumer-groups
--describe shows: committed offsets from the group's records, log end offsets from ListOffsets (read-only).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092',
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092 --last 5',
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092 --fail-on-pending --json',
  ]

  static override args = {
    group: Args.string({description: 'group id', required: true}),
  }

  static override flags = {
    ...connectionFlags,
    since: Flags.string({summary: 'Only timeline entries at or after this time: ISO-8601 (UTC unless it names a zone) or a duration ago (2h, 7d).', helpValue: 'TIME'}),
    last: Flags.integer({summary: 'Only the last N timeline entries.', min: 1, helpValue: 'N'}),
    'fail-on-pending': Flags.boolean({summary: 'Exit 3 when a rebalance is pending or in progress (for scripts).'}),
    'stuck-after': Flags.string({summary: 'Call a member reconciling longer than this stuck (duration; default: half the smallest rebalance timeout the members declared, else 5m).', helpValue: 'DURATION'}),
    'metadata-log': Flags.string({summary: 'A KRaft metadata log directory (__cluster_metadata-0, read-only): attribute metadata bumps exactly from it.', helpValue: 'DIR'}),
    'history-dir': Flags.string({summary: 'Audit history to attribute past metadata changes from (written by `audit`).', env: HISTORY_DIR_ENV, helpValue: 'DIR'}),
    ...timeFlags,
    ...colorFlags,
    watch: Flags.string({
      summary: "Keep running: print the report, then read the group's new records every DURATION (10s) and print each new epoch bump once with its causes.",
      description: 'A line per new bump; with --ndjson the report as one line, then one {schema: {name: "rebalance-doctor/bump", version: 1}, ...} object per bump (see README). A failed read (broker restart, coordinator move) is reported on stderr and retried at the next interval. SIGINT or SIGTERM ends the watch after the running read, exit code 0 (a second signal exits at once, 130). Metadata bumps are named exactly when an `audit --watch` (or a cron audit) records the history meanwhile.',
      exclusive: ['json', 'since', 'last', 'fail-on-pending', 'metadata-log'],
      helpValue: 'DURATION',
    }),
    ndjson: Flags.boolean({summary: 'With --watch: one JSON object per line (the report, then one per new bump).', dependsOn: ['watch']}),
  }

  async run(): Promise<ExplainReport> {
    const {flags} = this
    const since = flags.since ? parseTimeSpec(flags.since, 'since') : undefined
    const now = Date.now()
    const stuckAfterMs = flags['stuck-after'] === undefined ? undefined : parseDuration(flags['stuck-after'], 'stuck-after')
    if (flags.watch !== undefined) watchInterval(flags.watch) // a usage error before any read
    const group = this.args.group
    const progress = await startProgress(`reading ${group}'s records`, !this.jsonEnabled())
    let watchFrom: {state: GroupState; nextOffset: bigint} | undefined
    const report = await withKafka(flags, {debug: flags.debug, warn: m => this.warn(m)}, async client => {
      // streamed into the replay as read: the partition's other groups are skipped by key, undecoded
      const replaying = new GroupReplay(group)
      const log = await readGroupLog(client, group, {onProgress: n => progress.update(`reading __consumer_offsets: ${n} records`), onRecord: r => replaying.push(r)})
      const replay = replaying.finish()
      if (flags.watch !== undefined) watchFrom = {state: structuredClone(replay.state), nextOffset: log.endOffset}
      // every topic the group used at any epoch: the attribution walks back through them
      const topics = new Set<string>()
      for (const e of replay.timeline) for (const s of [e.before, e.after]) if (e.groupType !== 'classic') for (const t of subscribedTopicsOf(e.groupType, s)) topics.add(t)
      for (const type of ['consumer', 'share', 'streams'] as const) if (replay.state[type]) for (const t of subscribedTopicsOf(type, replay.state)) topics.add(t)
      progress.update('reading live metadata')
      const live = await client.clusterMetadata({topics: [...topics]})
      progress.update('reading partition reassignments in flight')
      const reassignments = await inFlightReassignments(client, m => this.warn(m))
      // metadata bumps the hashes alone cannot pin down: exact from the audit history, when recorded; its racks
      // are names to test where no broker has them today
      const {view} = loadHistoryView(live.clusterId, flags['history-dir'])
      const report = explainGroup(group, replay, {live, now, stuckAfterMs, reassignments, knownRacks: historyRacks(view)})
      annotateFromHistory(report, replay, view)
      progress.update('reading log end offsets')
      report.offsets = await readGroupOffsets(client, replay.state, live, m => this.warn(m))
      // exact, from the cluster's own metadata log, when given
      if (flags['metadata-log']) await explainFromMetadataLog(report, replay, flags['metadata-log'], [...topics])
      return report
    }).finally(() => progress.stop())

    if (since !== undefined) report.timeline = report.timeline.filter(e => e.timestamp >= since)
    if (flags.last) report.timeline = report.timeline.slice(-flags.last)
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
      this.note(`Try this: check the group id (\`audit --all\` lists every group).${patternHint(group)}`)
      process.exitCode = EXIT.notFound
    }
    return report
  }

  /**
   * --watch: every interval, the group's records after the last read, replayed from the state the last read left
   * (a copy: a read that fails half-way changes nothing), and each new bump printed once with its causes.
   */
  private async watch(group: string, stuckAfterMs: number | undefined, from: {state: GroupState; nextOffset: bigint}): Promise<void> {
    const {flags} = this
    const intervalMs = watchInterval(flags.watch!)
    const printed = new PrintedBumps()
    let at = from
    await runWatch({
        interval: flags.watch!, intervalMs, unit: 'read',
        cycle: async n => {
          if (n === 1) return // the report was the first read
          try {
            const events = await withKafka(flags, {debug: flags.debug, warn: m => this.warn(m)}, async client => {
              let replaying = new GroupReplay(group, {initialState: structuredClone(at.state)})
              let log = await readGroupLog(client, group, {fromOffset: at.nextOffset, onRecord: r => replaying.push(r)})
              let since = at.nextOffset
              const misfit = log.logStartOffset > at.nextOffset ? `the log start (${log.logStartOffset}) moved past the last read (${at.nextOffset})` : log.endOffset < at.nextOffset ? `the log ends at ${log.endOffset}, before the last read (${at.nextOffset}): truncated` : undefined
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
              if (fresh.timeline.length > 0) {
                const topics = new Set<string>()
                for (const e of fresh.timeline) for (const st of [e.before, e.after]) if (e.groupType !== 'classic') for (const t of subscribedTopicsOf(e.groupType, st)) topics.add(t)
                const live = await client.clusterMetadata({topics: [...topics]})
                const {view} = loadHistoryView(live.clusterId, flags['history-dir'])
                const report = explainGroup(group, fresh, {live, now: Date.now(), stuckAfterMs, knownRacks: historyRacks(view)})
                annotateFromHistory(report, fresh, view)
                events = newBumpEvents(report, live.clusterId ?? null, printed)
              }
              at = {state: replay.state, nextOffset: log.endOffset}
              return events
            })
            printBumps(events, flags.ndjson)
          } finally {
            this.warnings.length = 0
          }
        },
    })
  }
}
