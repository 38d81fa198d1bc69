/**
 * One audit pass: live metadata and reassignments, every `__consumer_offsets` partition (resumed from checkpoints
 * when given), the history recorded, and with --watch the causes of the new bumps (and of bumps printed earlier
 * whose causes this pass may name exactly), --metadata-log's exact names, each group's lag.
 */
import {type AuditContext, type AuditSummary, auditContext, type FindingKind} from '../../core/audit/audit.js'
import {AuditPass, historyGroups, type HistoryStatus, type IncrementalStatus} from '../../core/audit/pass.js'
import {withLag} from '../../core/audit/lag.js'
import type {AuditRow} from '../../core/audit/stored-row.js'
import type {BumpRevision, OpenBumps} from '../../core/audit/watch.js'
import {explainGroup, type ExplainReport} from '../../core/explain/explain.js'
import {type RecordedHistory, recordedHistory} from '../../core/history/view.js'
import type {ClusterMetadata} from '../../core/metadata.js'
import type {GroupType, ReplayResult} from '../../core/replay/index.js'
import {loadHistoryView} from '../../history/index.js'
import {defaultHistoryDir, HISTORY_DIR_ENV, recordHistory} from '../../history/store.js'
import {describeWriteError} from '../../io/atomic-file.js'
import type {ClusterReader} from '../../kafka/cluster-reader.js'
import {checkpointErrorWarnings, fullReadWarnings} from '../../render/partition-warnings.js'
import type {CheckpointStore} from '../../sources/audit-checkpoint.js'
import {scanOffsets} from '../../sources/audit-scan.js'
import type {TrackedReplay} from '../../core/audit/scan.js'
import {topicNamesOf} from '../../core/cost/index.js'
import {readGroupLags} from '../../sources/group-lag.js'
import {inFlightReassignments} from '../../sources/reassignments.js'
import type {Session} from '../session.js'
import {type AuditMetadataLog, attributeAuditDrifts, readAuditMetadataLog} from './metadata-log.js'

/** What every pass of a run shares (from the command's flags). */
export interface AuditSettings {
  stuckAfterMs: number | undefined
  failOn: FindingKind[]
  types: ReadonlySet<GroupType> | undefined
  match: (group: string) => boolean
  /** --group or --type given: no group audited is exit 4. */
  filtered: boolean
  retentionMs: number
  concurrency: number
  /** Record the history (--record). */
  record: boolean
  historyDir: string | undefined
  metadataLogDir: string | undefined
  lag: boolean
}

export interface PassOptions {
  started: number
  /** No progress spinner (--json, --ndjson, --quiet). */
  quiet?: boolean
  checkpoints: (clusterId: string | null) => {store: CheckpointStore; clusterId: string; rowsKey?: string} | undefined
  /** watch: per partition, where the last pass stopped (records after it are replayed for causes). */
  trackFrom?: (partition: number) => bigint | undefined
  watch?: true
  /** watch: bumps printed earlier whose causes this pass may name exactly. */
  open?: OpenBumps
  /** The cluster id, as soon as it is known (a run that fails later still names it in its --prometheus file). */
  onClusterId?: (clusterId: string) => void
}

export interface PassResult {
  rows: AuditRow[]
  summary: AuditSummary
  history: HistoryStatus
  historyNote: string | undefined
  incremental: IncrementalStatus | undefined
  /** Every --incremental checkpoint failed for the cause the history did (one warning says both). */
  checkpointsFailedWithHistory: boolean
  /** watch: explain reports of the groups with new records (their timelines holding only the new bumps), with their replays. */
  bumps: Array<{report: ExplainReport; replay: ReplayResult}>
  /** watch: bumps printed earlier, named exactly by this pass. */
  revisions: BumpRevision[]
  /** --metadata-log: what was read and attributed. */
  metadataLog: AuditMetadataLog | undefined
}

