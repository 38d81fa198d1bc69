/**
 * A group read describe-only (no READ on __consumer_offsets): its facts and verdict from the epochs and members its
 * describe gives, the live metadata hash of the topics it subscribes, offsets from OffsetFetch; what the records
 * would add is said, never guessed.
 */
import {describe, expect, it} from 'vitest'
import {explainDescribed} from '../../../src/core/explain/explain.js'
import type {DescribedGroup, DescribedMember} from '../../../src/core/explain/report/described.js'
import {describedOffsets} from '../../../src/core/explain/report/offsets.js'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {T1, T2} from '../../lib/records.js'

const live: ClusterMetadata = parseMetadataDocument({
  brokers: [
    {id: 1, rack: 'a'},
    {id: 2, rack: 'b'},
  ],
  topics: [
    {name: 'orders', topicId: T1, partitions: [0, 1, 2].map(p => ({partition: p, replicas: [1, 2]}))},
    {name: 'orders-eu', topicId: T2, partitions: [{partition: 0, replicas: [2]}]},
  ],
})

const orders = (...partitions: number[]) => [{topic: 'orders', topicId: T1, partitions}]

function member(memberId: string, o: Partial<DescribedMember> = {}): DescribedMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    memberEpoch: 5,
    clientId: `client-${memberId}`,
    clientHost: '/10.0.0.1',
    subscribedTopicNames: ['orders'],
    subscribedTopicRegex: null,
    assignment: orders(0, 1, 2),
    targetAssignment: orders(0, 1, 2),
    tasksDiffer: null,
    ...o,
  }
}

function group(members: DescribedMember[], o: Partial<DescribedGroup> = {}): DescribedGroup {
  return {group: 'g', type: 'consumer', state: 'Stable', groupEpoch: 5, assignmentEpoch: 5, assignor: 'uniform', members, topologyTopics: null, ...o}
}

const explain = (g: DescribedGroup | null) => explainDescribed('g', g, {live, now: Date.now()})

