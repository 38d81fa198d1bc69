/**
 * A stand-in for KafkaClient in command tests (through a vi.mock of withKafka): the live metadata, no
 * reassignment in flight, and one __consumer_offsets partition holding `records` in one batch. A first step
 * toward the cluster seam of issue 15.
 */
import type {ClusterMetadata} from '../../src/core/metadata.js'
import {encodeRecord, type RecordToEncode} from '../../src/core/records/index.js'

export function fakeClient(live: () => ClusterMetadata, recordsToEncode: readonly RecordToEncode[], timestampOf: (i: number) => bigint) {
  const records = recordsToEncode.map((r, i) => {
    const e = encodeRecord(r)
    return {offset: BigInt(i), timestamp: timestampOf(i), key: e.key, value: e.value}
  })
  const topicId = live().topics[0]?.topicId
  return {
    clusterMetadata: async () => live(),
    listPartitionReassignments: async () => [],
    /** Every partition's log end offset is 10. */
    listOffsets: async (ps: ReadonlyArray<{topic: string; partition: number}>) => ps.map(p => ({...p, offset: 10n, error: null})),
    topics: async () => [{name: '__consumer_offsets', topicId, partitions: [{partition: 0, replicas: [1]}]}],
    readPartition: async (o: {onBatch: (b: unknown) => void}) => {
      o.onBatch({baseOffset: 0n, lastOffset: BigInt(records.length - 1), producerId: -1n, isTransactional: false, isControl: false, records})
      return {topic: '__consumer_offsets', partition: 0, leader: 1, logStartOffset: 0n, endOffset: BigInt(records.length), batches: [], abortedTransactions: []}
    },
  }
}
