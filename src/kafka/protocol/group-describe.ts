/**
 * The group describes: ConsumerGroupDescribe (69), ShareGroupDescribe (77), StreamsGroupDescribe (89). Each decoder
 * reads its body as a declared interface (Kafka's field names, see ./body.ts decodeAs) and maps it to the shape the
 * client uses.
 */
import type {MessageSpec} from '../../core/records/spec.js'
import * as Req from '../messages/requests.js'
import * as Res from '../messages/responses.js'
import {API, decodeAs, encodeBody, uuidBytes} from './body.js'

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

// The bodies as decoded (Kafka's field names): what the three describes share, then each one's own.
interface AssignmentBody {
  TopicPartitions: Array<{TopicId: string; TopicName: string; Partitions: number[]}>
}

/** Streams: AssignorName is v1+, null before; the other two always have one. */
interface GroupHeaderBody {
  ErrorCode: number
  ErrorMessage: string | null
  GroupId: string
  GroupState: string
  GroupEpoch: number
  AssignmentEpoch: number
  AssignorName: string | null
}

interface MemberHeaderBody {
  MemberId: string
  RackId: string | null
  MemberEpoch: number
  ClientId: string
  ClientHost: string
}

interface ConsumerGroupDescribeBody {
  Groups: Array<
    GroupHeaderBody & {
      AssignorName: string
      Members: Array<
        MemberHeaderBody & {
          InstanceId: string | null
          SubscribedTopicNames: string[]
          SubscribedTopicRegex: string | null
          Assignment: AssignmentBody
          TargetAssignment: AssignmentBody
          MemberType: number
        }
      >
    }
  >
}

interface ShareGroupDescribeBody {
  Groups: Array<GroupHeaderBody & {AssignorName: string; Members: Array<MemberHeaderBody & {SubscribedTopicNames: string[]; Assignment: AssignmentBody}>}>
}

function assignment(a: AssignmentBody): TopicPartitions[] {
  return a.TopicPartitions.map(tp => ({topicId: uuidBytes(tp.TopicId), topicName: tp.TopicName, partitions: tp.Partitions}))
}

/** The group fields the three describes share (streams: AssignorName v1+, null before). */
function groupHeader<G extends GroupHeaderBody>(
  g: G,
): DescribeError & {groupId: string; state: string; groupEpoch: number; assignmentEpoch: number; assignorName: G['AssignorName']} {
  return {
    errorCode: g.ErrorCode,
    errorMessage: g.ErrorMessage,
    groupId: g.GroupId,
    state: g.GroupState,
    groupEpoch: g.GroupEpoch,
    assignmentEpoch: g.AssignmentEpoch,
    assignorName: g.AssignorName,
  }
}

/** The member fields the three describes share. */
function memberHeader(m: MemberHeaderBody) {
  return {
    memberId: m.MemberId,
    rackId: m.RackId,
    memberEpoch: m.MemberEpoch,
    clientId: m.ClientId,
    clientHost: m.ClientHost,
  }
}

