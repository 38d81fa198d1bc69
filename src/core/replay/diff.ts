/**
 * What changed in a group between two snapshots: the facts a cause is derived from (members,
 * subscriptions, regexes and their resolutions, target-assignment topics, assignor, topology,
 * share initialization). Pure set arithmetic; no interpretation.
 */
import {classicSubscribedTopics} from './classic-topics.js'
import type {LoggedRecord} from './replay.js'
import type {ConsumerGroupState, GroupSnapshot, GroupType, ModernGroupState, RegexResolution, ShareGroupState, StreamsGroupState} from './state.js'
import type * as V from './values.js'

export interface SetChange<T = string> {
  readonly before: readonly T[]
  readonly after: readonly T[]
  readonly added: readonly T[]
  readonly removed: readonly T[]
}

export interface FieldChange {
  readonly field: string
  readonly before: unknown
  readonly after: unknown
}

export type MemberTombstone = 'current-assignment' | 'target-assignment' | 'member-metadata'

export interface MemberAdded {
  readonly memberId: string
  readonly instanceId: string | null
  readonly subscribedTopicNames: readonly string[]
  readonly subscribedTopicRegex: string | null
}

export interface MemberRemoved {
  readonly memberId: string
  readonly instanceId: string | null
  /** Tombstones written for the member in this write (Kafka writes current, target, metadata). */
  readonly tombstones: readonly MemberTombstone[]
  /** The member's last current-assignment epoch before removal (-2 = static member had left temporarily). */
  readonly lastMemberEpoch: number | undefined
}

export interface MemberChanged {
  readonly memberId: string
  readonly changes: readonly FieldChange[]
}

export interface SubscriptionChange {
  readonly memberId: string
  readonly added: readonly string[]
  readonly removed: readonly string[]
}

export interface RegexChange {
  readonly memberId: string
  readonly before: string | null
  readonly after: string | null
}

export interface RegexResolutionChange {
  readonly regex: string
  readonly before: RegexResolution | null
  readonly after: RegexResolution | null
  readonly added: readonly string[]
  readonly removed: readonly string[]
}

export interface TopologyDiff {
  readonly epochBefore: number | undefined
  readonly epochAfter: number | undefined
  readonly subtopologiesAdded: readonly string[]
  readonly subtopologiesRemoved: readonly string[]
  readonly subtopologiesChanged: readonly string[]
  /** Source ∪ repartition-source ∪ changelog topic names: what the streams hash covers. */
  readonly requiredTopics: SetChange
}

export interface GroupDiff {
  readonly groupType: GroupType
  readonly membersAdded: readonly MemberAdded[]
  readonly membersRemoved: readonly MemberRemoved[]
  /** Existing members whose metadata record changed (any field, including subscriptions). */
  readonly membersChanged: readonly MemberChanged[]
  /** Per existing member: subscribed topic names added/removed (joins and leaves are in members*). */
  readonly subscriptionChanges: readonly SubscriptionChange[]
  readonly regexChanges: readonly RegexChange[]
  readonly regexResolutions: readonly RegexResolutionChange[]
  /**
   * The group's topic set as the coordinator hashes it: consumer = members' names ∪ resolved
   * topics of subscribed regexes; share = members' names; streams = topology required topics.
   */
  readonly subscribedTopics: SetChange
  readonly targetAssignmentTopicIds: SetChange
  /** Streams: subtopologies with active, standby or warm-up tasks in the target assignment. */
  readonly targetAssignmentSubtopologies?: SetChange
  readonly targetAssignmentEpoch: {readonly before: number | undefined; readonly after: number | undefined}
  /** Most requested ServerAssignor among members (null = broker default); consumer groups. */
  readonly preferredAssignor: {readonly before: string | null; readonly after: string | null}
  readonly topology?: TopologyDiff
  readonly validatedTopologyEpoch?: {readonly before: number; readonly after: number}
  readonly lastAssignmentConfigs?: readonly FieldChange[]
  /**
   * Streams: the record before this write carried assignment configs. Every record a 4.2+ coordinator writes after a
   * heartbeat carries them (num.standby.replicas at least); 4.1 records have none.
   */
  readonly assignmentConfigsRecordedBefore?: boolean
  /** Share: partitions whose share state became initialized / initializing in this write. */
  readonly shareInitialized?: readonly V.TopicPartitionsInfo[]
  readonly shareInitializing?: readonly V.TopicPartitionsInfo[]
  /**
   * Share: initialized partitions the target assignment before this write did not cover. The
   * coordinator bumps for these (initializedAssignmentPending) on a heartbeat after the state
   * record, so they usually come from an earlier write.
   */
  readonly shareInitializedNotInTarget?: readonly V.TopicPartitionsInfo[]
  /** The 4.0 ConsumerGroupPartitionMetadata record was tombstoned (first 4.1+ recomputation). */
  readonly partitionMetadataTombstoned: boolean
  /** A classic GroupMetadata record for the group was tombstoned in the same write (conversion). */
  readonly classicTombstoned: boolean
  readonly classic?: {
    readonly generation: {readonly before: number | undefined; readonly after: number | undefined}
    readonly protocol: {readonly before: string | null | undefined; readonly after: string | null | undefined}
    readonly leader: {readonly before: string | null | undefined; readonly after: string | null | undefined}
    readonly members: SetChange
  }
}

