/**
 * Committed offsets and lag per partition, the rows `kafka-consumer-groups --describe` prints (TOPIC PARTITION
 * CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID), from the coordinator's own records: every partition
 * a member has in its current assignment (AssignedPartitions, what ConsumerGroupDescribe answers as the member's
 * assignment), then every partition with a committed offset that no member has (member "-"). Committed offsets are
 * the replay's latest OffsetCommit per partition (tombstones delete it; the log is read committed, so a
 * transactional commit counts once its transaction committed, at its place in the log). The log end offset comes
 * from the caller (ListOffsets LATEST, read uncommitted, like the tool). Consumer groups, and classic groups from
 * the assignments their GroupMetadata value stores (consumer protocol; see classic.ts).
 */
import type {ClusterMetadata} from '../../metadata.js'
import type {GroupState} from '../../replay/state.js'
import type {TopicPartitions} from '../../replay/values.js'
import {uuidToString} from '../../uuid.js'
import {classicAssignments} from './classic.js'
import type {DescribedGroup} from './described.js'
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
  clientId: string | null
  host: string | null
}

const key = (topic: string, partition: number) => `${topic}:${partition}`

/** Per member, its assigned partitions by topic name: consumer groups' current assignments, classic groups' stored ones. */
function assignedOf(
  state: GroupState,
  live: ClusterMetadata | undefined,
): Array<{memberId: string; clientId: string; clientHost: string; partitions: Array<{topic: string; partitions: readonly number[]}>}> | undefined {
  const g = state.consumer
  if (g && g.epoch !== undefined) {
    const names = topicNamesById(live)
    return [...g.members].map(([memberId, m]) => {
      const cur = g.currentAssignment.get(memberId) as {AssignedPartitions?: readonly TopicPartitions[]} | undefined
      // a topic that no longer exists: the coordinator cannot name it either
      const partitions = (cur?.AssignedPartitions ?? []).flatMap(tp =>
        names.has(tp.TopicId) ? [{topic: names.get(tp.TopicId)!, partitions: tp.Partitions}] : [],
      )
      return {memberId, clientId: m.ClientId, clientHost: m.ClientHost, partitions}
    })
  }
  const v = state.classic?.value
  return v ? classicAssignments(v) : undefined
}

/** The partitions `kafka-consumer-groups --describe` lists for the group; undefined unless it is a consumer or classic group. */
function rowsOf(state: GroupState, live: ClusterMetadata | undefined): Row[] | undefined {
  const assigned = assignedOf(state, live)
  if (!assigned) return undefined
  const rows = new Map<string, Row>()
  for (const m of assigned) {
    for (const tp of m.partitions)
      for (const p of tp.partitions)
        rows.set(key(tp.topic, p), {topic: tp.topic, partition: p, memberId: m.memberId, clientId: m.clientId || null, host: m.clientHost || null})
  }
  for (const c of state.offsets.values()) {
    if (!rows.has(key(c.topic, c.partition)))
      rows.set(key(c.topic, c.partition), {topic: c.topic, partition: c.partition, memberId: null, clientId: null, host: null})
  }
  return [...rows.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}

/** The partitions whose log end offset the offsets table needs (empty unless it is a consumer or classic group). */
export function offsetPartitionsOf(state: GroupState, live?: ClusterMetadata): Array<{topic: string; partition: number}> {
  return (rowsOf(state, live) ?? []).map(r => ({topic: r.topic, partition: r.partition}))
}

/** The offsets table; null unless the group is a consumer or classic group. `logEnd` by `topic:partition`. */
export function groupOffsets(state: GroupState, live: ClusterMetadata | undefined, logEnd: ReadonlyMap<string, LogEnd>): GroupOffsets | null {
  const rows = rowsOf(state, live)
  if (!rows) return null
  return table(rows, k => state.offsets.get(k)?.value.offset ?? null, live, logEnd)
}

/**
 * The same table from a describe and OffsetFetch (no records read): the members' current assignments as the
 * describe gives them, then every partition with a committed offset no member has. Consumer and classic groups
 * (a classic describe's members carry no assignment here: their rows have member "-"); null for the other types.
 * `committed` by `topic:partition`.
 */
export function describedOffsets(
  g: DescribedGroup,
  committed: ReadonlyMap<string, bigint>,
  live: ClusterMetadata | undefined,
  logEnd: ReadonlyMap<string, LogEnd>,
): GroupOffsets | null {
  const rows = describedRows(g, committed)
  return rows ? table(rows, k => committed.get(k) ?? null, live, logEnd) : null
}

/** The partitions whose log end offset the described table needs. */
export function describedOffsetPartitions(g: DescribedGroup, committed: ReadonlyMap<string, bigint>): Array<{topic: string; partition: number}> {
  return (describedRows(g, committed) ?? []).map(r => ({topic: r.topic, partition: r.partition}))
}

function describedRows(g: DescribedGroup, committed: ReadonlyMap<string, bigint>): Row[] | undefined {
  if (g.type !== 'consumer' && g.type !== 'classic') return undefined
  const rows = new Map<string, Row>()
  for (const m of g.members)
    for (const tp of m.assignment ?? [])
      for (const p of tp.partitions)
        rows.set(key(tp.topic, p), {topic: tp.topic, partition: p, memberId: m.memberId, clientId: m.clientId || null, host: m.clientHost || null})
  for (const k of committed.keys()) {
    const at = k.lastIndexOf(':')
    if (!rows.has(k)) rows.set(k, {topic: k.slice(0, at), partition: Number(k.slice(at + 1)), memberId: null, clientId: null, host: null})
  }
  return sortRows([...rows.values()])
}

const sortRows = (rows: Row[]) => rows.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))

function table(
  rows: readonly Row[],
  committedOf: (k: string) => bigint | null,
  live: ClusterMetadata | undefined,
  logEnd: ReadonlyMap<string, LogEnd>,
): GroupOffsets {
  const ids = new Map((live?.topics ?? []).map(t => [t.name, uuidToString(t.topicId)]))
  let totalLag = 0n
  let uncommitted = 0
  const partitions = rows.map(r => {
    const committed = committedOf(key(r.topic, r.partition))
    const end = logEnd.get(key(r.topic, r.partition))
    const leo = end?.offset ?? null
    // like the tool: no lag without both offsets, and a committed -1 is no position
    const lag = committed !== null && committed >= 0n && leo !== null ? leo - committed : null
    if (lag !== null) totalLag += lag
    if (committed === null) uncommitted++
    return {
      topic: r.topic,
      topicId: ids.get(r.topic) ?? null,
      partition: r.partition,
      committedOffset: committed === null ? null : committed.toString(),
      logEndOffset: leo === null ? null : leo.toString(),
      lag: lag === null ? null : lag.toString(),
      memberId: r.memberId,
      clientId: r.clientId,
      host: r.host,
      logEndError: leo === null ? (end?.error ?? 'NOT_READ') : null,
    }
  })
  return {partitions, totalLag: totalLag.toString(), uncommitted}
}
