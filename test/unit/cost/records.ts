/**
 * Current-assignment records with a state and partitions pending revocation, as the coordinator writes them while a
 * member reconciles (CurrentAssignmentBuilder): a member with partitions to give up stays at its old epoch in
 * UNREVOKED_PARTITIONS (1) with them pending; once it acknowledges, it moves to the assignment epoch, STABLE (0), or
 * UNRELEASED_PARTITIONS (2) while partitions it is given are still held by others.
 */
import {ConsumerProtocolAssignment, ConsumerProtocolSubscription, encodeEmbeddedMessage, type RecordToEncode} from '../../../src/core/records/index.js'

export const STABLE = 0
export const UNREVOKED = 1
export const UNRELEASED = 2

export function current(
  g: string,
  m: string,
  o: {epoch: number; previous?: number; state?: number; assigned?: [string, number[]][]; pending?: [string, number[]][]},
): RecordToEncode {
  return {
    type: 8,
    key: {GroupId: g, MemberId: m},
    value: {
      MemberEpoch: o.epoch,
      PreviousMemberEpoch: o.previous ?? o.epoch - 1,
      State: o.state ?? STABLE,
      AssignedPartitions: (o.assigned ?? []).map(([TopicId, Partitions]) => ({TopicId, Partitions, AssignmentEpochs: null})),
      PartitionsPendingRevocation: (o.pending ?? []).map(([TopicId, Partitions]) => ({TopicId, Partitions, AssignmentEpochs: null})),
    },
  }
}

type Tasks = [string, number[]][]
const tasks = (t: Tasks = []) => t.map(([SubtopologyId, Partitions]) => ({SubtopologyId, Partitions, AssignmentEpochs: null}))

/** A streams member's current assignment (streams states: 1 STABLE, 2 UNREVOKED_TASKS, 3 UNRELEASED_TASKS). */
export function streamsCurrent(
  g: string,
  m: string,
  o: {epoch: number; state?: number; active?: Tasks; standby?: Tasks; warmup?: Tasks; activePending?: Tasks},
): RecordToEncode {
  return {
    type: 22,
    key: {GroupId: g, MemberId: m},
    value: {
      MemberEpoch: o.epoch,
      PreviousMemberEpoch: o.epoch - 1,
      State: o.state ?? 1,
      ActiveTasks: tasks(o.active),
      StandbyTasks: tasks(o.standby),
      WarmupTasks: tasks(o.warmup),
      ActiveTasksPendingRevocation: tasks(o.activePending),
      StandbyTasksPendingRevocation: [],
      WarmupTasksPendingRevocation: [],
    },
  }
}

export function streamsTarget(g: string, m: string, active: Tasks, standby: Tasks = []): RecordToEncode {
  return {type: 21, key: {GroupId: g, MemberId: m}, value: {ActiveTasks: tasks(active), StandbyTasks: tasks(standby), WarmupTasks: []}}
}

const sub = (topics: string[]) =>
  encodeEmbeddedMessage(ConsumerProtocolSubscription, {Topics: topics, UserData: null, OwnedPartitions: [], GenerationId: -1, RackId: null}, 3)
const asg = (tps: [string, number[]][]) =>
  encodeEmbeddedMessage(ConsumerProtocolAssignment, {AssignedPartitions: tps.map(([Topic, Partitions]) => ({Topic, Partitions})), UserData: null}, 3)

/** A classic GroupMetadata record as the coordinator writes it when a generation's SyncGroup completes. */
export function generation(g: string, gen: number, protocol: string, members: [string, [string, number[]][]][]): RecordToEncode {
  return {
    type: 2,
    version: 3,
    key: {group: g},
    value: {
      protocolType: 'consumer',
      generation: gen,
      protocol,
      leader: members[0]?.[0] ?? null,
      currentStateTimestamp: 1n,
      members: members.map(([memberId, assigned]) => ({
        memberId,
        groupInstanceId: null,
        clientId: `client-${memberId}`,
        clientHost: '/10.0.0.9',
        rebalanceTimeout: 300_000,
        sessionTimeout: 45_000,
        subscription: sub(['orders']),
        assignment: asg(assigned),
      })),
    },
  }
}