export function setChange<T>(before: Iterable<T>, after: Iterable<T>): SetChange<T> {
  const b = [...new Set(before)].sort()
  const a = [...new Set(after)].sort()
  const bs = new Set(b)
  const as = new Set(a)
  return {before: b, after: a, added: a.filter(x => !bs.has(x)), removed: b.filter(x => !as.has(x))}
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i])
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]))
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter(k => !k.endsWith('Decoded'))
    const kb = Object.keys(b).filter(k => !k.endsWith('Decoded'))
    return ka.length === kb.length && ka.every(k => equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  }
  return false
}

export function fieldChanges(before: object, after: object): FieldChange[] {
  const out: FieldChange[] = []
  const b = before as Record<string, unknown>
  const a = after as Record<string, unknown>
  for (const field of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (field.endsWith('Decoded')) continue
    if (field === 'SubscribedTopicNames' ? !equal([...(b[field] as string[])].sort(), [...(a[field] as string[])].sort()) : !equal(b[field], a[field])) {
      out.push({field, before: b[field], after: a[field]})
    }
  }
  return out
}

type AnyModern = ModernGroupState<object, unknown, unknown>

function names(m: object): readonly string[] {
  return (m as {SubscribedTopicNames?: readonly string[]}).SubscribedTopicNames ?? []
}

/** The member's regex; brokers write "" for none (seen on 4.4.0), which means the same as null. */
function regexOf(m: object | undefined): string | null {
  return (m as {SubscribedTopicRegex?: string | null} | undefined)?.SubscribedTopicRegex || null
}

function instanceOf(m: object | undefined): string | null {
  return (m as {InstanceId?: string | null} | undefined)?.InstanceId ?? null
}

/** Kafka's topic set for the hash (see GroupDiff.subscribedTopics). */
export function subscribedTopicsOf(type: GroupType, snap: GroupSnapshot): string[] {
  if (type === 'streams') return requiredTopics(snap.streams?.topology ?? null)
  if (type === 'classic') return classicSubscribedTopics(snap.classic?.value)
  const g = (type === 'consumer' ? snap.consumer : snap.share) as AnyModern | null
  if (!g) return []
  const out = new Set<string>()
  for (const m of g.members.values()) for (const t of names(m)) out.add(t)
  if (type === 'consumer') {
    const c = g as unknown as ConsumerGroupState
    const subscribed = new Set([...c.members.values()].map(regexOf).filter((r): r is string => r !== null))
    for (const [regex, res] of c.regexes) if (subscribed.has(regex)) for (const t of res.Topics) out.add(t)
  }
  return [...out].sort()
}

