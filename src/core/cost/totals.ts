/**
 * Churn: what a run of bumps cost in all, per time window and per client id (the "it keeps rebalancing" summary).
 * Sums over RebalanceCost values only; a bump belongs to the window holding its epoch record.
 */
import {isoTime} from '../time.js'
import type {RebalanceCost} from './types.js'

export interface CostTotals {
  readonly bumps: number
  readonly partitionsMoved: number
  readonly unownedPartitionMs: number
  /** Bumps that converged before the next bump, were superseded, have not converged, or are not measured. */
  readonly converged: number
  readonly superseded: number
  readonly notConverged: number
  readonly notMeasured: number
  /** Over converged bumps; null when none. */
  readonly maxConvergeMs: number | null
  readonly totalConvergeMs: number
}

export interface WindowTotals extends CostTotals {
  readonly from: string
  readonly fromMs: number
  readonly to: string
  readonly toMs: number
}

export interface ClientTotals {
  /** null: members without a metadata record. */
  readonly clientId: string | null
  /** Moves away from, and to, this client's members. */
  readonly movedFrom: number
  readonly movedTo: number
  /** Time without an owner of the partitions its members released. */
  readonly unownedPartitionMs: number
  /** Bumps where one of its members was the slowest, and the time they took. */
  readonly slowest: number
  readonly slowestMs: number
}

export interface ChurnSummary {
  readonly total: CostTotals
  readonly windows: readonly WindowTotals[]
  readonly clients: readonly ClientTotals[]
}

export function costTotals(costs: readonly RebalanceCost[]): CostTotals {
  let partitionsMoved = 0
  let unowned = 0
  const by = {converged: 0, superseded: 0, 'not-converged': 0, 'not-measured': 0}
  let max: number | null = null
  let total = 0
  for (const c of costs) {
    partitionsMoved += c.movedCount
    unowned += c.unownedPartitionMs
    by[c.convergence.status]++
    if (c.convergence.status === 'converged') {
      max = Math.max(max ?? 0, c.convergence.afterMs)
      total += c.convergence.afterMs
    }
  }
  return {
    bumps: costs.length,
    partitionsMoved,
    unownedPartitionMs: unowned,
    converged: by.converged,
    superseded: by.superseded,
    notConverged: by['not-converged'],
    notMeasured: by['not-measured'],
    maxConvergeMs: max,
    totalConvergeMs: total,
  }
}

/** Totals per window of `windowMs` (aligned to multiples of it since the Unix epoch); windows without a bump are left out. */
export function churnSummary(costs: readonly RebalanceCost[], windowMs: number): ChurnSummary {
  if (!(windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${windowMs}`)
  const windows = new Map<number, RebalanceCost[]>()
  for (const c of costs) {
    const start = Math.floor(c.atMs / windowMs) * windowMs
    const list = windows.get(start)
    if (list) list.push(c)
    else windows.set(start, [c])
  }
  return {
    total: costTotals(costs),
    windows: [...windows]
      .sort(([a], [b]) => a - b)
      .map(([fromMs, list]) => ({from: isoTime(fromMs), fromMs, to: isoTime(fromMs + windowMs), toMs: fromMs + windowMs, ...costTotals(list)})),
    clients: clientTotals(costs),
  }
}

export function clientTotals(costs: readonly RebalanceCost[]): ClientTotals[] {
  const out = new Map<string | null, {movedFrom: number; movedTo: number; unownedPartitionMs: number; slowest: number; slowestMs: number}>()
  const of = (id: string | null) => {
    let t = out.get(id)
    if (!t) out.set(id, (t = {movedFrom: 0, movedTo: 0, unownedPartitionMs: 0, slowest: 0, slowestMs: 0}))
    return t
  }
  for (const c of costs) {
    for (const m of c.moved) {
      if (m.from) {
        const t = of(m.from.clientId)
        t.movedFrom++
        t.unownedPartitionMs += m.unownedMs ?? 0
      }
      if (m.to) of(m.to.clientId).movedTo++
    }
    if (c.slowest) {
      const t = of(c.slowest.member.clientId)
      t.slowest++
      t.slowestMs += c.slowest.ms
    }
  }
  return [...out]
    .map(([clientId, t]) => ({clientId, ...t}))
    .sort((a, b) => b.slowestMs - a.slowestMs || b.movedFrom - a.movedFrom || String(a.clientId).localeCompare(String(b.clientId)))
}
