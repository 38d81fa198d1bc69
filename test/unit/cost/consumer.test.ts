/**
 * The cost of a consumer group's bumps, from records written in the coordinator's order: a new member's join write
 * (member metadata, group epoch, target assignment, its own current assignment), then each member's reconciliation
 * heartbeats; a leave writes the member's tombstones (current, target, metadata) before the epoch record.
 */
import {describe, expect, it} from 'vitest'
import {CostTracker, churnSummary, type RebalanceCost, rebalanceCosts, topicNamesOf} from '../../../src/core/cost/index.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {cluster} from '../../lib/fixtures.js'
import {consumer, Log, T1} from '../../lib/records.js'
import {current, UNRELEASED, UNREVOKED} from './records.js'

const G = 'orders-app'
const all: [string, number[]][] = [[T1, [0, 1, 2, 3, 4, 5]]]

/** m1 and m2 share six partitions at epoch 2, converged. */
function twoMembers(log: Log): void {
  log.write([
    consumer.member(G, 'm1'),
    consumer.metadata(G, 1),
    consumer.target(G, 'm1', all),
    consumer.targetMetadata(G, 1),
    current(G, 'm1', {epoch: 1, assigned: all}),
  ])
  log.write([
    consumer.member(G, 'm2'),
    consumer.metadata(G, 2),
    consumer.target(G, 'm1', [[T1, [0, 1, 2]]]),
    consumer.target(G, 'm2', [[T1, [3, 4, 5]]]),
    consumer.targetMetadata(G, 2),
    current(G, 'm2', {epoch: 2, state: UNRELEASED}),
  ])
  log.write([current(G, 'm1', {epoch: 1, previous: 1, state: UNREVOKED, assigned: [[T1, [0, 1, 2]]], pending: [[T1, [3, 4, 5]]]})])
  log.write([current(G, 'm1', {epoch: 2, previous: 1, assigned: [[T1, [0, 1, 2]]]})], {gap: 200})
  log.write([current(G, 'm2', {epoch: 2, assigned: [[T1, [3, 4, 5]]]})], {gap: 300})
}

/** m3 joins (epoch 3); m2 gives up partition 5 quickly, m1 takes 6 s to revoke partition 2. */
function slowRevocation(log: Log): {bumpMs: number; m1PendingMs: number; m2ReleaseMs: number; m1ReleaseMs: number; endMs: number} {
  log.write(
    [
      consumer.member(G, 'm3'),
      consumer.metadata(G, 3),
      consumer.target(G, 'm1', [[T1, [0, 1]]]),
      consumer.target(G, 'm2', [[T1, [3, 4]]]),
      consumer.target(G, 'm3', [[T1, [2, 5]]]),
      consumer.targetMetadata(G, 3),
      current(G, 'm3', {epoch: 3, previous: 0, state: UNRELEASED}),
    ],
    {gap: 10_000},
  )
  const bumpMs = log.time
  log.write([current(G, 'm2', {epoch: 2, previous: 2, state: UNREVOKED, assigned: [[T1, [3, 4]]], pending: [[T1, [5]]]})], {gap: 1000})
  log.write([current(G, 'm1', {epoch: 2, previous: 2, state: UNREVOKED, assigned: [[T1, [0, 1]]], pending: [[T1, [2]]]})], {gap: 500})
  const m1PendingMs = log.time
  log.write([current(G, 'm2', {epoch: 3, previous: 2, assigned: [[T1, [3, 4]]]})], {gap: 500})
  const m2ReleaseMs = log.time
  log.write([current(G, 'm3', {epoch: 3, previous: 3, state: UNRELEASED, assigned: [[T1, [5]]]})], {gap: 300})
  log.write([current(G, 'm1', {epoch: 3, previous: 2, assigned: [[T1, [0, 1]]]})], {gap: 6000 - 800})
  const m1ReleaseMs = log.time
  log.write([current(G, 'm3', {epoch: 3, previous: 3, assigned: [[T1, [2, 5]]]})], {gap: 700})
  return {bumpMs, m1PendingMs, m2ReleaseMs, m1ReleaseMs, endMs: log.time}
}

const byPartition = (c: RebalanceCost) => [...c.moved].sort((a, b) => a.partition - b.partition)