export function requiredTopics(t: V.StreamsGroupTopologyValue | null): string[] {
  const out = new Set<string>()
  for (const s of t?.Subtopologies ?? []) {
    for (const x of s.SourceTopics) out.add(x)
    for (const x of s.RepartitionSourceTopics) out.add(x.Name)
    for (const x of s.StateChangelogTopics) out.add(x.Name)
  }
  return [...out].sort()
}

/** A streams topology's internal topics (repartition and changelog): the coordinator creates them. */
export function internalTopics(t: V.StreamsGroupTopologyValue | null): string[] {
  const out = new Set<string>()
  for (const s of t?.Subtopologies ?? []) {
    for (const x of s.RepartitionSourceTopics) out.add(x.Name)
    for (const x of s.StateChangelogTopics) out.add(x.Name)
  }
  return [...out].sort()
}

/** Most frequent ServerAssignor (ties: first seen), as KAFKA-20434 (4.3.2, 4.4+) picks it; null = default. */
export function preferredAssignor(g: ConsumerGroupState | null): string | null {
  if (!g) return null
  const count = new Map<string, number>()
  for (const m of g.members.values()) if (m.ServerAssignor) count.set(m.ServerAssignor, (count.get(m.ServerAssignor) ?? 0) + 1)
  let best: string | null = null
  let n = 0
  for (const [a, c] of count) if (c > n) [best, n] = [a, c]
  return best
}

function targetTopicIds(type: GroupType, g: AnyModern | null): string[] {
  const out = new Set<string>()
  if (!g || type === 'streams') return []
  for (const t of g.targetAssignment.values()) for (const tp of (t as V.ConsumerTargetAssignmentMemberValue).TopicPartitions) out.add(tp.TopicId)
  return [...out]
}

function tombstonesByMember(records: readonly LoggedRecord[], type: GroupType): Map<string, MemberTombstone[]> {
  const kinds: Record<GroupType, Record<number, MemberTombstone>> = {
    consumer: {8: 'current-assignment', 7: 'target-assignment', 5: 'member-metadata'},
    share: {14: 'current-assignment', 13: 'target-assignment', 10: 'member-metadata'},
    streams: {22: 'current-assignment', 21: 'target-assignment', 19: 'member-metadata'},
    classic: {},
  }
  const out = new Map<string, MemberTombstone[]>()
  for (const {record: r} of records) {
    if (r.kind !== 'record' || r.value !== null) continue
    const kind = kinds[type][r.type]
    if (!kind) continue
    const id = r.key.MemberId as string
    out.set(id, [...(out.get(id) ?? []), kind])
  }
  return out
}

function topologyDiff(b: V.StreamsGroupTopologyValue | null, a: V.StreamsGroupTopologyValue | null): TopologyDiff {
  const bm = new Map((b?.Subtopologies ?? []).map(s => [s.SubtopologyId, s]))
  const am = new Map((a?.Subtopologies ?? []).map(s => [s.SubtopologyId, s]))
  return {
    epochBefore: b?.Epoch,
    epochAfter: a?.Epoch,
    subtopologiesAdded: [...am.keys()].filter(k => !bm.has(k)),
    subtopologiesRemoved: [...bm.keys()].filter(k => !am.has(k)),
    subtopologiesChanged: [...am.keys()].filter(k => bm.has(k) && !equal(bm.get(k), am.get(k))),
    requiredTopics: setChange(requiredTopics(b), requiredTopics(a)),
  }
}

function newlyIn(before: readonly V.TopicPartitionsInfo[] | undefined, after: readonly V.TopicPartitionsInfo[] | undefined): V.TopicPartitionsInfo[] {
  const had = new Set<string>()
  for (const t of before ?? []) for (const p of t.Partitions) had.add(`${t.TopicId}:${p}`)
  const out: V.TopicPartitionsInfo[] = []
  for (const t of after ?? []) {
    const partitions = t.Partitions.filter(p => !had.has(`${t.TopicId}:${p}`))
    if (partitions.length) out.push({TopicId: t.TopicId, TopicName: t.TopicName, Partitions: partitions})
  }
  return out
}

