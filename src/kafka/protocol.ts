/**
 * The read-only Kafka APIs the tool uses: request encoders and response decoders over the one generic codec
 * (src/core/records/codec.ts, the same that reads coordinator records), driven by the message specs in
 * ./messages/ (Kafka's message JSON as data, for the versions we send). This file maps the generic decoded
 * structs (Kafka's field names) to the typed shapes the client uses. Pure: bytes in, data out.
 *
 * Only read-only APIs are here: no JoinGroup, OffsetCommit, CreateTopics or anything that changes the cluster.
 */
import {planFor, readStruct, writeStruct, type StructValue} from '../core/records/codec.js'
import {ByteReader, ByteWriter} from '../core/records/bytes.js'
import {DecodeFault} from '../core/records/errors.js'
import type {MessageSpec} from '../core/records/spec.js'
import {uuidFromString} from '../core/uuid.js'
import * as Req from './messages/requests.js'
import * as Res from './messages/responses.js'
import {ProtocolDecodeError} from './wire.js'

export const API = {
  Fetch: 1,
  ListOffsets: 2,
  OffsetFetch: 9,
  DescribeConfigs: 32,
  Metadata: 3,
  FindCoordinator: 10,
  DescribeGroups: 15,
  ListGroups: 16,
  ListPartitionReassignments: 46,
  ApiVersions: 18,
  DescribeCluster: 60,
  ConsumerGroupDescribe: 69,
  DescribeTopicPartitions: 75,
  ShareGroupDescribe: 77,
  StreamsGroupDescribe: 89,
  // authentication of a connection (SASL), before any other request
  SaslHandshake: 17,
  SaslAuthenticate: 36,
} as const

export const API_NAMES: Record<number, string> = Object.fromEntries(Object.entries(API).map(([k, v]) => [v, k]))

/** A request body: `value` holds Kafka's field names; absent fields take their spec defaults. */
export function encodeBody(spec: MessageSpec, version: number, value: StructValue): Buffer {
  const w = new ByteWriter()
  writeStruct(w, planFor(spec, version), value)
  const bytes = w.finish()
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
}

/** A response body as a generic struct (Kafka's field names); lengths are checked before any allocation. */
export function decodeBody(spec: MessageSpec, version: number, buf: Uint8Array): StructValue {
  try {
    return readStruct(new ByteReader(buf), planFor(spec, version))
  } catch (error) {
    if (!(error instanceof DecodeFault)) throw error
    const field = error.path.reduce((s, p) => (p.startsWith('[') || !s ? s + p : `${s}.${p}`), '')
    throw new ProtocolDecodeError(`${spec.name} v${version}${field ? ` at ${field}` : ''}: ${error.reason} (byte ${error.position} of ${buf.length})`)
  }
}

type S = StructValue
const structs = (v: unknown) => v as S[]
const ints = (v: unknown) => v as number[]
const uuidBytes = (v: unknown) => uuidFromString(v as string).bytes

// ---------------------------------------------------------------- ApiVersions v3 (response header v0)
export interface ApiVersionRange {
  readonly min: number
  readonly max: number
}

export function encodeApiVersionsV3(softwareName: string, softwareVersion: string): Buffer {
  return encodeBody(Req.ApiVersionsRequest, 3, {ClientSoftwareName: softwareName, ClientSoftwareVersion: softwareVersion})
}

export function decodeApiVersionsV3(buf: Buffer): {errorCode: number; apis: Map<number, ApiVersionRange>} {
  // On UNSUPPORTED_VERSION the broker answers in v0 layout (non-compact array); we only need the error then.
  const errorCode = new ByteReader(buf).int16()
  const apis = new Map<number, ApiVersionRange>()
  if (errorCode !== 0) return {errorCode, apis}
  for (const a of structs(decodeBody(Res.ApiVersionsResponse, 3, buf).ApiKeys))
    apis.set(a.ApiKey as number, {min: a.MinVersion as number, max: a.MaxVersion as number})
  return {errorCode, apis}
}

// ---------------------------------------------------------------- SaslHandshake v1, SaslAuthenticate v2
export function encodeSaslHandshakeV1(mechanism: string): Buffer {
  return encodeBody(Req.SaslHandshakeRequest, 1, {Mechanism: mechanism})
}

