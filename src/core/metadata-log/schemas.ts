/**
 * KRaft metadata records (`__cluster_metadata`) that shape the image the group coordinator hashes, as data,
 * transcribed from Kafka's `metadata/src/main/resources/common/metadata/*.json` and checked against the
 * generated classes of 4.1.2 and 4.4.0 (RegisterBrokerRecord v4 and BrokerRegistrationChangeRecord v3 add
 * CordonedLogDirs, KIP-1066). Field names, types, versions and tags are Kafka's; the one generic codec
 * (src/core/records/codec.ts) reads them. Every other record type is skipped by type and counted.
 */
import type {FieldSpec, MessageSpec} from '../records/spec.js'

export interface MetadataRecordSpec {
  /** Kafka's apiKey: the record type in the frame. */
  readonly type: number
  readonly spec: MessageSpec
}

function record(type: number, name: string, validVersions: string, fields: FieldSpec[]): MetadataRecordSpec {
  return {type, spec: {name, validVersions, flexibleVersions: '0+', fields}}
}

export const METADATA_RECORDS: readonly MetadataRecordSpec[] = [
  record(0, 'RegisterBrokerRecord', '0-4', [
    {name: 'BrokerId', type: 'int32', versions: '0+'},
    {name: 'IsMigratingZkBroker', type: 'bool', versions: '2+', default: false},
    {name: 'IncarnationId', type: 'uuid', versions: '0+'},
    {name: 'BrokerEpoch', type: 'int64', versions: '0+'},
    {
      name: 'EndPoints',
      type: '[]BrokerEndpoint',
      versions: '0+',
      fields: [
        {name: 'Name', type: 'string', versions: '0+'},
        {name: 'Host', type: 'string', versions: '0+'},
        {name: 'Port', type: 'uint16', versions: '0+'},
        {name: 'SecurityProtocol', type: 'int16', versions: '0+'},
      ],
    },
    {
      name: 'Features',
      type: '[]BrokerFeature',
      versions: '0+',
      fields: [
        {name: 'Name', type: 'string', versions: '0+'},
        {name: 'MinSupportedVersion', type: 'int16', versions: '0+'},
        {name: 'MaxSupportedVersion', type: 'int16', versions: '0+'},
      ],
    },
    {name: 'Rack', type: 'string', versions: '0+', nullableVersions: '0+'},
    {name: 'Fenced', type: 'bool', versions: '0+', default: true},
    {name: 'InControlledShutdown', type: 'bool', versions: '1+', default: false},
    {name: 'LogDirs', type: '[]uuid', versions: '3+', taggedVersions: '3+', tag: 0},
    {name: 'CordonedLogDirs', type: '[]uuid', versions: '4+', nullableVersions: '4+', taggedVersions: '4+', tag: 1, default: 'null'},
  ]),
  record(1, 'UnregisterBrokerRecord', '0', [
    {name: 'BrokerId', type: 'int32', versions: '0+'},
    {name: 'BrokerEpoch', type: 'int64', versions: '0+'},
  ]),
  record(2, 'TopicRecord', '0', [
    {name: 'Name', type: 'string', versions: '0+'},
    {name: 'TopicId', type: 'uuid', versions: '0+'},
  ]),
  record(3, 'PartitionRecord', '0-2', [
    {name: 'PartitionId', type: 'int32', versions: '0+', default: -1},
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'Replicas', type: '[]int32', versions: '0+'},
    {name: 'Isr', type: '[]int32', versions: '0+'},
    {name: 'RemovingReplicas', type: '[]int32', versions: '0+'},
    {name: 'AddingReplicas', type: '[]int32', versions: '0+'},
    {name: 'Leader', type: 'int32', versions: '0+', default: -1},
    {name: 'LeaderRecoveryState', type: 'int8', versions: '0+', taggedVersions: '0+', tag: 0, default: 0},
    {name: 'LeaderEpoch', type: 'int32', versions: '0+', default: -1},
    {name: 'PartitionEpoch', type: 'int32', versions: '0+', default: -1},
    {name: 'Directories', type: '[]uuid', versions: '1+'},
    {name: 'EligibleLeaderReplicas', type: '[]int32', versions: '2+', nullableVersions: '2+', taggedVersions: '2+', tag: 1, default: 'null'},
    {name: 'LastKnownElr', type: '[]int32', versions: '2+', nullableVersions: '2+', taggedVersions: '2+', tag: 2, default: 'null'},
  ]),
  record(5, 'PartitionChangeRecord', '0-2', [
    {name: 'PartitionId', type: 'int32', versions: '0+', default: -1},
    {name: 'TopicId', type: 'uuid', versions: '0+'},
    {name: 'Isr', type: '[]int32', versions: '0+', nullableVersions: '0+', taggedVersions: '0+', tag: 0, default: 'null'},
    {name: 'Leader', type: 'int32', versions: '0+', taggedVersions: '0+', tag: 1, default: -2},
    {name: 'Replicas', type: '[]int32', versions: '0+', nullableVersions: '0+', taggedVersions: '0+', tag: 2, default: 'null'},
    {name: 'RemovingReplicas', type: '[]int32', versions: '0+', nullableVersions: '0+', taggedVersions: '0+', tag: 3, default: 'null'},
    {name: 'AddingReplicas', type: '[]int32', versions: '0+', nullableVersions: '0+', taggedVersions: '0+', tag: 4, default: 'null'},
    {name: 'LeaderRecoveryState', type: 'int8', versions: '0+', taggedVersions: '0+', tag: 5, default: -1},
    {name: 'Directories', type: '[]uuid', versions: '1+', nullableVersions: '1+', taggedVersions: '1+', tag: 8, default: 'null'},
    {name: 'EligibleLeaderReplicas', type: '[]int32', versions: '2+', nullableVersions: '2+', taggedVersions: '2+', tag: 6, default: 'null'},
    {name: 'LastKnownElr', type: '[]int32', versions: '2+', nullableVersions: '2+', taggedVersions: '2+', tag: 7, default: 'null'},
  ]),
  record(7, 'FenceBrokerRecord', '0', [
    {name: 'Id', type: 'int32', versions: '0+'},
    {name: 'Epoch', type: 'int64', versions: '0+'},
  ]),
  record(8, 'UnfenceBrokerRecord', '0', [
    {name: 'Id', type: 'int32', versions: '0+'},
    {name: 'Epoch', type: 'int64', versions: '0+'},
  ]),
  record(9, 'RemoveTopicRecord', '0', [{name: 'TopicId', type: 'uuid', versions: '0+'}]),
  record(12, 'FeatureLevelRecord', '0', [
    {name: 'Name', type: 'string', versions: '0+'},
    {name: 'FeatureLevel', type: 'int16', versions: '0+'},
  ]),
  record(17, 'BrokerRegistrationChangeRecord', '0-3', [
    {name: 'BrokerId', type: 'int32', versions: '0+'},
    {name: 'BrokerEpoch', type: 'int64', versions: '0+'},
    {name: 'Fenced', type: 'int8', versions: '0+', taggedVersions: '0+', tag: 0},
    {name: 'InControlledShutdown', type: 'int8', versions: '1+', taggedVersions: '1+', tag: 1},
    {name: 'LogDirs', type: '[]uuid', versions: '2+', taggedVersions: '2+', tag: 2},
    {name: 'CordonedLogDirs', type: '[]uuid', versions: '3+', nullableVersions: '3+', taggedVersions: '3+', tag: 3, default: 'null'},
  ]),
]

export const METADATA_RECORD_BY_TYPE: ReadonlyMap<number, MetadataRecordSpec> = new Map(METADATA_RECORDS.map(r => [r.type, r]))

/** Names of the other metadata record types (skipped and counted), for reports. */
/** Names of the other metadata record types (skipped and counted), from Kafka 4.4's MetadataRecordType. */
export const OTHER_METADATA_RECORD_NAMES: Readonly<Record<number, string>> = {
  4: 'ConfigRecord',
  10: 'DelegationTokenRecord',
  11: 'UserScramCredentialRecord',
  14: 'ClientQuotaRecord',
  15: 'ProducerIdsRecord',
  18: 'AccessControlEntryRecord',
  19: 'RemoveAccessControlEntryRecord',
  20: 'NoOpRecord',
  21: 'ZkMigrationStateRecord',
  22: 'RemoveUserScramCredentialRecord',
  23: 'BeginTransactionRecord',
  24: 'EndTransactionRecord',
  25: 'AbortTransactionRecord',
  26: 'RemoveDelegationTokenRecord',
  27: 'RegisterControllerRecord',
  28: 'ClearElrRecord',
  29: 'UnregisterControllerRecord',
}
