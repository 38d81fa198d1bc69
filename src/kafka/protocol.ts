/**
 * Request encoders and response decoders for the read-only Kafka APIs the tool uses, written from the Kafka
 * message JSON specs (clients/src/main/resources/common/message/*.json, Kafka 4.1–4.5). Pure: bytes in, data out.
 * Every flexible struct ends with a tagged-field section, which the decoders skip correctly.
 *
 * Only read-only APIs are here: no JoinGroup, OffsetCommit, CreateTopics or anything that changes the cluster.
 */
import {ByteReader, ByteWriter} from './wire.js'

export const API = {
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  FindCoordinator: 10,
  ListGroups: 16,
  ListPartitionReassignments: 46,
  ApiVersions: 18,
  DescribeCluster: 60,
  ConsumerGroupDescribe: 69,
  DescribeTopicPartitions: 75,
  ShareGroupDescribe: 77,
  StreamsGroupDescribe: 89,
} as const

export const API_NAMES: Record<number, string> = Object.fromEntries(Object.entries(API).map(([k, v]) => [v, k]))

const int32 = (r: ByteReader) => r.int32()
const str = (r: ByteReader) => r.compactString()

// ---------------------------------------------------------------- ApiVersions v3 (response header v0)
export interface ApiVersionRange {
  readonly min: number
  readonly max: number
}

export function encodeApiVersionsV3(softwareName: string, softwareVersion: string): Buffer {
  return new ByteWriter().compactString(softwareName).compactString(softwareVersion).tags().toBuffer()
}

export function decodeApiVersionsV3(buf: Buffer): {errorCode: number; apis: Map<number, ApiVersionRange>} {
  const r = new ByteReader(buf)
  const errorCode = r.int16()
  const apis = new Map<number, ApiVersionRange>()
  // On UNSUPPORTED_VERSION the broker answers in v0 layout (non-compact array); we only need the error then.
  if (errorCode !== 0) return {errorCode, apis}
  r.compactArray(r => {
    const key = r.int16()
    apis.set(key, {min: r.int16(), max: r.int16()})
    r.tags()
  })
  return {errorCode, apis}
}

// ---------------------------------------------------------------- Metadata v12
export interface WirePartition {
  readonly errorCode: number
  readonly partition: number
  readonly leaderId: number
  readonly replicas: number[]
  readonly isr: number[]
  readonly offline: number[]
}

export interface WireTopic {
  readonly errorCode: number
  readonly name: string | null
  readonly topicId: Uint8Array
  readonly internal: boolean
  readonly partitions: WirePartition[]
}

export interface WireBroker {
  readonly id: number
  readonly host: string
  readonly port: number
  readonly rack: string | null
  readonly fenced: boolean
}

export interface MetadataResponse {
  readonly brokers: WireBroker[]
  readonly clusterId: string | null
  readonly controllerId: number
  readonly topics: WireTopic[]
}

/** `topics` null = all topics. Never auto-creates. */
export function encodeMetadataV12(topics: readonly string[] | null): Buffer {
  return new ByteWriter()
    .compactArray(topics, (w, name) => w.uuid(new Uint8Array(16)).compactString(name).tags())
    .bool(false) // AllowAutoTopicCreation: never
    .bool(false)
    .tags()
    .toBuffer()
}

export function decodeMetadataV12(buf: Buffer): MetadataResponse {
  const r = new ByteReader(buf)
  r.int32() // throttle
  const brokers = r.compactArray(r => {
    const b = {id: r.int32(), host: r.compactString(), port: r.int32(), rack: r.compactNullableString(), fenced: false}
    r.tags()
    return b
  })
  const clusterId = r.compactNullableString()
  const controllerId = r.int32()
  const topics = r.compactArray(r => {
    const errorCode = r.int16()
    const name = r.compactNullableString()
    const topicId = r.uuid()
    const internal = r.bool()
    const partitions = r.compactArray(r => {
      const p = {
        errorCode: r.int16(),
        partition: r.int32(),
        leaderId: r.int32(),
        leaderEpoch: r.int32(),
        replicas: r.compactArray(int32),
        isr: r.compactArray(int32),
        offline: r.compactArray(int32),
      }
      r.tags()
      return {errorCode: p.errorCode, partition: p.partition, leaderId: p.leaderId, replicas: p.replicas, isr: p.isr, offline: p.offline}
    })
    r.int32() // authorized operations
    r.tags()
    return {errorCode, name, topicId, internal, partitions}
  })
  r.tags()
  return {brokers, clusterId, controllerId, topics}
}

