/**
 * Kafka 4.0's rules. A 4.0 group coordinator keeps no metadata hash (KIP-1101 came in 4.1): it stores the
 * group's subscription metadata (ConsumerGroupPartitionMetadata / ShareGroupPartitionMetadata) and bumps the group
 * epoch when the subscription metadata it computes differs from the stored one. Read in the 4.0.2 sources
 * (group-coordinator: ModernGroup.computeSubscriptionMetadata, modern.TopicMetadata.equals,
 * GroupCoordinatorRecordHelpers.newConsumerGroupSubscriptionMetadataRecord): for each subscribed topic that exists,
 * {topic id, topic name, number of partitions}; topics that do not exist are left out; racks and replicas are not
 * part of it (the record's PartitionMetadata is written empty). Streams groups do not exist in 4.0.
 */
import type {ClusterMetadata} from '../metadata.js'
import {uuidToString} from '../uuid.js'
import type {GroupSnapshot, GroupType} from './state.js'
import type {PartitionMetadataValue} from './values.js'

/**
 * Whose rules the group's records were written under: `4.0` (subscription metadata record, no hash) or `4.1+`
 * (metadata hash); null for classic, deleted or unknown groups.
 */
export type GroupRules = '4.0' | '4.1+'

export interface TopicSubscriptionMetadata {
  readonly topicId: string
  readonly topicName: string
  readonly numPartitions: number
}

/** The 4.0 subscription metadata record of the group, when its records are live (not tombstoned). */
export function storedSubscriptionMetadata(type: GroupType | null, snap: GroupSnapshot): PartitionMetadataValue | null {
  if (type === 'consumer') return snap.consumer?.partitionMetadata ?? null
  if (type === 'share') return snap.share?.partitionMetadata ?? null
  return null
}

/**
 * The rules of the version that wrote the group's current records. A 4.1+ coordinator tombstones the 4.0 record
 * in the write of its first recomputation, and stores a hash from then on; a live 4.0 record with hash 0 (absent)
 * therefore means the last write was made under 4.0's rules.
 */
export function rulesOf(type: GroupType | null, snap: GroupSnapshot): GroupRules | null {
  if (type === null || type === 'classic') return null
  const g = snap[type]
  if (!g || g.epoch === undefined) return null
  return storedSubscriptionMetadata(type, snap) !== null && g.metadataHash === 0n ? '4.0' : '4.1+'
}

export function fromRecord(v: PartitionMetadataValue | null): Map<string, TopicSubscriptionMetadata> {
  const out = new Map<string, TopicSubscriptionMetadata>()
  for (const t of v?.Topics ?? []) out.set(t.TopicName, {topicId: t.TopicId, topicName: t.TopicName, numPartitions: t.NumPartitions})
  return out
}

/** What a 4.0 coordinator would compute now: each subscribed topic that exists in `live`. */
export function fromLive(topics: readonly string[], live: ClusterMetadata): Map<string, TopicSubscriptionMetadata> {
  const byName = new Map(live.topics.map(t => [t.name, t]))
  const out = new Map<string, TopicSubscriptionMetadata>()
  for (const name of [...topics].sort()) {
    const t = byName.get(name)
    if (t) out.set(name, {topicId: uuidToString(t.topicId), topicName: name, numPartitions: t.partitions.length})
  }
  return out
}

/**
 * One topic whose subscription metadata differs. The kinds and fields are those of explain's hypotheses of the same
 * changes under 4.1+ (a change is a Hypothesis), but read from records and live metadata, not searched: exact.
 */
export interface SubscriptionMetadataChange {
  readonly kind: 'topic-absent' | 'topic-deleted' | 'topic-id' | 'partition-count'
  readonly topic: string
  readonly then: string
  readonly now: string
  readonly description: string
}

const partitions = (n: number) => `${n} partition${n === 1 ? '' : 's'}`

/**
 * The differences between two subscription metadata maps, topic by topic (sorted), as the 4.0 coordinator's
 * equality sees them (id, name, number of partitions). `relevant`: restrict added/removed entries to topics
 * subscribed on both sides (a topic entering or leaving the subscription is a member's change, not metadata).
 */
export function diffSubscriptionMetadata(
  before: ReadonlyMap<string, TopicSubscriptionMetadata>,
  after: ReadonlyMap<string, TopicSubscriptionMetadata>,
  relevant?: {readonly subscribedBefore: ReadonlySet<string>; readonly subscribedAfter: ReadonlySet<string>},
): SubscriptionMetadataChange[] {
  const out: SubscriptionMetadataChange[] = []
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const b = before.get(name)
    const a = after.get(name)
    if (!b && a) {
      if (relevant && !relevant.subscribedBefore.has(name)) continue
      out.push({
        kind: 'topic-absent',
        topic: name,
        then: 'absent',
        now: a.topicId,
        description: `topic ${name} did not exist then (created since, id ${a.topicId}, ${partitions(a.numPartitions)})`,
      })
    } else if (b && !a) {
      if (relevant && !relevant.subscribedAfter.has(name)) continue
      out.push({
        kind: 'topic-deleted',
        topic: name,
        then: b.topicId,
        now: 'absent',
        description: `topic ${name} existed then with id ${b.topicId} (${partitions(b.numPartitions)}): it was deleted since`,
      })
    } else if (b && a) {
      if (b.topicId !== a.topicId) {
        out.push({
          kind: 'topic-id',
          topic: name,
          then: b.topicId,
          now: a.topicId,
          description: `topic ${name} had id ${b.topicId} then: it was deleted and recreated (id ${a.topicId} now)`,
        })
      } else if (b.numPartitions !== a.numPartitions) {
        out.push({
          kind: 'partition-count',
          topic: name,
          then: String(b.numPartitions),
          now: String(a.numPartitions),
          description: `topic ${name} had ${partitions(b.numPartitions)} then (${a.numPartitions} now)`,
        })
      }
    }
  }
  return out
}
