/**
 * `--metadata-log` for classic groups: a generation bump with the same members, subscriptions and assignor is a
 * member's own rejoin (the Java client's leader rejoins when the partition count of a subscribed topic changes, or
 * its racks when members declare racks). The metadata log names what changed for those topics between the previous
 * generation's write and this one: the cause becomes exact when it holds such a change, and otherwise says so.
 */
import type {ExplainReport} from '../explain/explain.js'
import type {ReplayResult} from '../replay/index.js'
import {classicSubscribedTopics} from '../replay/classic-topics.js'
import {isoTime} from '../time.js'
import type {LogAttribution, MetadataLogView} from './attribute.js'
import {historyRows} from './history.js'

/** Clock slack between the controller that stamps metadata batches and the coordinator that stamps writes. */
const SLACK_MS = 2000

/** Annotates the report's classic-metadata-rejoin causes (in place); returns how many became exact. */
export function annotateClassicRejoins(report: ExplainReport, replay: ReplayResult, view: MetadataLogView): number {
  let exact = 0
  const classic = replay.timeline.filter(e => e.groupType === 'classic')
  for (const entry of report.timeline) {
    const i = classic.findIndex(e => e.offset.toString() === entry.offset)
    if (i < 0) continue
    const e = classic[i]
    const since = i > 0 ? classic[i - 1].timestamp : null
    for (const cause of entry.causes) {
      if (cause.kind !== 'classic-metadata-rejoin') continue
      const topics = new Set(classicSubscribedTopics(e.after.classic?.value))
      // racks count only when members declare one (KIP-881): the client then compares partition racks too
      const racks = (e.after.classic?.value?.members ?? []).some(m => (m.subscriptionDecoded as {value?: {RackId?: string | null}} | undefined)?.value?.RackId)
      let a: LogAttribution
      if (since === null || (view.historyStart !== null && view.historyStart > since)) {
        a = {source: 'metadata-log', exact: false, message: 'the metadata log does not reach back to the previous generation: not exact'}
      } else if (view.damage) {
        a = {source: 'metadata-log', exact: false, message: `the metadata log is damaged at offset ${view.damage.offset} (${view.damage.where}): not exact`}
      } else {
        const changes = view.changes.filter(
          c =>
            c.movesHash &&
            (racks || c.kind === 'partitions-added' || c.kind === 'topic-created' || c.kind === 'topic-deleted') &&
            c.timestamp > since - SLACK_MS &&
            c.timestamp <= e.timestamp + SLACK_MS &&
            (c.topic !== undefined ? topics.has(c.topic) : c.topicsOnBroker?.some(t => topics.has(t))),
        )
        const rows = historyRows(changes)
        a = rows.length
          ? {
              source: 'metadata-log',
              exact: true,
              message: `the leader rejoined after a metadata change of a subscribed topic (exact, from the metadata log, between ${isoTime(since)} and this generation): ${rows.map(r => `${r.description} (${r.time})`).join('; ')}`,
              changes: rows,
            }
          : {
              source: 'metadata-log',
              exact: false,
              message: 'the metadata log holds no change of the subscribed topics between the previous generation and this one',
            }
      }
      cause.details.metadataLog = a
      if (a.exact) {
        cause.details.source = 'metadata-log'
        // what the records alone said stays under inferred (issue 28 item 1: every field of an exact cause is exact)
        if (cause.confidence !== 'exact') cause.details.inferred = {message: cause.message, confidence: cause.confidence, alternatives: cause.alternatives}
        cause.confidence = 'exact'
        cause.message = a.message
        exact++
      }
    }
  }
  return exact
}
