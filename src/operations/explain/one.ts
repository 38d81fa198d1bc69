/**
 * `group explain GROUP`: the group's records replayed, the explanation's inputs read (live metadata, reassignments,
 * history, the metadata log), offsets and the brokers' releases read side by side, and the report built once.
 * Without READ on `__consumer_offsets` (or with --describe-only) the same report is built from the group's
 * describe, OffsetFetch and the live metadata instead of its records.
 */
import {snapshotOf} from '../../core/audit/described-watch.js'
import {CostTracker, type OwnershipLanes, ownershipLanes, pictureRange, type RebalanceCost, topicNamesOf} from '../../core/cost/index.js'
import type {Denial} from '../../core/errors.js'
import type {DescribeSnapshot} from '../../core/explain/evidence/describes.js'
import {explainDescribed, explainGroup, type ExplainReport} from '../../core/explain/explain.js'
import {describedTopics} from '../../core/explain/report/described.js'
import {groupIdentity} from '../../core/explain/report/facts.js'
import {windowed} from '../../core/explain/report/window.js'
import {TopicHasher} from '../../core/hash.js'
import {GroupReplay, type GroupState, topicsEverUsed} from '../../core/replay/index.js'
import type {ClusterReader} from '../../kafka/cluster-reader.js'
import type {Progress} from '../../render/progress.js'
import {readDescribedGroup, readDescribedOffsets} from '../../sources/group-describe.js'
import {offsetsReadDenied, readGroupLog} from '../../sources/group-log.js'
import {readGroupOffsets} from '../../sources/group-offsets.js'
import {readReleases} from '../../sources/releases.js'
import type {Session} from '../session.js'
import {type ExplainRequest, readExplainInputs} from './inputs.js'

/** Where a --watch goes on from: the group's state after the records read, and the offset after them. */
export interface WatchFrom {
  state: GroupState
  nextOffset: bigint
  /** The group's __consumer_offsets partition, and the cluster (a restarted watch finds what it printed by them). */
  partition: number
  clusterId: string | null
}

/** A report, and where a --watch after it goes on from (the records' state, or the describe it was made from). */
export interface ExplainedOne {
  report: ExplainReport
  watchFrom?: WatchFrom
  describedFrom?: DescribeSnapshot
  lanes?: OwnershipLanes
}

/**
 * `describeOnly`: 'asked' reads no records at all; 'on-denial' falls back to the describe when the Fetch of
 * `__consumer_offsets` is refused; absent: that refusal is the error (the watch and many groups need the records).
 * A describe-only report has no `watchFrom`; its `describedFrom` is the describe it was made from, as a watch's poll.
 */
export async function explainOne(
  session: Session,
  group: string,
  o: ExplainRequest & {describeOnly?: 'asked' | 'on-denial'; lanes?: boolean},
): Promise<ExplainedOne> {
  let watchFrom: WatchFrom | undefined
  let describedFrom: DescribeSnapshot | undefined
  const fromDescribe = async (client: ClusterReader, progress: Progress, denial?: Denial) => {
    const r = await explainFromDescribe(session, client, progress, group, o, denial)
    describedFrom = r.snapshot ?? undefined
    return r.report
  }
  let picture: {costs: RebalanceCost[]; tracker: CostTracker} | undefined
  const report = await session.withCluster(
    async (client, progress) => {
      if (o.describeOnly === 'asked') return fromDescribe(client, progress)
      const replaying = new GroupReplay(group)
      const costs = new CostTracker(group)
      let log: Awaited<ReturnType<typeof readGroupLog>>
      try {
        log = await readGroupLog(client, group, {
          onProgress: n => progress.update(`reading __consumer_offsets: ${n} records`),
          onRecord: r => {
            replaying.push(r)
            costs.push(r)
          },
        })
      } catch (error) {
        if (o.describeOnly !== 'on-denial' || !offsetsReadDenied(error)) throw error
        session.warn(`${error.message}: answering from the group's describe, OffsetFetch and the live metadata instead. ${error.hint}`)
        return fromDescribe(client, progress, error.denial)
      }
      const replay = replaying.finish()
      const state = structuredClone(replay.state)
      const inputs = await readExplainInputs(session, client, progress, topicsEverUsed(replay), o)
      watchFrom = {state, nextOffset: log.endOffset, partition: log.partition, clusterId: inputs.live.clusterId ?? null}
      progress.update("reading log end offsets and the brokers' API versions")
      const {type, rules} = groupIdentity(replay)
      const [offsets, releases] = await Promise.all([
        readGroupOffsets(client, replay.state, inputs.live, m => session.warn(m)),
        readReleases(client, group, rules, type),
      ])
      const bumpCosts = costs.finish({topicNames: topicNamesOf(inputs.live)})
      picture = {costs: bumpCosts, tracker: costs}
      return explainGroup(group, replay, {...inputs, costs: bumpCosts, extras: {brokers: true, offsets, releases}})
    },
    {progress: `reading ${group}'s records`},
  )
  const shown = windowed(report, o)
  const lanes = o.lanes && picture && picture.tracker.lastRecordMs > 0 ? lanesOf(picture.costs, picture.tracker, shown) : undefined
  return {report: shown, ...(watchFrom ? {watchFrom} : {}), ...(describedFrom ? {describedFrom} : {}), ...(lanes ? {lanes} : {})}
}

/** Each member's holdings over the window shown, from every bump's moves (those before the window too). */
function lanesOf(costs: readonly RebalanceCost[], tracker: CostTracker, shown: ExplainReport): OwnershipLanes {
  return ownershipLanes(costs, tracker.holdings(), pictureRange(shown.timeline[0]?.timestamp, tracker.lastRecordMs))
}

/**
 * The describe, the live metadata of its topics, offsets and releases, into the same pipeline (no records); and the
 * describe with that metadata as a watch's poll (null: no such group), so a watch compares its first poll with what
 * the report showed. The metadata is read just after the describe: a topic change in between is in the snapshot
 * under the epoch before it, and the bump it brings shows no topic change (unexplained, never a wrong cause).
 */
async function explainFromDescribe(
  session: Session,
  client: ClusterReader,
  progress: Progress,
  group: string,
  o: ExplainRequest,
  denial?: Denial,
): Promise<{report: ExplainReport; snapshot: DescribeSnapshot | null}> {
  progress.update(`describing ${group}`)
  const requestedAt = Date.now()
  const described = await readDescribedGroup(client, group)
  const answeredAt = Date.now()
  // no bumps to attribute: the metadata log is not read
  const inputs = await readExplainInputs(session, client, progress, new Set(described ? describedTopics(described) : []), {...o, metadataLogDir: undefined})
  progress.update("reading committed offsets, log end offsets and the brokers' API versions")
  const [offsets, releases] = await Promise.all([
    described ? readDescribedOffsets(client, described, inputs.live, m => session.warn(m)) : null,
    readReleases(client, group, null, described?.type ?? null),
  ])
  // one hasher for the report and the watch's snapshot: each topic hashed once
  const hasher = new TopicHasher(inputs.live)
  const report = explainDescribed(group, described, {...inputs, hasher, extras: {brokers: true, offsets, releases}, ...(denial ? {denial} : {})})
  const snapshot = described && snapshotOf(described, hasher, {requestedAt, at: answeredAt})
  return {report, snapshot}
}
