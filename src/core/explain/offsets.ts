/**
 * Committed offsets and lag per partition, the rows `kafka-consumer-groups --describe` prints (TOPIC PARTITION
 * CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID), from the coordinator's own records: every partition
 * a member has in its current assignment (AssignedPartitions, what ConsumerGroupDescribe answers as the member's
 * assignment), then every partition with a committed offset that no member has (member "-"). Committed offsets are
 * the replay's latest OffsetCommit per partition (tombstones delete it; the log is read committed, so a
 * transactional commit counts once its transaction committed, at its place in the log). The log end offset comes
 * from the caller (ListOffsets LATEST, read uncommitted, like the tool). Consumer groups only.
 */
import type {ClusterMetadata} from '../metadata.js'
import type {GroupState} from '../replay/state.js'
import type {TopicPartitions} from '../replay/values.js'
import {uuidToString} from '../uuid.js'
import {topicNamesById} from './members.js'

export interface PartitionOffset {
  topic: string
  /** Base64url; null when no live topic has that name. */
  topicId: string | null
  partition: number
  /** The latest committed offset (decimal string); null when the group committed none for the partition. */
  committedOffset: string | null
  /** ListOffsets LATEST (high watermark); null when it could not be read (see logEndError). */
  logEndOffset: string | null
  /** logEndOffset − committedOffset; null when either is unknown (the tool prints "-"). */
  lag: string | null
  /** The member whose current assignment holds the partition; null when none does. */
  memberId: string | null
  clientId: string | null
  host: string | null
  /** Why the log end offset is missing (an error name), else null. */
  logEndError: string | null
}

export interface GroupOffsets {
  partitions: PartitionOffset[]
  /** The sum of the known lags (decimal string). */
  totalLag: string
  /** Partitions without a committed offset. */
  uncommitted: number
}

/** A partition's latest offset as read (offset null with an error name when it could not be). */
export interface LogEnd {
  offset: bigint | null
  error: string | null
}

interface Row {
  topic: string
  partition: number
  memberId: string | null
}

const key = (topic: string, partition: number) => `${topic}:${partition}`

/** The partitions `kafka-consumer-groups --describe` lists for the group; undefined unless it is a consumer group. */
function rowsOf(state: GroupState, live: ClusterMetadata | undefined): Row[] | undefined {
  const g = state.consumer
  if (!g || g.epoch === undefined) return undefined
  const names = topicNamesById(live)
  const rows = new Map<string, Row>()
  for (const memberId of g.members.keys()) {
    const cur = g.currentAssignment.get(memberId) as {AssignedPartitions?: readonly TopicPartitions[]} | undefined
    for (const tp of cur?.AssignedPartitions ?? []) {
      const topic = names.get(tp.TopicId)
      if (topic === undefined) continue // a topic that no longer exists: the coordinator cannot name it either
      for (const p of tp.Partitions) rows.set(key(topic, p), {topic, partition: p, memberId})
    }
  }
  for (const c of state.offsets.values()) if (!rows.has(key(c.topic, c.partition))) rows.set(key(c.topic, c.partition), {topic: c.topic, partition: c.partition, memberId: null})
  return [...rows.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}

/** The partitions whose log end offset the offsets table needs (empty unless it is a consumer group). */
export function offsetPartitionsOf(state: GroupState, live?: ClusterMetadata): Array<{topic: string; partition: number}> {
  return (rowsOf(state, live) ?? []).map(r => ({topic: r.topic, partition: r.partition}))
}

/** The offsets table; null unless the group is a consumer group. `logEnd` by `topic:partition`. */
export function groupOffsets(state: GroupState, live: ClusterMetadata | undefined, logEnd: ReadonlyMap<string, LogEnd>): GroupOffsets | null {
  const rows = rowsOf(state, live)
  if (!rows) return null
  const ids = new Map((live?.topics ?? []).map(t => [t.name, uuidToString(t.topicId)]))
  const members = state.consumer!.members as Map<string, {ClientId?: string; ClientHost?: string}>
  let totalLag = 0n
  let uncommitted = 0
  const partitions = rows.map(r => {
    const committed = state.offsets.get(key(r.topic, r.partition))?.value.offset ?? null
    const end = logEnd.get(key(r.topic, r.partition))
    const leo = end?.offset ?? null
    // like the tool: no lag without both offsets, and a committed -1 is no position
    const lag = committed !== null && committed >= 0n && leo !== null ? leo - committed : null
    if (lag !== null) totalLag += lag
    if (committed === null) uncommitted++
    const m = r.memberId === null ? undefined : members.get(r.memberId)
    return {
      topic: r.topic,
      topicId: ids.get(r.topic) ?? null,
      partition: r.partition,
      committedOffset: committed === null ? null : committed.toString(),
      logEndOffset: leo === null ? null : leo.toString(),
      lag: lag === null ? null : lag.toString(),
      memberId: r.memberId,
      clientId: m?.ClientId || null,
      host: m?.ClientHost || null,
      logEndError: leo === null ? (end?.error ?? 'NOT_READ') : null,
    }
  })
  return {partitions, totalLag: totalLag.toString(), uncommitted}
}