// ---------------------------------------------------------------- DescribeTopicPartitions v0
export interface TopicPartitionCursor {
  readonly topicName: string
  readonly partitionIndex: number
}

/** `topics` empty = all topics. */
export function encodeDescribeTopicPartitionsV0(topics: readonly string[], partitionLimit: number, cursor: TopicPartitionCursor | null): Buffer {
  const w = new ByteWriter().compactArray(topics, (w, name) => w.compactString(name).tags()).int32(partitionLimit)
  if (cursor) w.int8(1).compactString(cursor.topicName).int32(cursor.partitionIndex).tags()
  else w.int8(-1)
  return w.tags().toBuffer()
}

export function decodeDescribeTopicPartitionsV0(buf: Buffer): {topics: WireTopic[]; nextCursor: TopicPartitionCursor | null} {
  const r = new ByteReader(buf)
  r.int32() // throttle
  const topics = r.compactArray(r => {
    const errorCode = r.int16()
    const name = r.compactNullableString()
    const topicId = r.uuid()
    const internal = r.bool()
    const partitions = r.compactArray(r => {
      const errorCode = r.int16()
      const partition = r.int32()
      const leaderId = r.int32()
      r.int32() // leader epoch
      const replicas = r.compactArray(int32)
      const isr = r.compactArray(int32)
      r.compactNullableArray(int32) // eligible leader replicas
      r.compactNullableArray(int32) // last known ELR
      const offline = r.compactArray(int32)
      r.tags()
      return {errorCode, partition, leaderId, replicas, isr, offline}
    })
    r.int32() // authorized operations
    r.tags()
    return {errorCode, name, topicId, internal, partitions}
  })
  let nextCursor: TopicPartitionCursor | null = null
  if (r.int8() >= 0) {
    nextCursor = {topicName: r.compactString(), partitionIndex: r.int32()}
    r.tags()
  }
  r.tags()
  return {topics, nextCursor}
}

// ---------------------------------------------------------------- DescribeCluster v0-2
export function encodeDescribeCluster(version: number, includeFenced: boolean): Buffer {
  const w = new ByteWriter().bool(false)
  if (version >= 1) w.int8(1) // EndpointType: brokers
  if (version >= 2) w.bool(includeFenced)
  return w.tags().toBuffer()
}

export function decodeDescribeCluster(
  buf: Buffer,
  version: number,
): {errorCode: number; errorMessage: string | null; clusterId: string; controllerId: number; brokers: WireBroker[]} {
  const r = new ByteReader(buf)
  r.int32() // throttle
  const errorCode = r.int16()
  const errorMessage = r.compactNullableString()
  if (version >= 1) r.int8()
  const clusterId = r.compactString()
  const controllerId = r.int32()
  const brokers = r.compactArray(r => {
    const b = {id: r.int32(), host: r.compactString(), port: r.int32(), rack: r.compactNullableString(), fenced: version >= 2 ? r.bool() : false}
    r.tags()
    return b
  })
  r.int32() // cluster authorized operations
  r.tags()
  return {errorCode, errorMessage, clusterId, controllerId, brokers}
}

// ---------------------------------------------------------------- ListPartitionReassignments v0 (flexible)
export interface WireReassignment {
  readonly topic: string
  readonly partition: number
  readonly replicas: number[]
  readonly addingReplicas: number[]
  readonly removingReplicas: number[]
}

/** All reassignments in flight (Topics null). Read-only: it lists, it never alters. */
export function encodeListPartitionReassignmentsV0(timeoutMs: number): Buffer {
  return new ByteWriter().int32(timeoutMs).compactArray(null, () => {}).tags().toBuffer()
}

export function decodeListPartitionReassignmentsV0(buf: Buffer): {errorCode: number; errorMessage: string | null; reassignments: WireReassignment[]} {
  const r = new ByteReader(buf)
  r.int32() // throttle
  const errorCode = r.int16()
  const errorMessage = r.compactNullableString()
  const reassignments: WireReassignment[] = []
  r.compactArray(r => {
    const topic = r.compactString()
    r.compactArray(r => {
      const partition = r.int32()
      const replicas = r.compactArray(int32)
      const addingReplicas = r.compactArray(int32)
      const removingReplicas = r.compactArray(int32)
      r.tags()
      reassignments.push({topic, partition, replicas, addingReplicas, removingReplicas})
    })
    r.tags()
  })
  r.tags()
  return {errorCode, errorMessage, reassignments}
}

