/**
 * `audit --watch` read describe-only (READ on `__consumer_offsets` refused, or --describe-only): every interval the
 * describe-only pass (the group listing, the describes, the live metadata), each group compared with its last poll
 * (core/audit/described-watch.ts), each epoch move printed once as a bump explained from what the two polls saw.
 * The history records every poll that saw an epoch or a topic change (the epochs, no stored hash); the --prometheus
 * file is rewritten each poll as the describe-only audit writes it.
 */
import {exitWithHistory} from '../../core/audit/pass.js'
import {describedRestartNotice, describedWatchStart} from '../../core/audit/described-restart.js'
import {DescribePolls, describedHistoryGroups, snapshotOf} from '../../core/audit/described-watch.js'
import {boundAfterRestart, RESTART_BOUND, type RestartBound, type WatchKind} from '../../core/audit/restart.js'
import {type BumpEvent, newBumpEvents, orderBumps, PrintedBumps} from '../../core/audit/watch.js'
import type {DescribeSnapshot} from '../../core/explain/evidence/describes.js'
import type {Denial} from '../../core/errors.js'
import {explainObserved} from '../../core/explain/explain.js'
import {describeWriteError} from '../../io/atomic-file.js'
import {defaultHistoryDir, recordHistory} from '../../history/store.js'
import {describedWatchStateStore, type StateStore} from '../../sources/watch-state.js'
import type {DescribedWatchState} from '../../core/audit/described-restart.js'
import type {Session} from '../session.js'
import {type DescribedPoll, describedAuditPass} from './described.js'
import type {AuditSettings, PassResult} from './pass.js'

/** Kept across the watch's own restarts (with the history on): what the watch is, and its bound. */
export interface DescribedResume {
  kind: WatchKind
  filters: string
  bound?: RestartBound
}

/** The baseline is written again, unchanged, when its last write is this old: its time bounds a restart's window. */
const BASELINE_REFRESH_MS = 10 * 60_000

/**
 * One describe-only watch's memory: the last poll of each group, the bumps printed, what the history last got; with
 * `resume`, the polls kept on disk after each poll's prints, and those of an earlier watch compared with first.
 */
export class DescribedWatch {
  private polls: DescribePolls
  private readonly printedBumps = new PrintedBumps()
  private recorded: string | undefined
  private store: {clusterId: string; file: StateStore<DescribedWatchState>} | undefined
  private saved: {at: number; snapshots: Set<DescribeSnapshot>} | undefined
  private failed = false

  /** The session, each warning said once per watch: a group refused at every poll is not warned of at every poll. */
  private readonly onceEach: Session

  constructor(
    private readonly session: Session,
    private readonly o: AuditSettings,
    private readonly extra: {denial?: Denial; resume?: DescribedResume; seed?: readonly DescribeSnapshot[]} = {},
  ) {
    // the first poll compares with what was shown before the watch began (a report's describe), if any
    this.polls = new DescribePolls(extra.seed)
    const warned = new Set<string>()
    this.onceEach = {
      withCluster: (work, options) => session.withCluster(work, options),
      warn: m => {
        if (warned.has(m)) return
        // bounded: a watch of many groups coming and going says a warning again rather than keep them all
        if (warned.size >= 10_000) warned.clear()
        warned.add(m)
        session.warn(m)
      },
      report: line => session.report(line),
    }
  }

  /** One poll: the pass's rows and summary, and the bumps seen since the last poll (not printed before). */
  async poll(started: number, onClusterId?: (id: string) => void): Promise<{pass: PassResult; bumps: BumpEvent[]; historyError?: string}> {
    let polled: DescribedPoll | undefined
    const pass = await describedAuditPass(this.onceEach, this.o, {started, quiet: true, denial: this.extra.denial, onClusterId, onPolled: p => (polled = p)})
    const {live, described, hasher, answeredAt} = polled!
    const snapshots = described.map(d => snapshotOf(d, hasher, {requestedAt: started, at: answeredAt}))
    const clusterId = live.clusterId ?? null
    const earlier = this.resumeFrom(clusterId, answeredAt)
    const found = orderBumps(
      this.polls
        .next(snapshots)
        .flatMap(o => newBumpEvents({group: o.current.group.group, type: o.current.group.type, timeline: [explainObserved(o)]}, clusterId, this.printedBumps)),
    )
    const bumps = earlier ? this.afterRestart(found, earlier, answeredAt) : found
    // a poll that saw nothing new adds no line to the history
    const fingerprint = JSON.stringify(snapshots.map(s => [s.group.group, s.group.groupEpoch, s.topics]))
    if (!this.o.record || fingerprint === this.recorded) return {pass, bumps}
    const dir = this.o.historyDir ?? defaultHistoryDir()
    try {
      recordHistory({dir, retentionMs: this.o.retentionMs, now: answeredAt}, clusterId ?? 'unknown-cluster', live, describedHistoryGroups(described), hasher)
      this.recorded = fingerprint
      return {pass, bumps}
    } catch (error) {
      return {pass, bumps, historyError: `the audit history could not be written to ${dir}: ${describeWriteError(error)}`}
    }
  }

  /** The first poll that knows the cluster id: the earlier watch's polls become the baseline (undefined: a first start). */
  private resumeFrom(clusterId: string | null, now: number): DescribedWatchState | undefined {
    const {resume} = this.extra
    if (!resume || !this.o.record || clusterId === null || this.store) return undefined
    const {kind, filters} = resume
    const file = describedWatchStateStore(this.o.historyDir ?? defaultHistoryDir(), clusterId, kind, filters)
    this.store = {clusterId, file}
    const start = describedWatchStart(file.load(), {clusterId, kind, filters, at: now}, resume.bound ?? RESTART_BOUND)
    if ('firstStart' in start) {
      if (start.why) this.session.report(`Warning: --watch: ${start.why}: started as a first start (the epochs that moved before it are not printed)`)
      return undefined
    }
    this.polls = new DescribePolls(start.restart.snapshots)
    return start.restart
  }

  /** The first poll after a restart: its bumps bounded, marked afterRestart, and a stderr line saying so. */
  private afterRestart(events: BumpEvent[], earlier: DescribedWatchState, now: number): BumpEvent[] {
    const bound = this.extra.resume?.bound ?? RESTART_BOUND
    const bounded = boundAfterRestart(events, now, bound)
    this.session.report(describedRestartNotice(earlier.kind, bounded, earlier.at, bound))
    for (const e of bounded.kept) e.afterRestart = true
    return bounded.kept
  }

  /** After the poll's bumps are printed: the baseline written when it changed (or its last write is old), a failure said once. */
  printed(now: number): void {
    if (!this.store) return
    const snapshots = this.polls.baseline()
    const saved = this.saved
    const same = saved && snapshots.length === saved.snapshots.size && snapshots.every(s => saved.snapshots.has(s))
    if (same && now - saved.at < BASELINE_REFRESH_MS) return
    const {kind, filters} = this.extra.resume!
    const error = this.store.file.save({clusterId: this.store.clusterId, kind, filters, at: now, snapshots})
    if (error === undefined) this.saved = {at: now, snapshots: new Set(snapshots)}
    else if (!this.failed) {
      this.failed = true
      this.session.report(`Warning: --watch: the describe-only polls could not be written to ${this.store.file.file} (${error}): a restart will start quiet`)
    }
  }
}

/** The --prometheus summary's exit code of a describe-only poll. */
export const describedExitCode = (pass: PassResult): ReturnType<typeof exitWithHistory> => exitWithHistory(pass.summary, pass.history)
