/**
 * Who held which partitions over time, per member, from the bumps' moves walked back from what each member holds
 * after the records (the lanes `group explain --html` draws), and the aggregation of many lanes into one.
 */
import {describe, expect, it} from 'vitest'
import {aggregateLanes, type MemberLane, type OwnershipLanes} from '../../../src/core/cost/index.js'
import {PLAIN, picture, syntheticPicture} from '../../lib/picture.js'

const lane = (l: OwnershipLanes, id: string) => l.lanes.find(x => x.member.memberId === id)!
const spans = (l: MemberLane) => l.spans.map(s => [s.fromMs, s.toMs, s.units.join(' ')])

describe('ownership lanes', () => {
  it('each member holds its partitions from the record that gave them to the record that released them', () => {
    const {lanes, report, t} = picture()
    const [bump1, bump2] = report.timeline.map(e => e.timestamp)
    const m1Release2 = report.timeline[1].cost!.moved.find(m => m.partition === 3)!.releasedAtMs!
    expect(lanes.lanes.map(l => l.member)).toEqual(['m1', 'm2', 'm3'].map(m => ({memberId: m, clientId: `client-${m}`})))
    expect(lanes.fromMs).toBeLessThan(bump1)
    expect(lanes.toMs).toBeGreaterThan(t.endMs)
    expect(spans(lane(lanes, 'm1'))).toEqual([
      [bump1, m1Release2, 'orders-0 orders-1 orders-2 orders-3 orders-4 orders-5'],
      [m1Release2, t.m1ReleaseMs, 'orders-0 orders-1 orders-2'],
      [t.m1ReleaseMs, lanes.toMs, 'orders-0 orders-1'],
    ])
    expect(spans(lane(lanes, 'm2'))).toEqual([
      [m1Release2 + 300, t.m2ReleaseMs, 'orders-3 orders-4 orders-5'],
      [t.m2ReleaseMs, lanes.toMs, 'orders-3 orders-4'],
    ])
    expect(spans(lane(lanes, 'm3'))).toEqual([
      [t.m2ReleaseMs + 300, t.endMs, 'orders-5'],
      [t.endMs, lanes.toMs, 'orders-2 orders-5'],
    ])
    expect(bump2).toBeLessThan(m1Release2)
  })

  it('marks releases on the old owner, gaps without an owner, and the slowest member where it was slow', () => {
    const {lanes, t} = picture()
    expect(lane(lanes, 'm1').releases.map(r => [r.unit, r.by, r.epoch])).toEqual([
      ['orders-3', 'revocation', 2],
      ['orders-4', 'revocation', 2],
      ['orders-5', 'revocation', 2],
      ['orders-2', 'revocation', 3],
    ])
    expect(lanes.gaps.filter(g => g.epoch === 3).map(g => [g.unit, g.fromMs, g.toMs, g.open])).toEqual([
      ['orders-5', t.m2ReleaseMs, t.m2ReleaseMs + 300, false],
      ['orders-2', t.m1ReleaseMs, t.endMs, false],
    ])
    expect(lane(lanes, 'm1').slow.find(s => s.epoch === 3)).toEqual({
      epoch: 3,
      doing: 'revoking',
      fromMs: t.m1PendingMs,
      toMs: t.m1ReleaseMs,
      ongoing: false,
      units: 1,
    })
  })

  it('a window (--last 1) starts with what each member held then, though the bumps that gave it are cut', () => {
    const {lanes, report, t} = picture(PLAIN, {last: 1})
    expect(report.timeline.map(e => e.epoch)).toEqual([3])
    expect(lanes.fromMs).toBeLessThan(t.bump3Ms)
    expect(lane(lanes, 'm1').spans[0]).toMatchObject({fromMs: lanes.fromMs, units: ['orders-0', 'orders-1', 'orders-2']})
    expect(lane(lanes, 'm2').spans[0]).toMatchObject({fromMs: lanes.fromMs, units: ['orders-3', 'orders-4', 'orders-5']})
    expect(lanes.gaps.map(g => g.epoch)).toEqual([3, 3])
    expect(lane(lanes, 'm1').releases.map(r => r.epoch)).toEqual([3])
  })

  it('past the limit, the busiest lanes stay and the others are summed in one lane that says how many', () => {
    const {lanes} = syntheticPicture(200, 2000)
    expect(lanes.lanes).toHaveLength(200)
    const {lanes: drawn, aggregated} = aggregateLanes(lanes.lanes, 40)
    expect(drawn).toHaveLength(40)
    expect(aggregated).toBe(161)
    const merged = drawn[39]
    expect(merged.members).toBe(161)
    const rest = lanes.lanes.filter(l => !drawn.slice(0, 39).includes(l))
    const at = (ls: readonly MemberLane[], ms: number) => ls.reduce((n, l) => n + (l.spans.find(s => s.fromMs <= ms && s.toMs > ms)?.count ?? 0), 0)
    for (const ms of [lanes.fromMs + 1, lanes.fromMs + 1_000_000, lanes.toMs - 1]) expect(at([merged], ms)).toBe(at(rest, ms))
    expect(merged.releases).toHaveLength(rest.reduce((n, l) => n + l.releases.length, 0))
    expect(aggregateLanes(lanes.lanes.slice(0, 40), 40)).toEqual({lanes: lanes.lanes.slice(0, 40), aggregated: 0})
  })
})
