/** "It keeps rebalancing": bumps by cause and a client that comes and goes, summed over the timeline. */
import {describe, expect, it} from 'vitest'
import {rebalanceCosts} from '../../../src/core/cost/index.js'
import {churnOf} from '../../../src/core/explain/report/churn.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {renderExplain} from '../../../src/render/explain.js'
import {consumer as c, Log, T1} from '../../lib/records.js'

const G = 'g1'

describe('churnOf', () => {
  it('a client that restarts three times, each ~10 s after joining, named with its joins, departures and stays', () => {
    const log = new Log()
    log.write([
      c.member(G, 'stable', {names: ['orders']}),
      c.metadata(G, 1),
      c.target(G, 'stable', [[T1, [0]]]),
      c.targetMetadata(G, 1),
      c.current(G, 'stable', 1, [[T1, [0]]]),
    ])
    let epoch = 1
    for (const m of ['f1', 'f2', 'f3']) {
      const flappy = c.member(G, m, {names: ['orders']})
      ;(flappy.value as {ClientId: string}).ClientId = 'op-flappy'
      log.write([flappy, c.metadata(G, ++epoch)], {gap: 3000})
      log.write([c.memberTombstone(G, m), c.targetTombstone(G, m), c.currentTombstone(G, m), c.metadata(G, ++epoch)], {gap: 10_000})
    }
    const report = explainGroup(G, replayGroup(G, log.records), {now: log.time + 1000})
    const churn = churnOf(report.timeline)
    expect(churn.bumps).toBe(7)
    expect(churn.byCause).toMatchObject({'member-joined': 4, 'member-left': 3})
    expect(churn.clients).toEqual([
      expect.objectContaining({
        client: 'op-flappy',
        memberIds: ['f1', 'f2', 'f3'],
        joins: 3,
        departures: 3,
        stayMs: {min: 10_000, median: 10_000, max: 10_000},
        departureKinds: {unknown: 3},
      }),
    ])
    // the records hold no reason for these departures: said so, not guessed
    expect(churn.clients[0].finding).toBe(
      'client op-flappy: 3 joins, 3 departures in 36 s, each ~10 s after joining: how it leaves the records cannot tell (leave, session or rebalance timeout)',
    )
    report.churn = churn
    const text = renderExplain(report, {time: 'utc', color: false, width: 200, now: log.time})
    expect(text).toContain('why it keeps rebalancing: 7 bumps from')
    expect(text).toContain('  - client op-flappy: 3 joins, 3 departures in 36 s')
    // the stable member alone (one join) is no churn
    expect(churnOf(report.timeline.slice(0, 1)).clients).toEqual([])
    // the records were not read for costs: no cost totals, none printed
    expect(churn.cost).toBeNull()
    expect(text).not.toContain('what it cost')
  })

  it('with the costs read from the records: their totals over the bumps shown, per hour and per client, and one line', () => {
    const log = new Log()
    log.write([
      c.member(G, 'stable', {names: ['orders']}),
      c.metadata(G, 1),
      c.target(G, 'stable', [[T1, [0, 1]]]),
      c.targetMetadata(G, 1),
      c.current(G, 'stable', 1, [[T1, [0, 1]]]),
    ])
    let epoch = 1
    for (const m of ['f1', 'f2']) {
      const flappy = c.member(G, m, {names: ['orders']})
      ;(flappy.value as {ClientId: string}).ClientId = 'op-flappy'
      epoch++
      // the newcomer gets partition 1: stable releases it 2 s later, the newcomer holds it 1 s after that
      log.write([flappy, c.metadata(G, epoch), c.target(G, 'stable', [[T1, [0]]]), c.target(G, m, [[T1, [1]]]), c.targetMetadata(G, epoch)], {gap: 3000})
      log.write([c.current(G, 'stable', epoch, [[T1, [0]]])], {gap: 2000})
      log.write([c.current(G, m, epoch, [[T1, [1]]])], {gap: 1000})
      epoch++
      log.write([c.memberTombstone(G, m), c.targetTombstone(G, m), c.currentTombstone(G, m), c.metadata(G, epoch)], {gap: 10_000})
      log.write([c.target(G, 'stable', [[T1, [0, 1]]]), c.targetMetadata(G, epoch), c.current(G, 'stable', epoch, [[T1, [0, 1]]])], {gap: 500})
    }
    const report = explainGroup(G, replayGroup(G, log.records), {now: log.time + 1000, costs: rebalanceCosts(G, log.records)})
    const churn = churnOf(report.timeline)
    const costs = report.timeline.map(e => e.cost!)
    expect(costs.map(x => x.movedCount)).toEqual([2, 1, 1, 1, 1])
    expect(churn.cost?.total).toMatchObject({bumps: 5, partitionsMoved: 6})
    expect(churn.cost?.total.unownedPartitionMs).toBe(costs.reduce((n, x) => n + x.unownedPartitionMs, 0))
    expect(churn.cost?.windows.reduce((n, w) => n + w.bumps, 0)).toBe(5)
    expect(churn.cost?.clients.find(x => x.clientId === 'op-flappy')).toMatchObject({movedTo: 2})
    report.churn = churn
    const text = renderExplain(report, {time: 'utc', color: false, width: 400, now: log.time})
    expect(text).toContain(
      '  what it cost over 5 bumps: 6 partitions moved; 3.0 partition-s without an owner; 5 of 5 bumps converged (the longest in 3.0 s); held up longest by client op-flappy (the slowest in 2 bumps, 6.0 s in all)',
    )
  })

  it('classic members: departures at their session timeout after joining read as crashing before the first heartbeat', () => {
    const t = (i: number) => ({
      epoch: i,
      previousEpoch: i - 1,
      timestamp: i * 20_000,
      time: new Date(i * 20_000).toISOString(),
      offset: String(i),
      metadataHash: null,
      previousMetadataHash: null,
      rules: null,
      assignmentEpoch: null,
    })
    const join = (i: number, m: string) => ({
      ...t(i),
      causes: [{kind: 'member-joined', message: '', confidence: 'exact', alternatives: [], details: {memberId: m, clientId: 'batch-1'}}],
    })
    const left = (i: number, m: string) => ({
      ...t(i),
      timestamp: i * 20_000 - 14_000,
      causes: [
        {
          kind: 'classic-member-left',
          message: '',
          confidence: 'inferred-unique',
          alternatives: [],
          details: {memberId: m, clientId: 'batch-1', how: {kind: 'session-timeout', sessionTimeoutMs: 6000, rebalanceTimeoutMs: 300_000}},
        },
      ],
    })
    const churn = churnOf([join(1, 'a'), left(2, 'a'), join(3, 'b'), left(4, 'b')] as never)
    expect(churn.clients[0].finding).toBe(
      'client batch-1: 2 joins, 2 departures in 46 s, each ~6.0 s after joining (its session timeout 6.0 s): likely crashing or blocked before its first heartbeat',
    )
  })
})
