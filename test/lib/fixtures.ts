/** Metadata and group logs for audit tests: hashes come from our hasher over the metadata, never hard-coded. */
import {TopicHasher} from '../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../src/core/metadata.js'
import {consumer, type Log, T1, T2} from './records.js'

export function cluster(orders = 3, payments = 2, rack3 = 'rack-b'): ClusterMetadata {
  return parseMetadataDocument({
    clusterId: 'test-cluster-id',
    brokers: [
      {id: 1, rack: 'rack-a'},
      {id: 2, rack: 'rack-a'},
      {id: 3, rack: rack3},
    ],
    topics: [
      {name: 'orders', topicId: T1, partitions: Array.from({length: orders}, (_, p) => ({partition: p, replicas: [(p % 3) + 1, ((p + 1) % 3) + 1]}))},
      {name: 'payments', topicId: T2, partitions: Array.from({length: payments}, (_, p) => ({partition: p, replicas: [((p + 2) % 3) + 1]}))},
    ],
  })
}

export const hashOf = (md: ClusterMetadata, topics: string[]) => new TopicHasher(md).groupHash(topics)

/** A consumer group with one member on `topics`, settled at epoch 1 with the hash of `md` (or `hash`). */
export function settledGroup(
  log: Log,
  g: string,
  topics: string[],
  hash: bigint,
  opts: {epoch?: number; memberEpoch?: number; assignmentEpoch?: number} = {},
): void {
  const epoch = opts.epoch ?? 1
  log.write([
    consumer.member(g, 'm1', {names: topics}),
    consumer.metadata(g, epoch, hash),
    consumer.target(g, 'm1', [[T1, [0]]]),
    consumer.targetMetadata(g, opts.assignmentEpoch ?? epoch),
    consumer.current(g, 'm1', opts.memberEpoch ?? epoch, [[T1, [0]]]),
  ])
}
