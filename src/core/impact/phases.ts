/**
 * Planned changes → the metadata states the coordinator will see, in order. Each phase says which topics the
 * controller changes in it (the coordinator evicts those topics' cached hashes and flags their groups, which
 * recompute on their next heartbeat: kafka-coordinator-reference.md §3.2-3.3), the metadata after it, and the
 * topics whose hash cannot be known in advance (a new topic id, a placement the controller chooses).
 *
 * Fixed order, whatever the order of the flags: topic changes (deletions, creations, partitions added), the
 * re-creation of deleted topics, the reassignment (start, then completion), broker shutdowns, broker restarts
 * with a new rack, unregistrations, and a coordinator move (the only thing that makes an unregistration visible
 * when no topic changes afterwards).
 */
import {InputError} from '../errors.js'
import {RackTable} from '../hash.js'
import type {BrokerMetadata, ClusterMetadata, PartitionMetadata, TopicMetadata} from '../metadata.js'
import type {PlannedChange, ReassignedPartition} from './changes.js'
import {uuidFromBytes} from '../uuid.js'

/** Stands for a topic id the controller will choose; such topics are in `unknown` and never hashed. */
const PLACEHOLDER_ID = uuidFromBytes(new Uint8Array(16).fill(0xff))

export type PhaseKind =
  | 'topics'
  | 'recreated'
  | 'reassignment-start'
  | 'reassignment-complete'
  | 'broker-shutdown'
  | 'broker-restart'
  | 'unregistration'
  | 'coordinator-move'

export interface Phase {
  readonly kind: PhaseKind
  /** When a group sees it. */
  readonly when: string
  /** Seen only if a heartbeat comes before the next phase (a transient state). */
  readonly transient: boolean
  /** Every topic's hash is recomputed (a coordinator reload), not only the changed ones. */
  readonly reload: boolean
  /** Topics the controller changes here: their cached hashes are evicted. */
  readonly changed: ReadonlySet<string>
  readonly metadata: ClusterMetadata
  /** Topics whose hash after this phase cannot be predicted, and why. */
  readonly unknown: ReadonlyMap<string, string>
  /** Topics created in this phase (regex subscriptions may pick them up). */
  readonly created: ReadonlySet<string>
  /** Topics that get partitions with no share-group state yet (added, created, re-created). */
  readonly newPartitions: ReadonlySet<string>
  /**
   * Reassignment start: per topic, the partitions that move, and how many of them change racks when they complete.
   * Partitions complete one by one, so with several moving the transient replica lists a heartbeat sees vary.
   */
  readonly moving?: ReadonlyMap<string, {partitions: number; rackChanging: number}>
}

const HEARTBEAT = 'at the next heartbeat of each member-holding group'

export const PHASE_WHEN: Readonly<Record<PhaseKind, string>> = {
  topics: HEARTBEAT,
  recreated: 'at the next heartbeat after the topic is created again',
  'reassignment-start': 'at the next heartbeat after the reassignment starts (the replica list grows to target + old while new replicas catch up)',
  'reassignment-complete': 'at the next heartbeat after the reassignment completes (the replica list shrinks to the target)',
  'broker-shutdown': 'at the shutdown (the ISR changes flag the topics)',
  'broker-restart': 'at the broker restart (its replicas leaving and rejoining the ISR evict the cached topic hashes)',
  unregistration:
    "not by itself for a stopped broker (it changes no topic, so the cached topic hashes stay); a running broker leaves its partitions' ISRs, which changes those topics at once",
  'coordinator-move': "hidden until a topic change on the group's topics or a coordinator move (restart or leader change of its __consumer_offsets partition)",
}

type Moving = Map<string, {partitions: number; rackChanging: number}>

interface PhaseExtra {
  readonly transient?: boolean
  readonly reload?: boolean
  readonly created?: Set<string>
  readonly newPartitions?: Set<string>
  readonly moving?: Moving
}

/**
 * The metadata as the phases built so far leave it, and those phases. Each phase kind's builder below checks its
 * changes against this state (so a change may name a topic an earlier phase creates) before it changes it.
 */
class PhaseState {
  readonly topics: Map<string, TopicMetadata>
  brokers: BrokerMetadata[]
  readonly unknown = new Map<string, string>()
  readonly phases: Phase[] = []

  constructor(readonly md: ClusterMetadata) {
    this.topics = new Map(md.topics.map(t => [t.name, t]))
    this.brokers = [...md.brokers]
  }

  /** The topic as it is now; throws for one that does not exist. */
  topic(topic: string, flag: string): TopicMetadata {
    const t = this.topics.get(topic)
    if (!t) throw new InputError(`--${flag} ${topic}: the cluster has no topic ${topic}`, 'Check the topic name (`kafka-topics --list`).', 'UNKNOWN_TOPIC')
    return t
  }

