/**
 * `--metadata-log` for classic groups: a generation bump with the same members, subscriptions and assignor is a
 * member's own rejoin (the Java client's leader rejoins when the partition count of a subscribed topic changes, or
 * its racks when members declare racks). The metadata log names what changed for those topics between the previous
 * generation's write and this one: the cause becomes exact when it holds such a change, and otherwise says so.
 */
import type {LogAttribution, MetadataLogView} from '../../metadata-log/attribute.js'
import {changeRows} from '../../metadata-log/changes.js'
import {classicSubscribedTopics} from '../../replay/classic-topics.js'
import type {EpochChange} from '../../replay/index.js'
import {isoTime} from '../../time.js'
import {classicBumps} from './bump.js'
import {type BumpInput, type CauseEvidence, hasCause} from './types.js'

/** Clock slack between the controller that stamps metadata batches and the coordinator that stamps writes. */
const SLACK_MS = 2000

export function classicLogEvidence(bumps: readonly BumpInput[], view: MetadataLogView): CauseEvidence[] {
  return classicBumps(bumps)
    .filter(({bump}) => hasCause(bump, 'classic-metadata-rejoin'))
    .map(({bump, since}) => {
      const a = rejoinFromLog(bump.change, since, view)
      return {
        offset: bump.change.offset.toString(),
        kind: 'classic-metadata-rejoin' as const,
        source: 'metadata-log' as const,
        annotations: {metadataLog: a},
        ...(a.exact ? {exact: {message: a.message}} : {}),
      }
    })
}

function rejoinFromLog(e: EpochChange, since: number | null, view: MetadataLogView): LogAttribution {
  if (since === null || (view.historyStart !== null && view.historyStart > since))
    return {source: 'metadata-log', exact: false, message: 'the metadata log does not reach back to the previous generation: not exact'}
  if (view.damage)
    return {source: 'metadata-log', exact: false, message: `the metadata log is damaged at offset ${view.damage.offset} (${view.damage.where}): not exact`}
  const topics = new Set(classicSubscribedTopics(e.after.classic?.value))
  // racks count only when members declare one (KIP-881): the client then compares partition racks too
  const racks = (e.after.classic?.value?.members ?? []).some(m => (m.subscriptionDecoded as {value?: {RackId?: string | null}} | undefined)?.value?.RackId)
  const changes = view.changes.filter(
    c =>
      c.movesHash &&
      (racks || c.kind === 'partitions-added' || c.kind === 'topic-created' || c.kind === 'topic-deleted') &&
      c.timestamp > since - SLACK_MS &&
      c.timestamp <= e.timestamp + SLACK_MS &&
      (c.topic !== undefined ? topics.has(c.topic) : c.topicsOnBroker?.some(t => topics.has(t))),
  )
  const rows = changeRows(changes)
  if (rows.length === 0)
    return {
      source: 'metadata-log',
      exact: false,
      message: 'the metadata log holds no change of the subscribed topics between the previous generation and this one',
    }
  return {
    source: 'metadata-log',
    exact: true,
    message: `the leader rejoined after a metadata change of a subscribed topic (exact, from the metadata log, between ${isoTime(since)} and this generation): ${rows.map(r => `${r.description} (${r.time})`).join('; ')}`,
    changes: rows,
  }
}
