/**
 * The response bodies we read, as data in the shape of Kafka's message JSON
 * (clients/src/main/resources/common/message/*Response.json), for the versions we send only. Decoded by the one
 * generic codec (src/core/records/codec.ts): every count and length is checked against the bytes left before
 * anything is allocated, and tagged fields not listed here (DivergingEpoch, SupportedFeatures, …) are skipped.
 */
import type {FieldSpec, MessageSpec} from '../../core/records/spec.js'
import {ErrorCode, ErrorMessage, ThrottleTimeMs} from './fields.js'

// The group APIs' bodies live in their own files; importers keep reading them all through this module.
export * from './group-responses.js'
export * from './streams-responses.js'

export const ApiVersionsResponse: MessageSpec = {
  name: 'ApiVersionsResponse',
  validVersions: '3',
  flexibleVersions: '3+',
  fields: [
    ErrorCode,
    {
      name: 'ApiKeys',
      type: '[]ApiVersion',
      versions: '0+',
      fields: [
        {name: 'ApiKey', type: 'int16', versions: '0+'},
        {name: 'MinVersion', type: 'int16', versions: '0+'},
        {name: 'MaxVersion', type: 'int16', versions: '0+'},
      ],
    },
    {name: 'ThrottleTimeMs', type: 'int32', versions: '1+'},
    // the cluster-wide finalized feature levels (group.version: the consumer group protocol; share, streams)
    {name: 'FinalizedFeaturesEpoch', type: 'int64', versions: '3+', tag: 1, taggedVersions: '3+', default: -1},
    {
      name: 'FinalizedFeatures',
      type: '[]FinalizedFeatureKey',
      versions: '3+',
      tag: 2,
      taggedVersions: '3+',
      fields: [
        {name: 'Name', type: 'string', versions: '3+'},
        {name: 'MaxVersionLevel', type: 'int16', versions: '3+'},
        {name: 'MinVersionLevel', type: 'int16', versions: '3+'},
      ],
    },
  ],
}

/** Metadata v12 and DescribeTopicPartitions v0 list partitions alike; the latter adds the ELR lists. */
function partitionFields(elr: boolean): FieldSpec[] {
  return [
    ErrorCode,
    {name: 'PartitionIndex', type: 'int32', versions: '0+'},
    {name: 'LeaderId', type: 'int32', versions: '0+'},
    {name: 'LeaderEpoch', type: 'int32', versions: '0+', default: -1},
    {name: 'ReplicaNodes', type: '[]int32', versions: '0+'},
    {name: 'IsrNodes', type: '[]int32', versions: '0+'},
    ...(elr
      ? [
          {name: 'EligibleLeaderReplicas', type: '[]int32', versions: '0+', nullableVersions: '0+', default: 'null'},
          {name: 'LastKnownElr', type: '[]int32', versions: '0+', nullableVersions: '0+', default: 'null'},
        ]
      : []),
    {name: 'OfflineReplicas', type: '[]int32', versions: '0+'},
  ]
}

function topicFields(elr: boolean): FieldSpec[] {
  return [
    ErrorCode,
    {name: 'Name', type: 'string', versions: '0+', nullableVersions: '0+'},
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'IsInternal', type: 'bool', versions: '0+'},
    {
      name: 'Partitions',
      type: `[]${elr ? 'DescribeTopicPartitionsResponsePartition' : 'MetadataResponsePartition'}`,
      versions: '0+',
      fields: partitionFields(elr),
    },
    {name: 'TopicAuthorizedOperations', type: 'int32', versions: '0+', default: -2147483648},
  ]
}

export const MetadataResponse: MessageSpec = {
  name: 'MetadataResponse',
  validVersions: '12',
  flexibleVersions: '9+',
  fields: [
    ThrottleTimeMs,
    {
      name: 'Brokers',
      type: '[]MetadataResponseBroker',
      versions: '0+',
      fields: [
        {name: 'NodeId', type: 'int32', versions: '0+'},
        {name: 'Host', type: 'string', versions: '0+'},
        {name: 'Port', type: 'int32', versions: '0+'},
        {name: 'Rack', type: 'string', versions: '1+', nullableVersions: '1+', default: 'null'},
      ],
    },
    {name: 'ClusterId', type: 'string', versions: '2+', nullableVersions: '2+', default: 'null'},
    {name: 'ControllerId', type: 'int32', versions: '1+', default: -1},
    {name: 'Topics', type: '[]MetadataResponseTopic', versions: '0+', fields: topicFields(false)},
  ],
}