  /** Throws unless every broker is registered. */
  requireBrokers(ids: Iterable<number>, flag: string): void {
    for (const id of ids) {
      if (!this.brokers.some(b => b.id === id))
        throw new InputError(
          `--${flag} ${id}: no broker ${id} is registered`,
          'Check the broker id (`kafka-cluster cluster-id`, `kafka-broker-api-versions`).',
          'UNKNOWN_BROKER',
        )
    }
  }

  /** Topics with a replica on any of the brokers. */
  topicsOn(brokers: readonly number[]): Set<string> {
    const out = new Set<string>()
    for (const b of brokers) for (const t of this.topics.values()) if (t.partitions.some(p => p.replicas.includes(b))) out.add(t.name)
    return out
  }

  push(kind: PhaseKind, changed: Set<string>, extra: PhaseExtra = {}): void {
    this.phases.push({
      kind,
      when: PHASE_WHEN[kind],
      transient: extra.transient ?? false,
      reload: extra.reload ?? false,
      changed,
      metadata: {...this.md, brokers: this.brokers, topics: [...this.topics.values()]},
      unknown: new Map(this.unknown),
      created: extra.created ?? new Set(),
      newPartitions: extra.newPartitions ?? extra.created ?? new Set(),
      ...(extra.moving ? {moving: extra.moving} : {}),
    })
  }
}

/** Builds the phases. Throws InputError for a change that contradicts the metadata (unknown topic or broker). */
export function buildPhases(md: ClusterMetadata, changes: readonly PlannedChange[]): Phase[] {
  const s = new PhaseState(md)
  topicPhases(s, changes)
  reassignmentPhases(
    s,
    changes.flatMap(c => (c.kind === 'reassignment' ? c.partitions : [])),
  )
  brokerPhases(s, changes)
  return s.phases
}

/** Deletions, creations and partitions added, in the order given; then the re-creation of deleted topics. */
function topicPhases(s: PhaseState, changes: readonly PlannedChange[]): void {
  const changed = new Set<string>()
  const created = new Set<string>()
  const grown = new Set<string>()
  const recreate: string[] = []
  for (const c of changes) {
    if (c.kind === 'delete-topic' || c.kind === 'recreate-topic') {
      s.topic(c.topic, c.kind)
      s.topics.delete(c.topic)
      s.unknown.delete(c.topic)
      changed.add(c.topic)
      if (c.kind === 'recreate-topic') recreate.push(c.topic)
    } else if (c.kind === 'create-topic') {
      createTopic(s, c)
      changed.add(c.topic)
      created.add(c.topic)
    } else if (c.kind === 'add-partitions') {
      addPartitions(s, c)
      changed.add(c.topic)
      grown.add(c.topic)
    }
  }
  if (changed.size === 0) return
  // the deletion is seen alone only if a heartbeat comes before the creation
  s.push('topics', changed, {transient: recreate.length > 0, created, newPartitions: new Set([...created, ...grown])})
  if (recreate.length === 0) return
  const again = new Set<string>()
  for (const topic of recreate) {
    const old = s.md.topics.find(t => t.name === topic)!
    s.topics.set(topic, {name: topic, topicId: PLACEHOLDER_ID, partitions: old.partitions})
    s.unknown.set(topic, 're-created: the new topic id is chosen by the controller')
    again.add(topic)
  }
  s.push('recreated', again, {created: again})
}

function createTopic(s: PhaseState, c: Extract<PlannedChange, {kind: 'create-topic'}>): void {
  if (s.topics.has(c.topic))
    throw new InputError(`--create-topic ${c.topic}: the topic exists already`, 'Use --recreate-topic to delete it and create it again.', 'TOPIC_EXISTS')
  const n = c.partitions ?? 1
  // a placeholder: present in the image, hash unknown (the controller picks the topic id and the placement)
  s.topics.set(c.topic, {name: c.topic, topicId: PLACEHOLDER_ID, partitions: Array.from({length: n}, (_, partition) => ({partition, replicas: []}))})
  s.unknown.set(c.topic, 'a new topic: its topic id is chosen by the controller')
}

function addPartitions(s: PhaseState, c: Extract<PlannedChange, {kind: 'add-partitions'}>): void {
  const t = s.topic(c.topic, c.kind)
  const have = t.partitions.length
  if (c.count <= have)
    throw new InputError(
      `--add-partitions ${c.topic}=${c.count}: the topic has ${have} partitions already; partitions can only be added`,
      `Give a total above ${have}.`,
      'BAD_CHANGE',
    )
  let added: PartitionMetadata[]
  if (c.replicas) {
    // kafka-topics --alter takes every partition's list and uses those past the existing ones; accept the new ones alone too
    const lists = c.replicas.length === c.count ? c.replicas.slice(have) : c.replicas
    if (lists.length !== c.count - have)
      throw new InputError(
        `--add-partitions ${c.topic}=${c.count}: the replica assignment lists ${c.replicas.length} partitions; give ${c.count} (all) or ${c.count - have} (the new ones)`,
        undefined,
        'BAD_CHANGE',
      )
    for (const l of lists) s.requireBrokers(l, 'add-partitions')
    added = lists.map((replicas, i) => ({partition: have + i, replicas: [...replicas]}))
  } else {
    added = Array.from({length: c.count - have}, (_, i) => ({partition: have + i, replicas: []}))
    s.unknown.set(c.topic, "hash depends on placement: the controller chooses the new partitions' replicas (give them as TOPIC=N/1:2,2:3,... to get the hash)")
  }
  s.topics.set(c.topic, {...t, partitions: [...t.partitions, ...added]})
}

