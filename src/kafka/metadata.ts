/**
 * Cluster metadata as the coordinator hashes it, read over a KafkaSession: brokers with racks (DescribeCluster v2
 * lists fenced brokers; Metadata is the fallback), topics with ids and full replica lists (Metadata v12, or paged
 * DescribeTopicPartitions v0), and partition reassignments in flight. Each asks any reachable broker.
 */
import {RuntimeError} from '../core/errors.js'
import type {BrokerMetadata, TopicMetadata} from '../core/metadata.js'
import {uuidFromBytes} from '../core/uuid.js'
import type {BrokerConnection} from './broker-connection.js'
import type {KafkaSession, Node} from './connection.js'
import {maxResponseBytes} from './frame-guard.js'
import * as P from './protocol.js'

export type MetadataMethod = 'metadata' | 'describe-topic-partitions'

export interface MetadataOptions {
  /** Only these topics (missing ones are left out, as the coordinator does); undefined = all topics. */
  readonly topics?: readonly string[]
  /** With all topics: include internal topics (__consumer_offsets, …). Named topics are always returned. */
  readonly includeInternal?: boolean
  /** How to read topic ids and replicas; default `metadata` (Metadata v12; see bench/metadata). */
  readonly method?: MetadataMethod
  /** DescribeTopicPartitions page size (ResponsePartitionLimit). */
  readonly partitionLimit?: number
}

export interface BrokersResult {
  readonly brokers: BrokerMetadata[]
  readonly clusterId?: string
  /** False when the cluster lacks DescribeCluster v2: fenced brokers (and their racks) may be missing. */
  readonly fencedIncluded: boolean
}

/** One partition under reassignment: its replica list now (adding + removing included) and the two sides. */
export type PartitionReassignment = P.WireReassignment

/** Metadata v12 (`topics` null = all, [] = none: brokers only); remembers the brokers for reconnecting. */
export async function metadata(s: KafkaSession, topics: readonly string[] | null): Promise<P.MetadataResponse> {
  s.requireVersion(P.API.Metadata, 12, 12, 'topic ids')
  const md = await s.anyBroker('Metadata', (conn, address) => {
    s.step = `waiting for Metadata v12 from ${address}`
    return s.send(conn, P.API.Metadata, 12, P.encodeMetadataV12(topics), P.decodeMetadataV12)
  })
  if (md.brokers.length > 0) s.known = md.brokers.map(b => ({id: b.id, host: b.host, port: b.port}))
  return md
}

export async function liveBrokers(s: KafkaSession): Promise<Node[]> {
  const md = await metadata(s, [])
  return md.brokers.map(b => ({id: b.id, host: b.host, port: b.port}))
}

/** Brokers with racks, fenced brokers included (DescribeCluster v2 IncludeFencedBrokers=true). */
export async function brokers(s: KafkaSession): Promise<BrokersResult> {
  const v = s.version(P.API.DescribeCluster, 2)
  const {host, port} = s.bootstrap
  if (v === undefined) {
    s.warn(`${host}:${port} does not support DescribeCluster: taking brokers from Metadata, which omits fenced brokers; racks of fenced brokers may be missing`)
    const md = await metadata(s, [])
    return {brokers: md.brokers.map(b => ({id: b.id, rack: b.rack, fenced: false})), ...(md.clusterId ? {clusterId: md.clusterId} : {}), fencedIncluded: false}
  }
  if (v < 2) {
    s.warn(`${host}:${port} supports DescribeCluster up to v${v} only (v2, Kafka 4.0+, lists fenced brokers): racks of fenced brokers may be missing`)
  }
  const r = await s.anyBroker('DescribeCluster', (conn, address) => {
    s.step = `waiting for DescribeCluster v${v} from ${address}`
    return s.send(conn, P.API.DescribeCluster, v, P.encodeDescribeCluster(v, true), P.decodeDescribeCluster)
  })
  if (r.errorCode !== 0)
    throw s.kafkaError(r.errorCode, r.errorMessage, 'DescribeCluster', undefined, {request: 'DescribeCluster', doing: 'listing the brokers'})
  const list = r.brokers.map(b => ({id: b.id, rack: b.rack, fenced: b.fenced})).sort((a, b) => a.id - b.id)
  s.debug(`DescribeCluster v${v}: ${list.length} brokers (${list.filter(b => b.fenced).length} fenced)`)
  return {brokers: list, clusterId: r.clusterId, fencedIncluded: v >= 2}
}

