/**
 * `group explain GROUP`: the group's records replayed, the live metadata, reassignments, history and (with
 * --metadata-log) the metadata log read, every bump explained; then offsets, lag and the brokers' releases.
 */
import {brokerHealth} from '../../core/explain/brokers.js'
import {churnOf} from '../../core/explain/churn.js'
import type {ExplainReport} from '../../core/explain/explain.js'
import {GroupReplay, type GroupState, topicsEverUsed} from '../../core/replay/index.js'
import {loadHistoryView} from '../../history/index.js'
import {readGroupLog} from '../../sources/group-log.js'
import {readGroupOffsets} from '../../sources/group-offsets.js'
import {metadataLogWarnings} from '../../sources/metadata-log.js'
import {inFlightReassignments} from '../../sources/reassignments.js'
import {readReleases} from '../../sources/releases.js'
import type {Session} from '../session.js'
import {explainFromMetadataLog} from './metadata-log.js'
import {explainWithHistory, withRacks} from './with-history.js'

export interface ExplainOptions {
  now: number
  stuckAfterMs: number | undefined
  historyDir: string | undefined
  metadataLogDir?: string
  /** Only timeline entries at or after this time (ms). */
  since?: number
  /** Only the last N timeline entries. */
  last?: number
}

/** Where a --watch goes on from: the group's state after the records read, and the offset after them. */
export interface WatchFrom {
  state: GroupState
  nextOffset: bigint
}

export async function explainOne(session: Session, group: string, o: ExplainOptions): Promise<{report: ExplainReport; watchFrom: WatchFrom}> {
  let watchFrom: WatchFrom | undefined
  const report = await session.withCluster(
    async (client, progress) => {
      const replaying = new GroupReplay(group)
      const log = await readGroupLog(client, group, {
        onProgress: n => progress.update(`reading __consumer_offsets: ${n} records`),
        onRecord: r => replaying.push(r),
      })
      const replay = replaying.finish()
      watchFrom = {state: structuredClone(replay.state), nextOffset: log.endOffset}
      const topics = topicsEverUsed(replay)
      progress.update('reading live metadata')
      const live = await client.clusterMetadata({topics: [...topics]})
      progress.update('reading partition reassignments in flight')
      const reassignments = await inFlightReassignments(client, m => session.warn(m))
      const history = withRacks(loadHistoryView(live.clusterId, o.historyDir).view)
      const report = explainWithHistory(group, replay, {live, now: o.now, stuckAfterMs: o.stuckAfterMs, reassignments}, history)
      report.brokers = brokerHealth(
        live,
        report.topics.map(t => t.name),
      )
      progress.update('reading log end offsets')
      report.offsets = await readGroupOffsets(client, replay.state, live, m => session.warn(m))
      progress.update("reading the brokers' API versions")
      report.releases = await readReleases(client, group, report.rules, report.type)
      if (o.metadataLogDir) {
        await explainFromMetadataLog(report, replay, o.metadataLogDir, [...topics])
        for (const w of metadataLogWarnings(report.metadataLog!)) session.warn(w)
      }
      return report
    },
    {progress: `reading ${group}'s records`},
  )
  window(report, o)
  return {report, watchFrom: watchFrom!}
}

/** --since and --last cut the timeline; the churn summary is of what is left. */
export function window(report: ExplainReport, o: Pick<ExplainOptions, 'since' | 'last'>): void {
  if (o.since !== undefined) report.timeline = report.timeline.filter(e => e.timestamp >= o.since!)
  if (o.last) report.timeline = report.timeline.slice(-o.last)
  report.churn = churnOf(report.timeline)
}
