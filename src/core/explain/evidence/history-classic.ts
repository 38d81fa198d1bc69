/**
 * The audit history for classic groups: a leader rejoin whose assignments cover another partition count of a
 * topic is checked against the partition counts the audits recorded. Audits run from cron, rarely between two
 * generations: the history is evidence of when the count changed; the cause is exact only when the last audit
 * with the old count was at or after the previous generation and the first with the new one at or before this one.
 */
import type {HistoryView} from '../../history/view.js'
import {isoTime} from '../../time.js'
import type {CauseView} from '../report/causes.js'
import {classicBumps} from './bump.js'
import type {ClassicHistoryEvidence} from './recorded.js'
import type {BumpInput, CauseEvidence} from './types.js'

type Rejoin = Extract<CauseView, {kind: 'classic-metadata-rejoin'}>

export function classicHistoryEvidence(bumps: readonly BumpInput[], view: HistoryView): CauseEvidence[] {
  const out: CauseEvidence[] = []
  for (const {bump, since} of classicBumps(bumps)) {
    const cause = bump.causes.find((c): c is Rejoin => c.kind === 'classic-metadata-rejoin')
    if (!cause || cause.details.partitionCounts.length === 0) continue
    const seen = recordedCounts(cause, view, bump.change.timestamp, since)
    if (!seen) continue
    const text = seen.topics
      .map(t => `${t.topic}: ${t.before} → ${t.after} partitions, first seen at ${t.firstSeenAfter} (last seen before at ${t.lastSeenBefore})`)
      .join('; ')
    const classicHistory: ClassicHistoryEvidence = {
      source: 'history',
      exact: seen.exact,
      message: seen.exact
        ? `from recorded history, between the two generations: ${text}`
        : `recorded history agrees, but does not place the change between the two generations: ${text}`,
      topics: seen.topics,
    }
    out.push({
      offset: bump.change.offset.toString(),
      kind: 'classic-metadata-rejoin',
      source: 'history',
      annotations: {classicHistory},
      ...(seen.exact ? {exact: {message: `the leader rejoined after a metadata change (exact), from recorded history: ${text}`}} : {}),
    })
  }
  return out
}

/** The recorded moments of each topic's old and new partition count; exact when all lie between the generations. */
function recordedCounts(
  cause: Rejoin,
  view: HistoryView,
  at: number,
  since: number | null,
): {topics: ClassicHistoryEvidence['topics']; exact: boolean} | undefined {
  const topics: ClassicHistoryEvidence['topics'] = []
  let inWindow = since !== null
  const ms = view.moments
  for (const {topic, before, after} of cause.details.partitionCounts) {
    let last = -1
    for (let k = 0; k < ms.length && ms[k].at <= at; k++) if (ms[k].topics.get(topic)?.partitions === before) last = k
    if (last < 0) continue
    const first = ms.findIndex((m, k) => k > last && m.topics.get(topic)?.partitions === after)
    if (first < 0) continue
    topics.push({topic, before, after, lastSeenBefore: isoTime(ms[last].at), firstSeenAfter: isoTime(ms[first].at)})
    inWindow &&= ms[last].at >= since! && ms[first].at <= at
  }
  if (topics.length === 0) return undefined
  return {topics, exact: inWindow && topics.length === cause.details.partitionCounts.length}
}
