/**
 * Typed views of the decoded values replay reads (the codec returns plain objects keyed by Kafka's
 * field names; these interfaces name the fields the schemas in records/schemas.ts produce).
 */

export interface TopicPartitions {
  readonly TopicId: string
  readonly Partitions: readonly number[]
  /** Current assignment only, 4.3+ (KIP-1251); null when absent. */
  readonly AssignmentEpochs?: readonly number[] | null
}

export interface ConsumerGroupMemberMetadataValue {
  readonly InstanceId: string | null
  readonly RackId: string | null
  readonly ClientId: string
  readonly ClientHost: string
  readonly SubscribedTopicNames: readonly string[]
  readonly SubscribedTopicRegex: string | null
  readonly RebalanceTimeoutMs: number
  readonly ServerAssignor: string | null
  readonly ClassicMemberMetadata: {
    readonly SessionTimeoutMs: number
    readonly SupportedProtocols: readonly {readonly Name: string; readonly Metadata: Uint8Array}[]
  } | null
}

export interface ShareGroupMemberMetadataValue {
  readonly RackId: string | null
  readonly ClientId: string
  readonly ClientHost: string
  readonly SubscribedTopicNames: readonly string[]
}

export interface KeyValue {
  readonly Key: string
  readonly Value: string
}

export interface StreamsGroupMemberMetadataValue {
  readonly InstanceId: string | null
  readonly RackId: string | null
  readonly ClientId: string
  readonly ClientHost: string
  readonly RebalanceTimeoutMs: number
  readonly TopologyEpoch: number
  readonly ProcessId: string
  readonly UserEndpoint: {readonly Host: string; readonly Port: number} | null
  readonly ClientTags: readonly KeyValue[]
}

export interface GroupMetadataValueLike {
  readonly Epoch: number
  readonly MetadataHash: bigint
}

export interface StreamsGroupMetadataValue extends GroupMetadataValueLike {
  readonly ValidatedTopologyEpoch: number
  readonly LastAssignmentConfigs: readonly KeyValue[] | null
  readonly StoredDescriptionTopologyEpoch: number
  readonly FailedDescriptionTopologyEpoch: number
}

export interface TargetAssignmentMetadataValue {
  readonly AssignmentEpoch: number
  readonly AssignmentTimestamp: bigint
}

export interface ConsumerTargetAssignmentMemberValue {
  readonly TopicPartitions: readonly TopicPartitions[]
}

export interface ConsumerCurrentMemberAssignmentValue {
  readonly MemberEpoch: number
  readonly PreviousMemberEpoch: number
  /** 0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS, 127 UNKNOWN. */
  readonly State: number
  readonly AssignedPartitions: readonly TopicPartitions[]
  readonly PartitionsPendingRevocation: readonly TopicPartitions[]
}

export interface ShareCurrentMemberAssignmentValue {
  readonly MemberEpoch: number
  readonly PreviousMemberEpoch: number
  readonly State: number
  readonly AssignedPartitions: readonly TopicPartitions[]
}

export interface TaskIds {
  readonly SubtopologyId: string
  readonly Partitions: readonly number[]
  readonly AssignmentEpochs?: readonly number[] | null
}

export interface StreamsTargetAssignmentMemberValue {
  readonly ActiveTasks: readonly TaskIds[]
  readonly StandbyTasks: readonly TaskIds[]
  readonly WarmupTasks: readonly TaskIds[]
}

export interface StreamsCurrentMemberAssignmentValue extends StreamsTargetAssignmentMemberValue {
  readonly MemberEpoch: number
  readonly PreviousMemberEpoch: number
  /** Streams values: 1 STABLE, 2 UNREVOKED_TASKS, 3 UNRELEASED_TASKS, 127 UNKNOWN. */
  readonly State: number
  readonly ActiveTasksPendingRevocation: readonly TaskIds[]
  readonly StandbyTasksPendingRevocation: readonly TaskIds[]
  readonly WarmupTasksPendingRevocation: readonly TaskIds[]
}

export interface RegularExpressionValue {
  readonly Topics: readonly string[]
  /** The __cluster_metadata offset the regex was resolved against. */
  readonly Version: bigint
  /** Resolution start, ms. */
  readonly Timestamp: bigint
}

export interface TopicPartitionsInfo {
  readonly TopicId: string
  readonly TopicName: string
  readonly Partitions: readonly number[]
}

export interface ShareGroupStatePartitionMetadataValue {
  readonly InitializingTopics: readonly TopicPartitionsInfo[]
  readonly InitializedTopics: readonly TopicPartitionsInfo[]
  readonly DeletingTopics: readonly {readonly TopicId: string; readonly TopicName: string}[]
}

/** 4.0 subscription metadata (types 4 and 9). */
export interface PartitionMetadataValue {
  readonly Topics: readonly {
    readonly TopicId: string
    readonly TopicName: string
    readonly NumPartitions: number
    readonly PartitionMetadata?: readonly {readonly Partition: number; readonly Racks: readonly string[]}[]
  }[]
}

export interface StreamsTopicInfo {
  readonly Name: string
  readonly Partitions: number
  readonly ReplicationFactor: number
  readonly TopicConfigs: readonly {readonly key: string; readonly value: string}[]
}

export interface Subtopology {
  readonly SubtopologyId: string
  readonly SourceTopics: readonly string[]
  readonly SourceTopicRegex: readonly string[]
  readonly StateChangelogTopics: readonly StreamsTopicInfo[]
  readonly RepartitionSinkTopics: readonly string[]
  readonly RepartitionSourceTopics: readonly StreamsTopicInfo[]
  readonly CopartitionGroups: readonly {
    readonly SourceTopics: readonly number[]
    readonly SourceTopicRegex: readonly number[]
    readonly RepartitionSourceTopics: readonly number[]
  }[]
}

export interface StreamsGroupTopologyValue {
  readonly Epoch: number
  readonly Subtopologies: readonly Subtopology[]
}

export interface ClassicMember {
  readonly memberId: string
  readonly groupInstanceId: string | null
  readonly clientId: string
  readonly clientHost: string
  readonly rebalanceTimeout: number
  readonly sessionTimeout: number
  readonly subscription: Uint8Array
  readonly assignment: Uint8Array
  /** Present for protocolType "consumer" (see records/record.ts EmbeddedDecode). */
  readonly subscriptionDecoded?: unknown
  readonly assignmentDecoded?: unknown
}

export interface GroupMetadataValue {
  readonly protocolType: string
  readonly generation: number
  readonly protocol: string | null
  readonly leader: string | null
  readonly currentStateTimestamp: bigint
  readonly members: readonly ClassicMember[]
}

export interface OffsetCommitValue {
  readonly offset: bigint
  readonly leaderEpoch: number
  readonly metadata: string
  readonly commitTimestamp: bigint
  readonly expireTimestamp: bigint
  readonly topicId: string
}