// ---------------------------------------------------------------- FindCoordinator v4-6
export interface WireCoordinator {
  readonly key: string
  readonly nodeId: number
  readonly host: string
  readonly port: number
  readonly errorCode: number
  readonly errorMessage: string | null
}

/** keyType 0 = group (consumer, classic, share and streams groups all use it). */
export function encodeFindCoordinator(keys: readonly string[], keyType = 0): Buffer {
  return new ByteWriter().int8(keyType).compactArray(keys, (w, k) => w.compactString(k)).tags().toBuffer()
}

export function decodeFindCoordinator(buf: Buffer): WireCoordinator[] {
  const r = new ByteReader(buf)
  r.int32()
  const out = r.compactArray(r => {
    const c = {key: r.compactString(), nodeId: r.int32(), host: r.compactString(), port: r.int32(), errorCode: r.int16(), errorMessage: r.compactNullableString()}
    r.tags()
    return c
  })
  r.tags()
  return out
}

// ---------------------------------------------------------------- ListGroups v5
export type GroupType = 'classic' | 'consumer' | 'share' | 'streams'

export interface ListedGroup {
  readonly groupId: string
  readonly protocolType: string
  readonly state: string
  /** As the broker reports it, lower-cased (classic, consumer, share, streams). */
  readonly type: string
}

export function encodeListGroupsV5(states: readonly string[] = [], types: readonly string[] = []): Buffer {
  return new ByteWriter()
    .compactArray(states, (w, s) => w.compactString(s))
    .compactArray(types, (w, s) => w.compactString(s))
    .tags()
    .toBuffer()
}

export function decodeListGroupsV5(buf: Buffer): {errorCode: number; groups: ListedGroup[]} {
  const r = new ByteReader(buf)
  r.int32()
  const errorCode = r.int16()
  const groups = r.compactArray(r => {
    const g = {groupId: r.compactString(), protocolType: r.compactString(), state: r.compactString(), type: r.compactString().toLowerCase()}
    r.tags()
    return g
  })
  r.tags()
  return {errorCode, groups}
}

// ---------------------------------------------------------------- group describes (69, 77, 89)
export interface TopicPartitions {
  readonly topicId: Uint8Array
  readonly topicName: string
  readonly partitions: number[]
}

export interface DescribeError {
  readonly errorCode: number
  readonly errorMessage: string | null
}

export interface ConsumerGroupMember {
  readonly memberId: string
  readonly instanceId: string | null
  readonly rackId: string | null
  readonly memberEpoch: number
  readonly clientId: string
  readonly clientHost: string
  readonly subscribedTopicNames: string[]
  readonly subscribedTopicRegex: string | null
  readonly assignment: TopicPartitions[]
  readonly targetAssignment: TopicPartitions[]
  /** v1+ (KIP-1099): 1 = consumer-protocol member, 0 = classic-protocol member of a consumer group, -1 unknown (v0). */
  readonly memberType: number
}

export interface ConsumerGroupDescription extends DescribeError {
  readonly groupId: string
  readonly state: string
  readonly groupEpoch: number
  readonly assignmentEpoch: number
  readonly assignorName: string
  readonly members: ConsumerGroupMember[]
}

export function encodeGroupDescribe(groupIds: readonly string[], version = 0, apiKey: number = API.ConsumerGroupDescribe): Buffer {
  const w = new ByteWriter().compactArray(groupIds, (w, g) => w.compactString(g)).bool(false)
  if (apiKey === API.StreamsGroupDescribe && version >= 1) w.bool(false) // IncludeTopologyDescription
  return w.tags().toBuffer()
}

function readAssignment(r: ByteReader): TopicPartitions[] {
  const tps = r.compactArray(r => {
    const tp = {topicId: r.uuid(), topicName: r.compactString(), partitions: r.compactArray(int32)}
    r.tags()
    return tp
  })
  r.tags()
  return tps
}

/** The group fields ConsumerGroupDescribe and ShareGroupDescribe share, in wire order. */
function readGroupHeader(r: ByteReader) {
  return {
    errorCode: r.int16(),
    errorMessage: r.compactNullableString(),
    groupId: r.compactString(),
    state: r.compactString(),
    groupEpoch: r.int32(),
    assignmentEpoch: r.int32(),
    assignorName: r.compactString(),
  }
}

