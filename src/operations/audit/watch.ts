/**
 * `audit --watch`: an incremental pass every interval (checkpoints held in memory, and written as --incremental
 * writes them when the history is on), each new bump printed once with its causes, bumps printed before revised
 * when a pass names them exactly, members newly stuck printed once, the --prometheus file and the history
 * rewritten each pass. A failed pass is reported and retried from where the last good one ended; SIGINT/SIGTERM
 * stop it after the running pass has written everything.
 */
import {printedThrough, type WatchState} from '../../core/audit/restart.js'
import {fullRow} from '../../core/audit/stored-row.js'
import {exitWithHistory, historyFailed} from '../../core/audit/pass.js'
import {rowCacheKey} from '../../core/audit/row-cache.js'
import {type BumpEvent, type BumpRevision, newBumpEvents, newStuckEvents, OpenBumps, orderBumps, PrintedBumps, type StuckEvent} from '../../core/audit/watch.js'
import {partitionForGroup} from '../../core/records/partition.js'
import type {ReplayResult} from '../../core/replay/index.js'
import {defaultHistoryDir} from '../../history/store.js'
import {runWatch} from '../../io/watch-loop.js'
import {type CheckpointStore, checkpointStore, type MemoryCheckpointStore, memoryCheckpointStore} from '../../sources/audit-checkpoint.js'
import type {Session} from '../session.js'
import {WatchResume} from '../watch-resume.js'
import {type AuditSettings, auditPass} from './pass.js'
import {DescribedWatch, describedExitCode} from './described-watch.js'
import {offsetsReadDenied} from '../../sources/group-log.js'
import {type PrometheusTarget, writePrometheus, writePrometheusFailure} from './prometheus.js'

export interface AuditWatchOptions {
  interval: {text: string; ms: number}
  version: string
  /** Checkpoints on disk too (with the history on, a real cluster id and no --group). */
  persistCheckpoints: boolean
  prometheus?: PrometheusTarget
  /** How the filters read in the first notice ("--group orders-* --type consumer"). */
  filters: string
  debug: boolean
  /** --describe-only: poll the describes from the start (without it, from the first refusal of READ on __consumer_offsets). */
  describeOnly?: boolean
}

/** Where the watch's output goes (stdout documents or lines, chosen by the command). */
export interface AuditWatchSink {
  bumps(events: BumpEvent[]): void
  revisions(events: BumpRevision[]): void
  stuck(events: StuckEvent[], now: number): void
  /** The end of a pass: what it warned is not kept for the next. */
  passEnded(): void
}

export async function watchAudit(session: Session, o: AuditSettings, w: AuditWatchOptions, sink: AuditWatchSink): Promise<void> {
  const printed = new PrintedBumps()
  const printedStuck = new PrintedBumps()
  // bumps printed with a cause not known exactly: explained again each pass, revised when it names them exactly
  const open = new OpenBumps()
  // said once, after the first pass that read the cluster (stderr: stdout holds only bumps)
  let announced = false
  let memory: {clusterId: string; store: MemoryCheckpointStore} | undefined
  let clusterIdOfRun: string | undefined
  // with the history on: what this watch printed, kept for its next start; `earlier`: the state of the watch before it
  const resume = o.record ? new WatchResume(session, {kind: 'audit', filters: w.filters, historyDir: o.historyDir}) : undefined
  let earlier: WatchState | undefined
  // describe-only: asked, or since the first cycle whose read of __consumer_offsets was refused
  let described = w.describeOnly ? new DescribedWatch(session, o, {resume: describedResume(w)}) : undefined
  const describedCycle = (d: DescribedWatch, n: number, started: number) =>
    describedWatchCycle(session, d, {n, started, w, sink, announced, onClusterId: id => (clusterIdOfRun = id)}).then(() => void (announced = true))
  await runWatch({
    interval: w.interval,
    unit: 'cycle',
    cycle: async n => {
      const started = Date.now()
      if (described) return describedCycle(described, n, started)
      try {
        const r = await auditPass(session, o, {
          started,
          watch: true,
          onClusterId: id => (clusterIdOfRun = id),
          checkpoints: clusterId => {
            const id = clusterId ?? 'unknown-cluster'
            const backing = w.persistCheckpoints && clusterId !== null ? checkpointStore(o.historyDir ?? defaultHistoryDir(), clusterId) : undefined
            if (memory?.clusterId !== id) memory = {clusterId: id, store: memoryCheckpointStore(backing)}
            earlier = resume?.restartOf(clusterId)
            const store = earlier ? notAheadOf(memory.store, earlier) : memory.store
            return {store, clusterId: id, rowsKey: rowCacheKey(w.version, o.stuckAfterMs)}
          },
          // after a restart, the first pass tracks from what the earlier watch printed
          trackFrom: partition => (earlier ? earlier.printedThrough.get(partition) : memory?.store.nextOffset(partition)),
          open,
        })
        // marked printed only now, when they are written (a pass that failed marked nothing)
        const replayOf = new Map<BumpEvent, ReplayResult>()
        const found = orderBumps(
          r.bumps.flatMap(({report, replay}) => newBumpEvents(report, r.summary.clusterId, printed).map(e => (replayOf.set(e, replay), e))),
        )
        const bumps = resume ? resume.found(found, started) : found
        sink.revisions(r.revisions)
        if (resume) resume.print(r.summary.clusterId, bumps, e => partitionForGroup(e.group, r.summary.partitions), sink.bumps, started)
        else sink.bumps(bumps)
        open.add(bumps, e => replayOf.get(e)!, started)
        // members newly stuck, once each (a stuck member writes no record, so it makes no bump to print)
        sink.stuck(newStuckEvents(r.rows.filter(row => row.stuckMembers.length > 0).map(fullRow), r.summary.clusterId, printedStuck), started)
        if (!announced) {
          announced = true
          session.report(
            `watching ${r.summary.groups} group${r.summary.groups === 1 ? '' : 's'}${w.filters ? ` (${w.filters})` : ''} of cluster ${r.summary.clusterId ?? '(no id)'} every ${w.interval.text}: each new epoch bump and each member newly stuck is printed as it is read (SIGINT/Ctrl-C stops)`,
          )
        }
        memory?.store.commit()
        // after the prints (each bump's written as it was printed): where the pass ended, for every partition read
        if (memory)
          resume?.printed(
            r.summary.clusterId,
            printedThrough(r.summary.partitions, p => memory!.store.nextOffset(p)),
            started,
          )
        const {history} = r
        const failed = historyFailed(history)
        if (failed && 'error' in history)
          session.report(`Warning: --watch cycle ${n}: the audit history could not be written to ${history.dir}: ${history.error}`)
        if (w.prometheus) {
          const status = writePrometheus(w.prometheus, {...r.summary, exitCode: exitWithHistory(r.summary, r.history)}, r.rows, failed)
          if (!status.written) session.report(`Error: --watch cycle ${n}: could not write ${w.prometheus.file}: ${status.error}`)
        }
        if (w.debug) {
          const mem = process.memoryUsage()
          session.report(
            `[debug] --watch cycle ${n}: ${r.summary.groups} groups, ${r.incremental?.recordsRead ?? r.summary.recordsScanned} records read, ${bumps.length} new bumps, ${Date.now() - started} ms, rss ${Math.round(mem.rss / 1e6)} MB, heap ${Math.round(mem.heapUsed / 1e6)} MB`,
          )
        }
      } catch (error) {
        // resumed next cycle from where the last good one ended: no bump of this cycle is lost
        memory?.store.rollback()
        if (offsetsReadDenied(error)) {
          session.warn(`${error.message}: watching every group from its describes and the live metadata instead. ${error.hint}`)
          described = new DescribedWatch(session, o, {denial: error.denial, resume: describedResume(w)})
          return describedCycle(described, n, started)
        }
        if (w.prometheus) {
          const failed = writePrometheusFailure(w.prometheus, error, started, clusterIdOfRun)
          if (failed) session.report(`Error: --watch cycle ${n}: could not write ${w.prometheus.file}: ${failed}`)
        }
        throw error
      } finally {
        // nothing accumulates across cycles (the warnings were printed on stderr as they came)
        sink.passEnded()
      }
    },
  })
}

