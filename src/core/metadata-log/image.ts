/**
 * The metadata image the group coordinator hashes, rebuilt by replaying KRaft metadata records: registered
 * brokers (rack, fenced, epoch), topics with ids and per-partition replica lists (a reassignment's Replicas
 * hold the union of old and new replicas, with AddingReplicas/RemovingReplicas naming the moving ones, as the
 * controller writes them). `toClusterMetadata` gives the same model `cluster snapshot` and the hash use, and
 * `apply` returns the changes a group hash can see, named in Kafka's terms.
 */
import type {ClusterMetadata, TopicMetadata} from '../metadata.js'
import type {StructValue} from '../records/codec.js'
import {uuidFromString, type Uuid} from '../uuid.js'
import {by} from '../order.js'

export interface BrokerState {
  readonly id: number
  rack: string | null
  fenced: boolean
  inControlledShutdown: boolean
  epoch: bigint
  incarnationId: string
  /** When the current registration was written (ms) and at which offset. */
  registeredAt: number
  registeredOffset: bigint
}

export interface PartitionState {
  replicas: number[]
  adding: number[]
  removing: number[]
}

export interface TopicState {
  readonly name: string
  readonly id: string
  readonly uuid: Uuid
  readonly partitions: PartitionState[]
  readonly createdAt: number
}

export type ChangeKind =
  | 'topic-created'
  | 'topic-deleted'
  | 'partitions-added'
  | 'replicas-changed'
  | 'broker-registered'
  | 'broker-unregistered'
  | 'broker-fenced'
  | 'broker-unfenced'

/**
 * One metadata change; `movesHash` is false for fencing (fenced brokers' racks still count in the hash) and for a
 * replica change that leaves the partition's sorted racks as they were (a reorder, a move to a broker of the same rack).
 */
export interface MetadataChange {
  readonly kind: ChangeKind
  readonly offset: bigint
  readonly timestamp: number
  readonly movesHash: boolean
  readonly topic?: string
  readonly topicId?: string
  readonly partition?: number
  /** Partition count after the change (topic-created, partitions-added) and before it. */
  readonly partitions?: number
  readonly previousPartitions?: number
  readonly replicas?: readonly number[]
  readonly previousReplicas?: readonly number[]
  readonly adding?: readonly number[]
  readonly removing?: readonly number[]
  readonly broker?: number
  readonly rack?: string | null
  /** The rack of the broker's previous registration; undefined when it had none before in this log. */
  readonly previousRack?: string | null
  readonly reregistered?: boolean
  /** For broker changes: the topics with a replica on the broker at that moment (their hashes can move). */
  readonly topicsOnBroker?: readonly string[]
}

const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state'])

export class MetadataImage {
  readonly brokers = new Map<number, BrokerState>()
  readonly topicsById = new Map<string, TopicState>()
  readonly topicsByName = new Map<string, TopicState>()
  readonly features = new Map<string, number>()
  /** Racks of brokers that were registered and then unregistered in this replay, to name re-registrations. */
  private readonly lastRack = new Map<number, string | null>()

  clear(): void {
    this.brokers.clear()
    this.topicsById.clear()
    this.topicsByName.clear()
    this.features.clear()
  }

