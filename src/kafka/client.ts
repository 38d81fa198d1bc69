/**
 * The Kafka adapter: the only code that talks to a cluster, and the ClusterReader commands and sources use.
 * Read-only by construction — it can only send the requests encoded in ./protocol.ts (ApiVersions, Metadata,
 * DescribeTopicPartitions, DescribeCluster, ListPartitionReassignments, FindCoordinator, ListGroups, the three
 * group describes, ListOffsets and Fetch); it never joins a group, commits, creates or alters.
 *
 * By concern: ./connection.ts (sockets, SASL/TLS, API versions, request/response correlation, the deadline,
 * reaching any broker), ./metadata.ts (brokers, racks, topics, reassignments), ./groups.ts (listings, coordinators,
 * describes), ./partition-reader.ts (a partition's records across leader moves). Every public operation runs under
 * the session's deadline (`settings.timeoutMs` from open()).
 */
import type {ConnectionSettings} from '../config/client-config.js'
import type {Denial, RdError} from '../core/errors.js'
import type {ClusterMetadata, TopicMetadata} from '../core/metadata.js'
import type {ClusterReader, GroupCoordinators} from './cluster-reader.js'
import {type KafkaClientOptions, KafkaSession} from './connection.js'
import {type BrokerConfigs, describeBrokerConfigs} from './broker-configs.js'
import {type BrokerApiVersions, brokerApiVersions} from './broker-versions.js'
import * as G from './groups.js'
import type {GroupCommittedOffsets} from './offset-fetch.js'
import * as M from './metadata.js'
import * as P from './protocol.js'
import type {LeaderNode, PartitionRead, PartitionReadOptions} from './partition-reader.js'
import {LEADER_MOVES, RETRIABLE_LEADER, SYSTEM_CLOCK} from './retry.js'

export type {RawRecordBatch, RawRecord} from './record-batch.js'
export type {PartitionRead, PartitionReadOptions} from './partition-reader.js'
export type {ConsumerGroupDescription, ShareGroupDescription, StreamsGroupDescription, ListedGroup, GroupType} from './protocol.js'
export type {KafkaClientOptions} from './connection.js'
export type {BrokersResult, MetadataMethod, MetadataOptions, PartitionReassignment} from './metadata.js'
export type {ClassicGroupDescribed, ConsumerGroupDescribed, NamedTopicPartitions, ShareGroupDescribed, StreamsGroupDescribed} from './groups.js'
export type {CommittedOffset, GroupCommittedOffsets} from './offset-fetch.js'
export type {BrokerConfigs} from './broker-configs.js'
export type {BrokerApiVersions} from './broker-versions.js'

/** A partition's latest offset (offset null and an error name when it could not be read). */
export interface ListedLogOffset {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint | null
  readonly error: string | null
  /** The error is an authorization failure: what the request needs (DESCRIBE on the topic). */
  readonly denied?: Denial
}

export class KafkaClient implements ClusterReader {
  readonly #s: KafkaSession

  private constructor(session: KafkaSession) {
    this.#s = session
  }

  /** Connects to the first reachable bootstrap server and reads its API versions. */
  static async open(settings: ConnectionSettings, opts: KafkaClientOptions = {}): Promise<KafkaClient> {
    return new KafkaClient(await KafkaSession.open(settings, opts))
  }

  get clusterAddress(): string {
    return this.#s.clusterAddress
  }

  close(): Promise<void> {
    return this.#s.close()
  }

  /** Brokers with racks, fenced brokers included (DescribeCluster v2 IncludeFencedBrokers=true). */
  brokers(): Promise<M.BrokersResult> {
    return this.#s.within(M.brokers(this.#s))
  }

