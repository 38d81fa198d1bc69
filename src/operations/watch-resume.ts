/**
 * What a `--watch` (audit or group explain) printed, kept across its own restarts: read once the first read knows the
 * cluster id, written after each print that moved it (the decisions are pure: core/audit/restart.ts). A watch state
 * of another cluster, kind or filters is said on stderr and the watch starts quiet, as a first start.
 */
import {
  boundAfterRestart,
  RESTART_BOUND,
  printedSoFar,
  type RestartBound,
  restartNotice,
  samePrinted,
  type WatchKind,
  type WatchState,
  watchStart,
} from '../core/audit/restart.js'
import {type BumpEvent, orderBumps} from '../core/audit/watch.js'
import {defaultHistoryDir} from '../history/store.js'
import {type WatchStateStore, watchStateStore} from '../sources/watch-state.js'
import type {Session} from './session.js'

export class WatchResume {
  private store: WatchStateStore | undefined
  private saved: ReadonlyMap<number, bigint> | undefined
  private failed = false
  /** The earlier watch's state, until the first pass of this one has printed what it finds after it. */
  private earlier: WatchState | undefined

  constructor(
    private readonly session: Session,
    private readonly o: {kind: WatchKind; filters: string; historyDir: string | undefined; bound?: RestartBound},
  ) {}

  /** Called by each read with the cluster id: the earlier watch's state while this one has not printed after it (undefined: a first start). */
  restartOf(clusterId: string | null): WatchState | undefined {
    if (clusterId === null || this.store) return this.earlier
    const {kind, filters} = this.o
    this.store = watchStateStore(this.o.historyDir ?? defaultHistoryDir(), clusterId, kind, filters)
    const start = watchStart(this.store.load(), {clusterId, kind, filters}, f => (kind === 'audit' ? f || 'every group' : `group ${JSON.stringify(f)}`))
    if ('restart' in start) this.earlier = start.restart
    else if (start.why) this.session.report(`Warning: --watch: ${start.why}: started as a first start (the bumps stored before it are not printed)`)
    // (what it printed is where this watch starts from: not written again until it moves)
    if ('restart' in start) this.saved = start.restart.printedThrough
    return this.earlier
  }

  /**
   * The first pass after a restart: its new bumps (those at or after what the earlier watch printed) ordered, bounded,
   * marked afterRestart, and a stderr line saying how many were found and skipped. Later passes: `events` as they are.
   */
  found(events: BumpEvent[], now: number): BumpEvent[] {
    const earlier = this.earlier
    if (!earlier) return events
    this.earlier = undefined
    const bounded = boundAfterRestart(orderBumps(events), now, this.o.bound ?? RESTART_BOUND)
    this.session.report(restartNotice(this.o.kind, bounded, earlier.at, this.o.bound ?? RESTART_BOUND))
    // (marked in place: the caller keys what it knows of each event by the event itself)
    for (const e of bounded.kept) e.afterRestart = true
    return bounded.kept
  }

  /**
   * Prints a read's `events` one at a time, the state written after each (fsynced, renamed): a kill repeats at most
   * the bump whose print it fell between. The caller then records where the read ended (printed()).
   */
  print(clusterId: string | null, events: BumpEvent[], partitionOf: (e: BumpEvent) => number, print: (events: BumpEvent[]) => void, now: number): void {
    const before = this.saved ?? new Map<number, bigint>()
    const at = events.map(e => ({partition: partitionOf(e), offset: BigInt(e.offset)}))
    events.forEach((e, i) => {
      print([e])
      this.printed(clusterId, printedSoFar(before, at, i + 1), now)
    })
  }

  /** After a print: every bump below these offsets is printed (written when they moved; a failure said once). */
  printed(clusterId: string | null, through: ReadonlyMap<number, bigint>, now: number): void {
    if (clusterId === null || !this.store || samePrinted(this.saved, through)) return
    const error = this.store.save({clusterId, kind: this.o.kind, filters: this.o.filters, at: now, printedThrough: through})
    if (error === undefined) this.saved = new Map(through)
    else if (!this.failed) {
      this.failed = true
      this.session.report(`Warning: --watch: what was printed could not be written to ${this.store.file} (${error}): a restart will start quiet`)
    }
  }
}