describe('consumer group bump cost', () => {
  it('a member revoking for 6 s while a third joins: moved partitions, each gap, convergence and the slow revoker', () => {
    const log = new Log()
    twoMembers(log)
    const t = slowRevocation(log)
    const costs = rebalanceCosts(G, log.records, {topicNames: topicNamesOf(cluster())})
    expect(costs.map(c => c.epoch)).toEqual([1, 2, 3])
    const bump = costs[2]
    expect(bump.atMs).toBe(t.bumpMs)
    const [p2, p5] = byPartition(bump)
    expect([p2.partition, p5.partition]).toEqual([2, 5])
    expect(bump.movedCount).toBe(2)
    expect(p2).toMatchObject({topic: 'orders', topicId: T1, from: {memberId: 'm1', clientId: 'client-m1'}, to: {memberId: 'm3', clientId: 'client-m3'}})
    expect(p2).toMatchObject({releasedBy: 'revocation', releasedAtMs: t.m1ReleaseMs, ownedAtMs: t.endMs, unownedMs: 700, open: false})
    expect(p5).toMatchObject({from: {memberId: 'm2'}, to: {memberId: 'm3'}, releasedAtMs: t.m2ReleaseMs, unownedMs: 300})
    expect(bump.unownedPartitionMs).toBe(1000)
    expect(bump.convergence).toMatchObject({status: 'converged', atMs: t.endMs, afterMs: t.endMs - t.bumpMs})
    expect(bump.slowest).toMatchObject({member: {memberId: 'm1'}, doing: 'revoking', ms: 6000, fromMs: t.m1PendingMs, toMs: t.m1ReleaseMs, units: 1})
    expect(bump.slowest!.unitRefs).toEqual([{kind: 'partition', topicId: T1, topic: 'orders', subtopologyId: null, partition: 2}])
    expect(bump.cannotTell.join(' ')).toMatch(/onPartitionsRevoked/)
    expect(JSON.parse(JSON.stringify(costs))).toEqual(costs)
  })

  it('rides along the replay through onRecord and gives the same costs as its own fold', () => {
    const log = new Log()
    twoMembers(log)
    slowRevocation(log)
    const tracker = new CostTracker(G)
    replayGroup(G, log.records, {onRecord: r => tracker.push(r)})
    expect(tracker.finish()).toEqual(rebalanceCosts(G, log.records))
    expect(tracker.finish()[2].moved[0].topic).toBe(T1)
  })

  it('a member that leaves: its partitions are without an owner from its tombstones to the new owner, on the bump the leave made', () => {
    const log = new Log()
    twoMembers(log)
    log.write([consumer.currentTombstone(G, 'm2'), consumer.targetTombstone(G, 'm2'), consumer.memberTombstone(G, 'm2'), consumer.metadata(G, 3)], {gap: 5000})
    const leftMs = log.time
    log.write([consumer.target(G, 'm1', all), consumer.targetMetadata(G, 3), current(G, 'm1', {epoch: 3, previous: 2, assigned: all})], {gap: 2500})
    const costs = rebalanceCosts(G, log.records)
    const bump = costs.at(-1)!
    expect(bump.epoch).toBe(3)
    expect(byPartition(bump).map(m => [m.partition, m.from?.memberId, m.to?.memberId, m.releasedBy, m.unownedMs])).toEqual([
      [3, 'm2', 'm1', 'member-removed', 2500],
      [4, 'm2', 'm1', 'member-removed', 2500],
      [5, 'm2', 'm1', 'member-removed', 2500],
    ])
    expect(bump.moved[0].from?.clientId).toBe('client-m2')
    expect(bump.moved[0].releasedAtMs).toBe(leftMs)
    expect(bump.unownedPartitionMs).toBe(7500)
    expect(bump.convergence).toMatchObject({status: 'converged', afterMs: 2500})
    expect(costs[1].moved.every(m => m.releasedBy !== 'member-removed')).toBe(true)
  })

  it('a partition nobody took yet is an open gap, measured to the last record read (a lower bound)', () => {
    const log = new Log()
    twoMembers(log)
    log.write([consumer.currentTombstone(G, 'm2'), consumer.targetTombstone(G, 'm2'), consumer.memberTombstone(G, 'm2'), consumer.metadata(G, 3)], {
      gap: 5000,
    })
    const leftMs = log.time
    const bump = rebalanceCosts(G, log.records, {asOfMs: leftMs + 9000}).at(-1)!
    expect(bump.moved.map(m => [m.partition, m.to, m.open, m.unownedMs, m.ownedAt])).toEqual([
      [3, null, true, 9000, null],
      [4, null, true, 9000, null],
      [5, null, true, 9000, null],
    ])
    expect(bump.convergence.status).toBe('not-converged')
  })

  it('a bump that never converges: not-converged with the member still revoking, and since when', () => {
    const log = new Log()
    twoMembers(log)
    log.write([consumer.member(G, 'm3'), consumer.metadata(G, 3), consumer.target(G, 'm1', [[T1, [0, 1]]]), consumer.target(G, 'm3', [[T1, [2]]])], {gap: 1000})
    const bumpMs = log.time
    log.write([consumer.targetMetadata(G, 3), current(G, 'm3', {epoch: 3, previous: 0, state: UNRELEASED})], {gap: 0})
    log.write([current(G, 'm1', {epoch: 2, previous: 2, state: UNREVOKED, assigned: [[T1, [0, 1]]], pending: [[T1, [2]]]})], {gap: 400})
    const pendingSince = log.time
    log.write([current(G, 'm2', {epoch: 3, previous: 2, assigned: [[T1, [3, 4, 5]]]})], {gap: 600})
    const bump = rebalanceCosts(G, log.records, {asOfMs: bumpMs + 60_000}).at(-1)!
    expect(bump.convergence.status).toBe('not-converged')
    if (bump.convergence.status !== 'not-converged') return
    expect(bump.convergence.afterMs).toBe(60_000)
    const pending = [...bump.convergence.pending].sort((a, b) => a.member.memberId.localeCompare(b.member.memberId))
    expect(pending.map(p => [p.member.memberId, p.state, p.memberEpoch, p.pendingRevocation, p.sinceMs])).toEqual([
      ['m1', 'unrevoked', 2, 1, pendingSince],
      ['m3', 'unreleased', 3, 0, bumpMs],
    ])
    expect(pending[0].pendingUnits.map(u => u.partition)).toEqual([2])
    expect(bump.slowest).toMatchObject({member: {memberId: 'm1'}, doing: 'revoking', ongoing: true, ms: bumpMs + 60_000 - pendingSince})
    expect(bump.moved).toEqual([])
  })

  it('a bump overtaken by the next before converging is superseded: pending then, and when the group settled', () => {
    const log = new Log()
    twoMembers(log)
    slowRevocationCut(log)
    const costs = rebalanceCosts(G, log.records)
    const [three, four] = costs.slice(2)
    expect(three.convergence.status).toBe('superseded')
    if (three.convergence.status !== 'superseded') return
    expect(three.convergence.byEpoch).toBe(4)
    expect(three.convergence.pending.map(p => p.member.memberId).sort()).toEqual(['m1', 'm2', 'm3'])
    expect(three.convergence.afterMs).toBe(2600)
    expect(three.convergence.settled?.atMs).toBe(four.convergence.status === 'converged' ? four.convergence.atMs : -1)
    expect(three.slowest?.member.memberId).toBe('m1')
  })

  it('the churn summary totals bumps per window and per client', () => {
    const log = new Log()
    twoMembers(log)
    slowRevocation(log)
    const costs = rebalanceCosts(G, log.records)
    const churn = churnSummary(costs, 3_600_000)
    expect(churn.total).toMatchObject({bumps: 3, converged: 3, unownedPartitionMs: costs.reduce((s, c) => s + c.unownedPartitionMs, 0)})
    expect(churn.total.partitionsMoved).toBe(costs.reduce((s, c) => s + c.movedCount, 0))
    expect(churn.windows.reduce((s, w) => s + w.bumps, 0)).toBe(3)
    const m1 = churn.clients.find(c => c.clientId === 'client-m1')!
    expect(m1.slowestMs).toBeGreaterThanOrEqual(6000)
    expect(churn.clients[0].clientId).toBe('client-m1')
    expect(churn.clients.find(c => c.clientId === 'client-m3')).toMatchObject({movedTo: 2, movedFrom: 0})
  })
})

