/**
 * What each bump cost (core/cost: partitions moved, time without an owner, convergence, the slowest member), as
 * evidence for the timeline: matched to its bump by the epoch record's offset. A measure of the bump, not of its
 * cause: settle.ts does not read it.
 */
import type {RebalanceCost} from '../../cost/index.js'
import type {TimelineEntry} from '../report/report.js'

export function withCosts(timeline: readonly TimelineEntry[], costs: readonly RebalanceCost[] | undefined): TimelineEntry[] {
  if (!costs || costs.length === 0) return [...timeline]
  const byOffset = new Map(costs.map(c => [c.offset, c]))
  return timeline.map(e => {
    const cost = byOffset.get(e.offset)
    return cost ? {...e, cost} : e
  })
}
