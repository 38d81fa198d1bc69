/**
 * `impact` read describe-only: each group predicted from its describe and the live metadata, as if its stored hash
 * equals its live one. For a group in sync, that is exactly the prediction from its records; what only the records
 * tell (stale today, Kafka 4.0's rules, classic subscriptions) is named in `reading` with READ on __consumer_offsets.
 */
import {describe, expect, it} from 'vitest'
import type {Denial} from '../../../src/core/errors.js'
import type {DescribedGroup, DescribedMember} from '../../../src/core/explain/report/described.js'
import {
  parseAddPartitions,
  parseBrokerRack,
  parseCreateTopic,
  parseDeleteTopic,
  parseRecreateTopic,
  parseReassignmentJson,
  type PlannedChange,
  predictDescribedImpact,
  predictImpact,
} from '../../../src/core/impact/index.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {renderImpact} from '../../../src/render/impact.js'
import {cluster, hashOf, settledGroup} from '../../lib/fixtures.js'
import {Log, share, streams, T1} from '../../lib/records.js'

const md = cluster(3, 2) // orders p0 [1,2] p1 [2,3] p2 [3,1]; payments p0 [3] p1 [1]; racks a a b

const member = (id: string, over: Partial<DescribedMember> = {}): DescribedMember => ({
  memberId: id,
  instanceId: null,
  rackId: null,
  memberEpoch: 3,
  clientId: `c-${id}`,
  clientHost: '/10.0.0.7',
  subscribedTopicNames: ['orders'],
  subscribedTopicRegex: null,
  assignment: [{topic: 'orders', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [0, 1, 2]}],
  targetAssignment: [{topic: 'orders', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [0, 1, 2]}],
  tasksDiffer: null,
  ...over,
})

const group = (id: string, over: Partial<DescribedGroup> = {}): DescribedGroup => ({
  group: id,
  type: 'consumer',
  state: 'Stable',
  groupEpoch: 3,
  assignmentEpoch: 3,
  assignor: 'uniform',
  members: [member('m1')],
  topologyTopics: null,
  ...over,
})

/** The same groups as their records would hold them, in sync with `md` (stored hash = live hash). */
function recorded() {
  const consumerLog = new Log()
  settledGroup(consumerLog, 'orders-g', ['orders'], hashOf(md, ['orders']))
  const pay = new Log()
  settledGroup(pay, 'pay-g', ['payments'], hashOf(md, ['payments']))
  const both = new Log()
  settledGroup(both, 'both-g', ['orders', 'payments'], hashOf(md, ['orders', 'payments']))
  const sh = new Log()
  sh.write([share.member('share-g', 'm1', ['orders']), share.metadata('share-g', 2, hashOf(md, ['orders'])), share.current('share-g', 'm1', 2, [[T1, [0]]])])
  const st = new Log()
  st.write([streams.topology('streams-g', 0, ['orders']), streams.member('streams-g', 'm1', 0), streams.metadata('streams-g', 2, hashOf(md, ['orders']))])
  return [
    ['orders-g', consumerLog],
    ['both-g', both],
    ['pay-g', pay],
    ['share-g', sh],
    ['streams-g', st],
  ].map(([g, log]): [string, ReturnType<typeof replayGroup>] => [g as string, replayGroup(g as string, (log as Log).records)])
}

const described: DescribedGroup[] = [
  group('orders-g'),
  group('both-g', {members: [member('m1', {subscribedTopicNames: ['orders', 'payments']})]}),
  group('pay-g', {members: [member('m1', {subscribedTopicNames: ['payments'], assignment: [], targetAssignment: []})]}),
  group('share-g', {type: 'share', members: [member('m1', {targetAssignment: null})]}),
  group('streams-g', {
    type: 'streams',
    topologyTopics: ['orders'],
    members: [member('m1', {subscribedTopicNames: [], assignment: null, targetAssignment: null, tasksDiffer: false})],
  }),
]

const plans: Array<[string, PlannedChange[]]> = [
  ['partitions added with their placement', [parseAddPartitions('orders=4/1:2,2:3,3:1,2:1')]],
  ['partitions added without placement', [parseAddPartitions('orders=6')]],
  ['a broker restarted with another rack', [parseBrokerRack('3=rack-z')]],
  ['a topic deleted', [parseDeleteTopic('payments')]],
  ['a topic re-created', [parseRecreateTopic('orders')]],
  ['a reassignment changing racks', [parseReassignmentJson('{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[3,2]}]}')]],
  ['a reassignment ending on the same racks', [parseReassignmentJson('{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2,1]}]}')]],
]

