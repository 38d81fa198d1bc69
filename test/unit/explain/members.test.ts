import {describe, expect, it} from 'vitest'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {partitionsText} from '../../../src/render/explain.js'
import {consumer, Log, share, T1, T2} from '../../lib/records.js'

const G = 'g'
const live = parseMetadataDocument(
  {
    brokers: [{id: 1, rack: null}],
    topics: [
      {name: 'orders', topicId: T1, partitions: [0, 1, 2, 3].map(partition => ({partition, replicas: [1]}))},
      {name: 'payments', topicId: T2, partitions: [{partition: 0, replicas: [1]}]},
    ],
  },
  'test',
)

describe('members: current vs target partitions by topic name, pending, and whom a member waits on', () => {
  it('a consumer group mid-rebalance: a revoking owner blocks the joining member', () => {
    const log = new Log()
    log.write([
      consumer.member(G, 'a', {names: ['orders', 'payments']}),
      consumer.metadata(G, 1),
      consumer.targetMetadata(G, 1),
      consumer.target(G, 'a', [
        [T1, [0, 1, 2, 3]],
        [T2, [0]],
      ]),
      consumer.current(G, 'a', 1, [
        [T1, [0, 1, 2, 3]],
        [T2, [0]],
      ]),
    ])
    // b joins at epoch 2: the target moves orders 2,3 to b; a keeps 0,1 and payments, still owns 2,3 (revoking)
    const revoking = consumer.current(G, 'a', 1, [
      [T1, [0, 1]],
      [T2, [0]],
    ])
    ;(revoking.value as {State: number}).State = 1
    ;(revoking.value as {PartitionsPendingRevocation: unknown}).PartitionsPendingRevocation = [{TopicId: T1, Partitions: [3, 2], AssignmentEpochs: null}]
    log.write([
      consumer.member(G, 'b', {names: ['orders']}),
      consumer.metadata(G, 2),
      consumer.targetMetadata(G, 2),
      consumer.target(G, 'a', [
        [T1, [0, 1]],
        [T2, [0]],
      ]),
      consumer.target(G, 'b', [[T1, [2, 3]]]),
      revoking,
      consumer.current(G, 'b', 2, []),
    ])
    const r = explainGroup(G, replayGroup(G, log.records), {live, now: log.time})
    const a = r.members.find(m => m.memberId === 'a')!
    const b = r.members.find(m => m.memberId === 'b')!
    expect(a.clientHost).toBe('/10.0.0.1')
    expect(a.state).toBe('UNREVOKED_PARTITIONS')
    expect(a.partitions).toEqual({
      assigned: [
        {topic: 'orders', topicId: T1, partitions: [0, 1]},
        {topic: 'payments', topicId: T2, partitions: [0]},
      ],
      target: [
        {topic: 'orders', topicId: T1, partitions: [0, 1]},
        {topic: 'payments', topicId: T2, partitions: [0]},
      ],
      pendingRevocation: [{topic: 'orders', topicId: T1, partitions: [2, 3]}],
      pendingAssignment: [],
      waitingOn: [],
    })
    expect(b.partitions).toMatchObject({assigned: [], pendingAssignment: [{topic: 'orders', partitions: [2, 3]}], waitingOn: ['a']})
    expect(partitionsText(a.partitions!.assigned)).toBe('orders 0,1; payments 0')
  })

  it('a share group: released partitions are derived; a topic id no topic has today keeps its id', () => {
    const gone = 'AAAAAAAAAAAAAAAAAAAACQ'
    const log = new Log()
    log.write([
      share.member(G, 's1', ['orders']),
      share.metadata(G, 3),
      share.targetMetadata(G, 3),
      share.target(G, 's1', [[T1, [0, 1, 2]]]),
      share.current(G, 's1', 2, [
        [T1, [0, 1, 2, 3]],
        [gone, [0]],
      ]),
    ])
    const r = explainGroup(G, replayGroup(G, log.records), {live, now: log.time})
    const s1 = r.members[0]
    expect(s1.partitions).toEqual({
      assigned: [
        {topic: 'orders', topicId: T1, partitions: [0, 1, 2, 3]},
        {topic: null, topicId: gone, partitions: [0]},
      ],
      target: [{topic: 'orders', topicId: T1, partitions: [0, 1, 2]}],
      pendingRevocation: [
        {topic: 'orders', topicId: T1, partitions: [3]},
        {topic: null, topicId: gone, partitions: [0]},
      ],
      pendingAssignment: [],
      waitingOn: [],
    })
    expect(partitionsText(s1.partitions!.pendingRevocation)).toBe(`orders 3; id ${gone} 0`)
  })
})

describe('members in the text of group explain', () => {
  it('a table of assigned / to revoke / to assign, and who waits on whom', async () => {
    const {renderExplain} = await import('../../../src/render/explain.js')
    const log = new Log()
    log.write([
      consumer.member(G, 'a', {names: ['orders']}),
      consumer.metadata(G, 1),
      consumer.targetMetadata(G, 1),
      consumer.target(G, 'a', [[T1, [0, 1, 2, 3]]]),
      consumer.current(G, 'a', 1, [[T1, [0, 1, 2, 3]]]),
    ])
    const revoking = consumer.current(G, 'a', 1, [[T1, [0, 1]]])
    ;(revoking.value as {State: number}).State = 1
    ;(revoking.value as {PartitionsPendingRevocation: unknown}).PartitionsPendingRevocation = [{TopicId: T1, Partitions: [2, 3], AssignmentEpochs: null}]
    log.write([
      consumer.member(G, 'b', {names: ['orders']}),
      consumer.metadata(G, 2),
      consumer.targetMetadata(G, 2),
      consumer.target(G, 'a', [[T1, [0, 1]]]),
      consumer.target(G, 'b', [[T1, [2, 3]]]),
      revoking,
      consumer.current(G, 'b', 2, []),
    ])
    const text = renderExplain(explainGroup(G, replayGroup(G, log.records), {live, now: log.time}))
    expect(text).toMatch(/│ a\s+│ \/10\.0\.0\.1 │ orders 0,1 │ orders 2,3\s+│\s+│/)
    expect(text).toMatch(/│ b\s+│ \/10\.0\.0\.1 │\s+│\s+│ orders 2,3 │/)
    expect(text).toContain('member b waits for a (client client-a on /10.0.0.1) to revoke orders 2,3')
  })
})
