/**
 * `group explain GROUP`: the group's records replayed, the explanation's inputs read (live metadata, reassignments,
 * history, the metadata log), offsets and the brokers' releases read side by side, and the report built once.
 */
import {CostTracker, topicNamesOf} from '../../core/cost/index.js'
import {explainGroup, type ExplainReport} from '../../core/explain/explain.js'
import {groupIdentity} from '../../core/explain/report/facts.js'
import {windowed} from '../../core/explain/report/window.js'
import {GroupReplay, type GroupState, topicsEverUsed} from '../../core/replay/index.js'
import {readGroupLog} from '../../sources/group-log.js'
import {readGroupOffsets} from '../../sources/group-offsets.js'
import {readReleases} from '../../sources/releases.js'
import type {Session} from '../session.js'
import {type ExplainRequest, readExplainInputs} from './inputs.js'

/** Where a --watch goes on from: the group's state after the records read, and the offset after them. */
export interface WatchFrom {
  state: GroupState
  nextOffset: bigint
}

export async function explainOne(session: Session, group: string, o: ExplainRequest): Promise<{report: ExplainReport; watchFrom: WatchFrom}> {
  let watchFrom: WatchFrom | undefined
  const report = await session.withCluster(
    async (client, progress) => {
      const replaying = new GroupReplay(group)
      const costs = new CostTracker(group)
      const log = await readGroupLog(client, group, {
        onProgress: n => progress.update(`reading __consumer_offsets: ${n} records`),
        onRecord: r => {
          replaying.push(r)
          costs.push(r)
        },
      })
      const replay = replaying.finish()
      watchFrom = {state: structuredClone(replay.state), nextOffset: log.endOffset}
      const inputs = await readExplainInputs(session, client, progress, topicsEverUsed(replay), o)
      progress.update("reading log end offsets and the brokers' API versions")
      const {type, rules} = groupIdentity(replay)
      const [offsets, releases] = await Promise.all([
        readGroupOffsets(client, replay.state, inputs.live, m => session.warn(m)),
        readReleases(client, group, rules, type),
      ])
      const bumpCosts = costs.finish({topicNames: topicNamesOf(inputs.live)})
      return explainGroup(group, replay, {...inputs, costs: bumpCosts, extras: {brokers: true, offsets, releases}})
    },
    {progress: `reading ${group}'s records`},
  )
  return {report: windowed(report, o), watchFrom: watchFrom!}
}