  /** Applies one decoded record; returns the changes it makes (none for ISR/leader-only changes). */
  apply(name: string, d: StructValue, offset: bigint, timestamp: number): MetadataChange[] {
    switch (name) {
      case 'RegisterBrokerRecord':
        return this.register(d, offset, timestamp)
      case 'UnregisterBrokerRecord': {
        const id = d.BrokerId as number
        const b = this.brokers.get(id)
        if (!b) return []
        this.brokers.delete(id)
        this.lastRack.set(id, b.rack)
        return [{kind: 'broker-unregistered', offset, timestamp, movesHash: true, broker: id, rack: b.rack, topicsOnBroker: this.topicsOn(id)}]
      }
      case 'FenceBrokerRecord':
        return this.fence(d.Id as number, true, offset, timestamp)
      case 'UnfenceBrokerRecord':
        return this.fence(d.Id as number, false, offset, timestamp)
      case 'BrokerRegistrationChangeRecord': {
        const b = this.brokers.get(d.BrokerId as number)
        if (b && (d.InControlledShutdown as number) === 1) b.inControlledShutdown = true
        const f = d.Fenced as number
        return f === 0 ? [] : this.fence(d.BrokerId as number, f === 1, offset, timestamp)
      }
      case 'TopicRecord': {
        const t: TopicState = {name: d.Name as string, id: d.TopicId as string, uuid: uuidFromString(d.TopicId as string), partitions: [], createdAt: timestamp}
        this.topicsById.set(t.id, t)
        this.topicsByName.set(t.name, t)
        return [{kind: 'topic-created', offset, timestamp, movesHash: true, topic: t.name, topicId: t.id, partitions: 0}]
      }
      case 'RemoveTopicRecord': {
        const t = this.topicsById.get(d.TopicId as string)
        if (!t) return []
        this.topicsById.delete(t.id)
        if (this.topicsByName.get(t.name) === t) this.topicsByName.delete(t.name)
        return [{kind: 'topic-deleted', offset, timestamp, movesHash: true, topic: t.name, topicId: t.id, previousPartitions: t.partitions.length}]
      }
      case 'PartitionRecord': {
        const t = this.topicsById.get(d.TopicId as string)
        const p = d.PartitionId as number
        if (!t || p < 0) return []
        const before = t.partitions.length
        const previous = t.partitions[p]
        t.partitions[p] = {replicas: d.Replicas as number[], adding: d.AddingReplicas as number[], removing: d.RemovingReplicas as number[]}
        if (previous) return replicasChange(t, p, previous, t.partitions[p], offset, timestamp, this.racksOf)
        return [
          {
            kind: 'partitions-added',
            offset,
            timestamp,
            movesHash: true,
            topic: t.name,
            topicId: t.id,
            partition: p,
            partitions: t.partitions.length,
            previousPartitions: before,
            replicas: t.partitions[p].replicas,
          },
        ]
      }
      case 'PartitionChangeRecord': {
        const t = this.topicsById.get(d.TopicId as string)
        const previous = t?.partitions[d.PartitionId as number]
        if (!t || !previous) return []
        // As Kafka's PartitionRegistration.merge: a null list means unchanged.
        const next: PartitionState = {
          replicas: (d.Replicas as number[] | null) ?? previous.replicas,
          adding: (d.AddingReplicas as number[] | null) ?? previous.adding,
          removing: (d.RemovingReplicas as number[] | null) ?? previous.removing,
        }
        t.partitions[d.PartitionId as number] = next
        return replicasChange(t, d.PartitionId as number, previous, next, offset, timestamp, this.racksOf)
      }
      case 'FeatureLevelRecord':
        this.features.set(d.Name as string, d.FeatureLevel as number)
        return []
      default:
        return []
    }
  }

  private register(d: StructValue, offset: bigint, timestamp: number): MetadataChange[] {
    const id = d.BrokerId as number
    const old = this.brokers.get(id)
    const rack = d.Rack as string | null
    this.brokers.set(id, {
      id,
      rack,
      fenced: d.Fenced as boolean,
      inControlledShutdown: d.InControlledShutdown as boolean,
      epoch: d.BrokerEpoch as bigint,
      incarnationId: d.IncarnationId as string,
      registeredAt: timestamp,
      registeredOffset: offset,
    })
    const previousRack = old ? old.rack : this.lastRack.get(id)
    const known = old !== undefined || this.lastRack.has(id)
    // back after an unregistration, its replicas get a rack again even when it is the one it had: the hash moves
    const movesHash = old === undefined || old.rack !== rack
    return [
      {
        kind: 'broker-registered',
        offset,
        timestamp,
        movesHash,
        broker: id,
        rack,
        ...(known ? {previousRack} : {}),
        reregistered: old !== undefined,
        topicsOnBroker: movesHash ? this.topicsOn(id) : [],
      },
    ]
  }

  /**
   * What a partition's replicas add to its topic's hash: their brokers' racks (registered brokers, fenced included;
   * none for a broker without a rack), sorted in Java String order (= JavaScript's default sort), as a key.
   */
  readonly racksOf = (replicas: readonly number[]): string =>
    JSON.stringify(
      replicas
        .map(id => this.brokers.get(id)?.rack ?? null)
        .filter((r): r is string => r !== null)
        .sort(),
    )

  /** Topics with a replica on `broker` (a scan: broker registrations are rare). */
  topicsOn(broker: number): string[] {
    const out: string[] = []
    for (const t of this.topicsByName.values()) if (t.partitions.some(p => p?.replicas.includes(broker))) out.push(t.name)
    return out.sort()
  }

