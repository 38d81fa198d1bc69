/**
 * The request bodies we send, as data in the shape of Kafka's message JSON
 * (clients/src/main/resources/common/message/*Request.json): Kafka's field names, types and version ranges, for
 * the versions we send only (validVersions). Encoded by the one generic codec (src/core/records/codec.ts).
 * Tagged fields we never set are left out: an absent tagged field is not written.
 */
import type {FieldSpec, MessageSpec} from '../../core/records/spec.js'

const GroupIds: FieldSpec = {name: 'GroupIds', type: '[]string', versions: '0+'}
const IncludeAuthorizedOperations: FieldSpec = {name: 'IncludeAuthorizedOperations', type: 'bool', versions: '0+'}

export const ApiVersionsRequest: MessageSpec = {
  name: 'ApiVersionsRequest',
  validVersions: '3',
  flexibleVersions: '3+',
  fields: [
    {name: 'ClientSoftwareName', type: 'string', versions: '3+'},
    {name: 'ClientSoftwareVersion', type: 'string', versions: '3+'},
  ],
}

export const MetadataRequest: MessageSpec = {
  name: 'MetadataRequest',
  validVersions: '12',
  flexibleVersions: '9+',
  fields: [
    {
      name: 'Topics',
      type: '[]MetadataRequestTopic',
      versions: '0+',
      nullableVersions: '1+',
      fields: [
        {name: 'TopicId', type: 'uuid', versions: '10+'},
        {name: 'Name', type: 'string', versions: '0+', nullableVersions: '10+'},
      ],
    },
    {name: 'AllowAutoTopicCreation', type: 'bool', versions: '4+', default: true},
    {name: 'IncludeTopicAuthorizedOperations', type: 'bool', versions: '8+'},
  ],
}

export const DescribeTopicPartitionsRequest: MessageSpec = {
  name: 'DescribeTopicPartitionsRequest',
  validVersions: '0',
  flexibleVersions: '0+',
  fields: [
    {name: 'Topics', type: '[]TopicRequest', versions: '0+', fields: [{name: 'Name', type: 'string', versions: '0+'}]},
    {name: 'ResponsePartitionLimit', type: 'int32', versions: '0+', default: 2000},
    {
      name: 'Cursor',
      type: 'Cursor',
      versions: '0+',
      nullableVersions: '0+',
      default: 'null',
      fields: [
        {name: 'TopicName', type: 'string', versions: '0+'},
        {name: 'PartitionIndex', type: 'int32', versions: '0+'},
      ],
    },
  ],
}

export const DescribeClusterRequest: MessageSpec = {
  name: 'DescribeClusterRequest',
  validVersions: '0-2',
  flexibleVersions: '0+',
  fields: [
    {name: 'IncludeClusterAuthorizedOperations', type: 'bool', versions: '0+'},
    {name: 'EndpointType', type: 'int8', versions: '1+', default: 1},
    {name: 'IncludeFencedBrokers', type: 'bool', versions: '2+'},
  ],
}

export const ListPartitionReassignmentsRequest: MessageSpec = {
  name: 'ListPartitionReassignmentsRequest',
  validVersions: '0',
  flexibleVersions: '0+',
  fields: [
    {name: 'TimeoutMs', type: 'int32', versions: '0+', default: 60000},
    {
      name: 'Topics',
      type: '[]ListPartitionReassignmentsTopics',
      versions: '0+',
      nullableVersions: '0+',
      default: 'null',
      fields: [
        {name: 'Name', type: 'string', versions: '0+'},
        {name: 'PartitionIndexes', type: '[]int32', versions: '0+'},
      ],
    },
  ],
}

export const FindCoordinatorRequest: MessageSpec = {
  name: 'FindCoordinatorRequest',
  validVersions: '4-6',
  flexibleVersions: '3+',
  fields: [
    {name: 'KeyType', type: 'int8', versions: '1+'},
    {name: 'CoordinatorKeys', type: '[]string', versions: '4+'},
  ],
}

export const ListGroupsRequest: MessageSpec = {
  name: 'ListGroupsRequest',
  validVersions: '5',
  flexibleVersions: '3+',
  fields: [
    {name: 'StatesFilter', type: '[]string', versions: '4+'},
    {name: 'TypesFilter', type: '[]string', versions: '5+'},
  ],
}

/** v8: many groups in one request; Topics null = every partition the group committed. No member id: an admin read. */
export const OffsetFetchRequest: MessageSpec = {
  name: 'OffsetFetchRequest',
  validVersions: '8',
  flexibleVersions: '6+',
  fields: [
    {
      name: 'Groups',
      type: '[]OffsetFetchRequestGroup',
      versions: '8+',
      fields: [
        {name: 'GroupId', type: 'string', versions: '8+'},
        {
          name: 'Topics',
          type: '[]OffsetFetchRequestTopics',
          versions: '8+',
          nullableVersions: '8+',
          fields: [
            {name: 'Name', type: 'string', versions: '8+'},
            {name: 'PartitionIndexes', type: '[]int32', versions: '8+'},
          ],
        },
      ],
    },
    {name: 'RequireStable', type: 'bool', versions: '7+', default: false},
  ],
}

