import {describe, expect, it} from 'vitest'
import type {CauseView} from '../../../src/core/explain/report/causes.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {renderExplain} from '../../../src/render/explain.js'
import {consumer, Log, T1} from '../../lib/records.js'

const G = 'g'

function joined(log: Log, m: string, epoch: number, o: {instanceId?: string; rebalanceTimeoutMs?: number} = {}, gap = 1000) {
  log.write(
    [
      consumer.member(G, m, {names: ['orders'], ...o}),
      consumer.metadata(G, epoch),
      consumer.targetMetadata(G, epoch),
      consumer.target(G, m, [[T1, [0]]]),
      consumer.current(G, m, epoch, [[T1, [0]]]),
    ],
    {gap},
  )
}
function left(log: Log, m: string, epoch: number, gap: number) {
  log.write([consumer.currentTombstone(G, m), consumer.targetTombstone(G, m), consumer.memberTombstone(G, m), consumer.metadata(G, epoch)], {gap})
}
function leaves(log: Log): CauseView[] {
  const r = explainGroup(G, replayGroup(G, log.records), {now: log.time})
  return r.timeline.flatMap(e => e.causes.filter(c => c.kind === 'member-left'))
}

describe('why a member left, from the records', () => {
  it('about its rebalance timeout after entering UNREVOKED_PARTITIONS: likely rebalance timeout', () => {
    const log = new Log()
    joined(log, 'a', 1, {rebalanceTimeoutMs: 300_000})
    const revoking = consumer.current(G, 'a', 1, [])
    ;(revoking.value as {State: number}).State = 1
    ;(revoking.value as {PartitionsPendingRevocation: unknown}).PartitionsPendingRevocation = [{TopicId: T1, Partitions: [0], AssignmentEpochs: null}]
    log.write([
      consumer.member(G, 'b', {names: ['orders']}),
      consumer.metadata(G, 2),
      consumer.targetMetadata(G, 2),
      consumer.target(G, 'a', []),
      consumer.target(G, 'b', [[T1, [0]]]),
      revoking,
      consumer.current(G, 'b', 2, []),
    ])
    left(log, 'a', 3, 300_000)
    const [c] = leaves(log)
    expect(c.details.leave).toMatchObject({
      kind: 'rebalance-timeout',
      likely: true,
      lastState: 'UNREVOKED_PARTITIONS',
      msInLastState: 300_000,
      rebalanceTimeoutMs: 300_000,
    })
    expect(c.message).toBe('member a (client client-a) left: likely rebalance timeout: revocation took 300 s (rebalance timeout 300 s)')
    expect(renderExplain(explainGroup(G, replayGroup(G, log.records), {now: log.time}))).toContain(
      'member left: a (client client-a); likely rebalance timeout: revocation took 300 s',
    )
  })

  it('a static member restarted: the same instance id came back with a new member id', () => {
    const log = new Log()
    joined(log, 's1', 1, {instanceId: 'pod-0'})
    left(log, 's1', 2, 60_000)
    joined(log, 's2', 3, {instanceId: 'pod-0'}, 20_000)
    const [c] = leaves(log)
    expect(c.details.leave).toMatchObject({kind: 'static-restart', likely: true, rejoined: {memberId: 's2', epoch: 3, afterMs: 20_000}})
    expect(c.message).toContain("likely a static member's restart: instance pod-0 came back as member s2 20 s later (epoch 3)")
  })

  it('a fenced member that rejoined with the same member id', () => {
    const log = new Log()
    joined(log, 'x', 1)
    left(log, 'x', 2, 60_000)
    joined(log, 'x', 3, {}, 5000)
    const [c] = leaves(log)
    expect(c.details.leave).toMatchObject({kind: 'fenced-rejoined', likely: true, rejoined: {memberId: 'x', epoch: 3, afterMs: 5000}})
  })

  it('a leave right after a state record, and one the records cannot tell', () => {
    const log = new Log()
    joined(log, 'x', 1)
    left(log, 'x', 2, 2000)
    joined(log, 'y', 3)
    left(log, 'y', 4, 120_000)
    const [quick, slow] = leaves(log)
    expect(quick.details.leave).toMatchObject({kind: 'after-state-record', likely: true, lastState: 'STABLE', msInLastState: 2000})
    expect(quick.message).toContain('left 2 s after its last state record (STABLE): likely a leave request')
    expect(slow.details.leave).toMatchObject({kind: 'unknown', likely: false, msInLastState: 120_000})
    expect(slow.message).toContain('leave, session or rebalance timeout; last state STABLE for 120 s')
  })
})
