/**
 * Every `__consumer_offsets` record type (key prefix 0–23) as data, transcribed from Kafka's
 * `group-coordinator/src/main/resources/common/message/*.json` (master Aug 2026 = 4.5-SNAPSHOT,
 * checked against the 4.0–4.4 branches). Names, types, versions and tags are Kafka's own; `since`
 * notes the release that added a field where older logs lack it. Fields added later are tagged,
 * so one table reads every 4.x release (absent tags read as their defaults).
 */
import {
  key,
  value,
  GROUP,
  MEMBER,
  TopicPartition,
  ConsumerTopicPartitions,
  ShareTopicPartitions,
  TopicMetadata,
  TopicPartitionsInfo,
  TopicInfo,
  assignmentMetadata,
} from './schema-parts.js'
import {STREAMS_RECORD_TYPES} from './schemas-streams.js'
import type {RecordTypeSpec} from './spec.js'

// --- the table ---

const OffsetCommitKey = key('OffsetCommit', 'group', 'topic', 'partition')

export const RECORD_TYPES: readonly RecordTypeSpec[] = [
  {
    type: 0,
    name: 'LegacyOffsetCommit',
    group: 'offsets',
    legacy: 'offset commit written with key version 0 by brokers before 0.10; read-only',
    key: {...key('LegacyOffsetCommit', 'group', 'topic', 'partition')},
    value: value(
      'LegacyOffsetCommit',
      [
        {name: 'offset', type: 'int64', versions: '0'},
        {name: 'metadata', type: 'string', versions: '0'},
        {name: 'commitTimestamp', type: 'int64', versions: '0'},
      ],
      {flexibleVersions: 'none'},
    ),
  },
  {
    type: 1,
    name: 'OffsetCommit',
    group: 'offsets',
    key: OffsetCommitKey,
    // Writers: v1 with an explicit expiration, else v3 (4.0) / v4 (4.1+).
    value: value(
      'OffsetCommit',
      [
        {name: 'offset', type: 'int64', versions: '0+'},
        {name: 'leaderEpoch', type: 'int32', versions: '3+', default: -1},
        {name: 'metadata', type: 'string', versions: '0+'},
        {name: 'commitTimestamp', type: 'int64', versions: '0+'},
        {name: 'expireTimestamp', type: 'int64', versions: '1', default: -1},
        {name: 'topicId', type: 'uuid', versions: '4+', taggedVersions: '4+', tag: 0, since: '4.1'},
      ],
      {validVersions: '0-4', flexibleVersions: '4+'},
    ),
  },
  {
    type: 2,
    name: 'GroupMetadata',
    group: 'classic',
    key: key('GroupMetadata', 'group'),
    // All 4.x writers use v3; v4 (flexible) is readable.
    value: value(
      'GroupMetadata',
      [
        {name: 'protocolType', type: 'string', versions: '0+'},
        {name: 'generation', type: 'int32', versions: '0+'},
        {name: 'protocol', type: 'string', versions: '0+', nullableVersions: '0+'},
        {name: 'leader', type: 'string', versions: '0+', nullableVersions: '0+'},
        {name: 'currentStateTimestamp', type: 'int64', versions: '2+', default: -1},
        {name: 'members', type: '[]MemberMetadata', versions: '0+'},
      ],
      {
        validVersions: '0-4',
        flexibleVersions: '4+',
        commonStructs: [
          {
            name: 'MemberMetadata',
            fields: [
              {name: 'memberId', type: 'string', versions: '0+'},
              {name: 'groupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: 'null'},
              {name: 'clientId', type: 'string', versions: '0+'},
              {name: 'clientHost', type: 'string', versions: '0+'},
              {name: 'rebalanceTimeout', type: 'int32', versions: '1+', default: -1},
              {name: 'sessionTimeout', type: 'int32', versions: '0+'},
              {name: 'subscription', type: 'bytes', versions: '0+', embedded: 'ConsumerProtocolSubscription'},
              {name: 'assignment', type: 'bytes', versions: '0+', embedded: 'ConsumerProtocolAssignment'},
            ],
          },
        ],
      },
    ),
  },
  {
    type: 3,
    name: 'ConsumerGroupMetadata',
    group: 'consumer',
    key: key('ConsumerGroupMetadata', ...GROUP),
    value: value('ConsumerGroupMetadata', [
      {name: 'Epoch', type: 'int32', versions: '0+'},
      // KIP-1101. Absent in 4.0 records, and omitted whenever the hash is 0.
      {name: 'MetadataHash', type: 'int64', versions: '0+', taggedVersions: '0+', tag: 0, default: 0, since: '4.1'},
    ]),
  },
  {
    type: 4,
    name: 'ConsumerGroupPartitionMetadata',
    group: 'consumer',
    // Written by 4.0 (and 3.8/3.9); 4.1+ only writes its tombstone.
    key: key('ConsumerGroupPartitionMetadata', ...GROUP),
    value: value('ConsumerGroupPartitionMetadata', [TopicMetadata]),
  },
  {
    type: 5,
    name: 'ConsumerGroupMemberMetadata',
    group: 'consumer',
    key: key('ConsumerGroupMemberMetadata', ...MEMBER),
    value: value('ConsumerGroupMemberMetadata', [
      {name: 'InstanceId', type: 'string', versions: '0+', nullableVersions: '0+'},
      {name: 'RackId', type: 'string', versions: '0+', nullableVersions: '0+'},
      {name: 'ClientId', type: 'string', versions: '0+'},
      {name: 'ClientHost', type: 'string', versions: '0+'},
      {name: 'SubscribedTopicNames', type: '[]string', versions: '0+'},
      {name: 'SubscribedTopicRegex', type: 'string', versions: '0+', nullableVersions: '0+'},
      {name: 'RebalanceTimeoutMs', type: 'int32', versions: '0+', default: -1},
      {name: 'ServerAssignor', type: 'string', versions: '0+', nullableVersions: '0+'},
      {
        name: 'ClassicMemberMetadata',
        type: 'ClassicMemberMetadata',
        versions: '0+',
        nullableVersions: '0+',
        taggedVersions: '0+',
        tag: 0,
        default: null,
        fields: [
          {name: 'SessionTimeoutMs', type: 'int32', versions: '0+'},
          {
            name: 'SupportedProtocols',
            type: '[]ClassicProtocol',
            versions: '0+',
            fields: [
              {name: 'Name', type: 'string', versions: '0+'},
              {name: 'Metadata', type: 'bytes', versions: '0+', embedded: 'ConsumerProtocolSubscription'},
            ],
          },
        ],
      },
    ]),
  },
  {
    type: 6,
    name: 'ConsumerGroupTargetAssignmentMetadata',
    group: 'consumer',
    key: key('ConsumerGroupTargetAssignmentMetadata', ...GROUP),
    value: assignmentMetadata('ConsumerGroupTargetAssignmentMetadata'),
  },
  {
    type: 7,
    name: 'ConsumerGroupTargetAssignmentMember',
    group: 'consumer',
    key: key('ConsumerGroupTargetAssignmentMember', ...MEMBER),
    value: value('ConsumerGroupTargetAssignmentMember', [{name: 'TopicPartitions', type: '[]TopicPartition', versions: '0+', fields: TopicPartition.fields}]),
  },
  {
    type: 8,
    name: 'ConsumerGroupCurrentMemberAssignment',
    group: 'consumer',
    key: key('ConsumerGroupCurrentMemberAssignment', ...MEMBER),
    value: value(
      'ConsumerGroupCurrentMemberAssignment',
      [
        {name: 'MemberEpoch', type: 'int32', versions: '0+'},
        {name: 'PreviousMemberEpoch', type: 'int32', versions: '0+'},
        // 0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS, 127 UNKNOWN
        {name: 'State', type: 'int8', versions: '0+'},
        {name: 'AssignedPartitions', type: '[]TopicPartitions', versions: '0+'},
        {name: 'PartitionsPendingRevocation', type: '[]TopicPartitions', versions: '0+'},
      ],
      {commonStructs: [ConsumerTopicPartitions]},
    ),
  },
  {
    type: 9,
    name: 'ShareGroupPartitionMetadata',
    group: 'share',
    legacy: 'written only by 4.0 (share groups early access); 4.1+ skips it on load',
    key: key('ShareGroupPartitionMetadata', ...GROUP),
    value: value('ShareGroupPartitionMetadata', [TopicMetadata]),
  },
  {
    type: 10,
    name: 'ShareGroupMemberMetadata',
    group: 'share',
    key: key('ShareGroupMemberMetadata', ...MEMBER),
    value: value('ShareGroupMemberMetadata', [
      {name: 'RackId', type: 'string', versions: '0+', nullableVersions: '0+'},
      {name: 'ClientId', type: 'string', versions: '0+'},
      {name: 'ClientHost', type: 'string', versions: '0+'},
      {name: 'SubscribedTopicNames', type: '[]string', versions: '0+'},
    ]),
  },
  {
    type: 11,
    name: 'ShareGroupMetadata',
    group: 'share',
    key: key('ShareGroupMetadata', ...GROUP),
    // MetadataHash is a regular field since 4.1, so 4.0 records (Epoch only) need the old layout.
    value: value('ShareGroupMetadata', [
      {name: 'Epoch', type: 'int32', versions: '0+'},
      {name: 'MetadataHash', type: 'int64', versions: '0+', since: '4.1'},
    ]),
    olderLayouts: [{release: '4.0', value: value('ShareGroupMetadata', [{name: 'Epoch', type: 'int32', versions: '0+'}])}],
  },
  {
    type: 12,
    name: 'ShareGroupTargetAssignmentMetadata',
    group: 'share',
    key: key('ShareGroupTargetAssignmentMetadata', ...GROUP),
    value: assignmentMetadata('ShareGroupTargetAssignmentMetadata'),
  },
  {
    type: 13,
    name: 'ShareGroupTargetAssignmentMember',
    group: 'share',
    key: key('ShareGroupTargetAssignmentMember', ...MEMBER),
    value: value('ShareGroupTargetAssignmentMember', [{name: 'TopicPartitions', type: '[]TopicPartition', versions: '0+', fields: TopicPartition.fields}]),
  },
  {
    type: 14,
    name: 'ShareGroupCurrentMemberAssignment',
    group: 'share',
    key: key('ShareGroupCurrentMemberAssignment', ...MEMBER),
    value: value(
      'ShareGroupCurrentMemberAssignment',
      [
        {name: 'MemberEpoch', type: 'int32', versions: '0+'},
        {name: 'PreviousMemberEpoch', type: 'int32', versions: '0+'},
        {name: 'State', type: 'int8', versions: '0+'},
        {name: 'AssignedPartitions', type: '[]TopicPartitions', versions: '0+'},
      ],
      {commonStructs: [ShareTopicPartitions]},
    ),
  },
  {
    type: 15,
    name: 'ShareGroupStatePartitionMetadata',
    group: 'share',
    key: key('ShareGroupStatePartitionMetadata', ...GROUP),
    // InitializingTopics was inserted as the first field in 4.1, with no version bump.
    value: value(
      'ShareGroupStatePartitionMetadata',
      [
        {name: 'InitializingTopics', type: '[]TopicPartitionsInfo', versions: '0+', since: '4.1'},
        {name: 'InitializedTopics', type: '[]TopicPartitionsInfo', versions: '0+'},
        {name: 'DeletingTopics', type: '[]TopicInfo', versions: '0+'},
      ],
      {commonStructs: [TopicPartitionsInfo, TopicInfo]},
    ),
    olderLayouts: [
      {
        release: '4.0',
        value: value(
          'ShareGroupStatePartitionMetadata',
          [
            {name: 'InitializedTopics', type: '[]TopicPartitionsInfo', versions: '0+'},
            {name: 'DeletingTopics', type: '[]TopicInfo', versions: '0+'},
          ],
          {commonStructs: [TopicPartitionsInfo, TopicInfo]},
        ),
      },
    ],
  },
  {
    type: 16,
    name: 'ConsumerGroupRegularExpression',
    group: 'consumer',
    key: key('ConsumerGroupRegularExpression', 'GroupId', 'RegularExpression'),
    value: value('ConsumerGroupRegularExpression', [
      {name: 'Topics', type: '[]string', versions: '0+'},
      // The __cluster_metadata offset of the image the regex was resolved against.
      {name: 'Version', type: 'int64', versions: '0+'},
      {name: 'Timestamp', type: 'int64', versions: '0+'},
    ]),
  },
  ...STREAMS_RECORD_TYPES,
]

/** Record type specs by type id. */
export const RECORD_TYPE_BY_ID: ReadonlyMap<number, RecordTypeSpec> = new Map(RECORD_TYPES.map(r => [r.type, r]))

/** Kafka's names of the record types in the table (a name not in it fails the unit test of RECORD_TYPE). */
export type RecordTypeName =
  | 'LegacyOffsetCommit'
  | 'OffsetCommit'
  | 'GroupMetadata'
  | 'ConsumerGroupMetadata'
  | 'ConsumerGroupPartitionMetadata'
  | 'ConsumerGroupMemberMetadata'
  | 'ConsumerGroupTargetAssignmentMetadata'
  | 'ConsumerGroupTargetAssignmentMember'
  | 'ConsumerGroupCurrentMemberAssignment'
  | 'ShareGroupPartitionMetadata'
  | 'ShareGroupMemberMetadata'
  | 'ShareGroupMetadata'
  | 'ShareGroupTargetAssignmentMetadata'
  | 'ShareGroupTargetAssignmentMember'
  | 'ShareGroupCurrentMemberAssignment'
  | 'ShareGroupStatePartitionMetadata'
  | 'ConsumerGroupRegularExpression'
  | 'StreamsGroupMetadata'
  | 'StreamsGroupPartitionMetadata'
  | 'StreamsGroupMemberMetadata'
  | 'StreamsGroupTargetAssignmentMetadata'
  | 'StreamsGroupTargetAssignmentMember'
  | 'StreamsGroupCurrentMemberAssignment'
  | 'StreamsGroupTopology'

/** Type ids by Kafka's name, read from the table (code names a record type by name, never by a bare number). */
export const RECORD_TYPE: Readonly<Record<RecordTypeName, number>> = Object.freeze(
  Object.fromEntries(RECORD_TYPES.map(r => [r.name, r.type])) as Record<RecordTypeName, number>,
)

/** Record types whose value carries the group epoch (the coordinator's bump records). */
export const GROUP_METADATA_TYPES = {
  consumer: RECORD_TYPE.ConsumerGroupMetadata,
  share: RECORD_TYPE.ShareGroupMetadata,
  streams: RECORD_TYPE.StreamsGroupMetadata,
  classic: RECORD_TYPE.GroupMetadata,
} as const
