/** A view over a report: --since and --last cut the timeline; the churn summary is of what is left. Pure. */
import {churnOf} from './churn.js'
import type {ExplainReport} from './report.js'

export function windowed(report: ExplainReport, o: {since?: number; last?: number}): ExplainReport {
  let timeline = report.timeline
  if (o.since !== undefined) timeline = timeline.filter(e => e.timestamp >= o.since!)
  if (o.last) timeline = timeline.slice(-o.last)
  return {...report, timeline, churn: churnOf(timeline)}
}