const Cursor: FieldSpec = {
  name: 'NextCursor',
  type: 'Cursor',
  versions: '0+',
  nullableVersions: '0+',
  default: 'null',
  fields: [
    {name: 'TopicName', type: 'string', versions: '0+'},
    {name: 'PartitionIndex', type: 'int32', versions: '0+'},
  ],
}

export const DescribeTopicPartitionsResponse: MessageSpec = {
  name: 'DescribeTopicPartitionsResponse',
  validVersions: '0',
  flexibleVersions: '0+',
  fields: [ThrottleTimeMs, {name: 'Topics', type: '[]DescribeTopicPartitionsResponseTopic', versions: '0+', fields: topicFields(true)}, Cursor],
}

export const DescribeClusterResponse: MessageSpec = {
  name: 'DescribeClusterResponse',
  validVersions: '0-2',
  flexibleVersions: '0+',
  fields: [
    ThrottleTimeMs,
    ErrorCode,
    ErrorMessage,
    {name: 'EndpointType', type: 'int8', versions: '1+', default: 1},
    {name: 'ClusterId', type: 'string', versions: '0+'},
    {name: 'ControllerId', type: 'int32', versions: '0+', default: -1},
    {
      name: 'Brokers',
      type: '[]DescribeClusterBroker',
      versions: '0+',
      fields: [
        {name: 'BrokerId', type: 'int32', versions: '0+'},
        {name: 'Host', type: 'string', versions: '0+'},
        {name: 'Port', type: 'int32', versions: '0+'},
        {name: 'Rack', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'},
        {name: 'IsFenced', type: 'bool', versions: '2+'},
      ],
    },
    {name: 'ClusterAuthorizedOperations', type: 'int32', versions: '0+', default: -2147483648},
  ],
}

export const ListPartitionReassignmentsResponse: MessageSpec = {
  name: 'ListPartitionReassignmentsResponse',
  validVersions: '0',
  flexibleVersions: '0+',
  fields: [
    ThrottleTimeMs,
    ErrorCode,
    ErrorMessage,
    {
      name: 'Topics',
      type: '[]OngoingTopicReassignment',
      versions: '0+',
      fields: [
        {name: 'Name', type: 'string', versions: '0+'},
        {
          name: 'Partitions',
          type: '[]OngoingPartitionReassignment',
          versions: '0+',
          fields: [
            {name: 'PartitionIndex', type: 'int32', versions: '0+'},
            {name: 'Replicas', type: '[]int32', versions: '0+'},
            {name: 'AddingReplicas', type: '[]int32', versions: '0+'},
            {name: 'RemovingReplicas', type: '[]int32', versions: '0+'},
          ],
        },
      ],
    },
  ],
}

export const FindCoordinatorResponse: MessageSpec = {
  name: 'FindCoordinatorResponse',
  validVersions: '4-6',
  flexibleVersions: '3+',
  fields: [
    ThrottleTimeMs,
    {
      name: 'Coordinators',
      type: '[]Coordinator',
      versions: '4+',
      fields: [
        {name: 'Key', type: 'string', versions: '4+'},
        {name: 'NodeId', type: 'int32', versions: '4+'},
        {name: 'Host', type: 'string', versions: '4+'},
        {name: 'Port', type: 'int32', versions: '4+'},
        {name: 'ErrorCode', type: 'int16', versions: '4+'},
        {name: 'ErrorMessage', type: 'string', versions: '4+', nullableVersions: '4+'},
      ],
    },
  ],
}

export const ListGroupsResponse: MessageSpec = {
  name: 'ListGroupsResponse',
  validVersions: '5',
  flexibleVersions: '3+',
  fields: [
    ThrottleTimeMs,
    ErrorCode,
    {
      name: 'Groups',
      type: '[]ListedGroup',
      versions: '0+',
      fields: [
        {name: 'GroupId', type: 'string', versions: '0+'},
        {name: 'ProtocolType', type: 'string', versions: '0+'},
        {name: 'GroupState', type: 'string', versions: '4+'},
        {name: 'GroupType', type: 'string', versions: '5+'},
      ],
    },
  ],
}

// ---------------------------------------------------------------- partition reads

export const ListOffsetsResponse: MessageSpec = {
  name: 'ListOffsetsResponse',
  validVersions: '7',
  flexibleVersions: '6+',
  fields: [
    ThrottleTimeMs,
    {
      name: 'Topics',
      type: '[]ListOffsetsTopicResponse',
      versions: '0+',
      fields: [
        {name: 'Name', type: 'string', versions: '0+'},
        {
          name: 'Partitions',
          type: '[]ListOffsetsPartitionResponse',
          versions: '0+',
          fields: [
            {name: 'PartitionIndex', type: 'int32', versions: '0+'},
            ErrorCode,
            {name: 'Timestamp', type: 'int64', versions: '1+', default: -1},
            {name: 'Offset', type: 'int64', versions: '1+', default: -1},
            {name: 'LeaderEpoch', type: 'int32', versions: '4+', default: -1},
          ],
        },
      ],
    },
  ],
}

export const FetchResponse: MessageSpec = {
  name: 'FetchResponse',
  validVersions: '12',
  flexibleVersions: '12+',
  fields: [
    ThrottleTimeMs,
    {name: 'ErrorCode', type: 'int16', versions: '7+'},
    {name: 'SessionId', type: 'int32', versions: '7+'},
    {
      name: 'Responses',
      type: '[]FetchableTopicResponse',
      versions: '0+',
      fields: [
        {name: 'Topic', type: 'string', versions: '0-12'},
        {
          name: 'Partitions',
          type: '[]PartitionData',
          versions: '0+',
          fields: [
            {name: 'PartitionIndex', type: 'int32', versions: '0+'},
            ErrorCode,
            {name: 'HighWatermark', type: 'int64', versions: '0+'},
            {name: 'LastStableOffset', type: 'int64', versions: '4+', default: -1},
            {name: 'LogStartOffset', type: 'int64', versions: '5+', default: -1},
            {
              name: 'AbortedTransactions',
              type: '[]AbortedTransaction',
              versions: '4+',
              nullableVersions: '4+',
              fields: [
                {name: 'ProducerId', type: 'int64', versions: '4+'},
                {name: 'FirstOffset', type: 'int64', versions: '4+'},
              ],
            },
            {name: 'PreferredReadReplica', type: 'int32', versions: '11+', default: -1},
            {name: 'Records', type: 'records', versions: '0+', nullableVersions: '0+'},
          ],
        },
      ],
    },
  ],
}

export const SaslHandshakeResponse: MessageSpec = {
  name: 'SaslHandshakeResponse',
  validVersions: '1',
  flexibleVersions: 'none',
  fields: [ErrorCode, {name: 'Mechanisms', type: '[]string', versions: '0+'}],
}

export const SaslAuthenticateResponse: MessageSpec = {
  name: 'SaslAuthenticateResponse',
  validVersions: '2',
  flexibleVersions: '2+',
  fields: [ErrorCode, ErrorMessage, {name: 'AuthBytes', type: 'bytes', versions: '0+'}, {name: 'SessionLifetimeMs', type: 'int64', versions: '1+'}],
}

export const DescribeGroupsResponse: MessageSpec = {
  name: 'DescribeGroupsResponse',
  validVersions: '5',
  flexibleVersions: '5+',
  fields: [
    {name: 'ThrottleTimeMs', type: 'int32', versions: '1+'},
    {
      name: 'Groups',
      type: '[]DescribedGroup',
      versions: '0+',
      fields: [
        ErrorCode,
        {name: 'GroupId', type: 'string', versions: '0+'},
        {name: 'GroupState', type: 'string', versions: '0+'},
        {name: 'ProtocolType', type: 'string', versions: '0+'},
        {name: 'ProtocolData', type: 'string', versions: '0+'},
        {
          name: 'Members',
          type: '[]DescribedGroupMember',
          versions: '0+',
          fields: [
            {name: 'MemberId', type: 'string', versions: '0+'},
            {name: 'GroupInstanceId', type: 'string', versions: '4+', nullableVersions: '4+', default: 'null'},
            {name: 'ClientId', type: 'string', versions: '0+'},
            {name: 'ClientHost', type: 'string', versions: '0+'},
            {name: 'MemberMetadata', type: 'bytes', versions: '0+'},
            {name: 'MemberAssignment', type: 'bytes', versions: '0+'},
          ],
        },
        {name: 'AuthorizedOperations', type: 'int32', versions: '3+', default: '-2147483648'},
      ],
    },
  ],
}
