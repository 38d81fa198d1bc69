/**
 * The units whose ownership a rebalance moves, as compact string keys (one per topic-partition or task), and how the
 * current-assignment values of each group type read as sets of them.
 */
import type * as V from '../replay/values.js'
import type {PendingMember, UnitKind, UnitRef} from './types.js'

const PREFIX: Record<UnitKind, string> = {partition: 'p', active: 'a', standby: 's', warmup: 'w'}
const KIND: Record<string, UnitKind> = {p: 'partition', a: 'active', s: 'standby', w: 'warmup'}

/** `p<topicId>:<partition>`, `a<subtopologyId>:<partition>`, … (ids hold no newline; the partition is after the last colon). */
export function unitKey(kind: UnitKind, id: string, partition: number): string {
  return PREFIX[kind] + id + ':' + partition
}

/** `named`: the key holds a topic name (classic groups), not a topic id. */
export function unitRef(key: string, topicNames: ReadonlyMap<string, string> | undefined, named = false): UnitRef {
  const kind = KIND[key[0]]
  const colon = key.lastIndexOf(':')
  const id = key.slice(1, colon)
  const partition = Number(key.slice(colon + 1))
  if (kind === 'partition') {
    if (named) return {kind, topicId: null, topic: id, subtopologyId: null, partition}
    return {kind, topicId: id, topic: topicNames?.get(id) ?? id, subtopologyId: null, partition}
  }
  return {kind, topicId: null, topic: null, subtopologyId: id, partition}
}

/** A current-assignment value read as sets: units whose gap is measured, other units, units pending revocation. */
export interface HeldUnits {
  readonly epoch: number
  readonly state: PendingMember['state']
  /** Consumer partitions and streams active tasks, assigned or pending revocation (the member still holds them). */
  readonly owning: readonly string[]
  /** Standby and warm-up tasks, share partitions: moves are shown, no time without an owner. */
  readonly other: readonly string[]
  readonly pending: readonly string[]
}

function add(out: string[], kind: UnitKind, list: readonly (V.TopicPartitions | V.TaskIds)[] | null | undefined): void {
  if (!list) return
  for (const tp of list) {
    const id = 'TopicId' in tp ? tp.TopicId : tp.SubtopologyId
    for (const p of tp.Partitions) out.push(unitKey(kind, id, p))
  }
}

const CONSUMER_STATE: Record<number, PendingMember['state']> = {0: 'stable', 1: 'unrevoked', 2: 'unreleased'}
const STREAMS_STATE: Record<number, PendingMember['state']> = {1: 'stable', 2: 'unrevoked', 3: 'unreleased'}

export function consumerUnits(v: V.ConsumerCurrentMemberAssignmentValue): HeldUnits {
  const pending: string[] = []
  add(pending, 'partition', v.PartitionsPendingRevocation)
  const owning: string[] = []
  add(owning, 'partition', v.AssignedPartitions)
  for (const u of pending) owning.push(u)
  return {epoch: v.MemberEpoch, state: CONSUMER_STATE[v.State] ?? 'unknown', owning, other: [], pending}
}

export function streamsUnits(v: V.StreamsCurrentMemberAssignmentValue): HeldUnits {
  const owning: string[] = []
  add(owning, 'active', v.ActiveTasks)
  add(owning, 'active', v.ActiveTasksPendingRevocation)
  const other: string[] = []
  add(other, 'standby', v.StandbyTasks)
  add(other, 'standby', v.StandbyTasksPendingRevocation)
  add(other, 'warmup', v.WarmupTasks)
  add(other, 'warmup', v.WarmupTasksPendingRevocation)
  const pending: string[] = []
  add(pending, 'active', v.ActiveTasksPendingRevocation)
  add(pending, 'standby', v.StandbyTasksPendingRevocation)
  add(pending, 'warmup', v.WarmupTasksPendingRevocation)
  return {epoch: v.MemberEpoch, state: STREAMS_STATE[v.State] ?? 'unknown', owning, other, pending}
}

export function shareUnits(v: V.ShareCurrentMemberAssignmentValue): HeldUnits {
  const other: string[] = []
  add(other, 'partition', v.AssignedPartitions)
  return {epoch: v.MemberEpoch, state: 'stable', owning: [], other, pending: []}
}
