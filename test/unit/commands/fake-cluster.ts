/**
 * A ClusterReader over records built with the log builders (test/unit/replay/log.ts): commands run through oclif
 * as a user would, against this instead of a broker (setClusterFactory). Each write is one batch in the group's
 * __consumer_offsets partition, encoded with the record codec.
 */
import type {ClusterMetadata} from '../../../src/core/metadata.js'
import {encodeRecord, partitionForGroup, type RecordToEncode} from '../../../src/core/records/index.js'
import type {ClusterReader} from '../../../src/kafka/cluster-reader.js'
import type {PartitionRead, PartitionReadOptions, RawRecordBatch} from '../../../src/kafka/client.js'
import {setClusterFactory} from '../../../src/kafka/session.js'

export const OFFSETS_PARTITIONS = 5

export class FakeCluster implements ClusterReader {
  readonly clusterAddress = 'fake:9092'
  readonly log = new Map<number, RawRecordBatch[]>()
  readonly calls: string[] = []
  #next = 0n
  time = 1_700_000_000_000

  constructor(public md: ClusterMetadata) {}

  /** Appends one coordinator write (one batch) of `groupId`'s records, `gapMs` after the previous one. */
  write(groupId: string, records: RecordToEncode[], gapMs = 1000): void {
    this.time += gapMs
    const partition = partitionForGroup(groupId, OFFSETS_PARTITIONS)
    const base = this.#next
    const encoded = records.map((r, i) => ({offset: base + BigInt(i), timestamp: BigInt(this.time), headers: [], ...encodeRecord(r)}))
    this.#next += BigInt(records.length)
    const batch: RawRecordBatch = {
      baseOffset: base, lastOffset: this.#next - 1n, producerId: -1n, isTransactional: false, isControl: false, records: encoded, recordCount: encoded.length,
      partitionLeaderEpoch: 0, magic: 2, attributes: 0, compression: 'none', producerEpoch: -1, baseSequence: -1,
      baseTimestamp: BigInt(this.time), maxTimestamp: BigInt(this.time),
    }
    this.log.set(partition, [...(this.log.get(partition) ?? []), batch])
  }

  async clusterMetadata(): Promise<ClusterMetadata> {
    this.calls.push('clusterMetadata')
    return this.md
  }

  async topics(options: {topics?: readonly string[]} = {}) {
    this.calls.push('topics')
    const offsets = {name: '__consumer_offsets', topicId: this.md.topics[0]?.topicId ?? ('AAAAAAAAAAAAAAAAAAAAAA' as never), internal: true, partitions: Array.from({length: OFFSETS_PARTITIONS}, (_, p) => ({partition: p, replicas: [1]}))}
    const all = [offsets, ...this.md.topics]
    return options.topics ? all.filter(t => options.topics!.includes(t.name)) : all
  }

  async readPartition(o: PartitionReadOptions): Promise<PartitionRead> {
    this.calls.push(`readPartition ${o.partition}`)
    const batches = (this.log.get(o.partition) ?? []).filter(b => o.fromOffset === undefined || b.lastOffset >= o.fromOffset)
    for (const b of batches) o.onBatch?.(b)
    const end = batches.length > 0 ? batches.at(-1)!.lastOffset + 1n : 0n
    return {topic: o.topic ?? '__consumer_offsets', partition: o.partition, leader: 1, logStartOffset: 0n, endOffset: end, batches: o.onBatch ? [] : batches, abortedTransactions: [], fetches: 1}
  }

  async listPartitionReassignments() {
    return []
  }

  async listGroups() {
    return []
  }

  async groupCoordinators() {
    return new Map<string, number>()
  }

  async describeConsumerGroups() {
    return []
  }

  async describeShareGroups() {
    return []
  }

  async describeStreamsGroups() {
    return []
  }

  /** Log end offsets set by a test (`logEnd`), else none known (as for a partition whose leader did not answer). */
  readonly logEnd = new Map<string, bigint>()
  async listOffsets(partitions: ReadonlyArray<{topic: string; partition: number}>) {
    this.calls.push('listOffsets')
    return partitions.map(tp => {
      const offset = this.logEnd.get(`${tp.topic}:${tp.partition}`)
      return {...tp, offset: offset ?? null, error: offset === undefined ? 'LEADER_NOT_AVAILABLE' : null}
    })
  }

  async close(): Promise<void> {}
}

/** Every live command in `body` reads `cluster`; the real client is put back after. */
export async function withFake<T>(cluster: FakeCluster, body: () => Promise<T>): Promise<T> {
  setClusterFactory(async () => cluster)
  try {
    return await body()
  } finally {
    setClusterFactory(undefined)
  }
}
