/**
 * One audit pass over the groups as the __consumer_offsets partitions are read: which groups are audited (deleted
 * ones counted, not listed; the --type filter), which new bumps are kept for causes (--watch), the summary with the
 * "filters matched nothing" exit code, and the run's exit code once the history and the --prometheus file are
 * written (or not). Pure: the command reads, writes and prints.
 */
import {
  type AuditContext,
  type AuditExitCode,
  type AuditSummary,
  auditGroup,
  type FindingKind,
  isDeleted,
  type RowFacts,
  type ScanStats,
  summarize,
} from './audit.js'
import type {TypeFilter} from '../group-filter.js'
import {type GroupSummary, type GroupType, groupTypeOf, type ReplayResult} from '../replay/index.js'
import {cacheEntry, reuseEntry} from './row-cache.js'
import type {ScannedGroup, TrackedReplay} from './scan.js'
import type {AuditRow} from './stored-row.js'
import {by} from '../order.js'

/** Exit code when the report was written but its history could not be (and no finding exits 3). */
export const EXIT_HISTORY_FAILED = 5 as const

/** summary.history: where this audit was recorded, why not, or that --no-record or a describe-only pass turned it off. */
export type HistoryStatus =
  | {recorded: true; dir: string; file: string}
  | {recorded: false; dir: string; error: string; disabled?: undefined}
  | {recorded: false; disabled: true; dir?: undefined; error?: undefined; reason?: undefined}
  // a describe-only pass has no stored hash nor epoch record to give: it writes nothing, so the history a later
  // pass over the records reads never holds a group without its stored hash
  | {recorded: false; disabled: true; reason: 'describe-only'; dir?: undefined; error?: undefined}

/** summary.incremental with --incremental: what was resumed, what was read in full and why. */
export interface IncrementalStatus {
  dir: string
  partitionsResumed: number
  /** Records read by this run (summary.recordsScanned counts those the earlier runs read too). */
  recordsRead: number
  fullReads: Array<{partition: number; reason: string}>
  /** `code`: the errno code (EACCES, ENOSPC, …) when the error had one. */
  checkpointErrors: Array<{partition: number; error: string; code?: string}>
}

/** summary.prometheus with --prometheus FILE. */
export interface PrometheusStatus {
  file: string
  written: boolean
  error?: string
}

export class AuditPass {
  readonly #rows: AuditRow[] = []
  /** Groups with records new since the last pass (--watch), of the types asked for. */
  readonly bumps: Array<{group: string; replay: TrackedReplay}> = []
  /** Deleted groups (tombstones only): not audited. */
  deleted = 0

  constructor(
    private readonly ctx: AuditContext,
    private readonly types: TypeFilter | undefined,
  ) {}

  /** Groups audited so far (for progress). */
  get audited(): number {
    return this.#rows.length
  }

  /** The --type filter (a cached entry keeps the type its state had). */
  #wantedType(type: GroupType | null): boolean {
    return !this.types || (type !== null && this.types.has(type))
  }

  /** One partition's groups (each audited, then dropped by the caller) and its groups with new bumps. */
  addPartition(groups: Iterable<[string, GroupSummary | ReplayResult]>, newBumps: Iterable<[string, ReplayResult]> = []): void {
    this.addScanned(
      [...groups].map(([id, s]) => ({id, cached: null, summary: () => s, entry: null})),
      newBumps,
    )
  }

  /**
   * One partition's groups from a scan: a group with a cached entry that still holds (row-cache.ts) is not rebuilt
   * nor audited again; every group's `entry` is set for the next run. All or nothing: a group whose summary cannot
   * be made (a damaged checkpoint text) throws before any row of the partition is added.
   */
  addScanned(
    groups: ReadonlyArray<Omit<ScannedGroup, 'summary'> & {summary(): GroupSummary | ReplayResult}>,
    newBumps: Iterable<[string, TrackedReplay]> = [],
  ): void {
    const rows: AuditRow[] = []
    let deleted = 0
    for (const g of groups) {
      const reused = g.cached === null ? undefined : reuseEntry(g.cached, g.id, this.ctx)
      if (reused) {
        g.entry = g.cached
        if (reused.deleted) deleted++
        else if (this.#wantedType(reused.type)) rows.push(reused.row)
        continue
      }
      const summary = g.summary()
      if (isDeleted(summary)) {
        deleted++
        g.entry = cacheEntry({deleted: true})
        continue
      }
      const type = groupTypeOf(summary.state)
      if (!this.#wantedType(type)) continue
      const row = auditGroup(g.id, summary, this.ctx, g.cost)
      rows.push(row)
      g.entry = cacheEntry({type, row})
    }
    for (const [group, replay] of newBumps) {
      if (replay.timeline.length > 0 && this.#wantedType(groupTypeOf(replay.state))) this.bumps.push({group, replay})
    }
    this.deleted += deleted
    for (const r of rows) this.#rows.push(r)
  }

  /** The audited groups, by id (rows reused from a checkpoint as read: stored-row.ts). */
  rows(): AuditRow[] {
    return this.#rows.sort(by(x => x.group))
  }

  /**
   * The pass's summary; `filtered` (--group or --type given) with no group audited is exit 4: a filter that
   * matches nothing is more likely a typo than a healthy cluster.
   */
  summary(
    stats: Omit<ScanStats, 'deletedGroupsSkipped'>,
    failOn: readonly FindingKind[],
    clusterId: string | null,
    startedAt: number,
    filtered: boolean,
  ): AuditSummary {
    const rows = this.rows()
    const summary = summarize(rows, {...stats, deletedGroupsSkipped: this.deleted}, failOn, clusterId, startedAt)
    if (rows.length === 0 && filtered) summary.exitCode = 4
    return summary
  }
}

/** True when the history was to be written and could not be. */
export function historyFailed(history: HistoryStatus): history is Extract<HistoryStatus, {error: string}> {
  return history.recorded === false && !history.disabled
}

/** The exit code with the history written or not (5 only where nothing else is to say). */
export function exitWithHistory(summary: Pick<AuditSummary, 'exitCode'>, history: HistoryStatus): AuditExitCode {
  return summary.exitCode === 0 && historyFailed(history) ? EXIT_HISTORY_FAILED : summary.exitCode
}

/** The run's exit code: 1 when the --prometheus file could not be written (its alerts would go stale), else `exitCode`. */
export function exitWithPrometheus(exitCode: AuditExitCode, prometheus: PrometheusStatus | undefined): AuditExitCode {
  return prometheus && !prometheus.written ? 1 : exitCode
}

/** What the history records of each audited group: consumer, share and streams groups with an epoch and a stored hash. */
export function historyGroups(rows: readonly RowFacts[]): Map<string, {type: GroupType; epoch: number; hash: string}> {
  return new Map(
    rows
      .filter(r => r.type && r.type !== 'classic' && r.groupEpoch !== null && r.storedMetadataHash !== null)
      .map(r => [r.group, {type: r.type!, epoch: r.groupEpoch!, hash: r.storedMetadataHash!}]),
  )
}
