/** "It keeps rebalancing": bumps by cause and a client that comes and goes, summed over the timeline. */
import {describe, expect, it} from 'vitest'
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