export function decodeConsumerGroupDescribe(buf: Buffer, version: number): ConsumerGroupDescription[] {
  const r = new ByteReader(buf)
  r.int32()
  const groups = r.compactArray(r => {
    const header = readGroupHeader(r)
    const members = r.compactArray(r => {
      const m = {
        memberId: r.compactString(),
        instanceId: r.compactNullableString(),
        rackId: r.compactNullableString(),
        memberEpoch: r.int32(),
        clientId: r.compactString(),
        clientHost: r.compactString(),
        subscribedTopicNames: r.compactArray(str),
        // Brokers send "" for "no regex"; both read as null.
        subscribedTopicRegex: r.compactNullableString() || null,
        assignment: readAssignment(r),
        targetAssignment: readAssignment(r),
        memberType: version >= 1 ? r.int8() : -1,
      }
      r.tags()
      return m
    })
    r.int32() // authorized operations
    r.tags()
    return {...header, members}
  })
  r.tags()
  return groups
}

export interface ShareGroupMember {
  readonly memberId: string
  readonly rackId: string | null
  readonly memberEpoch: number
  readonly clientId: string
  readonly clientHost: string
  readonly subscribedTopicNames: string[]
  readonly assignment: TopicPartitions[]
}

export interface ShareGroupDescription extends DescribeError {
  readonly groupId: string
  readonly state: string
  readonly groupEpoch: number
  readonly assignmentEpoch: number
  readonly assignorName: string
  readonly members: ShareGroupMember[]
}

export function decodeShareGroupDescribeV1(buf: Buffer): ShareGroupDescription[] {
  const r = new ByteReader(buf)
  r.int32()
  const groups = r.compactArray(r => {
    const header = readGroupHeader(r)
    const members = r.compactArray(r => {
      const m = {
        memberId: r.compactString(),
        rackId: r.compactNullableString(),
        memberEpoch: r.int32(),
        clientId: r.compactString(),
        clientHost: r.compactString(),
        subscribedTopicNames: r.compactArray(str),
        assignment: readAssignment(r),
      }
      r.tags()
      return m
    })
    r.int32()
    r.tags()
    return {...header, members}
  })
  r.tags()
  return groups
}

export interface StreamsTopicInfo {
  readonly name: string
  readonly partitions: number
  readonly replicationFactor: number
  readonly topicConfigs: Array<{key: string; value: string}>
}

export interface StreamsSubtopology {
  readonly subtopologyId: string
  readonly sourceTopics: string[]
  readonly repartitionSinkTopics: string[]
  readonly stateChangelogTopics: StreamsTopicInfo[]
  readonly repartitionSourceTopics: StreamsTopicInfo[]
}

export interface StreamsTaskIds {
  readonly subtopologyId: string
  readonly partitions: number[]
}

export interface StreamsAssignment {
  readonly activeTasks: StreamsTaskIds[]
  readonly standbyTasks: StreamsTaskIds[]
  readonly warmupTasks: StreamsTaskIds[]
}

export interface StreamsTaskOffset {
  readonly subtopologyId: string
  readonly partition: number
  readonly offset: bigint
}

export interface StreamsGroupMember {
  readonly memberId: string
  readonly memberEpoch: number
  readonly instanceId: string | null
  readonly rackId: string | null
  readonly clientId: string
  readonly clientHost: string
  readonly topologyEpoch: number
  readonly processId: string
  readonly userEndpoint: {host: string; port: number} | null
  readonly clientTags: Array<{key: string; value: string}>
  readonly taskOffsets: StreamsTaskOffset[]
  readonly taskEndOffsets: StreamsTaskOffset[]
  readonly assignment: StreamsAssignment
  readonly targetAssignment: StreamsAssignment
  readonly isClassic: boolean
}

export interface StreamsGroupDescription extends DescribeError {
  readonly groupId: string
  readonly state: string
  readonly groupEpoch: number
  readonly assignmentEpoch: number
  readonly topology: {epoch: number; subtopologies: StreamsSubtopology[] | null} | null
  readonly members: StreamsGroupMember[]
  /** v1+ (KIP-1357); null before. */
  readonly assignorName: string | null
}

const keyValue = (r: ByteReader) => {
  const kv = {key: r.compactString(), value: r.compactString()}
  r.tags()
  return kv
}