export function diffGroup(type: GroupType, before: GroupSnapshot, after: GroupSnapshot, records: readonly LoggedRecord[]): GroupDiff {
  const tombstoneOf = (t: number) => records.some(({record: r}) => r.kind === 'record' && r.type === t && r.value === null)
  const base = {
    groupType: type,
    partitionMetadataTombstoned: tombstoneOf(type === 'share' ? 9 : 4),
    classicTombstoned: type !== 'classic' && tombstoneOf(2),
    preferredAssignor: {before: preferredAssignor(before.consumer), after: preferredAssignor(after.consumer)},
  }
  if (type === 'classic') return classicDiff(base, before, after)
  const b = before[type] as AnyModern | null
  const a = after[type] as AnyModern | null
  const diff: GroupDiff = {
    ...base,
    ...memberDiff(type, b, a, records),
    regexResolutions: type === 'consumer' ? regexResolutionDiff(b, a) : [],
    subscribedTopics: setChange(subscribedTopicsOf(type, before), subscribedTopicsOf(type, after)),
    targetAssignmentTopicIds: setChange(targetTopicIds(type, b), targetTopicIds(type, a)),
    targetAssignmentEpoch: {before: b?.targetAssignmentEpoch, after: a?.targetAssignmentEpoch},
  }
  if (type === 'streams') return {...diff, ...streamsDiff(b, a)}
  if (type === 'share') return {...diff, ...shareDiff(b, a)}
  return diff
}

type DiffBase = Pick<GroupDiff, 'groupType' | 'partitionMetadataTombstoned' | 'classicTombstoned' | 'preferredAssignor'>

/** A classic group: its generation, protocol, leader and members (the modern fields empty). */
function classicDiff(base: DiffBase, before: GroupSnapshot, after: GroupSnapshot): GroupDiff {
  const b = before.classic?.value
  const a = after.classic?.value
  const members = setChange(
    (b?.members ?? []).map(m => m.memberId),
    (a?.members ?? []).map(m => m.memberId),
  )
  return {
    ...base,
    membersAdded: [],
    membersRemoved: [],
    membersChanged: [],
    subscriptionChanges: [],
    regexChanges: [],
    regexResolutions: [],
    subscribedTopics: setChange([], []),
    targetAssignmentTopicIds: setChange([], []),
    targetAssignmentEpoch: {before: undefined, after: undefined},
    classic: {
      generation: {before: b?.generation, after: a?.generation},
      protocol: {before: b?.protocol, after: a?.protocol},
      leader: {before: b?.leader, after: a?.leader},
      members,
    },
  }
}

/** Members added, removed (with their tombstones and last member epoch) and changed: fields, subscriptions, regexes. */
function memberDiff(
  type: Exclude<GroupType, 'classic'>,
  b: AnyModern | null,
  a: AnyModern | null,
  records: readonly LoggedRecord[],
): Pick<GroupDiff, 'membersAdded' | 'membersRemoved' | 'membersChanged' | 'subscriptionChanges' | 'regexChanges'> {
  const bm = b?.members ?? new Map<string, object>()
  const am = a?.members ?? new Map<string, object>()
  const tombstones = tombstonesByMember(records, type)
  const membersAdded: MemberAdded[] = []
  const membersChanged: MemberChanged[] = []
  const subscriptionChanges: SubscriptionChange[] = []
  const regexChanges: RegexChange[] = []
  for (const [id, m] of am) {
    const old = bm.get(id)
    if (!old) {
      membersAdded.push({memberId: id, instanceId: instanceOf(m), subscribedTopicNames: [...names(m)].sort(), subscribedTopicRegex: regexOf(m)})
      continue
    }
    if (old === m) continue
    const changes = fieldChanges(old, m)
    if (changes.length) membersChanged.push({memberId: id, changes})
    const s = setChange(names(old), names(m))
    if (s.added.length || s.removed.length) subscriptionChanges.push({memberId: id, added: s.added, removed: s.removed})
    if (regexOf(old) !== regexOf(m)) regexChanges.push({memberId: id, before: regexOf(old), after: regexOf(m)})
  }
  const membersRemoved: MemberRemoved[] = [...bm.keys()]
    .filter(id => !am.has(id))
    .map(id => ({
      memberId: id,
      instanceId: instanceOf(bm.get(id)),
      tombstones: tombstones.get(id) ?? [],
      lastMemberEpoch: (b?.currentAssignment.get(id) as {MemberEpoch?: number} | undefined)?.MemberEpoch,
    }))

  return {membersAdded, membersRemoved, membersChanged, subscriptionChanges, regexChanges}
}

