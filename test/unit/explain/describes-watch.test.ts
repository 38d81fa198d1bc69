/**
 * A describe-only watch's explanation: two polls of a group's describe and the live metadata, what changed between
 * them (observeBetween, DescribePolls), and the bump that goes through the one pipeline (explainObserved: the
 * describes' causes, the metadata change settled exact only when one change of one topic lies between the polls).
 */
import {describe, expect, it} from 'vitest'
import {DescribePolls, describedHistoryGroups, snapshotOf} from '../../../src/core/audit/described-watch.js'
import {bumpLine} from '../../../src/render/watch.js'
import {explainObserved} from '../../../src/core/explain/explain.js'
import {type DescribeSnapshot, observeBetween} from '../../../src/core/explain/evidence/describes.js'
import type {DescribedGroup, DescribedMember} from '../../../src/core/explain/report/described.js'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {T1, T2} from '../../lib/records.js'

const T0 = Date.parse('2026-12-06T10:00:00.000Z')

const metadata = (orders: number, payments: number): ClusterMetadata =>
  parseMetadataDocument({
    clusterId: 'K-w',
    brokers: [{id: 1, rack: 'rack-a'}],
    topics: [
      {name: 'orders', topicId: T1, partitions: Array.from({length: orders}, (_, p) => ({partition: p, replicas: [1]}))},
      {name: 'payments', topicId: T2, partitions: Array.from({length: payments}, (_, p) => ({partition: p, replicas: [1]}))},
    ],
  })

const member = (memberId: string, topics = ['orders']): DescribedMember => ({
  memberId,
  instanceId: null,
  rackId: null,
  memberEpoch: 3,
  clientId: `client-${memberId}`,
  clientHost: '/10.0.0.7',
  subscribedTopicNames: topics,
  subscribedTopicRegex: null,
  assignment: [],
  targetAssignment: [],
  tasksDiffer: null,
})

const group = (groupEpoch: number, members: DescribedMember[]): DescribedGroup => ({
  group: 'orders-app',
  type: 'consumer',
  state: 'Stable',
  groupEpoch,
  assignmentEpoch: groupEpoch,
  assignor: 'uniform',
  members,
  topologyTopics: null,
})

/** The n-th poll (one second apart) of `g` over `md`. */
const poll = (n: number, g: DescribedGroup, md = metadata(2, 2)): DescribeSnapshot =>
  snapshotOf(g, new TopicHasher(md), {requestedAt: T0 + n * 1000, at: T0 + n * 1000 + 50})

const explained = (a: DescribeSnapshot, b: DescribeSnapshot) => explainObserved(observeBetween(a, b)!)

describe('what two polls of a describe show changed', () => {
  it('members that joined and left, and subscriptions that changed, read from the two member lists', () => {
    const o = observeBetween(poll(1, group(4, [member('a'), member('b')])), poll(2, group(7, [member('a', ['orders', 'payments']), member('c')])))!
    expect(o.bumps).toBe(3)
    expect([o.joined.map(m => m.memberId), o.left.map(m => m.memberId)]).toEqual([['c'], ['b']])
    expect(o.subscriptions).toEqual([{memberId: 'a', added: ['payments'], removed: []}])
    // payments was not polled before: it is the subscription change, not a metadata change
    expect(o.topics).toEqual([])
  })

  it('nothing when the epoch did not move, moved back (the group was deleted and created again) or is not known', () => {
    const same = group(4, [member('a')])
    expect(observeBetween(poll(1, same), poll(2, group(4, [member('a')]), metadata(3, 2)))).toBeUndefined()
    expect(observeBetween(poll(1, same), poll(2, group(1, [member('a')])))).toBeUndefined()
    expect(observeBetween(poll(1, {...same, groupEpoch: null}), poll(2, same))).toBeUndefined()
  })

  it('DescribePolls: the first poll of a group is the baseline; a group gone from a poll is forgotten', () => {
    const polls = new DescribePolls()
    expect(polls.next([poll(1, group(4, [member('a')]))])).toEqual([])
    expect(polls.next([poll(2, group(5, [member('a'), member('b')]))]).map(o => o.joined.map(m => m.memberId))).toEqual([['b']])
    expect(polls.next([])).toEqual([])
    // back after a poll without it: a baseline again, nothing observed across the gap
    expect(polls.next([poll(4, group(9, [member('a')]))])).toEqual([])
  })

  it('DescribePolls: a metadata change seen a poll before the bump (the coordinator bumps at the next heartbeat) is the bump’s cause, bounded from the first poll at the old epoch', () => {
    const polls = new DescribePolls()
    const g = group(5, [member('a')])
    polls.next([poll(1, g, metadata(2, 2))])
    expect(polls.next([poll(2, g, metadata(2, 2))])).toEqual([])
    // partitions added: seen at poll 3, the epoch still 5
    expect(polls.next([poll(3, g, metadata(3, 2))])).toEqual([])
    const [o] = polls.next([poll(4, {...g, groupEpoch: 6}, metadata(3, 2))])
    expect(o.topics.map(t => [t.topic, t.before?.partitions, t.after?.partitions])).toEqual([['orders', 2, 3]])
    expect([o.previous.requestedAt, o.current.requestedAt]).toEqual([T0 + 1000, T0 + 4000])
    const e = explainObserved(o)
    expect(e.causes.map(c => [c.kind, c.confidence])).toEqual([['metadata-hash-changed', 'exact']])
    expect(e.polls?.previousPoll).toBe('2026-12-06T10:00:01.000Z')
    // the next window starts at the bump's poll
    expect(polls.next([poll(5, {...g, groupEpoch: 6}, metadata(3, 2))])).toEqual([])
    expect(polls.next([poll(6, {...g, groupEpoch: 7}, metadata(3, 2))])[0].previous.requestedAt).toBe(T0 + 4000)
  })
})