const topicInfo = (r: ByteReader): StreamsTopicInfo => {
  const t = {name: r.compactString(), partitions: r.int32(), replicationFactor: r.int16(), topicConfigs: r.compactArray(keyValue)}
  r.tags()
  return t
}

const taskIds = (r: ByteReader): StreamsTaskIds => {
  const t = {subtopologyId: r.compactString(), partitions: r.compactArray(int32)}
  r.tags()
  return t
}

const taskOffset = (r: ByteReader): StreamsTaskOffset => {
  const t = {subtopologyId: r.compactString(), partition: r.int32(), offset: r.int64()}
  r.tags()
  return t
}

function streamsAssignment(r: ByteReader): StreamsAssignment {
  const a = {activeTasks: r.compactArray(taskIds), standbyTasks: r.compactArray(taskIds), warmupTasks: r.compactArray(taskIds)}
  r.tags()
  return a
}

/** Skips a TopologyDescriptionNode (v1+). */
function skipTopologyNode(r: ByteReader): void {
  r.compactString()
  r.int8()
  r.compactArray(str)
  r.compactNullableString()
  r.compactArray(str)
  r.compactArray(str)
  r.tags()
}

export function decodeStreamsGroupDescribe(buf: Buffer, version: number): StreamsGroupDescription[] {
  const r = new ByteReader(buf)
  r.int32()
  const groups = r.compactArray(r => {
    const errorCode = r.int16()
    const errorMessage = r.compactNullableString()
    const groupId = r.compactString()
    const state = r.compactString()
    const groupEpoch = r.int32()
    const assignmentEpoch = r.int32()
    let topology: StreamsGroupDescription['topology'] = null
    if (r.int8() >= 0) {
      const epoch = r.int32()
      const subtopologies = r.compactNullableArray(r => {
        const s = {
          subtopologyId: r.compactString(),
          sourceTopics: r.compactArray(str),
          repartitionSinkTopics: r.compactArray(str),
          stateChangelogTopics: r.compactArray(topicInfo),
          repartitionSourceTopics: r.compactArray(topicInfo),
        }
        r.tags()
        return s
      })
      r.tags()
      topology = {epoch, subtopologies}
    }
    const members = r.compactArray(r => {
      const memberId = r.compactString()
      const memberEpoch = r.int32()
      const instanceId = r.compactNullableString()
      const rackId = r.compactNullableString()
      const clientId = r.compactString()
      const clientHost = r.compactString()
      const topologyEpoch = r.int32()
      const processId = r.compactString()
      let userEndpoint: StreamsGroupMember['userEndpoint'] = null
      if (r.int8() >= 0) {
        userEndpoint = {host: r.compactString(), port: r.uint16()}
        r.tags()
      }
      const m = {
        memberId,
        memberEpoch,
        instanceId,
        rackId,
        clientId,
        clientHost,
        topologyEpoch,
        processId,
        userEndpoint,
        clientTags: r.compactArray(keyValue),
        taskOffsets: r.compactArray(taskOffset),
        taskEndOffsets: r.compactArray(taskOffset),
        assignment: streamsAssignment(r),
        targetAssignment: streamsAssignment(r),
        isClassic: r.bool(),
      }
      r.tags()
      return m
    })
    r.int32() // authorized operations
    let assignorName: string | null = null
    if (version >= 1) {
      if (r.int8() >= 0) {
        // TopologyDescription: Subtopologies[]{Id, Nodes[]}, GlobalStores[]{Source, Processor}
        r.compactArray(r => {
          r.compactString()
          r.compactArray(skipTopologyNode)
          r.tags()
        })
        r.compactArray(r => {
          skipTopologyNode(r)
          skipTopologyNode(r)
          r.tags()
        })
        r.tags()
      }
      r.int8() // TopologyDescriptionStatus
      assignorName = r.compactNullableString()
    }
    r.tags()
    return {errorCode, errorMessage, groupId, state, groupEpoch, assignmentEpoch, topology, members, assignorName}
  })
  r.tags()
  return groups
}

// ---------------------------------------------------------------- ListOffsets v7 (flexible)
export const EARLIEST_TIMESTAMP = -2n
export const LATEST_TIMESTAMP = -1n

/** isolation 1 = read_committed: LATEST then answers the last stable offset. */
export function encodeListOffsetsV7(topic: string, partition: number, timestamp: bigint, isolation: 0 | 1): Buffer {
  return new ByteWriter()
    .int32(-1) // ReplicaId: a consumer
    .int8(isolation)
    .compactArray([topic], (w, t) =>
      w.compactString(t).compactArray([partition], (w, p) => w.int32(p).int32(-1).int64(timestamp).tags()).tags(),
    )
    .tags()
    .toBuffer()
}

