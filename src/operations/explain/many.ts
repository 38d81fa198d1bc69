/**
 * `group explain PATTERN` / `--all`: every matching group's records (every __consumer_offsets partition read once),
 * the explanation's inputs read once for all, one report each through the same pipeline as one group.
 */
import {topicNamesOf} from '../../core/cost/index.js'
import {explainGroup, type ExplainReport} from '../../core/explain/explain.js'
import {windowed} from '../../core/explain/report/window.js'
import {topicsEverUsed} from '../../core/replay/index.js'
import type {Session} from '../session.js'
import {replayMatchingGroups} from './groups-replay.js'
import {type ExplainRequest, readExplainInputs} from './inputs.js'

export async function explainMany(
  session: Session,
  accept: (group: string) => boolean,
  o: ExplainRequest & {concurrency: number; quiet: boolean},
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
      const inputs = await readExplainInputs(session, client, progress, topics, o)
      const topicNames = topicNamesOf(inputs.live)
      const out: ExplainReport[] = []
      for (const [group, replay] of groups) {
        progress.update(`explaining ${out.length + 1}/${groups.size} groups`)
        const costs = replay.costs?.finish({topicNames})
        out.push(windowed(explainGroup(group, replay, {...inputs, costs, extras: {brokers: true, offsets: null}}), o))
      }
      return out
    },
    {progress: 'reading __consumer_offsets', quiet: o.quiet},
  )
}