/** v4: a broker's own configs (resource type 4, BROKER, named by its id), only the keys asked for, no synonyms. */
export const DescribeConfigsRequest: MessageSpec = {
  name: 'DescribeConfigsRequest',
  validVersions: '4',
  flexibleVersions: '4+',
  fields: [
    {
      name: 'Resources',
      type: '[]DescribeConfigsResource',
      versions: '0+',
      fields: [
        {name: 'ResourceType', type: 'int8', versions: '0+'},
        {name: 'ResourceName', type: 'string', versions: '0+'},
        {name: 'ConfigurationKeys', type: '[]string', versions: '0+', nullableVersions: '0+'},
      ],
    },
    {name: 'IncludeSynonyms', type: 'bool', versions: '1+', default: false},
    {name: 'IncludeDocumentation', type: 'bool', versions: '3+', default: false},
  ],
}

export const ConsumerGroupDescribeRequest: MessageSpec = {
  name: 'ConsumerGroupDescribeRequest',
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: [GroupIds, IncludeAuthorizedOperations],
}

export const ShareGroupDescribeRequest: MessageSpec = {
  name: 'ShareGroupDescribeRequest',
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: [GroupIds, IncludeAuthorizedOperations],
}

export const StreamsGroupDescribeRequest: MessageSpec = {
  name: 'StreamsGroupDescribeRequest',
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: [GroupIds, IncludeAuthorizedOperations, {name: 'IncludeTopologyDescription', type: 'bool', versions: '1+'}],
}

export const ListOffsetsRequest: MessageSpec = {
  name: 'ListOffsetsRequest',
  validVersions: '7',
  flexibleVersions: '6+',
  fields: [
    {name: 'ReplicaId', type: 'int32', versions: '0+'},
    {name: 'IsolationLevel', type: 'int8', versions: '2+'},
    {
      name: 'Topics',
      type: '[]ListOffsetsTopic',
      versions: '0+',
      fields: [
        {name: 'Name', type: 'string', versions: '0+'},
        {
          name: 'Partitions',
          type: '[]ListOffsetsPartition',
          versions: '0+',
          fields: [
            {name: 'PartitionIndex', type: 'int32', versions: '0+'},
            {name: 'CurrentLeaderEpoch', type: 'int32', versions: '4+', default: -1},
            {name: 'Timestamp', type: 'int64', versions: '0+'},
          ],
        },
      ],
    },
  ],
}

export const FetchRequest: MessageSpec = {
  name: 'FetchRequest',
  validVersions: '12',
  flexibleVersions: '12+',
  fields: [
    {name: 'ReplicaId', type: 'int32', versions: '0-14', default: -1},
    {name: 'MaxWaitMs', type: 'int32', versions: '0+'},
    {name: 'MinBytes', type: 'int32', versions: '0+'},
    {name: 'MaxBytes', type: 'int32', versions: '3+', default: 0x7fffffff},
    {name: 'IsolationLevel', type: 'int8', versions: '4+'},
    {name: 'SessionId', type: 'int32', versions: '7+'},
    {name: 'SessionEpoch', type: 'int32', versions: '7+', default: -1},
    {
      name: 'Topics',
      type: '[]FetchTopic',
      versions: '0+',
      fields: [
        {name: 'Topic', type: 'string', versions: '0-12'},
        {
          name: 'Partitions',
          type: '[]FetchPartition',
          versions: '0+',
          fields: [
            {name: 'Partition', type: 'int32', versions: '0+'},
            {name: 'CurrentLeaderEpoch', type: 'int32', versions: '9+', default: -1},
            {name: 'FetchOffset', type: 'int64', versions: '0+'},
            {name: 'LastFetchedEpoch', type: 'int32', versions: '12+', default: -1},
            {name: 'LogStartOffset', type: 'int64', versions: '5+', default: -1},
            {name: 'PartitionMaxBytes', type: 'int32', versions: '0+'},
          ],
        },
      ],
    },
    {
      name: 'ForgottenTopicsData',
      type: '[]ForgottenTopic',
      versions: '7+',
      fields: [
        {name: 'Topic', type: 'string', versions: '7-12'},
        {name: 'Partitions', type: '[]int32', versions: '7+'},
      ],
    },
    {name: 'RackId', type: 'string', versions: '11+', default: ''},
  ],
}

// SASL (authentication of a connection, before any other request; they change nothing in the cluster)
export const SaslHandshakeRequest: MessageSpec = {
  name: 'SaslHandshakeRequest',
  validVersions: '1',
  flexibleVersions: 'none',
  fields: [{name: 'Mechanism', type: 'string', versions: '0+'}],
}

export const SaslAuthenticateRequest: MessageSpec = {
  name: 'SaslAuthenticateRequest',
  validVersions: '2',
  flexibleVersions: '2+',
  fields: [{name: 'AuthBytes', type: 'bytes', versions: '0+'}],
}

/** DescribeGroups (classic groups; 4.x brokers answer v2-v6): v5, the first flexible version. */
export const DescribeGroupsRequest: MessageSpec = {
  name: 'DescribeGroupsRequest',
  validVersions: '5',
  flexibleVersions: '5+',
  fields: [
    {name: 'Groups', type: '[]string', versions: '0+'},
    {name: 'IncludeAuthorizedOperations', type: 'bool', versions: '3+'},
  ],
}
