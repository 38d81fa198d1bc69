/**
 * What an audit row says a group's rebalances cost (`cost`): the last bump's cost in brief, and totals over the
 * hour before it and over every bump of the records read. From the bumps' RebalanceCosts (core/cost) when the
 * scan measured them, else null with the reason. Stable while the group writes nothing: nothing in it depends on
 * the clock (how long a bump has not converged is the reader's: audit time minus `at`), so a row an incremental
 * audit reuses from its checkpoint keeps it. Pure.
 */
import type {CostTotals} from '../cost/totals.js'
import type {BumpSums} from '../cost/sums.js'
import type {RebalanceCost, SlowestMember} from '../cost/types.js'
import {isoTime} from '../time.js'

/** The window of `window`: the hour before the last bump (as the churn summary's). */
export const AUDIT_COST_WINDOW_MS = 3_600_000

/**
 * Why a row has no cost: `resumed-from-checkpoint` (an --incremental or --watch pass resumed the group's state
 * from its checkpoint: the records before it are not read again, so its bumps are not measured; a full read
 * measures them), `no-bump` (no group epoch record in the records read), `describe-only` (no records read),
 * `not-measured` (the rows of a pass that did not ask for costs).
 */
export type CostUnavailable = 'resumed-from-checkpoint' | 'no-bump' | 'describe-only' | 'not-measured'

export interface LastBumpCost {
  readonly epoch: number
  readonly previousEpoch: number | null
  /** The group epoch record: when the bump was written, and where. */
  readonly at: string
  readonly atMs: number
  readonly offset: string
  /** core/cost's convergence status (`not-measured`: share and classic groups, whose records give no duration). */
  readonly status: 'converged' | 'superseded' | 'not-converged' | 'not-measured'
  /** converged: the time to converge; superseded: to the next bump; not-converged: to the last record read (`asOf`). */
  readonly afterMs: number | null
  /** not-converged: the last record read; what was pending then is `membersPending`. */
  readonly asOf: string | null
  readonly membersPending: number
  readonly partitionsMoved: number
  /** Partition-milliseconds without an owner (open gaps counted to the last record read). */
  readonly unownedPartitionMs: number
  /** Moved partitions (tasks) with no owner at the last record read. */
  readonly partitionsWithoutOwner: number
  readonly slowest: Pick<SlowestMember, 'member' | 'doing' | 'ms' | 'ongoing'> | null
}

export type CostSums = Pick<CostTotals, 'bumps' | 'partitionsMoved' | 'unownedPartitionMs' | 'notConverged' | 'maxConvergeMs'>

export interface AuditCost {
  /** null: see `reason`. */
  readonly last: LastBumpCost | null
  /**
   * The bumps written in the hour up to the last one (inclusive); null (with `last` set) in the one case a state
   * resumed from a checkpoint cannot tell it: a bump it keeps as sums only was written inside it, by a clock set back.
   */
  readonly window: (CostSums & {readonly from: string; readonly to: string}) | null
  /** Every bump of the records read (the log as compaction left it: older bumps' records may be gone). */
  readonly total: CostSums | null
  readonly reason: CostUnavailable | null
}

export function noCost(reason: CostUnavailable): AuditCost {
  return {last: null, window: null, total: null, reason}
}

const sums = (t: BumpSums): CostSums => ({
  bumps: t.bumps,
  partitionsMoved: t.partitionsMoved,
  unownedPartitionMs: t.unownedPartitionMs,
  notConverged: t.notConverged,
  maxConvergeMs: t.maxConvergeMs,
})

/** A group's row cost from CostTracker.figures(AUDIT_COST_WINDOW_MS). */
export function auditCost(f: {last: RebalanceCost | null; total: BumpSums; window: BumpSums | null}): AuditCost {
  const last = f.last
  if (!last) return noCost('no-bump')
  return {
    last: lastBump(last),
    window: f.window && {from: isoTime(last.atMs - AUDIT_COST_WINDOW_MS), to: last.at, ...sums(f.window)},
    total: sums(f.total),
    reason: null,
  }
}

function lastBump(c: RebalanceCost): LastBumpCost {
  const v = c.convergence
  const pending = v.status === 'not-converged' || v.status === 'superseded' ? v.pending.length : 0
  const s = c.slowest
  return {
    epoch: c.epoch,
    previousEpoch: c.previousEpoch,
    at: c.at,
    atMs: c.atMs,
    offset: c.offset,
    status: v.status,
    afterMs: v.status === 'not-measured' ? null : v.afterMs,
    asOf: v.status === 'not-converged' ? v.asOf : null,
    membersPending: pending,
    partitionsMoved: c.movedCount,
    unownedPartitionMs: c.unownedPartitionMs,
    partitionsWithoutOwner: c.moved.reduce((n, m) => n + (m.open ? 1 : 0), 0),
    slowest: s && {member: s.member, doing: s.doing, ms: s.ms, ongoing: s.ongoing},
  }
}
