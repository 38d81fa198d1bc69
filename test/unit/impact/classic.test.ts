/**
 * impact for classic consumer groups: the leader rejoins when a metadata refresh differs from what it
 * assigned with — partition counts of subscribed topics, a topic gone, and racks only when the leader has a rack.
 */
import {describe, expect, it} from 'vitest'
import {predictImpact} from '../../../src/core/impact/index.js'
import {ConsumerProtocolAssignment, ConsumerProtocolSubscription, encodeEmbeddedMessage, type RecordToEncode} from '../../../src/core/records/index.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {renderImpact} from '../../../src/render/impact.js'
import {cluster} from '../../lib/fixtures.js'
import {Log} from '../../lib/records.js'

const sub = (topics: string[], rack: string | null) =>
  encodeEmbeddedMessage(ConsumerProtocolSubscription, {Topics: topics, UserData: null, OwnedPartitions: [], GenerationId: -1, RackId: rack}, 3)
const asg = () => encodeEmbeddedMessage(ConsumerProtocolAssignment, {AssignedPartitions: [], UserData: null}, 3)

function classicGroup(
  g: string,
  topics: string[],
  o: {rack?: string | null; members?: number; protocolType?: string} = {},
): [string, ReturnType<typeof replayGroup>] {
  const members = Array.from({length: o.members ?? 1}, (_, i) => `${g}-m${i}`)
  const rec: RecordToEncode = {
    type: 2,
    version: 3,
    key: {group: g},
    value: {
      protocolType: o.protocolType ?? 'consumer',
      generation: 4,
      protocol: members.length ? 'range' : null,
      leader: members[0] ?? null,
      currentStateTimestamp: 1n,
      members: members.map(id => ({
        memberId: id,
        groupInstanceId: null,
        clientId: 'c',
        clientHost: '/10.0.0.9',
        rebalanceTimeout: 300_000,
        sessionTimeout: 45_000,
        subscription: sub(topics, o.rack ?? null),
        assignment: asg(),
      })),
    },
  }
  const log = new Log()
  log.write([rec])
  return [g, replayGroup(g, log.records)]
}

describe('impact: classic consumer groups', () => {
  it("a partition increase of a subscribed topic: one rebalance at the leader's next metadata refresh; counted with the others", () => {
    const md = cluster()
    const r = predictImpact(
      md,
      [classicGroup('legacy', ['orders']), classicGroup('other', ['payments']), classicGroup('connect-x', ['orders'], {protocolType: 'connect'})],
      [{kind: 'add-partitions', topic: 'orders', count: 6}],
    )
    expect(r.classicGroups).toEqual([
      expect.objectContaining({
        group: 'legacy',
        type: 'classic',
        members: 1,
        touchedTopics: ['orders'],
        bumps: {min: 1, max: 1},
        steps: [expect.objectContaining({phase: 'topics', bump: 'yes', why: 'orders partitions 3 → 6', when: expect.stringContaining('metadata.max.age.ms')})],
      }),
    ])
    expect(r.summary).toMatchObject({classicGroups: 2, classicGroupsSkipped: 1, rebalancing: 1, certain: 1, touched: 1})
    const text = renderImpact(r)
    expect(text).toContain('classic groups (no metadata hash')
    expect(text).toMatch(/legacy .*orders partitions 3 → 6/)
    expect(text).toContain('would rebalance (1 certainly')
  })

  it('racks count only when the leader declares client.rack; an empty group is not listed; a deleted topic is seen', () => {
    const md = cluster()
    const move = {kind: 'reassignment' as const, partitions: [{topic: 'orders', partition: 0, replicas: [3, 2]}]}
    // orders 0 is on [1,2] (rack-a, rack-a): [3,2] gives rack-a, rack-b
    const norack = predictImpact(md, [classicGroup('g', ['orders'])], [move])
    expect(norack.classicGroups[0]).toMatchObject({leaderRack: null, bumps: {min: 0, max: 0}, steps: []})
    expect(norack.classicGroups[0].notes.join()).toContain('declares no client.rack')
    const racked = predictImpact(md, [classicGroup('g', ['orders'], {rack: 'rack-a'})], [move])
    expect(racked.classicGroups[0]).toMatchObject({leaderRack: 'rack-a'})
    expect(racked.classicGroups[0].bumps.max).toBeGreaterThanOrEqual(1)
    expect(racked.classicGroups[0].steps.map(s => s.why).join()).toContain("orders: the racks of a partition's replicas change")
    const empty = predictImpact(md, [classicGroup('e', ['orders'], {members: 0})], [{kind: 'add-partitions', topic: 'orders', count: 6}])
    // no members, no subscription: nothing refreshes, nothing to list
    expect(empty.classicGroups).toEqual([])
    expect(empty.summary).toMatchObject({classicGroups: 1, rebalancing: 0})
    const del = predictImpact(md, [classicGroup('g', ['orders', 'payments'])], [{kind: 'delete-topic', topic: 'payments'}])
    expect(del.classicGroups[0].steps[0]).toMatchObject({bump: 'yes', why: 'payments is gone'})
  })
})
