/** The streams group record types (17–23) of the coordinator record table; ./schemas.ts appends them to RECORD_TYPES. */
import {key, value, GROUP, MEMBER, KeyValue, TaskIdsWithEpochs, TaskIds, StreamsTopicInfo, TopicConfig, assignmentMetadata} from './schema-parts.js'
import type {RecordTypeSpec} from './spec.js'

export const STREAMS_RECORD_TYPES: readonly RecordTypeSpec[] = [
  {
    type: 17,
    name: 'StreamsGroupMetadata',
    group: 'streams',
    key: key('StreamsGroupMetadata', ...GROUP),
    value: value(
      'StreamsGroupMetadata',
      [
        {name: 'Epoch', type: 'int32', versions: '0+'},
        {name: 'MetadataHash', type: 'int64', versions: '0+'},
        {name: 'ValidatedTopologyEpoch', type: 'int32', versions: '0+', taggedVersions: '0+', tag: 0, default: -1, since: '4.2'},
        {
          name: 'LastAssignmentConfigs',
          type: '[]LastAssignmentConfig',
          versions: '0+',
          nullableVersions: '0+',
          taggedVersions: '0+',
          tag: 1,
          default: null,
          since: '4.2',
        },
        {name: 'StoredDescriptionTopologyEpoch', type: 'int32', versions: '0+', taggedVersions: '0+', tag: 2, default: -1, since: '4.4'},
        {name: 'FailedDescriptionTopologyEpoch', type: 'int32', versions: '0+', taggedVersions: '0+', tag: 3, default: -1, since: '4.4'},
      ],
      {commonStructs: [{name: 'LastAssignmentConfig', fields: KeyValue.fields}]},
    ),
  },
  {
    type: 18,
    name: 'StreamsGroupPartitionMetadata',
    group: 'streams',
    legacy: 'existed on Kafka trunk Dec 2024 – Jun 2025, never in a release; brokers skip it',
    key: key('StreamsGroupPartitionMetadata', ...GROUP),
    value: value('StreamsGroupPartitionMetadata', [
      {
        name: 'Topics',
        type: '[]TopicMetadata',
        versions: '0+',
        fields: [
          {name: 'TopicId', type: 'uuid', versions: '0+'},
          {name: 'TopicName', type: 'string', versions: '0+'},
          {name: 'NumPartitions', type: 'int32', versions: '0+'},
        ],
      },
    ]),
  },
  {
    type: 19,
    name: 'StreamsGroupMemberMetadata',
    group: 'streams',
    key: key('StreamsGroupMemberMetadata', ...MEMBER),
    value: value(
      'StreamsGroupMemberMetadata',
      [
        {name: 'InstanceId', type: 'string', versions: '0+', nullableVersions: '0+'},
        {name: 'RackId', type: 'string', versions: '0+', nullableVersions: '0+'},
        {name: 'ClientId', type: 'string', versions: '0+'},
        {name: 'ClientHost', type: 'string', versions: '0+'},
        {name: 'RebalanceTimeoutMs', type: 'int32', versions: '0+', default: -1},
        {name: 'TopologyEpoch', type: 'int32', versions: '0+'},
        {name: 'ProcessId', type: 'string', versions: '0+'},
        {name: 'UserEndpoint', type: 'Endpoint', versions: '0+', nullableVersions: '0+', default: 'null'},
        {name: 'ClientTags', type: '[]KeyValue', versions: '0+'},
      ],
      {
        commonStructs: [
          {
            name: 'Endpoint',
            fields: [
              {name: 'Host', type: 'string', versions: '0+'},
              {name: 'Port', type: 'uint16', versions: '0+'},
            ],
          },
          KeyValue,
        ],
      },
    ),
  },
  {
    type: 20,
    name: 'StreamsGroupTargetAssignmentMetadata',
    group: 'streams',
    key: key('StreamsGroupTargetAssignmentMetadata', ...GROUP),
    value: assignmentMetadata('StreamsGroupTargetAssignmentMetadata'),
  },
  {
    type: 21,
    name: 'StreamsGroupTargetAssignmentMember',
    group: 'streams',
    key: key('StreamsGroupTargetAssignmentMember', ...MEMBER),
    value: value(
      'StreamsGroupTargetAssignmentMember',
      [
        {name: 'ActiveTasks', type: '[]TaskIds', versions: '0+'},
        {name: 'StandbyTasks', type: '[]TaskIds', versions: '0+'},
        {name: 'WarmupTasks', type: '[]TaskIds', versions: '0+'},
      ],
      {commonStructs: [TaskIds]},
    ),
  },
  {
    type: 22,
    name: 'StreamsGroupCurrentMemberAssignment',
    group: 'streams',
    key: key('StreamsGroupCurrentMemberAssignment', ...MEMBER),
    value: value(
      'StreamsGroupCurrentMemberAssignment',
      [
        {name: 'MemberEpoch', type: 'int32', versions: '0+'},
        {name: 'PreviousMemberEpoch', type: 'int32', versions: '0+'},
        // Streams values: 1 STABLE, 2 UNREVOKED_TASKS, 3 UNRELEASED_TASKS, 127 UNKNOWN
        {name: 'State', type: 'int8', versions: '0+'},
        {name: 'ActiveTasks', type: '[]TaskIds', versions: '0+'},
        {name: 'StandbyTasks', type: '[]TaskIds', versions: '0+'},
        {name: 'WarmupTasks', type: '[]TaskIds', versions: '0+'},
        {name: 'ActiveTasksPendingRevocation', type: '[]TaskIds', versions: '0+'},
        {name: 'StandbyTasksPendingRevocation', type: '[]TaskIds', versions: '0+'},
        {name: 'WarmupTasksPendingRevocation', type: '[]TaskIds', versions: '0+'},
      ],
      {commonStructs: [TaskIdsWithEpochs]},
    ),
  },
  {
    type: 23,
    name: 'StreamsGroupTopology',
    group: 'streams',
    key: key('StreamsGroupTopology', ...GROUP),
    value: value(
      'StreamsGroupTopology',
      [
        {name: 'Epoch', type: 'int32', versions: '0+'},
        {
          name: 'Subtopologies',
          type: '[]Subtopology',
          versions: '0+',
          fields: [
            {name: 'SubtopologyId', type: 'string', versions: '0+'},
            {name: 'SourceTopics', type: '[]string', versions: '0+'},
            {name: 'SourceTopicRegex', type: '[]string', versions: '0+'},
            {name: 'StateChangelogTopics', type: '[]TopicInfo', versions: '0+'},
            {name: 'RepartitionSinkTopics', type: '[]string', versions: '0+'},
            {name: 'RepartitionSourceTopics', type: '[]TopicInfo', versions: '0+'},
            {
              name: 'CopartitionGroups',
              type: '[]CopartitionGroup',
              versions: '0+',
              fields: [
                {name: 'SourceTopics', type: '[]int16', versions: '0+'},
                {name: 'SourceTopicRegex', type: '[]int16', versions: '0+'},
                {name: 'RepartitionSourceTopics', type: '[]int16', versions: '0+'},
              ],
            },
          ],
        },
      ],
      {commonStructs: [TopicConfig, StreamsTopicInfo]},
    ),
  },
]
