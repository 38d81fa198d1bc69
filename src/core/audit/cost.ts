/**
 * What an audit row says a group's rebalances cost (`cost`): the last bump's cost in brief, and totals over the
 * hour before it and over every bump of the records read. From the bumps' RebalanceCosts (core/cost) when the
 * scan measured them, else null with the reason. Stable while the group writes nothing: nothing in it depends on
 * the clock (how long a bump has not converged is the reader's: audit time minus `at`), so a row an incremental
 * audit reuses from its checkpoint keeps it. Pure.
 */
import type {CostTotals} from '../cost/totals.js'
import type {BumpSums} from '../cost/sums.js'
import type {BumpBrief} from '../cost/types.js'
import {isoTime} from '../time.js'

/** The window of `window`: the hour before the last bump (as the churn summary's). */
export const AUDIT_COST_WINDOW_MS = 3_600_000

/**
 * Why a row has no cost: `resumed-from-checkpoint` (an --incremental or --watch pass resumed the group's state
 * from a checkpoint that kept no cost fold state for it: the records before it are not read again, so its bumps
 * are not measured; a full read measures them), `no-bump` (no group epoch record in the records read), `describe-only` (no records read),
 * `not-measured` (the rows of a pass that did not ask for costs).
 */
export type CostUnavailable = 'resumed-from-checkpoint' | 'no-bump' | 'describe-only' | 'not-measured'

/** The last bump's cost in brief (core/cost's BumpBrief: CostTracker.figures makes it from the fold, not from a whole RebalanceCost). */
export type LastBumpCost = BumpBrief

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
export function auditCost(f: {last: BumpBrief | null; total: BumpSums; window: BumpSums | null}): AuditCost {
  const last = f.last
  if (!last) return noCost('no-bump')
  return {
    last,
    window: f.window && {from: isoTime(last.atMs - AUDIT_COST_WINDOW_MS), to: last.at, ...sums(f.window)},
    total: sums(f.total),
    reason: null,
  }
}
