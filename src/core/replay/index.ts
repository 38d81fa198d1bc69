/**
 * Replay of one group's `__consumer_offsets` records into coordinator state and an epoch timeline.
 *
 *   fetched batches ─ decodeBatch(batch, {groupId}) ─▶ LoggedRecord[] ─ GroupReplay.push() … finish()
 *     ─▶ {state, timeline: EpochChange[], skipped} ─ classifyBump(entry) ─▶ BumpCause[]
 *
 * PartitionReplay does the same for every group of a partition in one pass; GroupReducer keeps only what
 * audit needs (state, skipped records, the last bumps without snapshots).
 */
export {
  GroupReplay,
  PartitionReplay,
  replayGroup,
  topicsEverUsed,
  type LoggedRecord,
  type EpochChange,
  type WriteInfo,
  type SkippedRecord,
  type ReplayOptions,
  type ReplayResult,
  metadataHashBefore,
} from './replay.js'
export {
  applyRecord,
  emptyGroupState,
  snapshot,
  groupTypeOf,
  type GroupState,
  type GroupSnapshot,
  type GroupType,
  type ConsumerGroupState,
  type ShareGroupState,
  type StreamsGroupState,
  type ClassicGroupState,
  type ModernGroupState,
  type RegexResolution,
  type OffsetCommitState,
  type RecordAt,
  type MemberWrites,
} from './state.js'
export {
  diffGroup,
  setChange,
  subscribedTopicsOf,
  requiredTopics,
  internalTopics,
  preferredAssignor,
  type GroupDiff,
  type SetChange,
  type FieldChange,
  type MemberAdded,
  type MemberRemoved,
  type MemberChanged,
  type SubscriptionChange,
  type RegexChange,
  type RegexResolutionChange,
  type TopologyDiff,
  type MemberTombstone,
} from './diff.js'
export {GroupReducer, collectTopicIds, type GroupSummary, type EpochMark, type KeptMark, type ReducerData} from './reduce.js'
export {decodeBatch, groupKeyMatcher, groupKeyMatcherAt, type BatchLike, type RecordLike, type DecodeBatchOptions} from './input.js'
export {classifyBump, type BumpCause, type BumpCauseKind} from './classify.js'
export {
  rulesOf,
  storedSubscriptionMetadata,
  fromRecord as subscriptionMetadataFromRecord,
  fromLive as subscriptionMetadataFromLive,
  diffSubscriptionMetadata,
  type GroupRules,
  type TopicSubscriptionMetadata,
  type SubscriptionMetadataChange,
} from './subscription-metadata.js'
export type * from './values.js'