  /** Cluster metadata as the coordinator hashes it: registered brokers (fenced included), topics with ids and full replica lists. */
  clusterMetadata(options: M.MetadataOptions = {}): Promise<ClusterMetadata> {
    return this.#s.within(
      (async () => {
        const capturedAt = new Date().toISOString()
        const [brokers, topics] = await Promise.all([M.brokers(this.#s), M.topics(this.#s, options)])
        return {
          brokers: brokers.brokers,
          topics,
          ...(brokers.clusterId ? {clusterId: brokers.clusterId} : {}),
          capturedAt,
        }
      })(),
    )
  }

  /** Topics only (ids, replica lists). */
  topics(options: M.MetadataOptions = {}): Promise<TopicMetadata[]> {
    return this.#s.within(M.topics(this.#s, options))
  }

  listPartitionReassignments(): Promise<M.PartitionReassignment[]> {
    return this.#s.within(M.listPartitionReassignments(this.#s))
  }

  /** ListGroups v5 on every live broker, all group types (classic, consumer, share, streams) unless filtered. */
  listGroups(filter: {types?: readonly P.GroupType[]; states?: readonly string[]} = {}): Promise<P.ListedGroup[]> {
    return this.#s.within(G.listGroups(this.#s, filter))
  }

  /** Each group's coordinator, by FindCoordinator (batched, v4+). */
  async groupCoordinators(groupIds: readonly string[]): Promise<GroupCoordinators> {
    if (groupIds.length === 0) return new Map()
    return this.#s.within(G.findCoordinators(this.#s, [...new Set(groupIds)]))
  }

  /** ConsumerGroupDescribe (v1, or v0), each group at its coordinator. Groups come back in the requested order, errors included. */
  describeConsumerGroups(groupIds: readonly string[], coordinators?: GroupCoordinators): Promise<G.ConsumerGroupDescribed[]> {
    return this.#s.within(G.describeConsumerGroups(this.#s, groupIds, coordinators))
  }

  /** ShareGroupDescribe v1 (Kafka 4.1+), each group at its coordinator. */
  describeShareGroups(groupIds: readonly string[], coordinators?: GroupCoordinators): Promise<G.ShareGroupDescribed[]> {
    return this.#s.within(G.describeShareGroups(this.#s, groupIds, coordinators))
  }

  /** StreamsGroupDescribe (v1, or v0), each group at its coordinator. */
  describeStreamsGroups(groupIds: readonly string[], coordinators?: GroupCoordinators): Promise<G.StreamsGroupDescribed[]> {
    return this.#s.within(G.describeStreamsGroups(this.#s, groupIds, coordinators))
  }

  /** DescribeGroups v5 (classic groups), each group at its coordinator. */
  describeClassicGroups(groupIds: readonly string[], coordinators?: GroupCoordinators): Promise<G.ClassicGroupDescribed[]> {
    return this.#s.within(G.describeClassicGroups(this.#s, groupIds, coordinators))
  }

  /** ApiVersions of each live broker, asked at that broker; errors per broker. */
  brokerApiVersions(): Promise<BrokerApiVersions[]> {
    return this.#s.within(brokerApiVersions(this.#s))
  }

  /** DescribeConfigs v4 of each live broker's own configs (only `keys`), asked at that broker; errors per broker. */
  brokerConfigs(keys: readonly string[]): Promise<BrokerConfigs[]> {
    return this.#s.within(describeBrokerConfigs(this.#s, keys))
  }

  /** OffsetFetch v8, each group at its coordinator: every offset each group committed (errors per group). */
  committedOffsets(groupIds: readonly string[]): Promise<Array<GroupCommittedOffsets & {readonly errorName: string; readonly denied?: Denial}>> {
    return this.#s.within(G.fetchCommittedOffsets(this.#s, groupIds))
  }

  /**
   * Reads one partition (by default of `__consumer_offsets`) from the log start (or `fromOffset`) to the last
   * stable offset, as raw record batches plus the aborted-transaction list. ListOffsets and Fetch only, to the
   * partition leader, with no group id: no group is joined, nothing is committed.
   */
  readPartition(options: PartitionReadOptions): Promise<PartitionRead> {
    return this.#s.within(this.#readPartition(this.#s, options))
  }

  /**
   * The latest offset of many partitions: one ListOffsets v7 per partition leader, read-only. READ_UNCOMMITTED
   * (the default) answers the log end offset (high watermark), as `kafka-consumer-groups --describe` shows
   * LOG-END-OFFSET (Admin listOffsets, OffsetSpec.latest()). Partitions whose leader moved or was unreachable are
   * asked again after fresh metadata a few times; what still fails comes back with an error name, not a throw.
   */
  listOffsets(
    partitions: ReadonlyArray<{topic: string; partition: number}>,
    options: {isolation?: 'read_committed' | 'read_uncommitted'} = {},
  ): Promise<ListedLogOffset[]> {
    return this.#s.within(this.#listOffsets(this.#s, partitions, options.isolation === 'read_committed' ? 1 : 0))
  }

  // ---------------------------------------------------------------- partition reads

  async #readPartition(s: KafkaSession, o: PartitionReadOptions): Promise<PartitionRead> {
    s.requireVersion(P.API.Fetch, 12, 12, 'partition read')
    s.requireVersion(P.API.ListOffsets, 7, 7, 'partition read')
    // (the reader, its record-batch parser and codecs are loaded by the commands that read records only)
    const [{loadDecompressor}, {readPartitionVia}] = await Promise.all([import('./codecs.js'), import('./partition-reader.js')])
    const decompress = await loadDecompressor()
    const send = async <T>(leader: LeaderNode, step: string, apiKey: number, version: number, body: Buffer, decode: (buf: Buffer, version: number) => T) => {
      const conn = await s.connect(leader.host, leader.port)
      s.step = `waiting for ${step} from broker ${leader.id} (${leader.host}:${leader.port})`
      return s.send(conn, apiKey, version, body, decode)
    }
    return readPartitionVia(
      {
        transport: {
          metadata: topic => M.metadata(s, [topic]),
          listOffsets: (leader, topic, partition, ts, isolation) =>
            send(leader, 'ListOffsets v7', P.API.ListOffsets, 7, P.encodeListOffsetsV7(topic, partition, ts, isolation), P.decodeListOffsetsV7),
          fetch: (leader, topic, partition, offset, maxBytes, isolation) =>
            send(
              leader,
              `Fetch v12 of ${topic}-${partition} at offset ${offset}`,
              P.API.Fetch,
              12,
              P.encodeFetchV12(topic, partition, offset, maxBytes, isolation),
              P.decodeFetchV12,
            ),
          forget: leader => s.forget(leader.host, leader.port),
          // A long partition read may run past the deadline as long as each fetch moves it forward within the timeout.
          progress: () => {
            s.deadline = Math.max(s.deadline, Date.now() + s.settings.timeoutMs)
          },
        },
        retrier: s.retrier(),
        decompress,
        kafkaError: (code, what, subject, auth) => s.kafkaError(code, null, what, subject, auth),
        errorName: code => s.errorName(code),
        debug: line => s.debug(line),
      },
      o,
    )
  }

  async #listOffsets(s: KafkaSession, partitions: ReadonlyArray<{topic: string; partition: number}>, isolation: 0 | 1): Promise<ListedLogOffset[]> {
    const key = (t: string, p: number) => `${t}:${p}`
    const out = new Map<string, ListedLogOffset>()
    let pending = [...new Map(partitions.map(tp => [key(tp.topic, tp.partition), {topic: tp.topic, partition: tp.partition}])).values()]
    if (pending.length === 0) return []
    s.requireVersion(P.API.ListOffsets, 7, 7, 'log end offsets')
    const fail = (tp: {topic: string; partition: number}, error: string, denied?: Denial) =>
      out.set(key(tp.topic, tp.partition), {topic: tp.topic, partition: tp.partition, offset: null, error, ...(denied ? {denied} : {})})
    for (let attempt = 0; pending.length > 0; attempt++) {
      const last = attempt >= LEADER_MOVES
      const md = await M.metadata(s, [...new Set(pending.map(tp => tp.topic))])
      const byLeader = new Map<number, Array<{topic: string; partition: number}>>()
      const retry: Array<{topic: string; partition: number}> = []
      for (const tp of pending) {
        const t = md.topics.find(x => x.name === tp.topic)
        const p = t?.errorCode === 0 ? t.partitions.find(x => x.partition === tp.partition) : undefined
        if (!t || t.errorCode === 3 || (t.errorCode === 0 && !p)) fail(tp, 'UNKNOWN_TOPIC_OR_PARTITION')
        else if (t.errorCode !== 0 && !RETRIABLE_LEADER.has(t.errorCode))
          fail(tp, s.errorName(t.errorCode), s.denial(t.errorCode, {request: 'Metadata', resourceName: tp.topic}))
        else if (!p || !md.brokers.some(b => b.id === p.leaderId)) last ? fail(tp, 'LEADER_NOT_AVAILABLE') : retry.push(tp)
        else byLeader.set(p.leaderId, [...(byLeader.get(p.leaderId) ?? []), tp])
      }
      await Promise.all(
        [...byLeader].map(async ([id, tps]) => {
          const b = md.brokers.find(x => x.id === id)!
          const topics = new Map<string, number[]>()
          for (const tp of tps) topics.set(tp.topic, [...(topics.get(tp.topic) ?? []), tp.partition])
          try {
            const conn = await s.connect(b.host, b.port)
            s.step = `waiting for ListOffsets v7 (${tps.length} partitions) from broker ${id} (${b.host}:${b.port})`
            const got = await s.send(conn, P.API.ListOffsets, 7, P.encodeListOffsetsV7Many(topics, P.LATEST_TIMESTAMP, isolation), P.decodeListOffsetsV7Many)
            const answered = new Set<string>()
            for (const r of got) {
              answered.add(key(r.topic, r.partition))
              if (r.errorCode === 0) out.set(key(r.topic, r.partition), {topic: r.topic, partition: r.partition, offset: r.offset, error: null})
              else if (RETRIABLE_LEADER.has(r.errorCode) && !last) retry.push({topic: r.topic, partition: r.partition})
              else fail(r, s.errorName(r.errorCode), s.denial(r.errorCode, {request: 'ListOffsets', resourceName: r.topic}))
            }
            for (const tp of tps) if (!answered.has(key(tp.topic, tp.partition))) fail(tp, 'NO_ANSWER')
          } catch (error) {
            if (s.closed) throw error
            s.debug(`ListOffsets from broker ${id} failed: ${(error as Error).message}`)
            for (const tp of tps) last ? fail(tp, (error as RdError).code ?? 'NETWORK_ERROR') : retry.push(tp)
          }
        }),
      )
      pending = retry
      if (pending.length > 0) await SYSTEM_CLOCK.sleep(Math.min(1000, 100 * 2 ** attempt))
    }
    return partitions.map(tp => out.get(key(tp.topic, tp.partition))!)
  }
}