/** Topics with ids and full replica lists, sorted by name; missing named topics are left out. */
export async function topics(s: KafkaSession, options: MetadataOptions): Promise<TopicMetadata[]> {
  const named = options.topics ? [...new Set(options.topics)] : undefined
  if (named && named.length === 0) return []
  const method = options.method ?? 'metadata'
  let wire: P.WireTopic[]
  const t0 = performance.now()
  if (method === 'metadata') {
    wire = (await metadata(s, named ?? null)).topics
  } else {
    wire = await s.anyBroker('DescribeTopicPartitions', (conn, address) =>
      describeTopicPartitions(s, conn, address, named ?? [], options.partitionLimit ?? 2000),
    )
  }
  s.debug(`${method}: ${wire.length} topics in ${Math.round(performance.now() - t0)} ms`)
  const out: TopicMetadata[] = []
  for (const t of wire) {
    // UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, INVALID_TOPIC_EXCEPTION (a name no topic can have): missing
    if (t.errorCode === 3 || t.errorCode === 100 || t.errorCode === 17) continue
    if (t.errorCode !== 0 && (t.errorCode === 29 || t.partitions.length === 0))
      throw s.kafkaError(t.errorCode, null, 'describing topic', t.name ?? '?', {
        request: method === 'metadata' ? 'Metadata' : 'DescribeTopicPartitions',
        doing: `describing topic ${t.name ?? '?'}`,
        resourceName: t.name,
      })
    if (!t.name) continue
    if (!named && t.internal && !options.includeInternal) continue
    const partitions = [...t.partitions].sort((a, b) => a.partition - b.partition).map(p => ({partition: p.partition, replicas: p.replicas}))
    out.push({name: t.name, topicId: uuidFromBytes(t.topicId), partitions, ...(t.internal ? {internal: true} : {})})
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return out
}

/** (topic name, partition) order, as Kafka pages: names compared by UTF-16 code unit, as Java's String does. */
function cursorAfter(a: P.TopicPartitionCursor, b: P.TopicPartitionCursor): boolean {
  return a.topicName !== b.topicName ? a.topicName > b.topicName : a.partitionIndex > b.partitionIndex
}

/**
 * Follows the cursor page by page. Every page is untrusted: it may hold at most `limit` partitions (Kafka caps a
 * page there), its cursor must move forward, and all pages together at most the bytes one Metadata response may
 * have (REBALANCE_DOCTOR_MAX_RESPONSE_BYTES): a cursor that never ends cannot grow memory without bound.
 */
async function describeTopicPartitions(
  s: KafkaSession,
  conn: BrokerConnection,
  address: string,
  names: readonly string[],
  limit: number,
): Promise<P.WireTopic[]> {
  s.requireVersion(P.API.DescribeTopicPartitions, 0, 0, 'paged topic metadata')
  const byName = new Map<string, P.WireTopic>()
  const order: P.WireTopic[] = []
  const budget = maxResponseBytes()
  let bytes = 0
  let cursor: P.TopicPartitionCursor | null = null
  let pages = 0
  const bad = (what: string) =>
    new RuntimeError(
      `${address} answered DescribeTopicPartitions (page ${pages}) ${what}`,
      'Read topics with --metadata-api metadata (Metadata v12); if the broker is Kafka, run with --debug and report it.',
      'PROTOCOL_ERROR',
    )
  do {
    s.step = `waiting for DescribeTopicPartitions (page ${pages + 1}) from ${address}`
    const page: {topics: P.WireTopic[]; nextCursor: P.TopicPartitionCursor | null} = await s.send(
      conn,
      P.API.DescribeTopicPartitions,
      0,
      P.encodeDescribeTopicPartitionsV0(names, limit, cursor),
      (buf: Buffer) => {
        bytes += buf.length
        return P.decodeDescribeTopicPartitionsV0(buf)
      },
    )
    pages++
    let partitions = 0
    for (const t of page.topics) partitions += t.partitions.length
    if (partitions > limit) throw bad(`with ${partitions} partitions, more than the ${limit} asked for`)
    if (bytes > budget) {
      throw new RuntimeError(
        `${address} answered DescribeTopicPartitions with more than ${budget} bytes in ${pages} pages (the cursor does not end)`,
        'Read topics with --metadata-api metadata; if the cluster is that large, raise $REBALANCE_DOCTOR_MAX_RESPONSE_BYTES (bytes).',
        'PROTOCOL_ERROR',
      )
    }
    const next = page.nextCursor
    if (next && cursor && !cursorAfter(next, cursor)) {
      throw bad(
        `with a cursor that does not move forward (${JSON.stringify(next.topicName)} partition ${next.partitionIndex} after ${JSON.stringify(cursor.topicName)} partition ${cursor.partitionIndex})`,
      )
    }
    for (const t of page.topics) {
      const prev = t.name ? byName.get(t.name) : undefined
      // A topic split across pages continues in the next page with its remaining partitions (a loop, not
      // push(...): a page of a million partitions would overflow the stack as arguments).
      if (prev) for (const p of t.partitions) prev.partitions.push(p)
      else {
        const copy = {...t, partitions: t.partitions.slice()}
        order.push(copy)
        if (t.name) byName.set(t.name, copy)
      }
    }
    cursor = next
  } while (cursor)
  s.debug(`DescribeTopicPartitions: ${pages} pages, ${bytes} bytes`)
  return order
}

/**
 * Partition reassignments in flight (ListPartitionReassignments v0, forwarded by the broker to the controller;
 * needs DESCRIBE on the cluster). Read-only. Sorted by topic, then partition.
 */
export async function listPartitionReassignments(s: KafkaSession): Promise<PartitionReassignment[]> {
  const v = s.requireVersion(P.API.ListPartitionReassignments, 0, 0, 'reassignments in flight')
  const r = await s.anyBroker('ListPartitionReassignments', (conn, address) => {
    s.step = `waiting for ListPartitionReassignments v${v} from ${address}`
    return s.send(
      conn,
      P.API.ListPartitionReassignments,
      v,
      P.encodeListPartitionReassignmentsV0(Math.max(1000, Math.min(s.settings.timeoutMs, 60_000))),
      P.decodeListPartitionReassignmentsV0,
    )
  })
  if (r.errorCode !== 0)
    throw s.kafkaError(r.errorCode, r.errorMessage, 'ListPartitionReassignments', undefined, {
      request: 'ListPartitionReassignments',
      doing: 'listing the partition reassignments in flight',
    })
  return r.reassignments.map(x => ({...x})).sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}
