/**
 * What commands and sources read from a live cluster, as an interface: KafkaClient implements it, and tests put
 * a fake in its place (a `ClusterFactory` given to the command, src/cli/live-command.ts), so commands are tested
 * without a broker.
 * Read-only by construction: nothing here joins, commits, creates or alters.
 */
import type {Denial} from '../core/errors.js'
import type {ClusterMetadata, TopicMetadata} from '../core/metadata.js'
import type {BrokerConfigs} from './broker-configs.js'
import type {BrokerApiVersions} from './broker-versions.js'
import type {GroupCommittedOffsets} from './offset-fetch.js'
import type {
  ClassicGroupDescribed,
  ConsumerGroupDescribed,
  ListedLogOffset,
  MetadataOptions,
  PartitionReassignment,
  ShareGroupDescribed,
  StreamsGroupDescribed,
} from './client.js'
import type {PartitionRead, PartitionReadOptions} from './partition-reader.js'
import type {GroupType, ListedGroup} from './protocol.js'

/** Each group's coordinator as FindCoordinator answered it: its broker id, and where to reach it. */
export type GroupCoordinators = ReadonlyMap<string, {readonly id: number; readonly host: string; readonly port: number}>

export interface ClusterReader {
  /** host:port of the broker asked for metadata (for messages). */
  readonly clusterAddress: string
  /** Registered brokers (fenced included) and topics with ids and full replica lists. */
  clusterMetadata(options?: MetadataOptions): Promise<ClusterMetadata>
  topics(options?: MetadataOptions): Promise<TopicMetadata[]>
  /** One partition's record batches, from its leader (src/kafka/partition-reader.ts). */
  readPartition(options: PartitionReadOptions): Promise<PartitionRead>
  listPartitionReassignments(): Promise<PartitionReassignment[]>
  listGroups(filter?: {types?: readonly GroupType[]; states?: readonly string[]}): Promise<ListedGroup[]>
  groupCoordinators(groupIds: readonly string[]): Promise<GroupCoordinators>
  /** The describes ask each group at `coordinators` when given (groupCoordinators' answer), else find it first. */
  describeConsumerGroups(groupIds: readonly string[], coordinators?: GroupCoordinators): Promise<ConsumerGroupDescribed[]>
  describeShareGroups(groupIds: readonly string[], coordinators?: GroupCoordinators): Promise<ShareGroupDescribed[]>
  describeStreamsGroups(groupIds: readonly string[], coordinators?: GroupCoordinators): Promise<StreamsGroupDescribed[]>
  /** Classic groups' state and members (DescribeGroups v5); read-only. */
  describeClassicGroups(groupIds: readonly string[], coordinators?: GroupCoordinators): Promise<ClassicGroupDescribed[]>
  /** Each live broker's advertised API versions (ApiVersions v3, asked at that broker), errors per broker. */
  brokerApiVersions(): Promise<BrokerApiVersions[]>
  /** Each live broker's own configs (DescribeConfigs v4, only `keys`), errors per broker; read-only. */
  brokerConfigs(keys: readonly string[]): Promise<BrokerConfigs[]>
  /** Committed offsets (OffsetFetch v8, all partitions of each group), each group at its coordinator; read-only. */
  committedOffsets(groupIds: readonly string[]): Promise<Array<GroupCommittedOffsets & {readonly errorName: string; readonly denied?: Denial}>>
  /** Log end offsets (ListOffsets latest, read uncommitted by default), one request per leader; read-only. */
  listOffsets(
    partitions: ReadonlyArray<{topic: string; partition: number}>,
    options?: {isolation?: 'read_committed' | 'read_uncommitted'},
  ): Promise<ListedLogOffset[]>
}
