/**
 * Response bodies of the group APIs (ConsumerGroupDescribe, ShareGroupDescribe) and the group reads next to them
 * (OffsetFetch, DescribeConfigs), as data in the shape of Kafka's message JSON. Moved out of ./responses.ts, which
 * re-exports them; the conventions are described there.
 */
import type {FieldSpec, MessageSpec, StructSpec} from '../../core/records/spec.js'
import {AuthorizedOperations, ErrorCode, ErrorMessage, ThrottleTimeMs} from './fields.js'

// ---------------------------------------------------------------- group describes

const TopicPartitions: StructSpec = {
  name: 'TopicPartitions',
  fields: [
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'TopicName', type: 'string', versions: '0+'},
    {name: 'Partitions', type: '[]int32', versions: '0+'},
  ],
}

const Assignment: StructSpec = {name: 'Assignment', fields: [{name: 'TopicPartitions', type: '[]TopicPartitions', versions: '0+'}]}

/** The group fields ConsumerGroupDescribe and ShareGroupDescribe share, in wire order. */
const GroupHeader: FieldSpec[] = [
  ErrorCode,
  ErrorMessage,
  {name: 'GroupId', type: 'string', versions: '0+'},
  {name: 'GroupState', type: 'string', versions: '0+'},
  {name: 'GroupEpoch', type: 'int32', versions: '0+'},
  {name: 'AssignmentEpoch', type: 'int32', versions: '0+'},
  {name: 'AssignorName', type: 'string', versions: '0+'},
]

export const OffsetFetchResponse: MessageSpec = {
  name: 'OffsetFetchResponse',
  validVersions: '8',
  flexibleVersions: '6+',
  fields: [
    {name: 'ThrottleTimeMs', type: 'int32', versions: '3+'},
    {
      name: 'Groups',
      type: '[]OffsetFetchResponseGroup',
      versions: '8+',
      fields: [
        {name: 'GroupId', type: 'string', versions: '8+'},
        {
          name: 'Topics',
          type: '[]OffsetFetchResponseTopics',
          versions: '8+',
          fields: [
            {name: 'Name', type: 'string', versions: '8+'},
            {
              name: 'Partitions',
              type: '[]OffsetFetchResponsePartitions',
              versions: '8+',
              fields: [
                {name: 'PartitionIndex', type: 'int32', versions: '8+'},
                {name: 'CommittedOffset', type: 'int64', versions: '8+'},
                {name: 'CommittedLeaderEpoch', type: 'int32', versions: '8+', default: -1},
                {name: 'Metadata', type: 'string', versions: '8+', nullableVersions: '8+'},
                {name: 'ErrorCode', type: 'int16', versions: '8+'},
              ],
            },
          ],
        },
        {name: 'ErrorCode', type: 'int16', versions: '8+', default: 0},
      ],
    },
  ],
}

export const DescribeConfigsResponse: MessageSpec = {
  name: 'DescribeConfigsResponse',
  validVersions: '4',
  flexibleVersions: '4+',
  fields: [
    {name: 'ThrottleTimeMs', type: 'int32', versions: '0+'},
    {
      name: 'Results',
      type: '[]DescribeConfigsResult',
      versions: '0+',
      fields: [
        {name: 'ErrorCode', type: 'int16', versions: '0+'},
        {name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+'},
        {name: 'ResourceType', type: 'int8', versions: '0+'},
        {name: 'ResourceName', type: 'string', versions: '0+'},
        {
          name: 'Configs',
          type: '[]DescribeConfigsResourceResult',
          versions: '0+',
          fields: [
            {name: 'Name', type: 'string', versions: '0+'},
            {name: 'Value', type: 'string', versions: '0+', nullableVersions: '0+'},
            {name: 'ReadOnly', type: 'bool', versions: '0+'},
            {name: 'IsDefault', type: 'bool', versions: '0'},
            {name: 'ConfigSource', type: 'int8', versions: '1+', default: -1},
            {name: 'IsSensitive', type: 'bool', versions: '0+'},
            {
              name: 'Synonyms',
              type: '[]DescribeConfigsSynonym',
              versions: '1+',
              fields: [
                {name: 'Name', type: 'string', versions: '1+'},
                {name: 'Value', type: 'string', versions: '1+', nullableVersions: '0+'},
                {name: 'Source', type: 'int8', versions: '1+'},
              ],
            },
            {name: 'ConfigType', type: 'int8', versions: '3+', default: 0},
            {name: 'Documentation', type: 'string', versions: '3+', nullableVersions: '0+'},
          ],
        },
      ],
    },
  ],
}

export const ConsumerGroupDescribeResponse: MessageSpec = {
  name: 'ConsumerGroupDescribeResponse',
  validVersions: '0-1',
  flexibleVersions: '0+',
  commonStructs: [TopicPartitions, Assignment],
  fields: [
    ThrottleTimeMs,
    {
      name: 'Groups',
      type: '[]DescribedGroup',
      versions: '0+',
      fields: [
        ...GroupHeader,
        {
          name: 'Members',
          type: '[]Member',
          versions: '0+',
          fields: [
            {name: 'MemberId', type: 'string', versions: '0+'},
            {name: 'InstanceId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'},
            {name: 'RackId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'},
            {name: 'MemberEpoch', type: 'int32', versions: '0+'},
            {name: 'ClientId', type: 'string', versions: '0+'},
            {name: 'ClientHost', type: 'string', versions: '0+'},
            {name: 'SubscribedTopicNames', type: '[]string', versions: '0+'},
            {name: 'SubscribedTopicRegex', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'},
            {name: 'Assignment', type: 'Assignment', versions: '0+'},
            {name: 'TargetAssignment', type: 'Assignment', versions: '0+'},
            // KIP-1099: 1 = consumer protocol, 0 = classic protocol member of a consumer group; -1 before v1.
            {name: 'MemberType', type: 'int8', versions: '1+', default: -1},
          ],
        },
        AuthorizedOperations,
      ],
    },
  ],
}

export const ShareGroupDescribeResponse: MessageSpec = {
  name: 'ShareGroupDescribeResponse',
  validVersions: '0-1',
  flexibleVersions: '0+',
  commonStructs: [TopicPartitions, Assignment],
  fields: [
    ThrottleTimeMs,
    {
      name: 'Groups',
      type: '[]DescribedGroup',
      versions: '0+',
      fields: [
        ...GroupHeader,
        {
          name: 'Members',
          type: '[]Member',
          versions: '0+',
          fields: [
            {name: 'MemberId', type: 'string', versions: '0+'},
            {name: 'RackId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'},
            {name: 'MemberEpoch', type: 'int32', versions: '0+'},
            {name: 'ClientId', type: 'string', versions: '0+'},
            {name: 'ClientHost', type: 'string', versions: '0+'},
            {name: 'SubscribedTopicNames', type: '[]string', versions: '0+'},
            {name: 'Assignment', type: 'Assignment', versions: '0+'},
          ],
        },
        AuthorizedOperations,
      ],
    },
  ],
}
