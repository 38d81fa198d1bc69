/**
 * A classic group's members as its stored `GroupMetadata` value lists them, the way `kafka-consumer-groups
 * --describe --members --verbose` shows them: member id, instance id, client id, host, and — for protocol type
 * `consumer`, whose subscription and assignment bytes the record codec decodes with Kafka's
 * ConsumerProtocolSubscription/Assignment schemas — subscribed topics, owned partitions, rack and assigned
 * partitions by topic name. Other protocol types (e.g. `connect`) keep their own formats: what the record itself
 * says is shown, the bytes are said to be undecoded. The classic protocol stores one assignment per member (the
 * leader's, written when the generation's SyncGroup completed): it is both the current and the target assignment;
 * the coordinator does not know of revocations in flight, so nothing is called pending here.
 */
import type {EmbeddedDecode} from '../../records/index.js'
import type {ClusterMetadata} from '../../metadata.js'
import type {ClassicMember, GroupMetadataValue} from '../../replay/values.js'
import {uuidToString} from '../../uuid.js'
import type {MemberPartitions, NamedPartitions} from './members.js'
import {compare} from '../../order.js'

/** What only a classic member has. */
export interface ClassicMemberDetail {
  protocolType: string
  sessionTimeoutMs: number
  /** null when the record predates it (v0) or says -1. */
  rebalanceTimeoutMs: number | null
  /** The consumer protocol's subscription (version as written); null when not decoded (see undecoded). */
  subscription: {
    version: number
    topics: string[]
    ownedPartitions: Array<{topic: string; partitions: number[]}>
    /** v2+: the generation the member last had; null before v2 (and -1 as written: none). */
    generation: number | null
    userDataBytes: number | null
  } | null
  /** The consumer protocol's assignment; null when not decoded. */
  assignment: {version: number; userDataBytes: number | null} | null
  /** Why a part was not decoded, one sentence each (empty when both were). */
  undecoded: string[]
}

/** A classic member in the shape `group explain` gives every member (see explain.ts MemberStatus). */
export interface ClassicMemberView {
  memberId: string
  clientId: string | null
  clientHost: string | null
  instanceId: string | null
  subscribedTopicNames: string[]
  rackId: string | null
  partitions: MemberPartitions | null
  classic: ClassicMemberDetail
}

interface TopicPartitionList {
  Topic: string
  Partitions: readonly number[]
}

const idsCache = new WeakMap<ClusterMetadata, Map<string, string>>()
const NO_IDS: ReadonlyMap<string, string> = new Map()

/** Live topic ids (base64url) by name; built once per metadata object (audit explains every group against one). */
export function liveTopicIds(live: ClusterMetadata | undefined): ReadonlyMap<string, string> {
  if (!live) return NO_IDS
  let ids = idsCache.get(live)
  if (!ids) idsCache.set(live, (ids = new Map(live.topics.map(t => [t.name, uuidToString(t.topicId)]))))
  return ids
}

const decoded = (d: unknown): EmbeddedDecode | undefined => (d && typeof d === 'object' && 'ok' in d ? (d as EmbeddedDecode) : undefined)

const bytesOf = (b: unknown): number | null => (b instanceof Uint8Array ? b.length : null)

/** Merged by topic, topics by name, partitions ascending (as ConsumerGroupCommand prints them). */
function byTopic(list: readonly TopicPartitionList[], ids: ReadonlyMap<string, string>): NamedPartitions[] {
  const merged = new Map<string, Set<number>>()
  for (const tp of list) {
    const set = merged.get(tp.Topic) ?? new Set<number>()
    for (const p of tp.Partitions) set.add(p)
    merged.set(tp.Topic, set)
  }
  return [...merged]
    .sort(([a], [b]) => compare(a, b))
    .map(([topic, ps]) => ({topic, topicId: ids.get(topic) ?? null, partitions: [...ps].sort((x, y) => x - y)}))
}

function undecodedWhy(part: 'subscription' | 'assignment', protocolType: string, bytes: unknown, d: EmbeddedDecode | undefined): string | null {
  if (d?.ok) return null
  const n = bytesOf(bytes) ?? 0
  if (d && !d.ok) return `${part}: ${n} bytes that do not decode as the consumer protocol's ${d.message} (${d.error}, at byte ${d.position})`
  if (protocolType !== 'consumer') return `${part}: ${n} bytes in protocol type ${protocolType}'s own format, not decoded`
  return n === 0 ? `${part}: empty` : `${part}: ${n} bytes, not decoded`
}

/** One member of the stored value; `ids` maps live topic names to base64url ids. */
export function classicMember(m: ClassicMember, protocolType: string, ids: ReadonlyMap<string, string>): ClassicMemberView {
  const sub = decoded(m.subscriptionDecoded)
  const asg = decoded(m.assignmentDecoded)
  const s = sub?.ok
    ? (sub.value as {
        Topics: readonly string[]
        UserData: unknown
        OwnedPartitions?: readonly TopicPartitionList[]
        GenerationId?: number
        RackId?: string | null
      })
    : null
  const a = asg?.ok ? (asg.value as {AssignedPartitions: readonly TopicPartitionList[]; UserData: unknown}) : null
  const assigned = a ? byTopic(a.AssignedPartitions, ids) : null
  const undecoded = [undecodedWhy('subscription', protocolType, m.subscription, sub), undecodedWhy('assignment', protocolType, m.assignment, asg)].filter(
    (x): x is string => x !== null,
  )
  return {
    memberId: m.memberId,
    clientId: m.clientId || null,
    clientHost: m.clientHost || null,
    instanceId: m.groupInstanceId ?? null,
    subscribedTopicNames: s ? [...new Set(s.Topics)].sort() : [],
    rackId: s?.RackId ?? null,
    partitions: assigned ? {assigned, target: assigned, pendingRevocation: [], pendingAssignment: [], waitingOn: []} : null,
    classic: {
      protocolType,
      sessionTimeoutMs: m.sessionTimeout,
      rebalanceTimeoutMs: m.rebalanceTimeout >= 0 ? m.rebalanceTimeout : null,
      subscription:
        s && sub?.ok
          ? {
              version: sub.version,
              topics: [...s.Topics],
              ownedPartitions: byTopic(s.OwnedPartitions ?? [], ids).map(({topic, partitions}) => ({topic: topic!, partitions})),
              generation: sub.version >= 2 && s.GenerationId !== undefined && s.GenerationId >= 0 ? s.GenerationId : null,
              userDataBytes: bytesOf(s.UserData),
            }
          : null,
      assignment: a && asg?.ok ? {version: asg.version, userDataBytes: bytesOf(a.UserData)} : null,
      undecoded,
    },
  }
}

/** Every member of the stored value, in record order. */
export function classicMembers(v: GroupMetadataValue, ids: ReadonlyMap<string, string>): ClassicMemberView[] {
  return v.members.map(m => classicMember(m, v.protocolType, ids))
}

/**
 * The partitions each member is assigned, for the offsets table: decoded consumer-protocol assignments only
 * (ConsumerGroupCommand describes no member partitions of other protocol types either).
 */
export function classicAssignments(
  v: GroupMetadataValue,
): Array<{memberId: string; clientId: string; clientHost: string; partitions: Array<{topic: string; partitions: readonly number[]}>}> {
  return v.members.map(m => {
    const d = decoded(m.assignmentDecoded)
    const list = d?.ok ? (d.value as {AssignedPartitions: readonly TopicPartitionList[]}).AssignedPartitions : []
    return {memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, partitions: list.map(tp => ({topic: tp.Topic, partitions: tp.Partitions}))}
  })
}
