/**
 * `group explain GROUP --watch`: every interval, the group's records after the last read, replayed from the state
 * the last read left (a copy: a read that fails half-way changes nothing); each new bump printed once with its
 * causes, and bumps printed before revised when the history recorded since names them exactly.
 */
import {storedSince} from '../../core/audit/restart.js'
import {type BumpEvent, type BumpRevision, newBumpEvents, OpenBumps, PrintedBumps} from '../../core/audit/watch.js'
import {explainGroup, type ExplainReport} from '../../core/explain/explain.js'
import {recordedHistory} from '../../core/history/view.js'
import {CostTracker, topicNamesOf} from '../../core/cost/index.js'
import {GroupReplay, type LoggedRecord, type ReplayResult, topicsEverUsed} from '../../core/replay/index.js'
import {defaultHistoryDir, historyStamp, loadHistoryView} from '../../history/index.js'
import {runWatch} from '../../io/watch-loop.js'
import {readGroupLog} from '../../sources/group-log.js'
import type {Session} from '../session.js'
import {WatchResume} from '../watch-resume.js'
import type {ExplainedOne, WatchFrom} from './one.js'
import {DescribedWatch} from '../audit/described-watch.js'
import type {AuditSettings} from '../audit/pass.js'
import type {DescribeSnapshot} from '../../core/explain/evidence/describes.js'

/** The watch after a report: over the group's records where it read them, else polling its describes. */
export function watchExplained(
  session: Session,
  group: string,
  {report, watchFrom, describedFrom}: ExplainedOne,
  o: {interval: {text: string; ms: number}; stuckAfterMs: number | undefined; historyDir: string | undefined},
  sink: GroupWatchSink,
): Promise<void> {
  // read describe-only (no records, so no offset to go on from): the describes are polled
  return watchFrom ? watchGroup(session, group, {...watchFrom, report}, o, sink) : watchDescribedGroup(session, group, describedFrom, o, sink)
}

export interface GroupWatchSink {
  bumps(events: BumpEvent[]): void
  revisions(events: BumpRevision[]): void
  /** The end of a read: what it warned is not kept for the next. */
  readEnded(): void
}

export async function watchGroup(
  session: Session,
  group: string,
  from: WatchFrom & {report: ExplainReport},
  o: {interval: {text: string; ms: number}; stuckAfterMs: number | undefined; historyDir: string | undefined},
  sink: GroupWatchSink,
): Promise<void> {
  const printed = new PrintedBumps()
  // what this watch printed, kept for its next start
  const resume = new WatchResume(session, {kind: 'group-explain', filters: group, historyDir: o.historyDir})
  // bumps printed with a cause not known exactly: explained again each read, revised when history names them
  const open = new OpenBumps()
  let at: {state: WatchFrom['state']; nextOffset: bigint} = from
  // the cluster the history is kept under, once a read has told it; the history's stamp at the last look
  let clusterId: string | undefined
  let stampSeen: string | undefined
  await runWatch({
    interval: o.interval,
    unit: 'read',
    cycle: async n => {
      // the report was the first read: after a restart, its bumps the earlier watch did not print
      if (n === 1) return void bumpsAfterRestart(from, resume, printed, from.report, Date.now(), sink.bumps)
      try {
        const out = await session.withCluster(async client => {
          let replaying = new GroupReplay(group, {initialState: structuredClone(at.state)})
          // what each new bump cost, from the group as the last read left it
          let costs = new CostTracker(group)
          costs.seed(at.state)
          const push = (r: LoggedRecord) => (replaying.push(r), costs.push(r))
          let log = await readGroupLog(client, group, {fromOffset: at.nextOffset, onRecord: push})
          let since = at.nextOffset
          const misfit =
            log.logStartOffset > at.nextOffset
              ? `the log start (${log.logStartOffset}) moved past the last read (${at.nextOffset})`
              : log.endOffset < at.nextOffset
                ? `the log ends at ${log.endOffset}, before the last read (${at.nextOffset}): truncated`
                : undefined
          if (misfit) {
            session.report(`Warning: --watch: ${misfit}; reading the group's records in full`)
            replaying = new GroupReplay(group)
            costs = new CostTracker(group)
            log = await readGroupLog(client, group, {onRecord: push})
            since = log.endOffset < at.nextOffset ? log.logStartOffset : at.nextOffset
          }
          const replay = replaying.finish()
          const fresh = {...replay, timeline: replay.timeline.filter(e => e.offset >= since)}
          let events: BumpEvent[] = []
          let revisions: BumpRevision[] = []
          const now = Date.now()
          // bumps printed before are explained again only when the history was written since the last look
          // (the view is read before it is stamped-over: a write in between makes the next stamp differ)
          const stamp = clusterId === undefined ? undefined : historyStamp(o.historyDir ?? defaultHistoryDir(), clusterId)
          const again = stamp !== undefined && stamp === stampSeen ? [] : open.replays(now)
          if (fresh.timeline.length > 0 || again.length > 0) {
            const topics = new Set([...topicsEverUsed(fresh), ...again.flatMap(x => [...topicsEverUsed(x.replay)])])
            const live = await client.clusterMetadata({topics: [...topics]})
            clusterId = live.clusterId
            if (stamp !== undefined) stampSeen = stamp
            const history = recordedHistory(loadHistoryView(live.clusterId, o.historyDir).view)
            const explain = (r: ReplayResult) => explainGroup(group, r, {live, now, stuckAfterMs: o.stuckAfterMs, history})
            revisions = again.flatMap(x => open.revise(explain(x.replay), live.clusterId ?? null))
            if (fresh.timeline.length > 0) {
              const report = explainGroup(group, fresh, {
                live,
                now,
                stuckAfterMs: o.stuckAfterMs,
                history,
                costs: costs.finish({topicNames: topicNamesOf(live)}),
              })
              events = newBumpEvents(report, live.clusterId ?? null, printed)
              open.add(events, () => fresh, now)
            }
          }
          at = {state: replay.state, nextOffset: log.endOffset}
          return {events, revisions}
        })
        sink.revisions(out.revisions)
        const now = Date.now()
        resume.print(from.clusterId, out.events, () => from.partition, sink.bumps, now)
        resume.printed(from.clusterId, new Map([[from.partition, at.nextOffset]]), now)
      } finally {
        sink.readEnded()
      }
    },
  })
}

