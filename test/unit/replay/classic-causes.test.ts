/**
 * A cause for every generation bump of a classic group, from consecutive GroupMetadata values (encoded with the
 * consumer protocol's subscription/assignment schemas) and the group's offset commits; and the topics a classic
 * group subscribes to (subscribedTopicsOf read the share section for classic groups).
 */
import {describe, expect, it} from 'vitest'
import {ConsumerProtocolAssignment, ConsumerProtocolSubscription, encodeEmbeddedMessage, type RecordToEncode} from '../../../src/core/records/index.js'
import {replayGroup, subscribedTopicsOf} from '../../../src/core/replay/index.js'
import {Log, share} from './log.js'

const G = 'billing-legacy'

interface M {
  id: string
  topics: string[]
  assigned: Array<[string, number[]]>
  instance?: string
  session?: number
  rebalance?: number
}

const sub = (topics: string[]) =>
  encodeEmbeddedMessage(ConsumerProtocolSubscription, {Topics: topics, UserData: null, OwnedPartitions: [], GenerationId: -1, RackId: null}, 3)
const asg = (tps: Array<[string, number[]]>) =>
  encodeEmbeddedMessage(ConsumerProtocolAssignment, {AssignedPartitions: tps.map(([Topic, Partitions]) => ({Topic, Partitions})), UserData: null}, 3)

function group(generation: number, members: M[], protocol = 'range'): RecordToEncode {
  return {
    type: 2,
    version: 3,
    key: {group: G},
    value: {
      protocolType: 'consumer',
      generation,
      protocol: members.length ? protocol : null,
      leader: members[0]?.id ?? null,
      currentStateTimestamp: 1n,
      members: members.map(m => ({
        memberId: m.id,
        groupInstanceId: m.instance ?? null,
        clientId: `client-${m.id}`,
        clientHost: '/10.0.0.9',
        rebalanceTimeout: m.rebalance ?? 300_000,
        sessionTimeout: m.session ?? 45_000,
        subscription: sub(m.topics),
        assignment: asg(m.assigned),
      })),
    },
  }
}

const a: M = {id: 'a', topics: ['orders'], assigned: [['orders', [0, 1]]]}
const b: M = {id: 'b', topics: ['orders'], assigned: [['orders', [2]]]}
describe('subscribedTopicsOf a classic group', () => {
  it('reads the classic members’ subscriptions, not the share section', () => {
    const log = new Log()
    log.write([share.metadata('billing-legacy', 1), share.member('billing-legacy', 's1', ['shared-topic'])])
    log.write([group(3, [a, {...b, topics: ['orders', 'payments']}])])
    const r = replayGroup(G, log.records)
    expect(subscribedTopicsOf('classic', r.state)).toEqual(['orders', 'payments'])
  })
})
