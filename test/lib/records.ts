/** Builds a group's log from encoded records (encode → bytes → decode), one write per batch. */
import {decodeRecord, encodeRecord, type RecordToEncode, type StructValue} from '../../src/core/records/index.js'
import type {LogBatch} from '../../src/core/log/batch.js'
import type {LoggedRecord} from '../../src/core/replay/index.js'

export const T1 = 'AAAAAAAAAAAAAAAAAAAAAQ'
export const T2 = 'AAAAAAAAAAAAAAAAAAAAAg'
export const T3 = 'AAAAAAAAAAAAAAAAAAAAAw'

export class Log {
  readonly records: LoggedRecord[] = []
  private offset = 100n
  time = 1_700_000_000_000

  /** Appends one coordinator write (one batch). `batch: false` drops batch info. */
  write(records: RecordToEncode[], opts: {batch?: boolean; gap?: number} = {}): bigint {
    this.time += opts.gap ?? 1000
    const base = this.offset
    for (const r of records) {
      const enc = encodeRecord(r)
      const offset = this.offset++
      this.records.push({
        offset,
        timestamp: this.time,
        ...(opts.batch === false ? {} : {batchBaseOffset: base}),
        record: decodeRecord(enc.key, enc.value, offset),
      })
    }
    return base
  }

  /** Raw bytes for records the encoder cannot make (unknown types). */
  raw(key: Uint8Array, value: Uint8Array | null): void {
    const offset = this.offset++
    this.time += 1000
    this.records.push({offset, timestamp: this.time, batchBaseOffset: offset, record: decodeRecord(key, value, offset)})
  }
}

const G = (GroupId: string) => ({GroupId})
const M = (GroupId: string, MemberId: string) => ({GroupId, MemberId})

export interface MemberOpts {
  names?: string[]
  regex?: string | null
  assignor?: string | null
  instanceId?: string | null
  rack?: string | null
  rebalanceTimeoutMs?: number
}

export const consumer = {
  metadata: (g: string, Epoch: number, MetadataHash = 0n): RecordToEncode => ({type: 3, key: G(g), value: {Epoch, MetadataHash}}),
  metadataTombstone: (g: string): RecordToEncode => ({type: 3, key: G(g), value: null}),
  partitionMetadata: (g: string, topics: {id: string; name: string; n: number}[]): RecordToEncode => ({
    type: 4,
    key: G(g),
    value: {Topics: topics.map(t => ({TopicId: t.id, TopicName: t.name, NumPartitions: t.n, PartitionMetadata: []}))},
  }),
  partitionMetadataTombstone: (g: string): RecordToEncode => ({type: 4, key: G(g), value: null}),
  member: (g: string, m: string, o: MemberOpts = {}): RecordToEncode => ({
    type: 5,
    key: M(g, m),
    value: {
      InstanceId: o.instanceId ?? null,
      RackId: o.rack ?? null,
      ClientId: `client-${m}`,
      ClientHost: '/10.0.0.1',
      SubscribedTopicNames: o.names ?? [],
      SubscribedTopicRegex: o.regex ?? null,
      RebalanceTimeoutMs: o.rebalanceTimeoutMs ?? 300000,
      ServerAssignor: o.assignor ?? null,
      ClassicMemberMetadata: null,
    },
  }),
  memberTombstone: (g: string, m: string): RecordToEncode => ({type: 5, key: M(g, m), value: null}),
  targetMetadata: (g: string, AssignmentEpoch: number, AssignmentTimestamp = 0n): RecordToEncode => ({
    type: 6,
    key: G(g),
    value: {AssignmentEpoch, AssignmentTimestamp},
  }),
  target: (g: string, m: string, tps: [string, number[]][]): RecordToEncode => ({
    type: 7,
    key: M(g, m),
    value: {TopicPartitions: tps.map(([TopicId, Partitions]) => ({TopicId, Partitions}))},
  }),
  targetTombstone: (g: string, m: string): RecordToEncode => ({type: 7, key: M(g, m), value: null}),
  current: (g: string, m: string, MemberEpoch: number, tps: [string, number[]][] = [], PreviousMemberEpoch = MemberEpoch - 1): RecordToEncode => ({
    type: 8,
    key: M(g, m),
    value: {
      MemberEpoch,
      PreviousMemberEpoch,
      State: 0,
      AssignedPartitions: tps.map(([TopicId, Partitions]) => ({TopicId, Partitions, AssignmentEpochs: null})),
      PartitionsPendingRevocation: [],
    },
  }),
  currentTombstone: (g: string, m: string): RecordToEncode => ({type: 8, key: M(g, m), value: null}),
  regex: (g: string, RegularExpression: string, Topics: string[], Version = 10n, Timestamp = 1000n): RecordToEncode => ({
    type: 16,
    key: {GroupId: g, RegularExpression},
    value: {Topics, Version, Timestamp},
  }),
  regexTombstone: (g: string, RegularExpression: string): RecordToEncode => ({type: 16, key: {GroupId: g, RegularExpression}, value: null}),
  offsetCommit: (g: string, topic: string, partition: number, offset: bigint): RecordToEncode => ({
    type: 1,
    key: {group: g, topic, partition},
    value: {offset, leaderEpoch: 0, metadata: '', commitTimestamp: 1n, topicId: T1},
    version: 4,
  }),
}

/**
 * A consumer group `g` settled with one member `m` on `topics`: group epoch, assignment epoch and member epoch all
 * `epoch`, the stored metadata hash `hash`, `assigned` both its target and its current assignment.
 */
export function settledConsumer(g: string, m: string, topics: string[], hash: bigint, assigned: [string, number[]][], epoch = 1): RecordToEncode[] {
  return [
    consumer.member(g, m, {names: topics}),
    consumer.metadata(g, epoch, hash),
    consumer.target(g, m, assigned),
    consumer.targetMetadata(g, epoch),
    consumer.current(g, m, epoch, assigned),
  ]
}

