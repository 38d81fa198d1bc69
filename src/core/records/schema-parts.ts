/**
 * The building blocks of the coordinator record table (./schemas.ts, ./schemas-streams.ts): key and value
 * helpers and the structs several records share (Kafka's commonStructs, by the name each file gives them).
 */
import type {FieldSpec, MessageSpec, StructSpec} from './spec.js'

// Keys: version 0, never flexible; the int16 prefix is the record type.
export function key(name: string, ...fields: string[]): MessageSpec {
  return {
    name: `${name}Key`,
    validVersions: '0',
    flexibleVersions: 'none',
    fields: fields.map(f => (f === 'partition' ? {name: f, type: 'int32', versions: '0'} : {name: f, type: 'string', versions: '0'})),
  }
}

export function value(name: string, fields: FieldSpec[], more: Partial<MessageSpec> = {}): MessageSpec {
  return {name: `${name}Value`, validVersions: '0', flexibleVersions: '0+', fields, ...more}
}

export const GROUP = ['GroupId']
export const MEMBER = ['GroupId', 'MemberId']

// --- shared structs (Kafka's commonStructs, by the name each file gives them) ---

export const TopicPartition: StructSpec = {
  name: 'TopicPartition',
  fields: [
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'Partitions', type: '[]int32', versions: '0+'},
  ],
}

/** ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions; AssignmentEpochs is 4.3+ (KIP-1251). */
export const ConsumerTopicPartitions: StructSpec = {
  name: 'TopicPartitions',
  fields: [
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'Partitions', type: '[]int32', versions: '0+'},
    {name: 'AssignmentEpochs', type: '[]int32', versions: '0+', nullableVersions: '0+', taggedVersions: '0+', tag: 0, default: null, since: '4.3'},
  ],
}

export const ShareTopicPartitions: StructSpec = {name: 'TopicPartitions', fields: TopicPartition.fields}

/** 4.0 partition metadata (types 4 and 9): subscribed topics as the coordinator saw them. */
export const TopicMetadata: FieldSpec = {
  name: 'Topics',
  type: '[]TopicMetadata',
  versions: '0+',
  fields: [
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'TopicName', type: 'string', versions: '0+'},
    {name: 'NumPartitions', type: 'int32', versions: '0+'},
    {
      name: 'PartitionMetadata',
      type: '[]PartitionMetadata',
      versions: '0+',
      fields: [
        {name: 'Partition', type: 'int32', versions: '0+'},
        {name: 'Racks', type: '[]string', versions: '0+'},
      ],
    },
  ],
}

export const KeyValue: StructSpec = {
  name: 'KeyValue',
  fields: [
    {name: 'Key', type: 'string', versions: '0+'},
    {name: 'Value', type: 'string', versions: '0+'},
  ],
}

export const TopicPartitionsInfo: StructSpec = {
  name: 'TopicPartitionsInfo',
  fields: [
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'TopicName', type: 'string', versions: '0+'},
    {name: 'Partitions', type: '[]int32', versions: '0+'},
  ],
}

export const TopicInfo: StructSpec = {
  name: 'TopicInfo',
  fields: [
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'TopicName', type: 'string', versions: '0+'},
  ],
}

/** Streams TaskIds; AssignmentEpochs (4.2+) exists only in the current-assignment record. */
export const TaskIdsWithEpochs: StructSpec = {
  name: 'TaskIds',
  fields: [
    {name: 'SubtopologyId', type: 'string', versions: '0+'},
    {name: 'Partitions', type: '[]int32', versions: '0+'},
    {name: 'AssignmentEpochs', type: '[]int32', versions: '0+', nullableVersions: '0+', taggedVersions: '0+', tag: 0, default: null, since: '4.2'},
  ],
}

export const TaskIds: StructSpec = {name: 'TaskIds', fields: TaskIdsWithEpochs.fields.slice(0, 2)}

export const StreamsTopicInfo: StructSpec = {
  name: 'TopicInfo',
  fields: [
    {name: 'Name', type: 'string', versions: '0+'},
    {name: 'Partitions', type: 'int32', versions: '0+'},
    {name: 'ReplicationFactor', type: 'int16', versions: '0+'},
    {name: 'TopicConfigs', type: '[]TopicConfig', versions: '0+'},
  ],
}

export const TopicConfig: StructSpec = {
  name: 'TopicConfig',
  fields: [
    {name: 'key', type: 'string', versions: '0+'},
    {name: 'value', type: 'string', versions: '0+'},
  ],
}

export const assignmentMetadata = (name: string) =>
  value(name, [
    {name: 'AssignmentEpoch', type: 'int32', versions: '0+'},
    {name: 'AssignmentTimestamp', type: 'int64', versions: '0+', taggedVersions: '0+', tag: 0, default: 0, since: '4.3'},
  ])