export function decodeListOffsetsV7(buf: Buffer): {errorCode: number; offset: bigint} {
  const r = new ByteReader(buf)
  r.int32()
  let out = {errorCode: -1, offset: -1n}
  r.compactArray(r => {
    r.compactString()
    r.compactArray(r => {
      r.int32()
      const errorCode = r.int16()
      r.int64() // timestamp
      const offset = r.int64()
      r.int32() // leader epoch
      r.tags()
      out = {errorCode, offset}
    })
    r.tags()
  })
  r.tags()
  return out
}

/** Many partitions in one ListOffsets v7 request (all led by the broker it is sent to). */
export function encodeListOffsetsV7Many(topics: ReadonlyMap<string, readonly number[]>, timestamp: bigint, isolation: 0 | 1): Buffer {
  return new ByteWriter()
    .int32(-1) // ReplicaId: a consumer
    .int8(isolation)
    .compactArray([...topics], (w, [t, ps]) =>
      w.compactString(t).compactArray(ps, (w, p) => w.int32(p).int32(-1).int64(timestamp).tags()).tags(),
    )
    .tags()
    .toBuffer()
}

export interface ListedOffset {
  readonly topic: string
  readonly partition: number
  readonly errorCode: number
  readonly offset: bigint
}

export function decodeListOffsetsV7Many(buf: Buffer): ListedOffset[] {
  const r = new ByteReader(buf)
  r.int32()
  const out: ListedOffset[] = []
  r.compactArray(r => {
    const topic = r.compactString()
    r.compactArray(r => {
      const partition = r.int32()
      const errorCode = r.int16()
      r.int64() // timestamp
      const offset = r.int64()
      r.int32() // leader epoch
      r.tags()
      out.push({topic, partition, errorCode, offset})
    })
    r.tags()
  })
  r.tags()
  return out
}

// ---------------------------------------------------------------- Fetch v12 (flexible, topics by name, no session)
export interface FetchPartitionResponse {
  readonly errorCode: number
  readonly highWatermark: bigint
  readonly lastStableOffset: bigint
  readonly logStartOffset: bigint
  readonly abortedTransactions: Array<{producerId: bigint; firstOffset: bigint}>
  readonly records: Buffer | null
}

/** A one-partition full fetch without a fetch session and without a group: what a read-only reader needs. */
export function encodeFetchV12(topic: string, partition: number, offset: bigint, maxBytes: number, isolation: 0 | 1, maxWaitMs = 0): Buffer {
  return new ByteWriter()
    .int32(-1) // ReplicaId: a consumer
    .int32(maxWaitMs)
    .int32(1) // MinBytes
    .int32(maxBytes)
    .int8(isolation)
    .int32(0) // SessionId: none
    .int32(-1) // SessionEpoch: full fetch, no session
    .compactArray([topic], (w, t) =>
      w
        .compactString(t)
        .compactArray([partition], (w, p) => w.int32(p).int32(-1).int64(offset).int32(-1).int64(-1n).int32(maxBytes).tags())
        .tags(),
    )
    .compactArray([], () => {}) // ForgottenTopicsData
    .compactString('') // RackId
    .tags()
    .toBuffer()
}

export function decodeFetchV12(buf: Buffer): {errorCode: number; partition: FetchPartitionResponse | undefined} {
  const r = new ByteReader(buf)
  r.int32()
  const errorCode = r.int16()
  r.int32() // session id
  let partition: FetchPartitionResponse | undefined
  r.compactArray(r => {
    r.compactString()
    r.compactArray(r => {
      r.int32()
      const p = {
        errorCode: r.int16(),
        highWatermark: r.int64(),
        lastStableOffset: r.int64(),
        logStartOffset: r.int64(),
        abortedTransactions:
          r.compactNullableArray(r => {
            const t = {producerId: r.int64(), firstOffset: r.int64()}
            r.tags()
            return t
          }) ?? [],
      }
      r.int32() // preferred read replica
      const records = r.compactNullableBytes()
      r.tags()
      partition = {...p, records: records ? Buffer.from(records) : null}
    })
    r.tags()
  })
  r.tags()
  return {errorCode, partition}
}