export const share = {
  metadata: (g: string, Epoch: number, MetadataHash = 0n): RecordToEncode => ({type: 11, key: G(g), value: {Epoch, MetadataHash}}),
  member: (g: string, m: string, names: string[]): RecordToEncode => ({
    type: 10,
    key: M(g, m),
    value: {RackId: null, ClientId: 'c', ClientHost: 'h', SubscribedTopicNames: names},
  }),
  targetMetadata: (g: string, AssignmentEpoch: number): RecordToEncode => ({type: 12, key: G(g), value: {AssignmentEpoch}}),
  target: (g: string, m: string, tps: [string, number[]][]): RecordToEncode => ({
    type: 13,
    key: M(g, m),
    value: {TopicPartitions: tps.map(([TopicId, Partitions]) => ({TopicId, Partitions}))},
  }),
  current: (g: string, m: string, MemberEpoch: number, tps: [string, number[]][] = []): RecordToEncode => ({
    type: 14,
    key: M(g, m),
    value: {MemberEpoch, PreviousMemberEpoch: MemberEpoch - 1, State: 0, AssignedPartitions: tps.map(([TopicId, Partitions]) => ({TopicId, Partitions}))},
  }),
  state: (g: string, initialized: [string, string, number[]][], initializing: [string, string, number[]][] = []): RecordToEncode => ({
    type: 15,
    key: G(g),
    value: {
      InitializingTopics: initializing.map(([TopicId, TopicName, Partitions]) => ({TopicId, TopicName, Partitions})),
      InitializedTopics: initialized.map(([TopicId, TopicName, Partitions]) => ({TopicId, TopicName, Partitions})),
      DeletingTopics: [],
    },
  }),
}

export const streams = {
  metadata: (g: string, Epoch: number, MetadataHash = 0n, more: StructValue = {}): RecordToEncode => ({
    type: 17,
    key: G(g),
    value: {Epoch, MetadataHash, ...more},
  }),
  member: (g: string, m: string, TopologyEpoch: number, more: StructValue = {}): RecordToEncode => ({
    type: 19,
    key: M(g, m),
    value: {
      InstanceId: null,
      RackId: null,
      ClientId: 'c',
      ClientHost: 'h',
      RebalanceTimeoutMs: 1000,
      TopologyEpoch,
      ProcessId: `p-${m}`,
      UserEndpoint: null,
      ClientTags: [],
      ...more,
    },
  }),
  topology: (g: string, Epoch: number, sources: string[], changelogs: string[] = []): RecordToEncode => ({
    type: 23,
    key: G(g),
    value: {
      Epoch,
      Subtopologies: [
        {
          SubtopologyId: '0',
          SourceTopics: sources,
          SourceTopicRegex: [],
          RepartitionSinkTopics: [],
          RepartitionSourceTopics: [],
          CopartitionGroups: [],
          StateChangelogTopics: changelogs.map(Name => ({Name, Partitions: 0, ReplicationFactor: 0, TopicConfigs: []})),
        },
      ],
    },
  }),
  targetMetadata: (g: string, AssignmentEpoch: number): RecordToEncode => ({type: 20, key: G(g), value: {AssignmentEpoch}}),
  memberTombstone: (g: string, m: string): RecordToEncode => ({type: 19, key: M(g, m), value: null}),
  /** A member at `MemberEpoch` with no tasks, STABLE. */
  current: (g: string, m: string, MemberEpoch: number): RecordToEncode => ({
    type: 22,
    key: M(g, m),
    value: {
      MemberEpoch,
      PreviousMemberEpoch: MemberEpoch - 1,
      State: 1,
      ActiveTasks: [],
      StandbyTasks: [],
      WarmupTasks: [],
      ActiveTasksPendingRevocation: [],
      StandbyTasksPendingRevocation: [],
      WarmupTasksPendingRevocation: [],
    },
  }),
}

export const classic = {
  group: (g: string, generation: number, members: string[], protocol = 'range'): RecordToEncode => ({
    type: 2,
    version: 3,
    key: {group: g},
    value: {
      protocolType: 'consumer',
      generation,
      protocol,
      leader: members[0] ?? null,
      currentStateTimestamp: 1n,
      members: members.map(memberId => ({
        memberId,
        groupInstanceId: null,
        clientId: 'c',
        clientHost: 'h',
        rebalanceTimeout: 1,
        sessionTimeout: 1,
        subscription: new Uint8Array(),
        assignment: new Uint8Array(),
      })),
    },
  }),
  tombstone: (g: string): RecordToEncode => ({type: 2, key: {group: g}, value: null}),
}

/**
 * Record batches as a __consumer_offsets partition holds them (encoded records at consecutive offsets, each batch a
 * second after the last, leader epoch 0), for the scanners; `producerId` makes a batch transactional.
 */
export class BatchWriter {
  offset = 0n
  time = 1_700_000_000_000

  batch(records: RecordToEncode[], txn: {producerId?: bigint} = {}): LogBatch & {partitionLeaderEpoch: number} {
    this.time += 1000
    const base = this.offset
    const rs = records.map(r => {
      const e = encodeRecord(r)
      return {offset: this.offset++, timestamp: BigInt(this.time), key: e.key, value: e.value, headers: []}
    })
    return {
      baseOffset: base,
      lastOffset: this.offset - 1n,
      producerId: txn.producerId ?? -1n,
      isTransactional: txn.producerId !== undefined,
      isControl: false,
      partitionLeaderEpoch: 0,
      records: rs,
    } as unknown as LogBatch & {partitionLeaderEpoch: number}
  }
}
