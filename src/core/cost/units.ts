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
/** unitKey with each key made once per tracker (a member's records repeat the same partitions bump after bump). */
export class UnitKeys {
  /** Per kind, made at its first unit (a consumer group's fold has partitions only; a fold is made per group). */
  private readonly lists: {[K in UnitKind]?: Map<string, string[]>} = {}

  key(kind: UnitKind, id: string, partition: number): string {
    const byId = (this.lists[kind] ??= new Map())
    let list = byId.get(id)
    if (!list) byId.set(id, (list = []))
    return (list[partition] ??= unitKey(kind, id, partition))
  }
}

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

function add(keys: UnitKeys, out: string[], kind: UnitKind, list: readonly (V.TopicPartitions | V.TaskIds)[] | null | undefined): void {
  if (!list) return
  for (const tp of list) {
    const id = kind === 'partition' ? (tp as V.TopicPartitions).TopicId : (tp as V.TaskIds).SubtopologyId
    for (const p of tp.Partitions) out.push(keys.key(kind, id, p))
  }
}

const CONSUMER_STATE: Record<number, PendingMember['state']> = {0: 'stable', 1: 'unrevoked', 2: 'unreleased'}
const STREAMS_STATE: Record<number, PendingMember['state']> = {1: 'stable', 2: 'unrevoked', 3: 'unreleased'}

export function stateOf(type: 'consumer' | 'share' | 'streams', state: number): PendingMember['state'] {
  if (type === 'share') return 'stable'
  return (type === 'consumer' ? CONSUMER_STATE : STREAMS_STATE)[state] ?? 'unknown'
}

export function consumerUnits(v: V.ConsumerCurrentMemberAssignmentValue, keys: UnitKeys): HeldUnits {
  const pending: string[] = []
  add(keys, pending, 'partition', v.PartitionsPendingRevocation)
  const owning: string[] = []
  add(keys, owning, 'partition', v.AssignedPartitions)
  for (const u of pending) owning.push(u)
  return {epoch: v.MemberEpoch, state: CONSUMER_STATE[v.State] ?? 'unknown', owning, other: [], pending}
}

export function streamsUnits(v: V.StreamsCurrentMemberAssignmentValue, keys: UnitKeys): HeldUnits {
  const owning: string[] = []
  add(keys, owning, 'active', v.ActiveTasks)
  add(keys, owning, 'active', v.ActiveTasksPendingRevocation)
  const other: string[] = []
  add(keys, other, 'standby', v.StandbyTasks)
  add(keys, other, 'standby', v.StandbyTasksPendingRevocation)
  add(keys, other, 'warmup', v.WarmupTasks)
  add(keys, other, 'warmup', v.WarmupTasksPendingRevocation)
  const pending: string[] = []
  add(keys, pending, 'active', v.ActiveTasksPendingRevocation)
  add(keys, pending, 'standby', v.StandbyTasksPendingRevocation)
  add(keys, pending, 'warmup', v.WarmupTasksPendingRevocation)
  return {epoch: v.MemberEpoch, state: STREAMS_STATE[v.State] ?? 'unknown', owning, other, pending}
}

export function shareUnits(v: V.ShareCurrentMemberAssignmentValue, keys: UnitKeys): HeldUnits {
  const other: string[] = []
  add(keys, other, 'partition', v.AssignedPartitions)
  return {epoch: v.MemberEpoch, state: 'stable', owning: [], other, pending: []}
}

type Lists = readonly (V.TopicPartitions | V.TaskIds)[] | null | undefined

function sameLists(a: Lists, b: Lists): boolean {
  if (!a || !b) return a === b || (a?.length ?? 0) + (b?.length ?? 0) === 0
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Partial<V.TopicPartitions & V.TaskIds>
    const y = b[i] as Partial<V.TopicPartitions & V.TaskIds>
    if (x.TopicId !== y.TopicId || x.SubtopologyId !== y.SubtopologyId) return false
    const p = x.Partitions!
    const q = y.Partitions!
    if (p.length !== q.length) return false
    for (let j = 0; j < p.length; j++) if (p[j] !== q[j]) return false
  }
  return true
}

/** The unit lists of each type's current-assignment value. */
const LIST_FIELDS = {
  consumer: ['AssignedPartitions', 'PartitionsPendingRevocation'],
  share: ['AssignedPartitions'],
  streams: ['ActiveTasks', 'StandbyTasks', 'WarmupTasks', 'ActiveTasksPendingRevocation', 'StandbyTasksPendingRevocation', 'WarmupTasksPendingRevocation'],
} as const

/**
 * Two current-assignment values of a `type` group list the same units (most records of a bump only move a member to
 * the new epoch): compared on the decoded numbers, before any key is made.
 */
export function sameUnits(type: 'consumer' | 'share' | 'streams', a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const f of LIST_FIELDS[type]) if (!sameLists(a[f] as Lists, b[f] as Lists)) return false
  return true
}
