/**
 * Each member's partitions, as `kafka-consumer-groups --describe --members --verbose` shows them but from the
 * coordinator's own records: current assignment, target assignment, what is still to be revoked or assigned, and
 * which members the others wait on (a partition can be assigned only once its previous owner revoked it). Consumer
 * and share groups; streams groups assign tasks, not partitions, and get none of this.
 */
import type {ClusterMetadata} from '../../metadata.js'
import type {ConsumerGroupState, GroupState, ShareGroupState} from '../../replay/state.js'
import type {TopicPartitions} from '../../replay/values.js'
import {uuidToString} from '../../uuid.js'

export interface NamedPartitions {
  /** The topic's name in today's metadata; null when no topic has that id any more (deleted or re-created). */
  topic: string | null
  /** Base64url, as Kafka prints topic ids; null for a classic member's topic (named in its assignment) that no live topic has. */
  topicId: string | null
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
export function memberPartitions(
  type: 'consumer' | 'share' | 'streams',
  state: GroupState,
  names: ReadonlyMap<string, string>,
): Map<string, MemberPartitions> | undefined {
  if (type === 'streams') return undefined
  const g = state[type] as ConsumerGroupState | ShareGroupState | null
  if (!g) return undefined
  const owned = new Map<string, Pairs>()
  const revoking = new Map<string, Pairs>()
  for (const memberId of g.members.keys()) {
    const cur = g.currentAssignment.get(memberId) as
      | {AssignedPartitions?: readonly TopicPartitions[]; PartitionsPendingRevocation?: readonly TopicPartitions[]}
      | undefined
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

/** Why a member left, as far as the records tell: what is read from them is plain, what is inferred says "likely". */
export interface LeaveReason {
  /**
   * rebalance-timeout: it left about its declared rebalance timeout after entering UNREVOKED_PARTITIONS (or
   * UNREVOKED_TASKS); static-restart: a later member with the same instance id and a new member id; fenced-rejoined:
   * the same member id joined again later; static-temporary: a static member's temporary leave (member epoch -2)
   * that was not followed by a rejoin in time; after-state-record: it left within seconds of its last state record;
   * unknown: none of these.
   */
  kind: 'rebalance-timeout' | 'static-restart' | 'fenced-rejoined' | 'static-temporary' | 'after-state-record' | 'unknown'
  /** True when the kind is inferred from times and ids rather than read from a record. */
  likely: boolean
  /** One sentence for humans ("likely rebalance timeout: revocation took 300 s"). */
  reason: string
  /** The member's state in its last current-assignment record, and when that record was written (ISO). */
  lastState: string | null
  lastStateAt: string | null
  /** From that record to the leave. */
  msInLastState: number | null
  /** The RebalanceTimeoutMs of its member metadata record. */
  rebalanceTimeoutMs: number | null
  /** static-restart / fenced-rejoined: the member id it came back as, and at which group epoch. */
  rejoined: {memberId: string; epoch: number; afterMs: number} | null
}

/** "A leave right after a state record": within this of the member's last state record. */
export const LEAVE_AFTER_STATE_MS = 5000
/** A leave this close to (or past) the declared rebalance timeout after revocation began counts as that timeout. */
const TIMEOUT_SLACK = 0.9

const UNREVOKED: Record<'consumer' | 'share' | 'streams', number> = {consumer: 1, share: 1, streams: 2}

export interface LeaveFacts {
  type: 'consumer' | 'share' | 'streams'
  memberId: string
  instanceId: string | null
  lastMemberEpoch: number | undefined
  /** When the leave was written. */
  at: number
  /** From the snapshot before the leave. */
  lastState: {state: number; name: string; at: number} | null
  rebalanceTimeoutMs: number | null
  /** Later joins of the group, in log order: member id, instance id, group epoch, time. */
  laterJoins: ReadonlyArray<{memberId: string; instanceId: string | null; epoch: number; at: number}>
}

const secs = (ms: number) => `${Math.round(ms / 1000)} s`

export function whyLeft(f: LeaveFacts): LeaveReason {
  const d = f.lastState ? f.at - f.lastState.at : null
  const base = {
    lastState: f.lastState?.name ?? null,
    lastStateAt: f.lastState ? new Date(f.lastState.at).toISOString() : null,
    msInLastState: d,
    rebalanceTimeoutMs: f.rebalanceTimeoutMs,
    rejoined: null,
  }
  const sameInstance = f.instanceId === null ? undefined : f.laterJoins.find(j => j.instanceId === f.instanceId && j.memberId !== f.memberId)
  const sameMember = f.laterJoins.find(j => j.memberId === f.memberId)
  const revoking = f.lastState !== null && f.lastState.state === UNREVOKED[f.type] && f.type !== 'share'
  if (revoking && d !== null && f.rebalanceTimeoutMs !== null && d >= f.rebalanceTimeoutMs * TIMEOUT_SLACK) {
    return {
      ...base,
      kind: 'rebalance-timeout',
      likely: true,
      reason: `likely rebalance timeout: revocation took ${secs(d)} (rebalance timeout ${secs(f.rebalanceTimeoutMs)})`,
    }
  }
  if (sameInstance) {
    const rejoined = {memberId: sameInstance.memberId, epoch: sameInstance.epoch, afterMs: sameInstance.at - f.at}
    return {
      ...base,
      rejoined,
      kind: 'static-restart',
      likely: true,
      reason: `likely a static member's restart: instance ${f.instanceId} came back as member ${sameInstance.memberId} ${secs(rejoined.afterMs)} later (epoch ${sameInstance.epoch})`,
    }
  }
  if (f.lastMemberEpoch === -2) {
    return {...base, kind: 'static-temporary', likely: false, reason: 'a static member that had left temporarily and did not rejoin within its session timeout'}
  }
  if (sameMember) {
    const rejoined = {memberId: sameMember.memberId, epoch: sameMember.epoch, afterMs: sameMember.at - f.at}
    return {
      ...base,
      rejoined,
      kind: 'fenced-rejoined',
      likely: true,
      reason: `likely fenced (session or rebalance timeout): it rejoined with the same member id ${secs(rejoined.afterMs)} later (epoch ${sameMember.epoch})`,
    }
  }
  if (d !== null && d <= LEAVE_AFTER_STATE_MS) {
    return {
      ...base,
      kind: 'after-state-record',
      likely: true,
      reason: `left ${secs(d)} after its last state record (${f.lastState!.name}): likely a leave request (the client closed or unsubscribed)`,
    }
  }
  return {
    ...base,
    kind: 'unknown',
    likely: false,
    reason: `leave, session or rebalance timeout${f.lastState && d !== null ? `; last state ${f.lastState.name} for ${secs(d)}` : ''}`,
  }
}
