/**
 * KRaft metadata-log records for tests (encoded with the metadata-record codec, written into batches with
 * encodeBatch): a broker registration, a topic, a partition, a partition change, an unfence.
 */
import {encodeMetadataRecord} from '../../src/core/metadata-log/codec.js'

/** A RegisterBrokerRecord (type 0) of broker `id` on `rack`; fenced unless `fenced: false`, epoch `id` unless given. */
export const brokerRegistration = (id: number, rack: string | null, o: {epoch?: bigint; fenced?: boolean; version?: number} = {}) =>
  encodeMetadataRecord(
    0,
    {
      BrokerId: id,
      IncarnationId: 'AAAAAAAAAAAAAAAAAAAAAQ',
      BrokerEpoch: o.epoch ?? BigInt(id),
      EndPoints: [{Name: 'PLAINTEXT', Host: 'h', Port: 9092, SecurityProtocol: 0}],
      Features: [],
      Rack: rack,
      Fenced: o.fenced ?? true,
      InControlledShutdown: false,
      LogDirs: ['AAAAAAAAAAAAAAAAAAAAAg'],
    },
    o.version,
  )

/** A TopicRecord (type 2). */
export const topicRecord = (name: string, id: string) => encodeMetadataRecord(2, {Name: name, TopicId: id})

/** A PartitionRecord (type 3): every replica in sync, the first one the leader. */
export const partitionRecord = (id: string, p: number, replicas: number[]) =>
  encodeMetadataRecord(3, {
    PartitionId: p,
    TopicId: id,
    Replicas: replicas,
    Isr: replicas,
    RemovingReplicas: [],
    AddingReplicas: [],
    Leader: replicas[0],
    LeaderEpoch: 0,
    PartitionEpoch: 0,
    Directories: replicas.map(() => 'AAAAAAAAAAAAAAAAAAAAAA'),
  })

/** A PartitionChangeRecord (type 5) with `fields` (e.g. Replicas, Isr, Leader). */
export const partitionChange = (id: string, p: number, fields: Record<string, unknown>) => encodeMetadataRecord(5, {PartitionId: p, TopicId: id, ...fields})

/** A BrokerRegistrationChangeRecord (type 17) unfencing broker `id`. */
export const unfence = (id: number) => encodeMetadataRecord(17, {BrokerId: id, BrokerEpoch: 1n, Fenced: -1})