/**
 * Prints the bumps of the first report at or after what an earlier watch of the group printed (none at a first start),
 * each recorded as printed once printed, then where the report's read ended; returns them.
 */
export function bumpsAfterRestart(
  from: WatchFrom,
  resume: WatchResume,
  printed: PrintedBumps,
  report: ExplainReport,
  now: number,
  print: (events: BumpEvent[]) => void,
): BumpEvent[] {
  const earlier = resume.restartOf(from.clusterId)
  const through = earlier?.printedThrough.get(from.partition)
  const found = through === undefined ? [] : newBumpEvents({...report, timeline: storedSince(report.timeline, through)}, from.clusterId, printed)
  const events = resume.found(found, now)
  resume.print(from.clusterId, events, () => from.partition, print, now)
  resume.printed(from.clusterId, new Map([[from.partition, from.nextOffset]]), now)
  return events
}

/**
 * `group explain GROUP --watch` read describe-only (READ on `__consumer_offsets` refused, or --describe-only): the
 * group polled as a describe-only `audit --watch --group GROUP` polls it (its describe and the live metadata), each
 * epoch move printed once with what changed between the two polls, the epochs seen recorded in the history. The
 * first poll compares with `from`, the describe the report was made from: a bump between the report and that poll is
 * printed (without it the first poll would be a baseline, and such a bump in no comparison). After a restart, the
 * earlier watch's polls are compared with instead (they are older).
 */
export async function watchDescribedGroup(
  session: Session,
  group: string,
  from: DescribeSnapshot | undefined,
  o: {interval: {text: string; ms: number}; stuckAfterMs: number | undefined; historyDir: string | undefined},
  sink: Pick<GroupWatchSink, 'bumps' | 'readEnded'>,
): Promise<void> {
  const settings: AuditSettings = {
    stuckAfterMs: o.stuckAfterMs,
    failOn: [],
    types: undefined,
    match: g => g === group,
    filtered: true,
    retentionMs: HISTORY_RETENTION_MS,
    concurrency: 1,
    record: true,
    historyDir: o.historyDir,
    metadataLogDir: undefined,
    lag: false,
  }
  const polls = new DescribedWatch(session, settings, {resume: {kind: 'group-explain', filters: group}, seed: from ? [from] : []})
  await runWatch({
    interval: o.interval,
    unit: 'read',
    cycle: async n => {
      try {
        const {bumps, historyError} = await polls.poll(Date.now())
        sink.bumps(bumps)
        polls.printed(Date.now())
        if (historyError) session.report(`Warning: --watch read ${n}: ${historyError}`)
      } finally {
        sink.readEnded()
      }
    },
  })
}

/** The history's retention when a watch other than audit's records it (audit's --history-retention default). */
const HISTORY_RETENTION_MS = 30 * 86_400_000