export function decodeConsumerGroupDescribe(buf: Buffer, version: number): ConsumerGroupDescription[] {
  return decodeAs<ConsumerGroupDescribeBody>(Res.ConsumerGroupDescribeResponse, version, buf).Groups.map(g => ({
    ...groupHeader(g),
    members: g.Members.map(m => ({
      ...memberHeader(m),
      instanceId: m.InstanceId,
      subscribedTopicNames: m.SubscribedTopicNames,
      // Brokers send "" for "no regex"; both read as null.
      subscribedTopicRegex: m.SubscribedTopicRegex || null,
      assignment: assignment(m.Assignment),
      targetAssignment: assignment(m.TargetAssignment),
      memberType: m.MemberType,
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

/** v1 (4.1+), or v0: Kafka 4.0's early-access version, the same fields (kafka-clients 4.0.2's JSON; schemas.it). */
export function decodeShareGroupDescribe(buf: Buffer, version = 1): ShareGroupDescription[] {
  return decodeAs<ShareGroupDescribeBody>(Res.ShareGroupDescribeResponse, version, buf).Groups.map(g => ({
    ...groupHeader(g),
    members: g.Members.map(m => ({
      ...memberHeader(m),
      subscribedTopicNames: m.SubscribedTopicNames,
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

interface KeyValueBody {
  Key: string
  Value: string
}

interface TopicInfoBody {
  Name: string
  Partitions: number
  ReplicationFactor: number
  TopicConfigs: KeyValueBody[]
}

interface TaskIdsBody {
  SubtopologyId: string
  Partitions: number[]
}

interface TaskOffsetBody {
  SubtopologyId: string
  Partition: number
  Offset: bigint
}

interface StreamsAssignmentBody {
  ActiveTasks: TaskIdsBody[]
  StandbyTasks: TaskIdsBody[]
  WarmupTasks: TaskIdsBody[]
}

interface StreamsGroupDescribeBody {
  Groups: Array<
    GroupHeaderBody & {
      Topology: {
        Epoch: number
        Subtopologies: Array<{
          SubtopologyId: string
          SourceTopics: string[]
          RepartitionSinkTopics: string[]
          StateChangelogTopics: TopicInfoBody[]
          RepartitionSourceTopics: TopicInfoBody[]
        }> | null
      } | null
      Members: Array<
        MemberHeaderBody & {
          InstanceId: string | null
          TopologyEpoch: number
          ProcessId: string
          UserEndpoint: {Host: string; Port: number} | null
          ClientTags: KeyValueBody[]
          TaskOffsets: TaskOffsetBody[]
          TaskEndOffsets: TaskOffsetBody[]
          Assignment: StreamsAssignmentBody
          TargetAssignment: StreamsAssignmentBody
          IsClassic: boolean
        }
      >
    }
  >
}

const keyValues = (v: KeyValueBody[]) => v.map(kv => ({key: kv.Key, value: kv.Value}))

const topicInfos = (v: TopicInfoBody[]): StreamsTopicInfo[] =>
  v.map(t => ({
    name: t.Name,
    partitions: t.Partitions,
    replicationFactor: t.ReplicationFactor,
    topicConfigs: keyValues(t.TopicConfigs),
  }))

const taskIds = (v: TaskIdsBody[]): StreamsTaskIds[] => v.map(t => ({subtopologyId: t.SubtopologyId, partitions: t.Partitions}))

const taskOffsets = (v: TaskOffsetBody[]): StreamsTaskOffset[] => v.map(t => ({subtopologyId: t.SubtopologyId, partition: t.Partition, offset: t.Offset}))

function streamsAssignment(a: StreamsAssignmentBody): StreamsAssignment {
  return {activeTasks: taskIds(a.ActiveTasks), standbyTasks: taskIds(a.StandbyTasks), warmupTasks: taskIds(a.WarmupTasks)}
}

export function decodeStreamsGroupDescribe(buf: Buffer, version: number): StreamsGroupDescription[] {
  return decodeAs<StreamsGroupDescribeBody>(Res.StreamsGroupDescribeResponse, version, buf).Groups.map(g => {
    const t = g.Topology
    const subtopologies = t && t.Subtopologies
    return {
      ...groupHeader(g),
      // v1+ (KIP-1357); null before.
      assignorName: g.AssignorName,
      topology: t && {
        epoch: t.Epoch,
        subtopologies:
          subtopologies &&
          subtopologies.map(s => ({
            subtopologyId: s.SubtopologyId,
            sourceTopics: s.SourceTopics,
            repartitionSinkTopics: s.RepartitionSinkTopics,
            stateChangelogTopics: topicInfos(s.StateChangelogTopics),
            repartitionSourceTopics: topicInfos(s.RepartitionSourceTopics),
          })),
      },
      members: g.Members.map(m => {
        const e = m.UserEndpoint
        return {
          ...memberHeader(m),
          instanceId: m.InstanceId,
          topologyEpoch: m.TopologyEpoch,
          processId: m.ProcessId,
          userEndpoint: e && {host: e.Host, port: e.Port},
          clientTags: keyValues(m.ClientTags),
          taskOffsets: taskOffsets(m.TaskOffsets),
          taskEndOffsets: taskOffsets(m.TaskEndOffsets),
          assignment: streamsAssignment(m.Assignment),
          targetAssignment: streamsAssignment(m.TargetAssignment),
          isClassic: m.IsClassic,
        }
      }),
    }
  })
}
