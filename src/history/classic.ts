/**
 * The audit history for classic groups: a leader rejoin whose assignments cover another partition count of a
 * topic is checked against the partition counts the audits recorded. Audits run from cron, rarely between two
 * generations: the history is evidence of when the count changed; the cause is exact only when the last audit
 * with the old count was at or after the previous generation and the first with the new one at or before this one.
 */
import type {ClassicHistoryEvidence} from '../core/explain/evidence.js'
import type {ExplainReport} from '../core/explain/explain.js'
import type {ReplayResult} from '../core/replay/index.js'
import {isoTime} from '../core/time.js'
import type {HistoryView} from './attribute.js'

export type {ClassicHistoryEvidence} from '../core/explain/evidence.js'

/** Annotates classic-metadata-rejoin causes (in place); returns how many became exact. */
export function annotateClassicFromHistory(report: ExplainReport, replay: ReplayResult, view: HistoryView): number {
  let exact = 0
  const classic = replay.timeline.filter(e => e.groupType === 'classic')
  for (const entry of report.timeline) {
    const i = classic.findIndex(e => e.offset.toString() === entry.offset)
    if (i < 0) continue
    const at = classic[i].timestamp
    const since = i > 0 ? classic[i - 1].timestamp : null
    for (const cause of entry.causes) {
      if (cause.kind !== 'classic-metadata-rejoin' || cause.details.partitionCounts.length === 0) continue
      const topics: ClassicHistoryEvidence['topics'] = []
      let inWindow = since !== null
      for (const {topic, before, after} of cause.details.partitionCounts) {
        const ms = view.moments
        let last = -1
        for (let k = 0; k < ms.length && ms[k].at <= at; k++) if (ms[k].topics.get(topic)?.partitions === before) last = k
        if (last < 0) continue
        const first = ms.findIndex((m, k) => k > last && m.topics.get(topic)?.partitions === after)
        if (first < 0) continue
        topics.push({topic, before, after, lastSeenBefore: isoTime(ms[last].at), firstSeenAfter: isoTime(ms[first].at)})
        inWindow &&= ms[last].at >= since! && ms[first].at <= at
      }
      if (topics.length === 0) continue
      const text = topics
        .map(t => `${t.topic}: ${t.before} → ${t.after} partitions, first seen at ${t.firstSeenAfter} (last seen before at ${t.lastSeenBefore})`)
        .join('; ')
      const isExact = inWindow && topics.length === cause.details.partitionCounts.length
      cause.details.classicHistory = {
        source: 'history',
        exact: isExact,
        message: isExact
          ? `from recorded history, between the two generations: ${text}`
          : `recorded history agrees, but does not place the change between the two generations: ${text}`,
        topics,
      }
      if (isExact) {
        // what the records alone said stays under inferred (issue 28 item 1: every field of an exact cause is exact)
        if (cause.confidence !== 'exact') cause.details.inferred = {message: cause.message, confidence: cause.confidence, alternatives: cause.alternatives}
        cause.confidence = 'exact'
        cause.message = `the leader rejoined after a metadata change (exact), from recorded history: ${text}`
        exact++
      }
    }
  }
  return exact
}