/** The reassignment: the replica list goes to target + removing, then to target (PartitionReassignmentReplicas). */
function reassignmentPhases(s: PhaseState, reassign: readonly ReassignedPartition[]): void {
  const byTopic = new Map<string, ReassignedPartition[]>()
  for (const p of reassign) {
    const t = s.topic(p.topic, 'reassignment')
    if (p.partition >= t.partitions.length)
      throw new InputError(`--reassignment: ${p.topic} has no partition ${p.partition} (it has ${t.partitions.length})`, undefined, 'UNKNOWN_PARTITION')
    s.requireBrokers(p.replicas, 'reassignment')
    let l = byTopic.get(p.topic)
    if (!l) byTopic.set(p.topic, (l = []))
    l.push(p)
  }
  const mid = new Set<string>()
  const finals = new Map<string, TopicMetadata>()
  const moving: Moving = new Map()
  const racks = new RackTable(s.brokers)
  for (const [name, list] of byTopic) {
    const t = s.topics.get(name)!
    const during = [...t.partitions]
    const after = [...t.partitions]
    let moves = false
    for (const p of list) {
      const old = t.partitions[p.partition].replicas
      const same = old.length === p.replicas.length && old.every((b, i) => b === p.replicas[i])
      if (same) continue
      moves = true
      const removing = old.filter(b => !p.replicas.includes(b))
      during[p.partition] = {partition: p.partition, replicas: [...p.replicas, ...removing]}
      after[p.partition] = {partition: p.partition, replicas: [...p.replicas]}
      const m = moving.get(name) ?? {partitions: 0, rackChanging: 0}
      m.partitions++
      if (!racks.racksOf(during[p.partition].replicas).equals(racks.racksOf(p.replicas))) m.rackChanging++
      moving.set(name, m)
    }
    if (!moves) continue
    mid.add(name)
    s.topics.set(name, {...t, partitions: during})
    finals.set(name, {...t, partitions: after})
  }
  if (mid.size === 0) return
  s.push('reassignment-start', mid, {transient: true, moving})
  for (const [name, t] of finals) s.topics.set(name, t)
  s.push('reassignment-complete', new Set(mid))
}

/** Broker shutdowns, restarts with a new rack, unregistrations (and the coordinator move that reveals them). */
function brokerPhases(s: PhaseState, changes: readonly PlannedChange[]): void {
  const shutdown = changes.flatMap(c => (c.kind === 'shutdown-broker' || (c.kind === 'unregister-broker' && c.decommission) ? [c.broker] : []))
  const racks = changes.flatMap(c => (c.kind === 'broker-rack' ? [c] : []))
  const unregister = changes.flatMap(c => (c.kind === 'unregister-broker' ? [c.broker] : []))
  /** The topics on the brokers, which a change of those brokers touches; throws for an unknown broker. */
  const touched = (ids: readonly number[], flag: string) => {
    s.requireBrokers(ids, flag)
    return s.topicsOn(ids)
  }
  if (shutdown.length > 0) {
    const on = touched(shutdown, 'shutdown-broker')
    s.brokers = s.brokers.map(b => (shutdown.includes(b.id) ? {...b, fenced: true} : b))
    s.push('broker-shutdown', on)
  }
  if (racks.length > 0) {
    const on = touched(
      racks.map(r => r.broker),
      'broker-rack',
    )
    s.brokers = s.brokers.map(b => {
      const r = racks.find(x => x.broker === b.id)
      return r ? {...b, rack: r.rack, fenced: false} : b
    })
    s.push('broker-restart', on)
  }
  if (unregister.length > 0) {
    const on = touched(unregister, 'unregister-broker')
    // The controller drops a broker it unregisters from the ISRs it is still in with other members
    // (ReplicationControlManager.handleBrokerUnregistered): for a running broker, every partition it shares
    // with another replica changes, so those topics are evicted and their groups bump at once. A fenced broker
    // left those ISRs when it was fenced; where it stayed the last in-sync replica (RF 1), it stays in the ELR
    // and the partition does not change (seen on 4.4.0): the unregistration changes no topic.
    const live = new Set(unregister.filter(id => !s.brokers.find(b => b.id === id)!.fenced))
    const last = new Set<string>()
    for (const t of s.topics.values()) if (t.partitions.some(p => p.replicas.length > 1 && p.replicas.some(b => live.has(b)))) last.add(t.name)
    s.brokers = s.brokers.filter(b => !unregister.includes(b.id))
    s.push('unregistration', last)
    s.push('coordinator-move', on, {reload: true})
  }
}