describe('a group read describe-only: the verdict from its epochs and members', () => {
  it('no members: EMPTY_GROUP, nothing pending', () => {
    const r = explain(group([], {state: 'Empty'}))
    expect(r.verdict).toMatchObject({code: 'EMPTY_GROUP', pending: false})
    expect(r.members).toEqual([])
  })

  it('group epoch above assignment epoch: ASSIGNMENT_PENDING, pending, without a since', () => {
    const r = explain(group([member('m1', {memberEpoch: 4})], {groupEpoch: 6, assignmentEpoch: 4}))
    expect(r.verdict).toMatchObject({code: 'ASSIGNMENT_PENDING', pending: true})
    expect(r.verdict.message).toContain('group epoch 6 is above assignment epoch 4')
    expect(r.findings.find(f => f.code === 'ASSIGNMENT_PENDING')?.details).toEqual({groupEpoch: 6, assignmentEpoch: 4, since: null})
  })

  it('a member whose target holds a partition another still owns: RECONCILING, and it waits on that member', () => {
    const m1 = member('m1', {assignment: orders(0, 1), targetAssignment: orders(0)})
    const m2 = member('m2', {memberEpoch: 4, assignment: [], targetAssignment: orders(1, 2)})
    const r = explain(group([m1, m2]))
    expect(r.verdict).toMatchObject({code: 'RECONCILING', pending: true})
    expect(r.verdict.message).toContain('whether one is stuck needs the records or a watch')
    const [s1, s2] = r.members
    expect(s1.partitions).toEqual({
      assigned: orders(0, 1),
      target: orders(0),
      pendingRevocation: orders(1),
      pendingAssignment: [],
      waitingOn: [],
    })
    expect(s2.partitions?.pendingAssignment).toEqual(orders(1, 2))
    expect(s2.partitions?.waitingOn).toEqual(['m1'])
    expect([s1.reconciling, s2.reconciling]).toEqual([true, true])
    const said = r.findings.filter(f => f.code === 'MEMBER_RECONCILING').map(f => f.message)
    expect(said[1]).toContain('member epoch 4 behind assignment epoch 5')
    expect(said[1]).toContain('waiting on m1 to revoke them')
    expect(r.findings.filter(f => f.code === 'MEMBER_RECONCILING').map(f => f.details)).toEqual([
      {memberId: 'm1', clientId: 'client-m1', memberEpoch: 5, state: null, since: null, stuck: false},
      {memberId: 'm2', clientId: 'client-m2', memberEpoch: 4, state: null, since: null, stuck: false},
    ])
  })

  it('every member at the assignment epoch with its target: EPOCHS_IN_SYNC, not "in sync": the stored hash is unknown', () => {
    const r = explain(group([member('m1')]))
    expect(r.verdict).toMatchObject({code: 'EPOCHS_IN_SYNC', pending: false})
    expect(r.verdict.message).toContain('needs the stored metadata hash (READ on __consumer_offsets)')
    expect(r.inSync).toBeNull()
    expect(r.storedMetadataHash).toBeNull()
    expect(r.timeline).toEqual([])
  })

  it("the live metadata hash is the one topic-hash compute gives for the members' subscriptions", () => {
    const r = explain(group([member('m1')]))
    expect(r.liveMetadataHash).toBe(new TopicHasher(live).groupHash(['orders']).toString())
    expect(r.topics).toEqual([{name: 'orders', exists: true, topicId: T1, partitions: 3, hash: new TopicHasher(live).topicHash('orders').toString()}])
  })

  it('a regex member counts the topics of its assignment (the describe does not resolve the regex)', () => {
    const regex = member('m2', {
      subscribedTopicNames: [],
      subscribedTopicRegex: 'orders-.*',
      assignment: [{topic: 'orders-eu', topicId: T2, partitions: [0]}],
      targetAssignment: [{topic: 'orders-eu', topicId: T2, partitions: [0]}],
    })
    const r = explain(group([member('m1'), regex]))
    expect(r.topics.map(t => t.name)).toEqual(['orders', 'orders-eu'])
    expect(r.liveMetadataHash).toBe(new TopicHasher(live).groupHash(['orders', 'orders-eu']).toString())
  })

  it('a subscribed topic that does not exist is a MISSING_TOPICS finding', () => {
    const r = explain(group([member('m1', {subscribedTopicNames: ['orders', 'payments']})]))
    expect(r.findings.find(f => f.code === 'MISSING_TOPICS')?.details).toEqual({topics: ['payments'], members: ['m1']})
  })

  it('no group listed: NOT_FOUND', () => {
    expect(explain(null).verdict.code).toBe('NOT_FOUND')
  })

  it('reading says describe-only, what the records would give and the grant', () => {
    expect(explain(group([member('m1')])).reading).toEqual({
      mode: 'describe-only',
      reason: '--describe-only given',
      missing: [
        {
          what: 'stored metadata hash and the cause of each bump',
          needs: {resourceType: 'topic', resourceName: '__consumer_offsets', operation: 'READ'},
          grant: 'kafka-acls --bootstrap-server <bootstrap-server> --add --allow-principal User:<you> --operation Read --topic __consumer_offsets',
        },
      ],
    })
  })
})

describe('offsets of a group read describe-only: OffsetFetch and ListOffsets', () => {
  it("the members' current assignments, then committed partitions no member has; lag where both offsets are known", () => {
    const g = group([member('m1', {assignment: orders(0, 1), targetAssignment: orders(0, 1)})])
    const committed = new Map([
      ['orders:0', 7n],
      ['orders:2', 3n],
    ])
    const logEnd = new Map([
      ['orders:0', {offset: 10n, error: null}],
      ['orders:1', {offset: 4n, error: null}],
      ['orders:2', {offset: null, error: 'LEADER_NOT_AVAILABLE'}],
    ])
    const o = describedOffsets(g, committed, live, logEnd)
    expect(o?.partitions.map(p => [p.partition, p.committedOffset, p.logEndOffset, p.lag, p.memberId])).toEqual([
      [0, '7', '10', '3', 'm1'],
      [1, null, '4', null, 'm1'],
      [2, '3', null, null, null],
    ])
    expect(o?.totalLag).toBe('3')
    expect(o?.uncommitted).toBe(1)
  })

  it('share groups have no offsets table', () => {
    expect(describedOffsets(group([member('m1')], {type: 'share'}), new Map(), live, new Map())).toBeNull()
  })
})