/** One describe-only cycle: the bumps the poll saw, the history and --prometheus written, the first notice. */
async function describedWatchCycle(
  session: Session,
  d: DescribedWatch,
  c: {n: number; started: number; w: AuditWatchOptions; sink: AuditWatchSink; announced: boolean; onClusterId: (id: string) => void},
): Promise<void> {
  const {n, started, w, sink} = c
  try {
    const {pass, bumps, historyError} = await d.poll(started, c.onClusterId)
    sink.bumps(bumps)
    d.printed(Date.now())
    if (!c.announced)
      session.report(
        `watching ${pass.summary.groups} group${pass.summary.groups === 1 ? '' : 's'}${w.filters ? ` (${w.filters})` : ''} of cluster ${pass.summary.clusterId ?? '(no id)'} describe-only every ${w.interval.text}: each epoch bump a poll sees is printed with what changed since the poll before; the interval bounds what can be seen (bumps between two polls are one observation; a member that joins and leaves between them is not seen) (SIGINT/Ctrl-C stops)`,
      )
    if (historyError) session.report(`Warning: --watch cycle ${n}: ${historyError}`)
    if (w.debug)
      session.report(`[debug] --watch cycle ${n}: describe-only, ${pass.summary.groups} groups, ${bumps.length} new bumps, ${Date.now() - started} ms`)
    if (w.prometheus) {
      const status = writePrometheus(w.prometheus, {...pass.summary, exitCode: describedExitCode(pass)}, pass.rows, historyError !== undefined)
      if (!status.written) session.report(`Error: --watch cycle ${n}: could not write ${w.prometheus.file}: ${status.error}`)
    }
  } catch (error) {
    if (w.prometheus) {
      const failed = writePrometheusFailure(w.prometheus, error, started, undefined)
      if (failed) session.report(`Error: --watch cycle ${n}: could not write ${w.prometheus.file}: ${failed}`)
    }
    throw error
  } finally {
    sink.passEnded()
  }
}

/** A describe-only audit watch is kept across restarts as the record-reading one is: with the history on. */
const describedResume = (w: AuditWatchOptions) => ({kind: 'audit' as const, filters: w.filters})

/**
 * The first pass after a restart reads again what the earlier watch did not print: a checkpoint that went further
 * (written by the pass it was killed in, or by an --incremental audit since) is not resumed, its partition is read
 * in full, and the records after what was printed are tracked.
 */
export function notAheadOf(store: MemoryCheckpointStore, earlier: WatchState): CheckpointStore {
  return {
    dir: store.dir,
    load(partition) {
      const cp = store.load(partition)
      const through = earlier.printedThrough.get(partition)
      return cp && !('error' in cp) && through !== undefined && cp.nextOffset > through ? undefined : cp
    },
    save: cp => store.save(cp),
  }
}
