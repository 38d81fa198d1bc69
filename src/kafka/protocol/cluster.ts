/**
 * The cluster-wide read-only APIs: ApiVersions, SASL, Metadata, DescribeTopicPartitions, DescribeCluster,
 * ListPartitionReassignments, FindCoordinator and ListGroups. Each decoder reads its body as a declared
 * interface (Kafka's field names, see ./body.ts decodeAs) and maps it to the shape the client uses.
 */
import {ByteReader} from '../../core/records/bytes.js'
import * as Req from '../messages/requests.js'
import * as Res from '../messages/responses.js'
import {decodeAs, encodeBody, uuidBytes} from './body.js'

// ---------------------------------------------------------------- ApiVersions v3 (response header v0)
export interface ApiVersionRange {
  readonly min: number
  readonly max: number
}

interface ApiVersionsBody {
  ApiKeys: Array<{ApiKey: number; MinVersion: number; MaxVersion: number}>
  FinalizedFeaturesEpoch: bigint
  FinalizedFeatures: Array<{Name: string; MaxVersionLevel: number; MinVersionLevel: number}> | undefined
}

export function encodeApiVersionsV3(softwareName: string, softwareVersion: string): Buffer {
  return encodeBody(Req.ApiVersionsRequest, 3, {ClientSoftwareName: softwareName, ClientSoftwareVersion: softwareVersion})
}

/**
 * The API version ranges, and the cluster's finalized feature levels (name → max version level) as this broker
 * knows them, null when it sent none (a finalized-features epoch below 0: unknown).
 */
export function decodeApiVersionsV3(buf: Buffer): {errorCode: number; apis: Map<number, ApiVersionRange>; features: Map<string, number> | null} {
  // On UNSUPPORTED_VERSION the broker answers in v0 layout (non-compact array); we only need the error then.
  const errorCode = new ByteReader(buf).int16()
  const apis = new Map<number, ApiVersionRange>()
  if (errorCode !== 0) return {errorCode, apis, features: null}
  const body = decodeAs<ApiVersionsBody>(Res.ApiVersionsResponse, 3, buf)
  for (const a of body.ApiKeys) apis.set(a.ApiKey, {min: a.MinVersion, max: a.MaxVersion})
  const features = body.FinalizedFeaturesEpoch >= 0n ? new Map((body.FinalizedFeatures ?? []).map(f => [f.Name, f.MaxVersionLevel] as const)) : null
  return {errorCode, apis, features}
}

// ---------------------------------------------------------------- SaslHandshake v1, SaslAuthenticate v2
interface SaslHandshakeBody {
  ErrorCode: number
  Mechanisms: string[]
}

interface SaslAuthenticateBody {
  ErrorCode: number
  ErrorMessage: string | null
  AuthBytes: Uint8Array
  SessionLifetimeMs: bigint
}

export function encodeSaslHandshakeV1(mechanism: string): Buffer {
  return encodeBody(Req.SaslHandshakeRequest, 1, {Mechanism: mechanism})
}

export function decodeSaslHandshakeV1(buf: Buffer): {errorCode: number; mechanisms: string[]} {
  const r = decodeAs<SaslHandshakeBody>(Res.SaslHandshakeResponse, 1, buf)
  return {errorCode: r.ErrorCode, mechanisms: r.Mechanisms}
}

export function encodeSaslAuthenticateV2(authBytes: Uint8Array): Buffer {
  return encodeBody(Req.SaslAuthenticateRequest, 2, {AuthBytes: authBytes})
}

