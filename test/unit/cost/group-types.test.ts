/**
 * Bump costs of the other group types: a classic group's generations (partitions moved, the protocol its assignor
 * implies, no duration), a share group (assignment changes only, no revocation step), a streams group (active tasks
 * with their time without an owner; standby tasks moved without one).
 */
import {describe, expect, it} from 'vitest'
import {classicProtocol, rebalanceCosts} from '../../../src/core/cost/index.js'
import {Log, share, streams, T1} from '../../lib/records.js'
import {generation, streamsCurrent, streamsTarget} from './records.js'

describe('classic group generations', () => {
  it('eager (range): the partitions whose owner changed between generations, no duration claimed', () => {
    const log = new Log()
    log.write([generation('legacy', 1, 'range', [['a', [['orders', [0, 1, 2, 3]]]]])])
    log.write([
      generation('legacy', 2, 'range', [
        ['a', [['orders', [0, 1]]]],
        ['b', [['orders', [2, 3]]]],
      ]),
    ])
    const [, second] = rebalanceCosts('legacy', log.records)
    expect(second).toMatchObject({groupType: 'classic', epoch: 2, previousEpoch: 1, protocol: 'eager', assignor: 'range'})
    expect(second.moved.map(m => [m.topic, m.partition, m.from?.clientId, m.to?.clientId, m.unownedMs, m.topicId])).toEqual([
      ['orders', 2, 'client-a', 'client-b', null, null],
      ['orders', 3, 'client-a', 'client-b', null, null],
    ])
    expect(second.convergence).toEqual({status: 'not-measured', reason: 'classic-group'})
    expect(second.unownedPartitionMs).toBe(0)
    expect(second.cannotTell.join(' ')).toMatch(/no duration/)
  })

  it('cooperative (cooperative-sticky): a partition revoked in one generation and assigned in the next keeps its old owner', () => {
    const log = new Log()
    log.write([generation('coop', 4, 'cooperative-sticky', [['a', [['orders', [0, 1, 2]]]]])])
    log.write([
      generation('coop', 5, 'cooperative-sticky', [
        ['a', [['orders', [0, 1]]]],
        ['b', []],
      ]),
    ])
    log.write([
      generation('coop', 6, 'cooperative-sticky', [
        ['a', [['orders', [0, 1]]]],
        ['b', [['orders', [2]]]],
      ]),
    ])
    const [, revoked, assigned] = rebalanceCosts('coop', log.records)
    expect(revoked.protocol).toBe('cooperative')
    expect(revoked.moved.map(m => [m.partition, m.from?.memberId, m.to])).toEqual([[2, 'a', null]])
    expect(assigned.moved.map(m => [m.partition, m.from?.memberId, m.to?.memberId])).toEqual([[2, 'a', 'b']])
  })

  it('names the protocol from the assignor, and does not guess an unknown one', () => {
    expect(['range', 'roundrobin', 'sticky', 'cooperative-sticky', 'stream', null].map(classicProtocol)).toEqual([
      'eager',
      'eager',
      'eager',
      'cooperative',
      'unknown',
      'unknown',
    ])
  })
})

describe('share group', () => {
  it('shows the assignment changes of a bump, pairs a partition given up with its new member, and measures no gap or convergence', () => {
    const G = 'shares'
    const log = new Log()
    log.write([share.member(G, 'm1', ['orders']), share.metadata(G, 1), share.targetMetadata(G, 1), share.current(G, 'm1', 1, [[T1, [0, 1, 2, 3]]])])
    log.write([
      share.member(G, 'm2', ['orders']),
      share.metadata(G, 2),
      share.target(G, 'm1', [[T1, [0, 1]]]),
      share.target(G, 'm2', [[T1, [2, 3]]]),
      share.targetMetadata(G, 2),
      share.current(G, 'm2', 2, [[T1, [2, 3]]]),
    ])
    log.write([share.current(G, 'm1', 2, [[T1, [0, 1]]])], {gap: 1500})
    const bump = rebalanceCosts(G, log.records).at(-1)!
    expect(bump.groupType).toBe('share')
    expect(bump.moved.map(m => [m.partition, m.from?.memberId, m.to?.memberId, m.unownedMs])).toEqual([
      [2, 'm1', 'm2', null],
      [3, 'm1', 'm2', null],
    ])
    expect(bump.convergence).toEqual({status: 'not-measured', reason: 'share-group'})
    expect(bump.slowest).toBeNull()
    expect(bump.cannotTell.join(' ')).toMatch(/no revocation step/)
  })
})

describe('streams group', () => {
  it('an active task revoked and given to a new member: its gap, the convergence and the revoker; a standby task moved without a gap', () => {
    const G = 'streams-app'
    const log = new Log()
    const member = (m: string) => streams.member(G, m, 1, {ClientId: `client-${m}`})
    log.write([
      streams.topology(G, 1, ['orders']),
      member('m1'),
      streams.metadata(G, 1),
      streamsTarget(G, 'm1', [['0', [0, 1]]]),
      streams.targetMetadata(G, 1),
      streamsCurrent(G, 'm1', {epoch: 1, active: [['0', [0, 1]]]}),
    ])
    log.write([
      member('m2'),
      streams.metadata(G, 2),
      streamsTarget(G, 'm1', [['0', [0]]], [['0', [1]]]),
      streamsTarget(G, 'm2', [['0', [1]]], [['0', [0]]]),
      streams.targetMetadata(G, 2),
      streamsCurrent(G, 'm2', {epoch: 2, state: 3, standby: [['0', [0]]]}),
    ])
    const bumpMs = log.time
    log.write([streamsCurrent(G, 'm1', {epoch: 1, state: 2, active: [['0', [0]]], activePending: [['0', [1]]]})], {gap: 800})
    log.write([streamsCurrent(G, 'm1', {epoch: 2, active: [['0', [0]]], standby: [['0', [1]]]})], {gap: 3000})
    const releasedMs = log.time
    log.write([streamsCurrent(G, 'm2', {epoch: 2, active: [['0', [1]]], standby: [['0', [0]]]})], {gap: 400})
    const bump = rebalanceCosts(G, log.records).at(-1)!
    const active = bump.moved.find(m => m.kind === 'active')!
    expect(active).toMatchObject({subtopologyId: '0', partition: 1, from: {clientId: 'client-m1'}, to: {clientId: 'client-m2'}})
    expect(active).toMatchObject({releasedAtMs: releasedMs, unownedMs: 400, topic: null, topicId: null})
    const standby = bump.moved.filter(m => m.kind === 'standby').map(m => [m.partition, m.from?.memberId ?? null, m.to?.memberId, m.unownedMs])
    expect(standby).toEqual(
      [
        [0, null, 'm2'],
        [1, null, 'm1'],
      ].map(x => [...x, null]),
    )
    expect(bump.convergence).toMatchObject({status: 'converged', afterMs: log.time - bumpMs})
    expect(bump.slowest).toMatchObject({member: {memberId: 'm1'}, doing: 'revoking', ms: 3000})
    expect(bump.cannotTell.join(' ')).toMatch(/Standby/)
  })
})
