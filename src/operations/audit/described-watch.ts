/**
 * `audit --watch` read describe-only (READ on `__consumer_offsets` refused, or --describe-only): every interval the
 * describe-only pass (the group listing, the describes, the live metadata), each group compared with its last poll
 * (core/audit/described-watch.ts), each epoch move printed once as a bump explained from what the two polls saw.
 * The history records every poll that saw an epoch or a topic change (the epochs, no stored hash); the --prometheus
 * file is rewritten each poll as the describe-only audit writes it.
 */
import {exitWithHistory} from '../../core/audit/pass.js'
import {DescribePolls, describedHistoryGroups, snapshotOf} from '../../core/audit/described-watch.js'
import {type BumpEvent, newBumpEvents, orderBumps, PrintedBumps} from '../../core/audit/watch.js'
import type {Denial} from '../../core/errors.js'
import {explainObserved} from '../../core/explain/explain.js'
import {describeWriteError} from '../../io/atomic-file.js'
import {defaultHistoryDir, recordHistory} from '../../history/store.js'
import type {Session} from '../session.js'
import {type DescribedPoll, describedAuditPass} from './described.js'
import type {AuditSettings, PassResult} from './pass.js'

/** One describe-only watch's memory: the last poll of each group, the bumps printed, what the history last got. */
export class DescribedWatch {
  private readonly polls = new DescribePolls()
  private readonly printed = new PrintedBumps()
  private recorded: string | undefined

  constructor(
    private readonly session: Session,
    private readonly o: AuditSettings,
    private readonly denial?: Denial,
  ) {}

  /** One poll: the pass's rows and summary, and the bumps seen since the last poll (not printed before). */
  async poll(started: number, onClusterId?: (id: string) => void): Promise<{pass: PassResult; bumps: BumpEvent[]; historyError?: string}> {
    let polled: DescribedPoll | undefined
    const pass = await describedAuditPass(this.session, this.o, {started, quiet: true, denial: this.denial, onClusterId, onPolled: p => (polled = p)})
    const {live, described, hasher, answeredAt} = polled!
    const snapshots = described.map(d => snapshotOf(d, hasher, {requestedAt: started, at: answeredAt}))
    const clusterId = live.clusterId ?? null
    const bumps = orderBumps(
      this.polls
        .next(snapshots)
        .flatMap(o => newBumpEvents({group: o.current.group.group, type: o.current.group.type, timeline: [explainObserved(o)]}, clusterId, this.printed)),
    )
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
}

/** The --prometheus summary's exit code of a describe-only poll. */
export const describedExitCode = (pass: PassResult): ReturnType<typeof exitWithHistory> => exitWithHistory(pass.summary, pass.history)