describe('impact describe-only', () => {
  for (const [name, changes] of plans)
    it(`${name}: for groups in sync, the same bumps, steps and hashes as the prediction from their records`, () => {
      const fromRecords = predictImpact(md, recorded(), changes)
      const fromDescribes = predictDescribedImpact(md, described, changes)
      expect(fromDescribes.groups.map(g => g.group)).toEqual(fromRecords.groups.map(g => g.group))
      expect(fromDescribes.groups.length).toBeGreaterThan(0)
      for (const g of fromDescribes.groups) {
        const r = fromRecords.groups.find(x => x.group === g.group)!
        expect({bumps: g.bumps, steps: g.steps, decides: g.decides, touched: g.touchedTopics}).toEqual({
          bumps: r.bumps,
          steps: r.steps,
          decides: r.decides,
          touched: r.touchedTopics,
        })
        expect([g.storedMetadataHash, g.rules]).toEqual([null, null])
      }
      expect(fromDescribes.phases).toEqual(fromRecords.phases)
      expect(fromDescribes.summary).toMatchObject({
        touched: fromRecords.summary.touched,
        rebalancing: fromRecords.summary.rebalancing,
        certain: fromRecords.summary.certain,
        possible: fromRecords.summary.possible,
      })
    })

  it('partitions added: every non-empty group on the topic bumps (share once more), an empty one and a group on other topics do not', () => {
    const groups = [...described, group('idle-g', {state: 'Empty', members: []})]
    const r = predictDescribedImpact(md, groups, [parseAddPartitions('orders=12')], {failOnRebalance: 3})
    expect(r.groups.map(g => [g.group, g.bumps.min, g.bumps.max])).toEqual([
      ['both-g', 1, 1],
      ['orders-g', 1, 1],
      ['share-g', 2, 2],
      ['streams-g', 1, 1],
    ])
    expect(r.summary).toMatchObject({groups: 6, touched: 4, rebalancing: 4, certain: 4, exitCode: 3})
    expect(r.groups.find(g => g.group === 'orders-g')).toMatchObject({members: 1, assignedPartitions: 3, groupEpoch: 3, today: 'EPOCHS_IN_SYNC'})
    // the describe gives a streams group's tasks, not partitions
    expect(r.groups.find(g => g.group === 'streams-g')!.assignedPartitions).toBeNull()
  })

  it('a broker-side regex that matches a created topic picks it up at its next resolution', () => {
    const regex = group('re-g', {members: [member('m1', {subscribedTopicNames: [], subscribedTopicRegex: 'orders|fresh-.*'})]})
    const other = group('no-g', {members: [member('m1', {subscribedTopicNames: [], subscribedTopicRegex: 'orders'})]})
    const r = predictDescribedImpact(md, [regex, other], [parseCreateTopic('fresh-1:3:2')])
    expect(r.groups.map(g => [g.group, g.touchedTopics])).toEqual([['re-g', ['fresh-1']]])
    expect(r.groups[0].steps[0]).toMatchObject({bump: 'yes', metadataHash: null})
    expect(r.groups[0].steps[0].when).toContain('regex resolution')
  })

  it('pending today is read from the epochs; whether a group is stale needs the stored hash, said in reading with the grant', () => {
    const pending = group('late-g', {groupEpoch: 5, assignmentEpoch: 4})
    const denial: Denial = {
      request: 'Fetch',
      resourceType: 'topic',
      resourceName: '__consumer_offsets',
      operation: 'READ',
      errorName: 'TOPIC_AUTHORIZATION_FAILED',
      principal: 'User:dave',
      grant: 'kafka-acls --add --allow-principal User:dave --operation Read --topic __consumer_offsets',
    }
    const classic = group('cl', {type: 'classic', groupEpoch: null, assignmentEpoch: null})
    const r = predictDescribedImpact(md, [pending, group('orders-g'), classic], [parseAddPartitions('orders=6')], {denial})
    expect(r.groups.map(g => [g.group, g.today])).toEqual([
      ['late-g', 'ASSIGNMENT_PENDING'],
      ['orders-g', 'EPOCHS_IN_SYNC'],
    ])
    expect(r.summary).toMatchObject({groups: 2, alreadyPending: 1, classicGroups: 0, classicGroupsSkipped: 1})
    expect(r.reading?.reason).toBe('Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED')
    expect(r.reading?.missing.map(m => m.what)).toEqual([
      expect.stringContaining('stored metadata hash (whether a group is already stale today'),
      expect.stringContaining("groups' rules (under Kafka 4.0's"),
      expect.stringContaining('subscriptions of 1 classic group(s), so whether the plan rebalances them (not predicted)'),
    ])
    // a classic group keeps no metadata hash: it is not predicted to bump from one, and the reading says how it rebalances
    expect(r.groups.some(g => g.group === 'cl')).toBe(false)
    expect(r.classicGroups).toEqual([])
    expect(r.reading?.missing[2].what).toContain('keeps no metadata hash; its leader rejoins (a new generation) when a metadata refresh shows')
    for (const m of r.reading!.missing) {
      expect(m.needs).toEqual({resourceType: 'topic', resourceName: '__consumer_offsets', operation: 'READ'})
      expect(m.grant).toBe(denial.grant)
    }
    const text = renderImpact(r)
    expect(text).toContain('read describe-only (Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED)')
    expect(text).toContain('as if its stored hash equals it')
    expect(text).toContain('1 classic not predicted describe-only')
    expect(text).toContain('1 already pending (by the epochs)')
  })

  it('asked for (no refusal): the reason says so and the grant names no principal', () => {
    const r = predictDescribedImpact(md, [group('orders-g')], [parseAddPartitions('orders=6')])
    expect(r.reading?.reason).toBe('--describe-only given')
    expect(r.reading?.missing[0].grant).toContain('--operation Read --topic __consumer_offsets')
    expect(r.reading?.missing).toHaveLength(2)
  })
})
