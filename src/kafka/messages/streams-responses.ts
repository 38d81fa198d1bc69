/**
 * The StreamsGroupDescribe response body, as data in the shape of Kafka's message JSON. Moved out of ./responses.ts,
 * which re-exports it; the conventions are described there.
 */
import type {MessageSpec, StructSpec} from '../../core/records/spec.js'
import {AuthorizedOperations, ErrorCode, ErrorMessage, ThrottleTimeMs} from './fields.js'

const KeyValue: StructSpec = {
  name: 'KeyValue',
  fields: [
    {name: 'Key', type: 'string', versions: '0+'},
    {name: 'Value', type: 'string', versions: '0+'},
  ],
}

const TopicInfo: StructSpec = {
  name: 'TopicInfo',
  fields: [
    {name: 'Name', type: 'string', versions: '0+'},
    {name: 'Partitions', type: 'int32', versions: '0+'},
    {name: 'ReplicationFactor', type: 'int16', versions: '0+'},
    {name: 'TopicConfigs', type: '[]KeyValue', versions: '0+'},
  ],
}

const TaskIds: StructSpec = {
  name: 'TaskIds',
  fields: [
    {name: 'SubtopologyId', type: 'string', versions: '0+'},
    {name: 'Partitions', type: '[]int32', versions: '0+'},
  ],
}

const TaskOffset: StructSpec = {
  name: 'TaskOffset',
  fields: [
    {name: 'SubtopologyId', type: 'string', versions: '0+'},
    {name: 'Partition', type: 'int32', versions: '0+'},
    {name: 'Offset', type: 'int64', versions: '0+'},
  ],
}

const StreamsAssignment: StructSpec = {
  name: 'Assignment',
  fields: [
    {name: 'ActiveTasks', type: '[]TaskIds', versions: '0+'},
    {name: 'StandbyTasks', type: '[]TaskIds', versions: '0+'},
    {name: 'WarmupTasks', type: '[]TaskIds', versions: '0+'},
  ],
}

/**
 * A node of the v1 TopologyDescription. We ask for no description (IncludeTopologyDescription false) and drop it if a
 * broker sends one; names as in Kafka 4.4.0's StreamsGroupDescribeResponse.json (the schema check compares them).
 */
const TopologyDescriptionNode: StructSpec = {
  name: 'TopologyDescriptionNode',
  fields: [
    {name: 'Name', type: 'string', versions: '0+'},
    {name: 'NodeType', type: 'int8', versions: '0+'},
    {name: 'SourceTopics', type: '[]string', versions: '0+'},
    {name: 'SinkTopic', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'},
    {name: 'Stores', type: '[]string', versions: '0+'},
    {name: 'Successors', type: '[]string', versions: '0+'},
  ],
}

export const StreamsGroupDescribeResponse: MessageSpec = {
  name: 'StreamsGroupDescribeResponse',
  validVersions: '0-1',
  flexibleVersions: '0+',
  commonStructs: [KeyValue, TopicInfo, TaskIds, TaskOffset, StreamsAssignment, TopologyDescriptionNode],
  fields: [
    ThrottleTimeMs,
    {
      name: 'Groups',
      type: '[]DescribedGroup',
      versions: '0+',
      fields: [
        ErrorCode,
        ErrorMessage,
        {name: 'GroupId', type: 'string', versions: '0+'},
        {name: 'GroupState', type: 'string', versions: '0+'},
        {name: 'GroupEpoch', type: 'int32', versions: '0+'},
        {name: 'AssignmentEpoch', type: 'int32', versions: '0+'},
        {
          name: 'Topology',
          type: 'Topology',
          versions: '0+',
          nullableVersions: '0+',
          default: 'null',
          fields: [
            {name: 'Epoch', type: 'int32', versions: '0+'},
            {
              name: 'Subtopologies',
              type: '[]Subtopology',
              versions: '0+',
              nullableVersions: '0+',
              fields: [
                {name: 'SubtopologyId', type: 'string', versions: '0+'},
                {name: 'SourceTopics', type: '[]string', versions: '0+'},
                {name: 'RepartitionSinkTopics', type: '[]string', versions: '0+'},
                {name: 'StateChangelogTopics', type: '[]TopicInfo', versions: '0+'},
                {name: 'RepartitionSourceTopics', type: '[]TopicInfo', versions: '0+'},
              ],
            },
          ],
        },
        {
          name: 'Members',
          type: '[]Member',
          versions: '0+',
          fields: [
            {name: 'MemberId', type: 'string', versions: '0+'},
            {name: 'MemberEpoch', type: 'int32', versions: '0+'},
            {name: 'InstanceId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'},
            {name: 'RackId', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'},
            {name: 'ClientId', type: 'string', versions: '0+'},
            {name: 'ClientHost', type: 'string', versions: '0+'},
            {name: 'TopologyEpoch', type: 'int32', versions: '0+'},
            {name: 'ProcessId', type: 'string', versions: '0+'},
            {
              name: 'UserEndpoint',
              type: 'Endpoint',
              versions: '0+',
              nullableVersions: '0+',
              default: 'null',
              fields: [
                {name: 'Host', type: 'string', versions: '0+'},
                {name: 'Port', type: 'uint16', versions: '0+'},
              ],
            },
            {name: 'ClientTags', type: '[]KeyValue', versions: '0+'},
            {name: 'TaskOffsets', type: '[]TaskOffset', versions: '0+'},
            {name: 'TaskEndOffsets', type: '[]TaskOffset', versions: '0+'},
            {name: 'Assignment', type: 'Assignment', versions: '0+'},
            {name: 'TargetAssignment', type: 'Assignment', versions: '0+'},
            {name: 'IsClassic', type: 'bool', versions: '0+'},
          ],
        },
        AuthorizedOperations,
        {
          name: 'TopologyDescription',
          type: 'TopologyDescription',
          versions: '1+',
          nullableVersions: '1+',
          default: 'null',
          fields: [
            {
              name: 'Subtopologies',
              type: '[]SubtopologyDescription',
              versions: '1+',
              fields: [
                {name: 'SubtopologyId', type: 'string', versions: '1+'},
                {name: 'Nodes', type: '[]TopologyDescriptionNode', versions: '1+'},
              ],
            },
            {
              name: 'GlobalStores',
              type: '[]GlobalStore',
              versions: '1+',
              fields: [
                {name: 'Source', type: 'TopologyDescriptionNode', versions: '1+'},
                {name: 'Processor', type: 'TopologyDescriptionNode', versions: '1+'},
              ],
            },
          ],
        },
        {name: 'TopologyDescriptionStatus', type: 'int8', versions: '1+'},
        {name: 'AssignorName', type: 'string', versions: '1+', nullableVersions: '1+', default: 'null'},
      ],
    },
  ],
}