/** A consumer group's broker-side regexes whose resolution changed. */
function regexResolutionDiff(b: AnyModern | null, a: AnyModern | null): RegexResolutionChange[] {
  const regexResolutions: RegexResolutionChange[] = []
  const br = (b as unknown as ConsumerGroupState | null)?.regexes ?? new Map<string, RegexResolution>()
  const ar = (a as unknown as ConsumerGroupState | null)?.regexes ?? new Map<string, RegexResolution>()
  for (const regex of new Set([...br.keys(), ...ar.keys()])) {
    const x = br.get(regex) ?? null
    const y = ar.get(regex) ?? null
    if (x === y) continue
    const s = setChange(x?.Topics ?? [], y?.Topics ?? [])
    regexResolutions.push({regex, before: x, after: y, added: s.added, removed: s.removed})
  }
  return regexResolutions
}

/** A streams group's topology, its validation, assignment configs and assigned subtopologies. */
function streamsDiff(b: AnyModern | null, a: AnyModern | null): Partial<GroupDiff> {
  const bs = b as unknown as StreamsGroupState | null
  const as = a as unknown as StreamsGroupState | null
  const bc = new Map((bs?.lastAssignmentConfigs ?? []).map(c => [c.Key, c.Value]))
  const ac = new Map((as?.lastAssignmentConfigs ?? []).map(c => [c.Key, c.Value]))
  const configs = [...new Set([...bc.keys(), ...ac.keys()])]
    .filter(k => bc.get(k) !== ac.get(k))
    .sort()
    .map(k => ({field: k, before: bc.get(k), after: ac.get(k)}))
  const subtopologies = (g: StreamsGroupState | null) =>
    [...(g?.targetAssignment.values() ?? [])].flatMap(t => [...t.ActiveTasks, ...t.StandbyTasks, ...t.WarmupTasks].map(x => x.SubtopologyId))
  return {
    targetAssignmentSubtopologies: setChange(subtopologies(bs), subtopologies(as)),
    topology: topologyDiff(bs?.topology ?? null, as?.topology ?? null),
    validatedTopologyEpoch: {before: bs?.validatedTopologyEpoch ?? -1, after: as?.validatedTopologyEpoch ?? -1},
    lastAssignmentConfigs: configs,
    assignmentConfigsRecordedBefore: bc.size > 0,
  }
}

/** A share group's topics newly initialized or initializing, and those initialized outside the target assignment. */
function shareDiff(b: AnyModern | null, a: AnyModern | null): Partial<GroupDiff> {
  const bs = (b as unknown as ShareGroupState | null)?.statePartitionMetadata
  const as = (a as unknown as ShareGroupState | null)?.statePartitionMetadata
  const covered: V.TopicPartitionsInfo[] = [...(b?.targetAssignment.values() ?? [])].flatMap(t =>
    (t as V.ConsumerTargetAssignmentMemberValue).TopicPartitions.map(tp => ({TopicId: tp.TopicId, TopicName: '', Partitions: tp.Partitions})),
  )
  return {
    shareInitialized: newlyIn(bs?.InitializedTopics, as?.InitializedTopics),
    shareInitializing: newlyIn(bs?.InitializingTopics, as?.InitializingTopics),
    shareInitializedNotInTarget: newlyIn(covered, as?.InitializedTopics),
  }
}
