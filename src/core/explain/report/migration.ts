/**
 * The road to KIP-848 for a classic group: can the first member using the consumer protocol (ConsumerGroupHeartbeat)
 * upgrade it online, under the coordinator's checks (GroupMetadataManager.validateOnlineUpgrade, the same three in
 * Kafka 4.0.2, 4.1.0 and 4.4.0, read from their jars): group.consumer.migration.policy allows upgrades (UPGRADE or
 * BIDIRECTIONAL, the default); the group uses the consumer embedded protocol (protocol type "consumer", not Connect's);
 * its members are no more than group.consumer.max.size. An empty classic group is not converted but replaced by a new
 * consumer group (its committed offsets stay). What the records tell is said as such; the two broker configs are
 * conditions (they are not in the records). Pure.
 */
import type {ClusterMetadata} from '../../metadata.js'
import {TopicHasher} from '../../hash.js'
import {classicSubscribedTopics} from '../../replay/classic-topics.js'
import type {GroupMetadataValue} from '../../replay/values.js'

export interface MigrationReadiness {
  /** possible: nothing in the records blocks it; blocked: the records show it cannot; replaced: an empty group. */
  upgrade: 'possible' | 'blocked' | 'replaced'
  /** What the records show blocks it. */
  blockers: string[]
  /** Broker configs that must allow it (not in the records). */
  conditions: string[]
  /** What the first consumer-protocol member will cause. */
  firstMember: string
  /** The metadata hash the consumer group will store over the classic members' topics (live metadata, 4.1+), or null. */
  metadataHash: string | null
}

const POLICY = 'group.consumer.migration.policy allows upgrades (UPGRADE or BIDIRECTIONAL, the default)'

export function migrationReadiness(v: GroupMetadataValue, live?: ClusterMetadata): MigrationReadiness {
  const n = v.members.length
  const topics = classicSubscribedTopics(v)
  const hash = live && topics.length > 0 ? new TopicHasher(live).groupHash(topics).toString() : null
  if (n === 0) {
    return {
      upgrade: 'replaced',
      blockers: [],
      conditions: [],
      firstMember: 'the empty classic group is deleted and a consumer group created in its place (its committed offsets stay); group epoch 1',
      metadataHash: null,
    }
  }
  const blockers: string[] = []
  if (v.protocolType !== 'consumer')
    blockers.push(`protocol type "${v.protocolType}" is not the consumer embedded protocol (Kafka Connect and others stay classic)`)
  const conditions = blockers.length ? [] : [POLICY, `group.consumer.max.size is at least ${n} (default 2147483647)`]
  return {
    upgrade: blockers.length ? 'blocked' : 'possible',
    blockers,
    conditions,
    firstMember: blockers.length
      ? 'its heartbeat is refused (GROUP_ID_NOT_FOUND: "Cannot upgrade classic group … to consumer group")'
      : `the classic group is converted (its records tombstoned, consumer group records written for its ${n} member${n === 1 ? '' : 's'}), the group epoch bumps and a rebalance follows; the classic members keep the classic protocol until they restart with group.protocol=consumer${hash ? `; the group then stores metadata hash ${hash} (over ${topics.join(', ')}, live metadata; Kafka 4.1+)` : ''}`,
    metadataHash: blockers.length ? null : hash,
  }
}

/**
 * The reverse, for a consumer group some of whose members still use the classic protocol (their member metadata
 * holds ClassicMemberMetadata): when the last consumer-protocol member leaves (or is fenced, or replaced), the
 * coordinator converts the group back to a classic group if the members left all use the classic protocol, there
 * are some, group.consumer.migration.policy allows downgrades (DOWNGRADE or BIDIRECTIONAL, the default) and they are
 * no more than group.classic.max.size (GroupMetadataManager.validateOnlineDowngradeWithFencedMembers, 4.4.0's jar).
 * undefined when no member uses the classic protocol (nothing to downgrade to).
 */
export interface DowngradeReadiness {
  classicMembers: number
  consumerMembers: number
  /** What the records show: the downgrade comes when the last consumer-protocol member leaves. */
  when: string
  conditions: string[]
}

export function downgradeReadiness(members: Iterable<{ClassicMemberMetadata?: unknown}>): DowngradeReadiness | undefined {
  let classic = 0
  let modern = 0
  for (const m of members)
    if (m.ClassicMemberMetadata) classic++
    else modern++
  if (classic === 0) return undefined
  return {
    classicMembers: classic,
    consumerMembers: modern,
    when:
      modern === 0
        ? 'every member uses the classic protocol: the group goes back to a classic group when its next member leaves or is fenced'
        : `when the last of its ${modern} consumer-protocol member${modern === 1 ? '' : 's'} leaves, is fenced or is replaced, the group goes back to a classic group (a conversion and a new generation)`,
    conditions: [
      'group.consumer.migration.policy allows downgrades (DOWNGRADE or BIDIRECTIONAL, the default)',
      `group.classic.max.size is at least ${classic} (default 2147483647)`,
    ],
  }
}
