/**
 * A group as its describe answers it (ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe,
 * DescribeGroups): what DESCRIBE on the group shows without reading `__consumer_offsets`. JSON-safe; built in
 * src/sources/group-describe.ts. Here: each member's status (current vs target, what is pending, whom it waits on)
 * and the topics whose live metadata hash the coordinator would compute. Pure.
 */
import type {GroupType} from '../../replay/index.js'
import type {MemberPartitions, NamedPartitions} from './members.js'
import type {MemberStatus} from './report.js'

/** A topic's partitions as the describe names them. */
export interface DescribedPartitions {
  topic: string
  /** Base64url, as Kafka prints topic ids. */
  topicId: string
  partitions: number[]
}

export interface DescribedMember {
  memberId: string
  instanceId: string | null
  rackId: string | null
  /** null for classic groups (DescribeGroups has no member epoch). */
  memberEpoch: number | null
  clientId: string
  clientHost: string
  subscribedTopicNames: string[]
  subscribedTopicRegex: string | null
  /** Its current assignment; null where the describe gives none in partitions (streams: tasks; classic). */
  assignment: DescribedPartitions[] | null
  /** Its target assignment; null for share and classic groups (their describes give none) and streams. */
  targetAssignment: DescribedPartitions[] | null
  /** Streams: its current tasks differ from its target tasks (null for the other types). */
  tasksDiffer: boolean | null
}

export interface DescribedGroup {
  group: string
  type: GroupType
  /** Kafka's state name (Stable, Reconciling, Assigning, Empty, PreparingRebalance, …). */
  state: string
  /** null for classic groups (DescribeGroups gives no generation). */
  groupEpoch: number | null
  assignmentEpoch: number | null
  /** The assignor (classic: the protocol the generation chose); null when none is named. */
  assignor: string | null
  members: DescribedMember[]
  /** Streams: the topics the topology requires (source, repartition source, changelog); null for the other types. */
  topologyTopics: string[] | null
}

/** The topics whose metadata the coordinator hashes: the members' subscriptions; a regex member's assigned topics. */
export function describedTopics(g: DescribedGroup): string[] {
  if (g.topologyTopics) return [...g.topologyTopics].sort()
  const out = new Set<string>()
  for (const m of g.members) {
    for (const t of m.subscribedTopicNames) out.add(t)
    // the describe does not resolve the regex: the topics it gave the member are what is known of it
    if (m.subscribedTopicRegex !== null) for (const a of [...(m.assignment ?? []), ...(m.targetAssignment ?? [])]) out.add(a.topic)
  }
  return [...out].sort()
}

const key = (topicId: string, p: number) => `${topicId}:${p}`

function keys(list: readonly DescribedPartitions[]): Set<string> {
  return new Set(list.flatMap(tp => tp.partitions.map(p => key(tp.topicId, p))))
}

/** The partitions of `list` not in `other`, by topic name. */
function minus(list: readonly DescribedPartitions[], other: ReadonlySet<string>): NamedPartitions[] {
  return list
    .map(tp => ({topic: tp.topic, topicId: tp.topicId, partitions: tp.partitions.filter(p => !other.has(key(tp.topicId, p))).sort((a, b) => a - b)}))
    .filter(tp => tp.partitions.length > 0)
    .sort((a, b) => a.topic.localeCompare(b.topic))
}

const sorted = (list: readonly DescribedPartitions[]): NamedPartitions[] =>
  list.map(tp => ({topic: tp.topic, topicId: tp.topicId, partitions: [...tp.partitions].sort((a, b) => a - b)})).sort((a, b) => a.topic.localeCompare(b.topic))

/** Current vs target per member (consumer groups: both described), and the members that still own what it waits for. */
function partitionsOf(m: DescribedMember, owned: ReadonlyMap<string, Set<string>>): MemberPartitions | null {
  if (m.assignment === null) return null
  const target = m.targetAssignment ?? m.assignment
  const pendingAssignment = minus(target, keys(m.assignment))
  const waitingOn = [...owned]
    .filter(([other, theirs]) => other !== m.memberId && pendingAssignment.some(tp => tp.partitions.some(p => theirs.has(key(tp.topicId!, p)))))
    .map(([other]) => other)
    .sort()
  return {
    assigned: sorted(m.assignment),
    target: sorted(target),
    pendingRevocation: minus(m.assignment, keys(target)),
    pendingAssignment,
    waitingOn,
  }
}

/**
 * Each member as the report shows it. Reconciling: its member epoch is behind the assignment epoch, or its
 * assignment differs from its target. The describe does not say since when (reconcilingSince null), nor the
 * member's reconciliation state (state null).
 */
export function describedMembers(g: DescribedGroup): MemberStatus[] {
  const owned = new Map(g.members.map(m => [m.memberId, keys(m.assignment ?? [])]))
  return g.members.map(m => {
    const partitions = partitionsOf(m, owned)
    const behind = m.memberEpoch !== null && g.assignmentEpoch !== null && m.memberEpoch < g.assignmentEpoch
    const differs = partitions !== null && (partitions.pendingAssignment.length > 0 || partitions.pendingRevocation.length > 0)
    return {
      memberId: m.memberId,
      clientId: m.clientId || null,
      clientHost: m.clientHost || null,
      instanceId: m.instanceId,
      memberEpoch: m.memberEpoch,
      state: null,
      subscribedTopicNames: [...m.subscribedTopicNames],
      subscribedTopicRegex: m.subscribedTopicRegex,
      rackId: m.rackId,
      reconciling: behind || differs || m.tasksDiffer === true,
      reconcilingSince: null,
      partitions,
    }
  })
}
