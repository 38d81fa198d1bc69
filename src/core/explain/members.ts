/**
 * Each member's partitions, as `kafka-consumer-groups --describe --members --verbose` shows them but from the
 * coordinator's own records: current assignment, target assignment, what is still to be revoked or assigned, and
 * which members the others wait on (a partition can be assigned only once its previous owner revoked it). Consumer
 * and share groups; streams groups assign tasks, not partitions, and get none of this.
 */
import type {ClusterMetadata} from '../metadata.js'
import type {ConsumerGroupState, GroupState, ShareGroupState} from '../replay/state.js'
import type {TopicPartitions} from '../replay/values.js'
import {uuidToString} from '../uuid.js'

export interface NamedPartitions {
  /** The topic's name in today's metadata; null when no topic has that id any more (deleted or re-created). */
  topic: string | null
  /** Base64url, as Kafka prints topic ids. */
  topicId: string
  partitions: number[]
}

export interface MemberPartitions {
  /** The partitions the member owns now (its current assignment record). */
  assigned: NamedPartitions[]
  /** The partitions the assignor gave it for the assignment epoch (its target assignment record). */
  target: NamedPartitions[]
  /** Assigned but not in the target: the member must revoke them (consumer groups record this list themselves). */
  pendingRevocation: NamedPartitions[]
  /** In the target but not assigned yet. */
  pendingAssignment: NamedPartitions[]
  /** Members that still own a partition of this member's pending assignment: it waits on them. */
  waitingOn: string[]
}

type Pairs = Map<string, Set<number>>

function pairs(tps: readonly TopicPartitions[] | undefined): Pairs {
  const out: Pairs = new Map()
  for (const tp of tps ?? []) {
    const set = out.get(tp.TopicId) ?? new Set<number>()
    for (const p of tp.Partitions) set.add(p)
    out.set(tp.TopicId, set)
  }
  return out
}

function minus(a: Pairs, b: Pairs): Pairs {
  const out: Pairs = new Map()
  for (const [t, ps] of a) {
    const rest = [...ps].filter(p => !b.get(t)?.has(p))
    if (rest.length > 0) out.set(t, new Set(rest))
  }
  return out
}

function union(a: Pairs, b: Pairs): Pairs {
  const out: Pairs = new Map([...a].map(([t, ps]) => [t, new Set(ps)]))
  for (const [t, ps] of b) for (const p of ps) (out.get(t) ?? out.set(t, new Set()).get(t)!).add(p)
  return out
}

/** Named and sorted by topic name (ids without a name last), partitions ascending. */
function named(p: Pairs, names: ReadonlyMap<string, string>): NamedPartitions[] {
  return [...p]
    .map(([topicId, ps]) => ({topic: names.get(topicId) ?? null, topicId, partitions: [...ps].sort((x, y) => x - y)}))
    .sort((a, b) => (a.topic ?? '\uffff' + a.topicId).localeCompare(b.topic ?? '\uffff' + b.topicId))
}

const namesCache = new WeakMap<ClusterMetadata, Map<string, string>>()
const NO_NAMES: ReadonlyMap<string, string> = new Map()

/** Topic names by base64url id; built once per metadata object (audit explains every group against one). */
export function topicNamesById(live: ClusterMetadata | undefined): ReadonlyMap<string, string> {
  if (!live) return NO_NAMES
  let names = namesCache.get(live)
  if (!names) namesCache.set(live, (names = new Map(live.topics.map(t => [uuidToString(t.topicId), t.name]))))
  return names
}

/** Per member id, its partitions; undefined for streams and classic groups. */
export function memberPartitions(type: 'consumer' | 'share' | 'streams', state: GroupState, names: ReadonlyMap<string, string>): Map<string, MemberPartitions> | undefined {
  if (type === 'streams') return undefined
  const g = state[type] as ConsumerGroupState | ShareGroupState | null
  if (!g) return undefined
  const owned = new Map<string, Pairs>()
  const revoking = new Map<string, Pairs>()
  for (const memberId of g.members.keys()) {
    const cur = g.currentAssignment.get(memberId) as {AssignedPartitions?: readonly TopicPartitions[]; PartitionsPendingRevocation?: readonly TopicPartitions[]} | undefined
    owned.set(memberId, pairs(cur?.AssignedPartitions))
    revoking.set(memberId, pairs(cur?.PartitionsPendingRevocation))
  }
  const out = new Map<string, MemberPartitions>()
  for (const memberId of g.members.keys()) {
    const assigned = owned.get(memberId)!
    const target = pairs((g.targetAssignment.get(memberId) as {TopicPartitions?: readonly TopicPartitions[]} | undefined)?.TopicPartitions)
    // a consumer member records what it still has to revoke; a share member releases at once (derived here)
    const pendingRevocation = revoking.get(memberId)!.size > 0 ? revoking.get(memberId)! : minus(assigned, target)
    const pendingAssignment = minus(target, assigned)
    const waitingOn: string[] = []
    for (const [other, theirs] of owned) {
      if (other === memberId) continue
      const held = union(theirs, revoking.get(other)!)
      if ([...pendingAssignment].some(([t, ps]) => [...ps].some(p => held.get(t)?.has(p)))) waitingOn.push(other)
    }
    out.set(memberId, {
      assigned: named(assigned, names),
      target: named(target, names),
      pendingRevocation: named(pendingRevocation, names),
      pendingAssignment: named(pendingAssignment, names),
      waitingOn: waitingOn.sort(),
    })
  }
  return out
}