export async function auditPass(session: Session, o: AuditSettings, p: PassOptions): Promise<PassResult> {
  const {started} = p
  const {stuckAfterMs} = o
  const warn = (m: string) => session.warn(m)
  return session.withCluster(
    async (client, progress) => {
      // live metadata first, so each partition's groups are audited as soon as it is read and then dropped:
      // memory follows the partitions being read, not every group of the cluster
      const [live, reassignments] = await Promise.all([client.clusterMetadata(), inFlightReassignments(client, warn)])
      const ctx = auditContext(live, started, stuckAfterMs, reassignments)
      const audit = new AuditPass(ctx, o.types)
      const clusterId = live.clusterId ?? null
      p.onClusterId?.(clusterId ?? '')
      const checkpoints = p.checkpoints(clusterId)
      const scan = await scanOffsets(client, {
        checkpoints,
        concurrency: o.concurrency,
        acceptGroup: o.match,
        // what each group's bumps cost, for its row (groups resumed from a checkpoint: not measured, said so),
        // and with --watch what each new bump cost, for its event
        rowCosts: true,
        costs: p.watch,
        trackFrom: p.trackFrom,
        onProgress: (done, total, records) =>
          progress.update(`reading __consumer_offsets: ${done}/${total} partitions, ${records} records, ${audit.audited} groups audited`),
        onPartition: (_partition, groups, newBumps) => audit.addScanned(groups, newBumps),
      })
      const rows = audit.rows()
      // (one warning per cause, not per partition)
      const flag = p.watch ? '--watch' : '--incremental'
      for (const w of fullReadWarnings(scan.fullReads, flag)) warn(w)
      const incremental: IncrementalStatus | undefined = checkpoints && {
        dir: checkpoints.store.dir,
        partitionsResumed: scan.resumed,
        recordsRead: scan.recordsRead,
        fullReads: scan.fullReads,
        checkpointErrors: scan.checkpointErrors,
      }
      const summary = audit.summary(
        {partitions: scan.partitions, recordsScanned: scan.recordsScanned, decodeErrors: scan.decodeErrors, durationMs: Date.now() - started},
        o.failOn,
        clusterId,
        started,
        o.filtered,
      )
      const {history, historyNote} = record(o, started, clusterId, live, rows, ctx.hasher, progress)
      // the checkpoints live under the history directory: when every one failed for the very cause the history did
      // (a cron user without a home directory), the history's warning says both: one warning, not two
      const cause = (e: {error: string; code?: string}) => describeWriteError(Object.assign(new Error(e.error), {code: e.code}))
      const historyError = 'error' in history ? history.error : undefined
      const checkpointsFailedWithHistory =
        !p.watch && historyError !== undefined && scan.checkpointErrors.length > 0 && scan.checkpointErrors.every(e => cause(e) === historyError)
      if (!checkpointsFailedWithHistory)
        for (const w of checkpointErrorWarnings(scan.checkpointErrors, flag, checkpoints?.store.dir ?? '', cause, HISTORY_DIR_ENV)) warn(w)
      const {explained, reexplained, metadataLog} = await explainBumps(session, o, p, {live, ctx, clusterId, rows, bumps: audit.bumps})
      const revisions = reexplained.flatMap(({report}) => p.open!.revise(report, clusterId))
      const lags = o.lag ? await groupLags(client, rows, progress, warn) : undefined
      return {rows: withLag(rows, lags), summary, history, historyNote, incremental, checkpointsFailedWithHistory, bumps: explained, revisions, metadataLog}
    },
    p.watch ? {} : {progress: 'reading __consumer_offsets', quiet: p.quiet},
  )
}

/** Records the pass in the history; a failure is the status, never the pass's (the report matters more). */
function record(
  o: AuditSettings,
  started: number,
  clusterId: string | null,
  live: Parameters<typeof recordHistory>[2],
  rows: readonly AuditRow[],
  hasher: Parameters<typeof recordHistory>[4],
  progress: {update(text: string): void},
): {history: HistoryStatus; historyNote?: string} {
  if (!o.record) return {history: {recorded: false, disabled: true}}
  progress.update('recording history')
  const dir = o.historyDir ?? defaultHistoryDir()
  try {
    const res = recordHistory({dir, retentionMs: o.retentionMs, now: started}, clusterId ?? 'unknown-cluster', live, historyGroups(rows), hasher)
    return {
      history: {recorded: true, dir, file: res.file},
      historyNote: `history: ${res.full ? 'new segment' : 'appended'} ${res.file} (${res.topicsWritten} topics, ${res.groupsWritten} groups changed)${res.expired.length ? `; expired ${res.expired.length} segment(s)` : ''}`,
    }
  } catch (error) {
    // (issue: a cron user without a home)
    return {history: {recorded: false, dir, error: describeWriteError(error)}}
  }
}

/** Each group's lag; what cannot be read is a warning and lag null, never the audit's failure. */
export async function groupLags(client: ClusterReader, rows: readonly AuditRow[], progress: {update(text: string): void}, warn: (m: string) => void) {
  try {
    return await readGroupLags(client, rows, (done, total) => progress.update(`reading committed offsets: ${done}/${total} groups`), warn)
  } catch (error) {
    warn(`per-group lag not read (groups[].lag null): ${(error as Error).message}`)
    return undefined
  }
}

/**
 * With --watch, the causes of the new bumps and of bumps printed earlier whose causes this pass may name exactly,
 * after this pass's history is recorded (a metadata change between two passes is then named exactly from the two
 * moments around it), with the metadata log as evidence too; --metadata-log also names each drifting group's changes.
 */
async function explainBumps(
  session: Session,
  o: AuditSettings,
  p: PassOptions,
  x: {
    live: ClusterMetadata
    ctx: AuditContext
    clusterId: string | null
    rows: readonly AuditRow[]
    bumps: ReadonlyArray<{group: string; replay: TrackedReplay}>
  },
) {
  const again = p.open?.replays(p.started) ?? []
  const named = p.watch ? [...x.bumps, ...again] : []
  // (--watch: the log is read only on passes with bumps to name)
  const log =
    o.metadataLogDir && (!p.watch || named.length > 0)
      ? await readAuditMetadataLog(
          session,
          o.metadataLogDir,
          x.rows,
          named.map(b => b.replay),
        )
      : undefined
  const topicNames = named.length > 0 ? topicNamesOf(x.live) : undefined
  const explain = (history: RecordedHistory) => (b: {group: string; replay: TrackedReplay | ReplayResult}) => ({
    report: explainGroup(b.group, b.replay, {
      costs: 'costs' in b.replay ? b.replay.costs?.finish({topicNames}) : undefined,
      live: x.live,
      hasher: x.ctx.hasher,
      now: p.started,
      stuckAfterMs: o.stuckAfterMs,
      reassignments: x.ctx.reassignments,
      history,
      ...(log ? {metadataLog: log} : {}),
    }),
    replay: b.replay,
  })
  const history = named.length > 0 ? recordedHistory(loadHistoryView(x.clusterId ?? undefined, o.historyDir).view) : undefined
  const explained = history ? x.bumps.map(explain(history)) : []
  const reexplained = history ? again.map(explain(history)) : []
  const reports = [...explained, ...reexplained].map(b => b.report)
  const metadataLog = log && attributeAuditDrifts(log, x.rows, reports, p.started)
  return {explained, reexplained, metadataLog}
}