export function decodeSaslHandshakeV1(buf: Buffer): {errorCode: number; mechanisms: string[]} {
  const r = decodeBody(Res.SaslHandshakeResponse, 1, buf)
  return {errorCode: r.ErrorCode as number, mechanisms: r.Mechanisms as string[]}
}

export function encodeSaslAuthenticateV2(authBytes: Uint8Array): Buffer {
  return encodeBody(Req.SaslAuthenticateRequest, 2, {AuthBytes: authBytes})
}

export function decodeSaslAuthenticateV2(buf: Buffer): {errorCode: number; errorMessage: string | null; authBytes: Buffer} {
  const r = decodeBody(Res.SaslAuthenticateResponse, 2, buf)
  const bytes = r.AuthBytes as Uint8Array
  return {errorCode: r.ErrorCode as number, errorMessage: r.ErrorMessage as string | null, authBytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)}
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
  return encodeBody(Req.MetadataRequest, 12, {
    Topics: topics && topics.map(Name => ({Name})),
    AllowAutoTopicCreation: false,
    IncludeTopicAuthorizedOperations: false,
  })
}

/** Metadata v12 and DescribeTopicPartitions v0 topics (the latter's ELR lists are read and dropped). */
function wireTopic(t: S): WireTopic {
  return {
    errorCode: t.ErrorCode as number,
    name: t.Name as string | null,
    topicId: uuidBytes(t.TopicId),
    internal: t.IsInternal as boolean,
    partitions: structs(t.Partitions).map(p => ({
      errorCode: p.ErrorCode as number,
      partition: p.PartitionIndex as number,
      leaderId: p.LeaderId as number,
      replicas: ints(p.ReplicaNodes),
      isr: ints(p.IsrNodes),
      offline: ints(p.OfflineReplicas),
    })),
  }
}

export function decodeMetadataV12(buf: Buffer): MetadataResponse {
  const m = decodeBody(Res.MetadataResponse, 12, buf)
  return {
    brokers: structs(m.Brokers).map(b => ({
      id: b.NodeId as number,
      host: b.Host as string,
      port: b.Port as number,
      rack: b.Rack as string | null,
      fenced: false,
    })),
    clusterId: m.ClusterId as string | null,
    controllerId: m.ControllerId as number,
    topics: structs(m.Topics).map(wireTopic),
  }
}

// ---------------------------------------------------------------- DescribeTopicPartitions v0
export interface TopicPartitionCursor {
  readonly topicName: string
  readonly partitionIndex: number
}

/** `topics` empty = all topics. */
export function encodeDescribeTopicPartitionsV0(topics: readonly string[], partitionLimit: number, cursor: TopicPartitionCursor | null): Buffer {
  return encodeBody(Req.DescribeTopicPartitionsRequest, 0, {
    Topics: topics.map(Name => ({Name})),
    ResponsePartitionLimit: partitionLimit,
    Cursor: cursor && {TopicName: cursor.topicName, PartitionIndex: cursor.partitionIndex},
  })
}

export function decodeDescribeTopicPartitionsV0(buf: Buffer): {topics: WireTopic[]; nextCursor: TopicPartitionCursor | null} {
  const m = decodeBody(Res.DescribeTopicPartitionsResponse, 0, buf)
  const c = m.NextCursor as S | null
  return {topics: structs(m.Topics).map(wireTopic), nextCursor: c && {topicName: c.TopicName as string, partitionIndex: c.PartitionIndex as number}}
}

// ---------------------------------------------------------------- DescribeCluster v0-2
export function encodeDescribeCluster(version: number, includeFenced: boolean): Buffer {
  // EndpointType 1: brokers (v1+); IncludeFencedBrokers is v2+.
  return encodeBody(Req.DescribeClusterRequest, version, {IncludeClusterAuthorizedOperations: false, EndpointType: 1, IncludeFencedBrokers: includeFenced})
}