  private fence(id: number, fenced: boolean, offset: bigint, timestamp: number): MetadataChange[] {
    const b = this.brokers.get(id)
    if (!b || b.fenced === fenced) return []
    b.fenced = fenced
    if (!fenced) b.inControlledShutdown = false
    return [{kind: fenced ? 'broker-fenced' : 'broker-unfenced', offset, timestamp, movesHash: false, broker: id, rack: b.rack}]
  }

  topicMetadata(t: TopicState): TopicMetadata {
    return {
      name: t.name,
      topicId: t.uuid,
      partitions: t.partitions.map((p, partition) => ({partition, replicas: p?.replicas ?? []})),
      ...(INTERNAL_TOPICS.has(t.name) ? {internal: true} : {}),
    }
  }

  /** The model the hash and `cluster snapshot` use: brokers by id, topics by name. */
  toClusterMetadata(opts: {includeInternal?: boolean; clusterId?: string; capturedAt?: string} = {}): ClusterMetadata {
    const brokers = [...this.brokers.values()].sort((a, b) => a.id - b.id).map(b => ({id: b.id, rack: b.rack, fenced: b.fenced}))
    const topics = [...this.topicsByName.values()]
      .filter(t => opts.includeInternal || !INTERNAL_TOPICS.has(t.name))
      .sort(by(x => x.name))
      .map(t => this.topicMetadata(t))
    return {brokers, topics, ...(opts.clusterId ? {clusterId: opts.clusterId} : {}), ...(opts.capturedAt ? {capturedAt: opts.capturedAt} : {})}
  }
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

function replicasChange(
  t: TopicState,
  partition: number,
  before: PartitionState,
  after: PartitionState,
  offset: bigint,
  timestamp: number,
  racksOf: (replicas: readonly number[]) => string,
): MetadataChange[] {
  if (sameList(before.replicas, after.replicas) && sameList(before.adding, after.adding) && sameList(before.removing, after.removing)) return []
  return [
    {
      kind: 'replicas-changed',
      offset,
      timestamp,
      // the hash takes each partition's sorted racks: a reorder of the same replicas (or a move between brokers of
      // the same racks) stores the same hash, and the coordinator does not bump
      movesHash: !sameList(before.replicas, after.replicas) && racksOf(before.replicas) !== racksOf(after.replicas),
      topic: t.name,
      topicId: t.id,
      partition,
      replicas: after.replicas,
      previousReplicas: before.replicas,
      adding: after.adding,
      removing: after.removing,
    },
  ]
}

/** One line in Kafka's terms, e.g. "orders partition 3 replicas [1,2] → [1,2,3] (reassignment started)". */
export function describeChange(c: MetadataChange): string {
  const list = (l: readonly number[] | undefined) => `[${(l ?? []).join(',')}]`
  const rack = (r: string | null | undefined) => (r === null || r === undefined ? 'no rack' : JSON.stringify(r))
  switch (c.kind) {
    case 'topic-created':
      return `topic ${c.topic} created (id ${c.topicId}, ${c.partitions} partition${c.partitions === 1 ? '' : 's'})`
    case 'topic-deleted':
      return `topic ${c.topic} deleted (id ${c.topicId}, had ${c.previousPartitions} partition${c.previousPartitions === 1 ? '' : 's'})`
    case 'partitions-added':
      return `topic ${c.topic} partitions ${c.previousPartitions} → ${c.partitions}`
    case 'replicas-changed': {
      const note =
        c.adding && c.adding.length + (c.removing?.length ?? 0) > 0 ? ` (reassignment in progress: adding ${list(c.adding)}, removing ${list(c.removing)})` : ''
      return `${c.topic} partition ${c.partition} replicas ${list(c.previousReplicas)} → ${list(c.replicas)}${note}`
    }
    case 'broker-registered':
      if (c.previousRack === undefined) return `broker ${c.broker} registered with ${rack(c.rack)}`
      if (!c.reregistered)
        return `broker ${c.broker} registered again with ${rack(c.rack)} (${c.previousRack === c.rack ? 'its rack before' : `${rack(c.previousRack)} before`} its unregistration)`
      if (c.previousRack !== c.rack) return `broker ${c.broker} ${rack(c.previousRack)} → ${rack(c.rack)} (re-registered)`
      return `broker ${c.broker} re-registered (${rack(c.rack)}, unchanged)`
    case 'broker-unregistered':
      return `broker ${c.broker} unregistered (was ${rack(c.rack)})`
    case 'broker-fenced':
      return `broker ${c.broker} fenced`
    case 'broker-unfenced':
      return `broker ${c.broker} unfenced`
  }
}
