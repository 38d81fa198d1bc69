/**
 * The classic consumer protocol embedded in `GroupMetadataValue.members[].subscription/assignment`
 * (protocolType "consumer") and in `ConsumerGroupMemberMetadataValue.ClassicMemberMetadata`:
 * Kafka's `clients/src/main/resources/common/message/ConsumerProtocol{Subscription,Assignment}.json`.
 * Both are prefixed by an int16 version and never flexible. Like Kafka's `ConsumerProtocol`, a
 * version above the newest known is read with the newest layout (new fields are only appended).
 */
import type {MessageSpec} from './spec.js'

const TopicPartition = (v: string) => [
  {name: 'Topic', type: 'string', versions: v},
  {name: 'Partitions', type: '[]int32', versions: v},
]

export const ConsumerProtocolSubscription: MessageSpec = {
  name: 'ConsumerProtocolSubscription',
  validVersions: '0-3',
  flexibleVersions: 'none',
  fields: [
    {name: 'Topics', type: '[]string', versions: '0+'},
    {name: 'UserData', type: 'bytes', versions: '0+', nullableVersions: '0+', default: 'null'},
    {name: 'OwnedPartitions', type: '[]TopicPartition', versions: '1+', fields: TopicPartition('1+')},
    {name: 'GenerationId', type: 'int32', versions: '2+', default: -1},
    {name: 'RackId', type: 'string', versions: '3+', nullableVersions: '3+', default: 'null'},
  ],
}

export const ConsumerProtocolAssignment: MessageSpec = {
  name: 'ConsumerProtocolAssignment',
  validVersions: '0-3',
  flexibleVersions: 'none',
  fields: [
    {name: 'AssignedPartitions', type: '[]TopicPartition', versions: '0+', fields: TopicPartition('0+')},
    {name: 'UserData', type: 'bytes', versions: '0+', nullableVersions: '0+', default: 'null'},
  ],
}

export const EMBEDDED_SPECS = {ConsumerProtocolSubscription, ConsumerProtocolAssignment} as const
