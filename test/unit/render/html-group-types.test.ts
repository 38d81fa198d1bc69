/**
 * `group explain --html` for the group types other than consumer groups, from their records: a classic group's
 * generations (lanes change at each generation's record; no duration, gap or slowest member claimed), a share
 * group's assignment changes (no revocation step, no time without an owner), a streams group's tasks (active tasks
 * with their time without an owner; standby and warm-up tasks drawn apart, no gap for them). Each page says what its
 * records cannot tell.
 */
import {describe, expect, it} from 'vitest'
import type {MemberLane} from '../../../src/core/cost/index.js'
import {explainHtml} from '../../../src/render/html/page.js'
import {TYPE_WORDS} from '../../../src/render/html/kinds.js'
import {recordsPicture} from '../../lib/picture.js'
import {Log, share, streams, T1} from '../../lib/records.js'
import {generation, streamsCurrent, streamsTarget} from '../cost/records.js'

const count = (text: string, re: RegExp) => (text.match(re) ?? []).length
const lane = (lanes: readonly MemberLane[], id: string) => lanes.find(l => l.member.memberId === id)!
const spans = (l: MemberLane, which: 'spans' | 'others' = 'spans') => (l[which] ?? []).map(s => [s.fromMs, s.toMs, s.units.join(' ')])
const section = (html: string, heading: string) => html.slice(html.indexOf(`<h2>${heading}</h2>`)).split('<h2>')[1]

function classicGroup() {
  const log = new Log()
  log.write([generation('legacy', 1, 'range', [['a', [['orders', [0, 1, 2, 3]]]]])])
  const gen1 = log.time
  log.write(
    [
      generation('legacy', 2, 'range', [
        ['a', [['orders', [0, 1]]]],
        ['b', [['orders', [2, 3]]]],
      ]),
    ],
    {gap: 5000},
  )
  return {...recordsPicture('legacy', log.records, {now: log.time + 1000}), gen1, gen2: log.time}
}

function shareGroup() {
  const G = 'shares'
  const log = new Log()
  log.write([share.member(G, 'm1', ['orders']), share.metadata(G, 1), share.targetMetadata(G, 1), share.current(G, 'm1', 1, [[T1, [0, 1, 2, 3]]])])
  const firstMs = log.time
  log.write(
    [
      share.member(G, 'm2', ['orders']),
      share.metadata(G, 2),
      share.target(G, 'm1', [[T1, [0, 1]]]),
      share.target(G, 'm2', [[T1, [2, 3]]]),
      share.targetMetadata(G, 2),
      share.current(G, 'm2', 2, [[T1, [2, 3]]]),
    ],
    {gap: 4000},
  )
  const m2Ms = log.time
  log.write([share.current(G, 'm1', 2, [[T1, [0, 1]]])], {gap: 1500})
  return {...recordsPicture(G, log.records, {now: log.time + 1000, topicNames: new Map([[T1, 'orders']])}), firstMs, m2Ms, m1Ms: log.time}
}

/** m1 alone with tasks 0_0 and 0_1; m2 joins, warms up 0_0, then m1 revokes 0_1 (3 s) and m2 takes it 0.4 s later. */
function streamsGroup() {
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
  const firstMs = log.time
  log.write(
    [
      member('m2'),
      streams.metadata(G, 2),
      streamsTarget(G, 'm1', [['0', [0]]], [['0', [1]]]),
      streamsTarget(G, 'm2', [['0', [1]]], [['0', [0]]]),
      streams.targetMetadata(G, 2),
      streamsCurrent(G, 'm2', {epoch: 2, state: 3, warmup: [['0', [0]]]}),
    ],
    {gap: 4000},
  )
  const bumpMs = log.time
  log.write([streamsCurrent(G, 'm1', {epoch: 1, state: 2, active: [['0', [0]]], activePending: [['0', [1]]]})], {gap: 800})
  log.write([streamsCurrent(G, 'm1', {epoch: 2, active: [['0', [0]]], standby: [['0', [1]]]})], {gap: 3000})
  const releasedMs = log.time
  log.write([streamsCurrent(G, 'm2', {epoch: 2, active: [['0', [1]]], standby: [['0', [0]]]})], {gap: 400})
  return {...recordsPicture(G, log.records, {now: log.time + 1000}), firstMs, bumpMs, releasedMs, ownedMs: log.time}
}

describe('group explain --html for a classic group', () => {
  it('a lane per member changing at the generation record; the generation line with its cost; no duration, gap or slowest drawn', () => {
    const {report, lanes, gen1, gen2} = classicGroup()
    expect(spans(lane(lanes.lanes, 'a'))).toEqual([
      [gen1, gen2, 'orders-0 orders-1 orders-2 orders-3'],
      [gen2, lanes.toMs, 'orders-0 orders-1'],
    ])
    expect(spans(lane(lanes.lanes, 'b'))).toEqual([[gen2, lanes.toMs, 'orders-2 orders-3']])
    const html = explainHtml(report, lanes, {now: gen2})
    expect(count(html, /<g class="lane">/g)).toBe(2)
    expect(html).toContain('>client-b (b)<title>')
    expect(html).toMatch(/<g class="bump"><title>generation 2 at [^<]*member b joined[^<]*2 partitions moved; eager protocol; no duration in the records/)
    expect(html).toContain('<th scope="col">Generation</th>')
    expect(html).toContain('<p class="summary">Type: classic; generation 2; 2 members now; 2 bumps shown.</p>')
    expect(count(html, /<rect class="(gap|slow)" x=|<line class="rel"/g)).toBe(0)
    expect(html).toContain('>without an owner: not measured</text>')
    expect(section(html, 'Without an owner')).toContain('Not measured for this group type')
    expect(html).toContain(TYPE_WORDS.classic.shows.slice(0, 60))
    expect(section(html, 'What the records cannot tell')).toContain('no duration is claimed')
    expect(html).not.toMatch(/class="(gap|slow|rel-key)" width/)
  })
})