export function decodeDescribeCluster(
  buf: Buffer,
  version: number,
): {errorCode: number; errorMessage: string | null; clusterId: string; controllerId: number; brokers: WireBroker[]} {
  const m = decodeBody(Res.DescribeClusterResponse, version, buf)
  return {
    errorCode: m.ErrorCode as number,
    errorMessage: m.ErrorMessage as string | null,
    clusterId: m.ClusterId as string,
    controllerId: m.ControllerId as number,
    brokers: structs(m.Brokers).map(b => ({
      id: b.BrokerId as number,
      host: b.Host as string,
      port: b.Port as number,
      rack: b.Rack as string | null,
      fenced: b.IsFenced as boolean,
    })),
  }
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
  return encodeBody(Req.ListPartitionReassignmentsRequest, 0, {TimeoutMs: timeoutMs, Topics: null})
}

export function decodeListPartitionReassignmentsV0(buf: Buffer): {errorCode: number; errorMessage: string | null; reassignments: WireReassignment[]} {
  const m = decodeBody(Res.ListPartitionReassignmentsResponse, 0, buf)
  const reassignments = structs(m.Topics).flatMap(t =>
    structs(t.Partitions).map(p => ({
      topic: t.Name as string,
      partition: p.PartitionIndex as number,
      replicas: ints(p.Replicas),
      addingReplicas: ints(p.AddingReplicas),
      removingReplicas: ints(p.RemovingReplicas),
    })),
  )
  return {errorCode: m.ErrorCode as number, errorMessage: m.ErrorMessage as string | null, reassignments}
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
export function encodeFindCoordinator(keys: readonly string[], keyType = 0, version = 4): Buffer {
  return encodeBody(Req.FindCoordinatorRequest, version, {KeyType: keyType, CoordinatorKeys: [...keys]})
}

export function decodeFindCoordinator(buf: Buffer, version = 4): WireCoordinator[] {
  return structs(decodeBody(Res.FindCoordinatorResponse, version, buf).Coordinators).map(c => ({
    key: c.Key as string,
    nodeId: c.NodeId as number,
    host: c.Host as string,
    port: c.Port as number,
    errorCode: c.ErrorCode as number,
    errorMessage: c.ErrorMessage as string | null,
  }))
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
  return encodeBody(Req.ListGroupsRequest, 5, {StatesFilter: [...states], TypesFilter: [...types]})
}

export function decodeListGroupsV5(buf: Buffer): {errorCode: number; groups: ListedGroup[]} {
  const m = decodeBody(Res.ListGroupsResponse, 5, buf)
  // Protocol types, states and types repeat across a cluster's (maybe millions of) groups: one string each.
  const seen = new Map<string, string>()
  const one = (v: string) => seen.get(v) ?? (seen.size < 256 ? (seen.set(v, v), v) : v)
  const groups = structs(m.Groups).map(g => ({
    groupId: g.GroupId as string,
    protocolType: one(g.ProtocolType as string),
    state: one(g.GroupState as string),
    type: one((g.GroupType as string).toLowerCase()),
  }))
  return {errorCode: m.ErrorCode as number, groups}
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

const DESCRIBE_REQUESTS: Record<number, MessageSpec> = {
  [API.ConsumerGroupDescribe]: Req.ConsumerGroupDescribeRequest,
  [API.ShareGroupDescribe]: Req.ShareGroupDescribeRequest,
  [API.StreamsGroupDescribe]: Req.StreamsGroupDescribeRequest,
}

export function encodeGroupDescribe(groupIds: readonly string[], version = 0, apiKey: number = API.ConsumerGroupDescribe): Buffer {
  // IncludeTopologyDescription (streams v1+) stays false: we do not read the description.
  return encodeBody(DESCRIBE_REQUESTS[apiKey], version, {GroupIds: [...groupIds], IncludeAuthorizedOperations: false, IncludeTopologyDescription: false})
}

function assignment(a: unknown): TopicPartitions[] {
  return structs((a as S).TopicPartitions).map(tp => ({topicId: uuidBytes(tp.TopicId), topicName: tp.TopicName as string, partitions: ints(tp.Partitions)}))
}

/** The group fields the three describes share (streams: AssignorName v1+, null before). */
function groupHeader(g: S) {
  return {
    errorCode: g.ErrorCode as number,
    errorMessage: g.ErrorMessage as string | null,
    groupId: g.GroupId as string,
    state: g.GroupState as string,
    groupEpoch: g.GroupEpoch as number,
    assignmentEpoch: g.AssignmentEpoch as number,
    assignorName: g.AssignorName as string,
  }
}

/** The member fields the three describes share. */
function memberHeader(m: S) {
  return {
    memberId: m.MemberId as string,
    rackId: m.RackId as string | null,
    memberEpoch: m.MemberEpoch as number,
    clientId: m.ClientId as string,
    clientHost: m.ClientHost as string,
  }
}

export function decodeConsumerGroupDescribe(buf: Buffer, version: number): ConsumerGroupDescription[] {
  return structs(decodeBody(Res.ConsumerGroupDescribeResponse, version, buf).Groups).map(g => ({
    ...groupHeader(g),
    members: structs(g.Members).map(m => ({
      ...memberHeader(m),
      instanceId: m.InstanceId as string | null,
      subscribedTopicNames: m.SubscribedTopicNames as string[],
      // Brokers send "" for "no regex"; both read as null.
      subscribedTopicRegex: (m.SubscribedTopicRegex as string | null) || null,
      assignment: assignment(m.Assignment),
      targetAssignment: assignment(m.TargetAssignment),
      memberType: m.MemberType as number,
    })),
  }))
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
  return structs(decodeBody(Res.ShareGroupDescribeResponse, 1, buf).Groups).map(g => ({
    ...groupHeader(g),
    members: structs(g.Members).map(m => ({
      ...memberHeader(m),
      subscribedTopicNames: m.SubscribedTopicNames as string[],
      assignment: assignment(m.Assignment),
    })),
  }))
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

const keyValues = (v: unknown) => structs(v).map(kv => ({key: kv.Key as string, value: kv.Value as string}))

const topicInfos = (v: unknown): StreamsTopicInfo[] =>
  structs(v).map(t => ({
    name: t.Name as string,
    partitions: t.Partitions as number,
    replicationFactor: t.ReplicationFactor as number,
    topicConfigs: keyValues(t.TopicConfigs),
  }))

const taskIds = (v: unknown): StreamsTaskIds[] => structs(v).map(t => ({subtopologyId: t.SubtopologyId as string, partitions: ints(t.Partitions)}))

const taskOffsets = (v: unknown): StreamsTaskOffset[] =>
  structs(v).map(t => ({subtopologyId: t.SubtopologyId as string, partition: t.Partition as number, offset: t.Offset as bigint}))

function streamsAssignment(v: unknown): StreamsAssignment {
  const a = v as S
  return {activeTasks: taskIds(a.ActiveTasks), standbyTasks: taskIds(a.StandbyTasks), warmupTasks: taskIds(a.WarmupTasks)}
}

export function decodeStreamsGroupDescribe(buf: Buffer, version: number): StreamsGroupDescription[] {
  return structs(decodeBody(Res.StreamsGroupDescribeResponse, version, buf).Groups).map(g => {
    const t = g.Topology as S | null
    const subtopologies = t && (t.Subtopologies as S[] | null)
    return {
      ...groupHeader(g),
      // v1+ (KIP-1357); null before.
      assignorName: g.AssignorName as string | null,
      topology: t && {
        epoch: t.Epoch as number,
        subtopologies:
          subtopologies &&
          subtopologies.map(s => ({
            subtopologyId: s.SubtopologyId as string,
            sourceTopics: s.SourceTopics as string[],
            repartitionSinkTopics: s.RepartitionSinkTopics as string[],
            stateChangelogTopics: topicInfos(s.StateChangelogTopics),
            repartitionSourceTopics: topicInfos(s.RepartitionSourceTopics),
          })),
      },
      members: structs(g.Members).map(m => {
        const e = m.UserEndpoint as S | null
        return {
          ...memberHeader(m),
          instanceId: m.InstanceId as string | null,
          topologyEpoch: m.TopologyEpoch as number,
          processId: m.ProcessId as string,
          userEndpoint: e && {host: e.Host as string, port: e.Port as number},
          clientTags: keyValues(m.ClientTags),
          taskOffsets: taskOffsets(m.TaskOffsets),
          taskEndOffsets: taskOffsets(m.TaskEndOffsets),
          assignment: streamsAssignment(m.Assignment),
          targetAssignment: streamsAssignment(m.TargetAssignment),
          isClassic: m.IsClassic as boolean,
        }
      }),
    }
  })
}

// ---------------------------------------------------------------- ListOffsets v7 (flexible)
export const EARLIEST_TIMESTAMP = -2n
export const LATEST_TIMESTAMP = -1n

export interface ListedOffset {
  readonly topic: string
  readonly partition: number
  readonly errorCode: number
  readonly offset: bigint
}

/** Many partitions in one ListOffsets v7 request (all led by the broker it is sent to). isolation 1 = read_committed: LATEST then answers the last stable offset. */
export function encodeListOffsetsV7Many(topics: ReadonlyMap<string, readonly number[]>, timestamp: bigint, isolation: 0 | 1): Buffer {
  return encodeBody(Req.ListOffsetsRequest, 7, {
    ReplicaId: -1, // a consumer
    IsolationLevel: isolation,
    Topics: [...topics].map(([Name, ps]) => ({Name, Partitions: ps.map(PartitionIndex => ({PartitionIndex, CurrentLeaderEpoch: -1, Timestamp: timestamp}))})),
  })
}

export function encodeListOffsetsV7(topic: string, partition: number, timestamp: bigint, isolation: 0 | 1): Buffer {
  return encodeListOffsetsV7Many(new Map([[topic, [partition]]]), timestamp, isolation)
}

export function decodeListOffsetsV7Many(buf: Buffer): ListedOffset[] {
  return structs(decodeBody(Res.ListOffsetsResponse, 7, buf).Topics).flatMap(t =>
    structs(t.Partitions).map(p => ({
      topic: t.Name as string,
      partition: p.PartitionIndex as number,
      errorCode: p.ErrorCode as number,
      offset: p.Offset as bigint,
    })),
  )
}

/** The one partition asked for (the last answered, as brokers answer exactly what was asked). */
export function decodeListOffsetsV7(buf: Buffer): {errorCode: number; offset: bigint} {
  const last = decodeListOffsetsV7Many(buf).at(-1)
  return last ? {errorCode: last.errorCode, offset: last.offset} : {errorCode: -1, offset: -1n}
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
  return encodeBody(Req.FetchRequest, 12, {
    ReplicaId: -1, // a consumer
    MaxWaitMs: maxWaitMs,
    MinBytes: 1,
    MaxBytes: maxBytes,
    IsolationLevel: isolation,
    SessionId: 0, // no fetch session
    SessionEpoch: -1, // a full fetch
    Topics: [
      {
        Topic: topic,
        Partitions: [
          {Partition: partition, CurrentLeaderEpoch: -1, FetchOffset: offset, LastFetchedEpoch: -1, LogStartOffset: -1n, PartitionMaxBytes: maxBytes},
        ],
      },
    ],
    ForgottenTopicsData: [],
    RackId: '',
  })
}

/**
 * `throttleTimeMs` > 0: the broker throttles this principal (a quota) and expects no request to it before that
 * time has passed; a throttled fetch may come back with no partition at all.
 */
export function decodeFetchV12(buf: Buffer): {errorCode: number; throttleTimeMs: number; partition: FetchPartitionResponse | undefined} {
  const m = decodeBody(Res.FetchResponse, 12, buf)
  const p = structs(m.Responses)
    .flatMap(t => structs(t.Partitions))
    .at(-1)
  const records = p && (p.Records as Uint8Array | null)
  return {
    errorCode: m.ErrorCode as number,
    throttleTimeMs: m.ThrottleTimeMs as number,
    partition: p && {
      errorCode: p.ErrorCode as number,
      highWatermark: p.HighWatermark as bigint,
      lastStableOffset: p.LastStableOffset as bigint,
      logStartOffset: p.LogStartOffset as bigint,
      abortedTransactions: ((p.AbortedTransactions as S[] | null) ?? []).map(a => ({producerId: a.ProducerId as bigint, firstOffset: a.FirstOffset as bigint})),
      records: records ? Buffer.from(records.buffer, records.byteOffset, records.length) : null,
    },
  }
}
