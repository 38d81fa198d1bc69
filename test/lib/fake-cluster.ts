/**
 * The one stand-in for a cluster in command tests: a ClusterReader over records built with the log builders
 * (test/lib/records.ts). Commands run (through oclif, or their class) against it instead of a broker: a test
 * hands it to the run (`run(args, fake)`, test/lib/commands.ts) and the live command opens it through the real
 * LiveCommand and session code. Each write is one batch in the group's __consumer_offsets
 * partition, encoded with the record codec.
 */
import type {ClusterMetadata} from '../../src/core/metadata.js'
import {encodeRecord, partitionForGroup, type RecordToEncode} from '../../src/core/records/index.js'
import type {ClusterReader} from '../../src/kafka/cluster-reader.js'
import type {PartitionRead, PartitionReadOptions} from '../../src/kafka/partition-reader.js'
import type {RawRecordBatch} from '../../src/kafka/record-batch.js'
import type {ListedGroup} from '../../src/kafka/protocol.js'
import {AuthorizationDenied} from '../../src/core/errors.js'
import {denialOf} from '../../src/kafka/authorization.js'
import type {ClassicGroupDescribed, ConsumerGroupDescribed, ShareGroupDescribed, StreamsGroupDescribed} from '../../src/kafka/client.js'
import type {DescribedGroupInput} from '../../src/core/group-list.js'

export const OFFSETS_PARTITIONS = 5

export interface FakeClusterOptions {
  /** __consumer_offsets partitions (default 5); with 1, every group's records are in partition 0. */
  offsetsPartitions?: number
  /** The log end offset ListOffsets answers for partitions a test did not set in `logEnd` (default: none known). */
  logEnd?: bigint
}

export class FakeCluster implements ClusterReader {
  readonly clusterAddress = 'fake:9092'
  readonly log = new Map<number, RawRecordBatch[]>()
  readonly calls: string[] = []
  readonly offsetsPartitions: number
  readonly #defaultLogEnd: bigint | undefined
  #next = 0n
  /** The time of the next write, less its gap (epoch ms). */
  time = 1_700_000_000_000

  constructor(
    public md: ClusterMetadata,
    options: FakeClusterOptions = {},
  ) {
    this.offsetsPartitions = options.offsetsPartitions ?? OFFSETS_PARTITIONS
    this.#defaultLogEnd = options.logEnd
  }

  /** The partition reads so far. */
  get reads(): number {
    return this.calls.filter(c => c.startsWith('readPartition')).length
  }

  /** Appends one coordinator write (one batch) of `groupId`'s records, `gapMs` after the previous one. */
  write(groupId: string, records: RecordToEncode[], gapMs = 1000): void {
    this.time += gapMs
    const partition = partitionForGroup(groupId, this.offsetsPartitions)
    const base = this.#next
    const encoded = records.map((r, i) => ({offset: base + BigInt(i), timestamp: BigInt(this.time), headers: [], ...encodeRecord(r)}))
    this.#next += BigInt(records.length)
    const batch: RawRecordBatch = {
      baseOffset: base,
      lastOffset: this.#next - 1n,
      producerId: -1n,
      isTransactional: false,
      isControl: false,
      records: encoded,
      recordCount: encoded.length,
      partitionLeaderEpoch: 0,
      magic: 2,
      attributes: 0,
      compression: 'none',
      producerEpoch: -1,
      baseSequence: -1,
      baseTimestamp: BigInt(this.time),
      maxTimestamp: BigInt(this.time),
    }
    this.log.set(partition, [...(this.log.get(partition) ?? []), batch])
    // what OffsetFetch answers: the latest offset commit per partition (a tombstone deletes it)
    for (const r of records) {
      if (r.type !== 0 && r.type !== 1) continue
      const k = r.key as {group: string; topic: string; partition: number}
      const commits = this.#committed.get(k.group) ?? new Map()
      this.#committed.set(k.group, commits)
      if (r.value === null) commits.delete(`${k.topic}:${k.partition}`)
      else commits.set(`${k.topic}:${k.partition}`, {topic: k.topic, partition: k.partition, offset: (r.value as {offset: bigint}).offset, errorCode: 0})
    }
  }