export function decodeSaslAuthenticateV2(buf: Buffer): {errorCode: number; errorMessage: string | null; authBytes: Buffer; sessionLifetimeMs: number} {
  const r = decodeAs<SaslAuthenticateBody>(Res.SaslAuthenticateResponse, 2, buf)
  const bytes = r.AuthBytes
  return {
    errorCode: r.ErrorCode,
    errorMessage: r.ErrorMessage,
    authBytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
    sessionLifetimeMs: Number(r.SessionLifetimeMs),
  }
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

/** A topic of Metadata v12 and of DescribeTopicPartitions v0 (whose ELR lists are read and dropped). */
interface TopicBody {
  ErrorCode: number
  Name: string | null
  TopicId: string
  IsInternal: boolean
  Partitions: Array<{ErrorCode: number; PartitionIndex: number; LeaderId: number; ReplicaNodes: number[]; IsrNodes: number[]; OfflineReplicas: number[]}>
}

interface MetadataBody {
  Brokers: Array<{NodeId: number; Host: string; Port: number; Rack: string | null}>
  ClusterId: string | null
  ControllerId: number
  Topics: TopicBody[]
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
function wireTopic(t: TopicBody): WireTopic {
  return {
    errorCode: t.ErrorCode,
    name: t.Name,
    topicId: uuidBytes(t.TopicId),
    internal: t.IsInternal,
    partitions: t.Partitions.map(p => ({
      errorCode: p.ErrorCode,
      partition: p.PartitionIndex,
      leaderId: p.LeaderId,
      replicas: p.ReplicaNodes,
      isr: p.IsrNodes,
      offline: p.OfflineReplicas,
    })),
  }
}

export function decodeMetadataV12(buf: Buffer): MetadataResponse {
  const m = decodeAs<MetadataBody>(Res.MetadataResponse, 12, buf)
  return {
    brokers: m.Brokers.map(b => ({
      id: b.NodeId,
      host: b.Host,
      port: b.Port,
      rack: b.Rack,
      fenced: false,
    })),
    clusterId: m.ClusterId,
    controllerId: m.ControllerId,
    topics: m.Topics.map(wireTopic),
  }
}

// ---------------------------------------------------------------- DescribeTopicPartitions v0
export interface TopicPartitionCursor {
  readonly topicName: string
  readonly partitionIndex: number
}

interface DescribeTopicPartitionsBody {
  Topics: TopicBody[]
  NextCursor: {TopicName: string; PartitionIndex: number} | null
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
  const m = decodeAs<DescribeTopicPartitionsBody>(Res.DescribeTopicPartitionsResponse, 0, buf)
  const c = m.NextCursor
  return {topics: m.Topics.map(wireTopic), nextCursor: c && {topicName: c.TopicName, partitionIndex: c.PartitionIndex}}
}

// ---------------------------------------------------------------- DescribeCluster v0-2
interface DescribeClusterBody {
  ErrorCode: number
  ErrorMessage: string | null
  ClusterId: string
  ControllerId: number
  /** IsFenced is v2+; before, the codec gives its default, false. */
  Brokers: Array<{BrokerId: number; Host: string; Port: number; Rack: string | null; IsFenced: boolean}>
}

export function encodeDescribeCluster(version: number, includeFenced: boolean): Buffer {
  // EndpointType 1: brokers (v1+); IncludeFencedBrokers is v2+.
  return encodeBody(Req.DescribeClusterRequest, version, {IncludeClusterAuthorizedOperations: false, EndpointType: 1, IncludeFencedBrokers: includeFenced})
}

export function decodeDescribeCluster(
  buf: Buffer,
  version: number,
): {errorCode: number; errorMessage: string | null; clusterId: string; controllerId: number; brokers: WireBroker[]} {
  const m = decodeAs<DescribeClusterBody>(Res.DescribeClusterResponse, version, buf)
  return {
    errorCode: m.ErrorCode,
    errorMessage: m.ErrorMessage,
    clusterId: m.ClusterId,
    controllerId: m.ControllerId,
    brokers: m.Brokers.map(b => ({
      id: b.BrokerId,
      host: b.Host,
      port: b.Port,
      rack: b.Rack,
      fenced: b.IsFenced,
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

interface ListPartitionReassignmentsBody {
  ErrorCode: number
  ErrorMessage: string | null
  Topics: Array<{Name: string; Partitions: Array<{PartitionIndex: number; Replicas: number[]; AddingReplicas: number[]; RemovingReplicas: number[]}>}>
}

/** All reassignments in flight (Topics null). Read-only: it lists, it never alters. */
export function encodeListPartitionReassignmentsV0(timeoutMs: number): Buffer {
  return encodeBody(Req.ListPartitionReassignmentsRequest, 0, {TimeoutMs: timeoutMs, Topics: null})
}

export function decodeListPartitionReassignmentsV0(buf: Buffer): {errorCode: number; errorMessage: string | null; reassignments: WireReassignment[]} {
  const m = decodeAs<ListPartitionReassignmentsBody>(Res.ListPartitionReassignmentsResponse, 0, buf)
  const reassignments = m.Topics.flatMap(t =>
    t.Partitions.map(p => ({
      topic: t.Name,
      partition: p.PartitionIndex,
      replicas: p.Replicas,
      addingReplicas: p.AddingReplicas,
      removingReplicas: p.RemovingReplicas,
    })),
  )
  return {errorCode: m.ErrorCode, errorMessage: m.ErrorMessage, reassignments}
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

interface FindCoordinatorBody {
  Coordinators: Array<{Key: string; NodeId: number; Host: string; Port: number; ErrorCode: number; ErrorMessage: string | null}>
}

/** keyType 0 = group (consumer, classic, share and streams groups all use it). */
export function encodeFindCoordinator(keys: readonly string[], keyType = 0, version = 4): Buffer {
  return encodeBody(Req.FindCoordinatorRequest, version, {KeyType: keyType, CoordinatorKeys: [...keys]})
}

export function decodeFindCoordinator(buf: Buffer, version = 4): WireCoordinator[] {
  return decodeAs<FindCoordinatorBody>(Res.FindCoordinatorResponse, version, buf).Coordinators.map(c => ({
    key: c.Key,
    nodeId: c.NodeId,
    host: c.Host,
    port: c.Port,
    errorCode: c.ErrorCode,
    errorMessage: c.ErrorMessage,
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

interface ListedGroupBody {
  GroupId: string
  ProtocolType: string
  GroupState: string
  GroupType: string
}

/** Groups: read element by element (decodeAs' sinks), its count here. */
interface ListGroupsBody {
  ErrorCode: number
  Groups: number
}

export function encodeListGroupsV5(states: readonly string[] = [], types: readonly string[] = []): Buffer {
  return encodeBody(Req.ListGroupsRequest, 5, {StatesFilter: [...states], TypesFilter: [...types]})
}

/**
 * The groups a broker lists, each made as it is read: a million groups' decoded structs never exist at once, only
 * the ListedGroup made of each.
 */
export function decodeListGroupsV5(buf: Buffer): {errorCode: number; groups: ListedGroup[]} {
  // Protocol types, states and types repeat across a cluster's (maybe millions of) groups: one string each.
  const text = interned(v => v)
  const type = interned(v => v.toLowerCase())
  const groups: ListedGroup[] = []
  const m = decodeAs<ListGroupsBody, {Groups: ListedGroupBody}>(Res.ListGroupsResponse, 5, buf, {
    Groups: g => groups.push({groupId: g.GroupId, protocolType: text(g.ProtocolType), state: text(g.GroupState), type: type(g.GroupType)}),
  })
  return {errorCode: m.ErrorCode, groups}
}

/** `f(v)` made once per distinct v, up to 256 of them (hostile input cannot grow the memo). */
function interned(f: (v: string) => string): (v: string) => string {
  const memo = new Map<string, string>()
  return v => {
    let x = memo.get(v)
    if (x === undefined) {
      x = f(v)
      if (memo.size < 256) memo.set(v, x)
    }
    return x
  }
}