/** As slowRevocation, but a fourth member joins (epoch 4) while m1 still revokes; then everyone settles at 4. */
function slowRevocationCut(log: Log): void {
  log.write(
    [
      consumer.member(G, 'm3'),
      consumer.metadata(G, 3),
      consumer.target(G, 'm1', [[T1, [0, 1]]]),
      consumer.target(G, 'm3', [[T1, [2, 5]]]),
      consumer.target(G, 'm2', [[T1, [3, 4]]]),
      consumer.targetMetadata(G, 3),
      current(G, 'm3', {epoch: 3, previous: 0, state: UNRELEASED}),
    ],
    {gap: 10_000},
  )
  log.write([current(G, 'm1', {epoch: 2, previous: 2, state: UNREVOKED, assigned: [[T1, [0, 1]]], pending: [[T1, [2]]]})], {gap: 500})
  log.write([current(G, 'm2', {epoch: 2, previous: 2, state: UNREVOKED, assigned: [[T1, [3, 4]]], pending: [[T1, [5]]]})], {gap: 100})
  log.write([consumer.member(G, 'm4'), consumer.metadata(G, 4), consumer.targetMetadata(G, 4), current(G, 'm4', {epoch: 4, previous: 0})], {gap: 2000})
  log.write([current(G, 'm1', {epoch: 4, previous: 2, assigned: [[T1, [0, 1]]]})], {gap: 3000})
  log.write([current(G, 'm2', {epoch: 4, previous: 2, assigned: [[T1, [3, 4]]]})], {gap: 100})
  log.write([current(G, 'm3', {epoch: 4, previous: 3, assigned: [[T1, [2, 5]]]})], {gap: 100})
}