  /** Per broker id, the API versions it advertises (default: none known, an error). */
  readonly apiVersionsById = new Map<number, Map<number, {min: number; max: number}>>()
  /** The cluster's finalized feature levels every answering broker reports (null: none sent). */
  finalizedFeatures: ReadonlyMap<string, number> | null = new Map([['group.version', 1]])
  async brokerApiVersions() {
    this.calls.push('brokerApiVersions')
    return this.md.brokers.map(b => {
      const apis = this.apiVersionsById.get(b.id)
      return {
        nodeId: b.id,
        host: `broker-${b.id}`,
        port: 9092,
        apis: apis ?? null,
        features: apis ? this.finalizedFeatures : null,
        error: apis ? null : 'UNKNOWN (fake)',
      }
    })
  }

  /** Per broker id, its configs as DescribeConfigs answers them (a string: that broker's error). */
  readonly brokerConfigsById = new Map<number, Record<string, string | null> | string>()
  async brokerConfigs(keys: readonly string[]) {
    this.calls.push('brokerConfigs')
    return this.md.brokers.map(b => {
      const c = this.brokerConfigsById.get(b.id) ?? {}
      const base = {nodeId: b.id, host: `broker-${b.id}`, port: 9092}
      if (typeof c === 'string') return {...base, configs: new Map<string, string | null>(), error: c}
      return {...base, configs: new Map(Object.entries(c).filter(([k]) => keys.includes(k))), error: null}
    })
  }

