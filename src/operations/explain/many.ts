/**
 * `group explain PATTERN` / `--all`: every matching group's records (every __consumer_offsets partition read once),
 * one report each, the live metadata, reassignments and history read once for all.
 */
import {brokerHealth} from '../../core/explain/brokers.js'
import type {ExplainReport} from '../../core/explain/explain.js'
import {type ReplayResult, topicsEverUsed} from '../../core/replay/index.js'
import {loadHistoryView} from '../../history/index.js'
import {metadataLogWarnings} from '../../sources/metadata-log.js'
import {inFlightReassignments} from '../../sources/reassignments.js'
import type {Session} from '../session.js'
import {replayMatchingGroups} from './groups-replay.js'
import {explainManyFromMetadataLog} from './metadata-log.js'
import {type ExplainOptions, window} from './one.js'
import {explainWithHistory, withRacks} from './with-history.js'

export async function explainMany(
  session: Session,
  accept: (group: string) => boolean,
  o: ExplainOptions & {concurrency: number; quiet: boolean},
): Promise<ExplainReport[]> {
  return session.withCluster(
    async (client, progress) => {
      const {groups} = await replayMatchingGroups(client, accept, {
        concurrency: o.concurrency,
        onProgress: (done, total, records) => progress.update(`reading __consumer_offsets: ${done}/${total} partitions, ${records} records`),
      })
      if (groups.size === 0) return []
      const topics = new Set<string>()
      for (const replay of groups.values()) for (const t of topicsEverUsed(replay)) topics.add(t)
      progress.update('reading live metadata')
      const live = await client.clusterMetadata({topics: [...topics]})
      const reassignments = await inFlightReassignments(client, m => session.warn(m))
      const history = withRacks(loadHistoryView(live.clusterId, o.historyDir).view)
      const out: Array<{report: ExplainReport; replay: ReplayResult}> = []
      for (const [group, replay] of groups) {
        progress.update(`explaining ${out.length + 1}/${groups.size} groups`)
        const report = explainWithHistory(group, replay, {live, now: o.now, stuckAfterMs: o.stuckAfterMs, reassignments}, history)
        report.brokers = brokerHealth(
          live,
          report.topics.map(t => t.name),
        )
        report.offsets = null
        window(report, o)
        out.push({report, replay})
      }
      if (o.metadataLogDir) {
        await explainManyFromMetadataLog(out, o.metadataLogDir, [...topics])
        const source = out[0]?.report.metadataLog
        if (source) for (const w of metadataLogWarnings(source)) session.warn(w)
      }
      return out.map(({report}) => report)
    },
    {progress: 'reading __consumer_offsets', quiet: o.quiet},
  )
}
