import {describe, expect, it} from 'vitest'
import {DEFAULT_STUCK_AFTER_MS, explainGroup} from '../../../src/core/explain/explain.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {consumer, Log, T1} from '../../lib/records.js'

const G = 'g'

/** Two members, b reconciling (no assignment yet) for `reconcilingMs`; rebalance timeouts as given. */
function group(timeouts: [number, number], reconcilingMs: number) {
  const log = new Log()
  log.write([
    consumer.member(G, 'a', {names: ['orders'], rebalanceTimeoutMs: timeouts[0]}),
    consumer.metadata(G, 1),
    consumer.targetMetadata(G, 1),
    consumer.target(G, 'a', [[T1, [0]]]),
    consumer.current(G, 'a', 1, [[T1, [0]]]),
  ])
  log.write([consumer.member(G, 'b', {names: ['orders'], rebalanceTimeoutMs: timeouts[1]}), consumer.metadata(G, 2)])
  return {replay: replayGroup(G, log.records), now: log.time + reconcilingMs}
}
const stuck = (r: ReturnType<typeof explainGroup>) => r.findings.filter(f => f.code === 'MEMBER_RECONCILING').map(f => (f.details as {stuck: boolean}).stuck)

describe('--stuck-after defaults below the rebalance timeout the members declared', () => {
  it('half the smallest declared RebalanceTimeoutMs, and the JSON says so', () => {
    const {replay, now} = group([120_000, 300_000], 90_000) // 90 s reconciling: past 60 s (half of 120 s), short of 5 min
    const r = explainGroup(G, replay, {now})
    expect(r.stuckAfter).toEqual({ms: 60_000, source: 'rebalance-timeout', smallestRebalanceTimeoutMs: 120_000})
    expect(stuck(r)).toContain(true)
  })

  it('a given --stuck-after wins', () => {
    const {replay, now} = group([120_000, 300_000], 90_000)
    const r = explainGroup(G, replay, {now, stuckAfterMs: DEFAULT_STUCK_AFTER_MS})
    expect(r.stuckAfter).toEqual({ms: DEFAULT_STUCK_AFTER_MS, source: 'flag', smallestRebalanceTimeoutMs: 120_000})
    expect(stuck(r)).not.toContain(true)
  })

  it("today's default (5 minutes) when no member declared one", () => {
    const {replay, now} = group([0, 0], 90_000)
    const r = explainGroup(G, replay, {now})
    expect(r.stuckAfter).toEqual({ms: DEFAULT_STUCK_AFTER_MS, source: 'default', smallestRebalanceTimeoutMs: null})
    expect(stuck(r)).not.toContain(true)
  })
})