  readonly #committed = new Map<string, Map<string, {topic: string; partition: number; offset: bigint; errorCode: number}>>()
  /** OffsetFetch's error code for a group (e.g. 30 GROUP_AUTHORIZATION_FAILED); `committedOffsetsError` fails the call. */
  readonly committedErrors = new Map<string, number>()
  committedOffsetsError: Error | undefined
  async committedOffsets(groupIds: readonly string[]) {
    this.calls.push('committedOffsets')
    if (this.committedOffsetsError) throw this.committedOffsetsError
    return groupIds.map(groupId => {
      const errorCode = this.committedErrors.get(groupId) ?? 0
      return {
        groupId,
        errorCode,
        errorMessage: null,
        errorName: errorCode === 0 ? 'NONE' : errorCode === 30 ? 'GROUP_AUTHORIZATION_FAILED' : `ERROR_${errorCode}`,
        // what the real client adds to a refusal (src/kafka/authorization.ts)
        ...(errorCode === 30 ? {denied: denialOf(30, {request: 'OffsetFetch', resourceName: groupId})} : {}),
        offsets: errorCode === 0 ? [...(this.#committed.get(groupId)?.values() ?? [])] : [],
      }
    })
  }

  async clusterMetadata(): Promise<ClusterMetadata> {
    this.calls.push('clusterMetadata')
    return this.md
  }

  async topics(options: {topics?: readonly string[]} = {}) {
    this.calls.push('topics')
    const offsets = {
      name: '__consumer_offsets',
      topicId: this.md.topics[0]?.topicId ?? ('AAAAAAAAAAAAAAAAAAAAAA' as never),
      internal: true,
      partitions: Array.from({length: this.offsetsPartitions}, (_, p) => ({partition: p, replicas: [1]})),
    }
    const all = [offsets, ...this.md.topics]
    return options.topics ? all.filter(t => options.topics!.includes(t.name)) : all
  }

  /** Set: every Fetch of __consumer_offsets is refused as a broker refuses it without READ on the topic. */
  offsetsReadRefused = false

  async readPartition(o: PartitionReadOptions): Promise<PartitionRead> {
    this.calls.push(`readPartition ${o.partition}`)
    if (this.offsetsReadRefused && (o.topic ?? '__consumer_offsets') === '__consumer_offsets')
      throw new AuthorizationDenied(denialOf(29, {request: 'Fetch', resourceName: '__consumer_offsets'})!, 'reading __consumer_offsets')
    const batches = (this.log.get(o.partition) ?? []).filter(b => o.fromOffset === undefined || b.lastOffset >= o.fromOffset)
    for (const b of batches) o.onBatch?.(b)
    const end = batches.length > 0 ? batches.at(-1)!.lastOffset + 1n : 0n
    return {
      topic: o.topic ?? '__consumer_offsets',
      partition: o.partition,
      leader: 1,
      logStartOffset: 0n,
      endOffset: end,
      batches: o.onBatch ? [] : batches,
      abortedTransactions: [],
      fetches: 1,
    }
  }

  async listPartitionReassignments() {
    return []
  }

  /** What ListGroups answers (every group at coordinator 1), and the describes of those a test described. */
  readonly listed: ListedGroup[] = []
  readonly described = new Map<string, DescribedGroupInput>()

  /** A group ListGroups lists; with `describe`, what its type's describe answers (members: that many). */
  addGroup(
    groupId: string,
    type: string,
    state: string,
    describe?: {groupEpoch?: number; assignmentEpoch?: number; members: number; errorName?: string; state?: string},
  ): void {
    this.listed.push({groupId, type, state, protocolType: type === 'classic' ? 'consumer' : type})
    if (describe)
      this.described.set(groupId, {
        groupId,
        errorName: 'NONE',
        ...describe,
        state: describe.state ?? state,
        members: Array.from({length: describe.members}, () => ({})),
      })
  }

  /** Whole describes, as the client returns them (listed too, at coordinator 1): what a describe-only read uses. */
  readonly fullDescribes = new Map<string, ConsumerGroupDescribed | ShareGroupDescribed | StreamsGroupDescribed | ClassicGroupDescribed>()

  /** A group ListGroups lists and whose type's describe answers `d` (errorName NONE unless given). */
  describeGroup(
    type: 'consumer' | 'share' | 'streams' | 'classic',
    d: Omit<ConsumerGroupDescribed, 'errorName' | 'errorCode' | 'errorMessage'> | Record<string, unknown>,
  ): void {
    const full = {errorCode: 0, errorMessage: null, errorName: 'NONE', ...d} as unknown as ConsumerGroupDescribed
    this.listed.push({groupId: full.groupId, type, state: full.state, protocolType: type === 'classic' ? 'consumer' : type})
    this.fullDescribes.set(full.groupId, full)
  }

  async listGroups() {
    this.calls.push('listGroups')
    return this.listed
  }

  async groupCoordinators(groupIds: readonly string[]) {
    this.calls.push('groupCoordinators')
    return new Map(groupIds.map(id => [id, {id: 1, host: 'broker-1', port: 9092}]))
  }

  #describes(groupIds: readonly string[]): never[] {
    this.calls.push('describe')
    return groupIds.flatMap(id => this.fullDescribes.get(id) ?? this.described.get(id) ?? []) as never[]
  }

  async describeConsumerGroups(groupIds: readonly string[]) {
    return this.#describes(groupIds)
  }

  async describeShareGroups(groupIds: readonly string[]) {
    return this.#describes(groupIds)
  }

  async describeStreamsGroups(groupIds: readonly string[]) {
    return this.#describes(groupIds)
  }

  async describeClassicGroups(groupIds: readonly string[]) {
    return this.#describes(groupIds)
  }

  /** Log end offsets set by a test (`logEnd`), else the default, else none known (as for a partition whose leader did not answer). */
  readonly logEnd = new Map<string, bigint>()
  async listOffsets(partitions: ReadonlyArray<{topic: string; partition: number}>) {
    this.calls.push('listOffsets')
    return partitions.map(tp => {
      const offset = this.logEnd.get(`${tp.topic}:${tp.partition}`) ?? this.#defaultLogEnd
      return {...tp, offset: offset ?? null, error: offset === undefined ? 'LEADER_NOT_AVAILABLE' : null}
    })
  }

  async close(): Promise<void> {}
}

/**
 * A cluster with one __consumer_offsets partition holding `records` (of any groups) in one batch written at
 * `time`, every log end offset 10.
 */
export function onePartitionCluster(md: ClusterMetadata, records: RecordToEncode[], time = Date.now() - 60_000): FakeCluster {
  const fake = new FakeCluster(md, {offsetsPartitions: 1, logEnd: 10n})
  fake.time = time
  fake.write('', records, 0)
  return fake
}