describe('group explain --html for a share group', () => {
  it('the assignment changes per member, the release marks as assignments taken away; no revocation step, no gap measured, said so', () => {
    const {report, lanes, firstMs, m2Ms, m1Ms} = shareGroup()
    expect(spans(lane(lanes.lanes, 'm1'))).toEqual([
      [firstMs, m1Ms, 'orders-0 orders-1 orders-2 orders-3'],
      [m1Ms, lanes.toMs, 'orders-0 orders-1'],
    ])
    expect(spans(lane(lanes.lanes, 'm2'))).toEqual([[m2Ms, lanes.toMs, 'orders-2 orders-3']])
    expect(lane(lanes.lanes, 'm1').releases.map(r => [r.unit, r.atMs, r.by])).toEqual([
      ['orders-2', m1Ms, null],
      ['orders-3', m1Ms, null],
    ])
    expect(lanes.gaps).toEqual([])
    const html = explainHtml(report, lanes, {now: m1Ms})
    expect(count(html, /<g class="lane">/g)).toBe(2)
    expect(count(html, /<line class="rel"/g)).toBe(1)
    expect(html).toContain('a member&#39;s assignment no longer held partitions (share groups have no revocation step)')
    expect(html).toContain('>without an owner: not measured</text>')
    expect(section(html, 'Without an owner')).toContain('Not measured for this group type')
    expect(html).toContain('Share groups have no revocation step and a partition can be assigned to several members at once')
    expect(html).toMatch(/<g class="bump"><title>epoch 2 at [^<]*2 partitions moved/)
    expect(html).not.toMatch(/class="(gap|slow)" width/)
  })
})

describe('group explain --html for a streams group', () => {
  it("active tasks per member with the revoked one's gap and the slow revoker; standby and warm-up tasks in their own strip, no gap for them", () => {
    const {report, lanes, firstMs, bumpMs, releasedMs, ownedMs} = streamsGroup()
    const [m1, m2] = [lane(lanes.lanes, 'm1'), lane(lanes.lanes, 'm2')]
    expect(spans(m1)).toEqual([
      [firstMs, releasedMs, '0_0 0_1'],
      [releasedMs, lanes.toMs, '0_0'],
    ])
    expect(spans(m2)).toEqual([[ownedMs, lanes.toMs, '0_1']])
    expect(spans(m1, 'others')).toEqual([[releasedMs, lanes.toMs, 'standby 0_1']])
    expect(spans(m2, 'others')).toEqual([
      [bumpMs, ownedMs, 'warmup 0_0'],
      [ownedMs, lanes.toMs, 'standby 0_0'],
    ])
    expect(lanes.gaps).toEqual([{unit: '0_1', fromMs: releasedMs, toMs: ownedMs, open: false, epoch: 2}])
    const html = explainHtml(report, lanes, {now: ownedMs})
    expect(count(html, /<g class="lane">/g)).toBe(2)
    expect(count(html, /<rect class="other" x=/g)).toBe(3)
    expect(html).toMatch(/<rect class="other"[^>]*><title>client-m2 \(m2\) held 1 standby or warm-up task: warmup 0_0 /)
    expect(count(html, /<rect class="gap" x=/g)).toBe(1)
    expect(html).toMatch(/<rect class="slow"[^>]*><title>client-m1 \(m1\): the slowest member of epoch 2, revoking 1 task for 3\.0 s/)
    expect(section(html, 'Without an owner')).toMatch(/<tr><td>0_1<\/td><td>2<\/td><td>[^<]+<\/td><td>0\.4 s<\/td><\/tr>/)
    expect(html).toContain('>without an owner</text>')
    expect(html).toContain('standby and warm-up tasks a member held')
    expect(html).toContain('Only active tasks have a time without an owner')
    expect(section(html, 'What the records cannot tell')).toContain('Standby and warm-up tasks do not stop processing')
  })
})

describe('group explain --html for a consumer group', () => {
  it("says what a consumer group's records cannot tell, with every mark in the legend", () => {
    const {report, lanes} = recordsPicture('none', [], {now: 0})
    const html = explainHtml({...report, type: 'consumer'}, lanes, {now: 0})
    expect(html).toContain('inside onPartitionsRevoked, between two of its records')
    for (const cls of ['own', 'gap', 'slow', 'rel-key', 'epoch-key']) expect(html).toContain(`<rect class="${cls}" width`)
    expect(html).not.toContain('<rect class="other" width')
  })
})