describe('the bump a describe-only watch prints', () => {
  it('a join: exact, in the records’ words with the client id, bounded by the two polls, offset -1 (no record read)', () => {
    const e = explained(poll(1, group(4, [member('a')])), poll(2, group(5, [member('a'), member('b')])))
    expect(e).toMatchObject({epoch: 5, previousEpoch: 4, offset: '-1', metadataHash: null, time: '2026-12-06T10:00:02.050Z'})
    expect(e.polls).toEqual({previousPoll: '2026-12-06T10:00:01.000Z', poll: '2026-12-06T10:00:02.050Z', bumps: 1})
    expect(e.causes.map(c => [c.kind, c.confidence, c.message])).toEqual([
      ['member-joined', 'exact', 'member b (client client-b) joined, subscribed to orders'],
    ])
  })

  it('a partition increase alone between the polls: exact, the change and its time bound named', () => {
    const g = group(5, [member('a')])
    const e = explained(poll(1, g, metadata(2, 2)), poll(2, {...g, groupEpoch: 6}, metadata(3, 2)))
    expect(e.causes).toHaveLength(1)
    expect(e.causes[0]).toMatchObject({
      kind: 'metadata-hash-changed',
      confidence: 'exact',
      message: 'metadata changed between the polls at 2026-12-06T10:00:01.000Z and 2026-12-06T10:00:02.050Z: partitions of orders 2 → 3',
      details: {changes: [{kind: 'partition-count', topic: 'orders', then: '2', now: '3', time: '2026-12-06T10:00:02.050Z'}]},
    })
    // what the cause said before the describes' evidence settled it stays as inferred
    expect(e.causes[0].details.inferred?.confidence).toBe('unexplained')
  })

  it('two topics changed between the polls: not exact (which change made which bump is not seen)', () => {
    const g = group(5, [member('a', ['orders', 'payments'])])
    const e = explained(poll(1, g, metadata(2, 2)), poll(2, {...g, groupEpoch: 7}, metadata(3, 4)))
    expect(e.causes.map(c => [c.kind, c.confidence])).toEqual([['metadata-hash-changed', 'unexplained']])
    expect(e.causes[0].message).toMatch(
      /^live metadata of the subscribed topics changed between the polls \(live hash -?\d+ → -?\d+\): orders 2 partitions → 3 partitions, payments 2 partitions → 4 partitions; to answer it: /,
    )
  })

  it('two bumps between two polls are one observation, and the bump line says so', () => {
    const before = poll(1, group(4, [member('a')]))
    const after = poll(2, group(6, [member('a'), member('b'), member('c')]))
    const e = explained(before, after)
    expect(e.polls?.bumps).toBe(2)
    expect(e.causes.map(c => c.kind)).toEqual(['member-joined', 'member-joined'])
    expect(bumpLine({clusterId: 'K-w', group: 'orders-app', type: 'consumer', ...e})).toBe(
      '2026-12-06T10:00:02.050Z orders-app (consumer) epoch 4 → 6 (2 bumps between polls at 2026-12-06T10:00:01.000Z and 2026-12-06T10:00:02.050Z, seen as one observation): member b (client client-b) joined, subscribed to orders; member c (client client-c) joined, subscribed to orders',
    )
  })

  it('a bump with no change the describes show is said unexplained, naming what polls cannot see', () => {
    const e = explained(poll(1, group(4, [member('a')])), poll(2, group(5, [member('a')])))
    expect(e.causes.map(c => [c.kind, c.confidence])).toEqual([['unexplained', 'unexplained']])
    expect(e.causes[0].message).toContain('a member that joined and left')
  })

  it('a leave names the member the poll before listed', () => {
    const e = explained(poll(1, group(5, [member('a'), member('b')])), poll(2, group(6, [member('a')])))
    expect(e.causes.map(c => [c.kind, c.confidence, c.details.clientId])).toEqual([['member-left', 'exact', 'client-b']])
  })
})

it('the history gets each group epoch seen, with no stored hash', () => {
  expect([...describedHistoryGroups([group(6, []), {...group(0, []), group: 'classic-app', type: 'classic', groupEpoch: null}])]).toEqual([
    ['orders-app', {type: 'consumer', epoch: 6, hash: null}],
  ])
})
