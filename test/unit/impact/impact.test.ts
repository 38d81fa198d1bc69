/** `impact` prediction: expected hashes come from our hasher over the expected metadata, never hard-coded. */
import {describe, expect, it} from 'vitest'
import {computeGroupHash, TopicHasher} from '../../../src/core/hash.js'
import {
  parseAddPartitions,
  parseBrokerRack,
  parseCreateTopic,
  parseReassignmentJson,
  type PlannedChange,
  predictImpact,
  re2jMatches,
} from '../../../src/core/impact/index.js'
import type {ClusterMetadata} from '../../../src/core/metadata.js'
import {replayGroup, type ReplayResult} from '../../../src/core/replay/index.js'
import {cluster, hashOf, settledGroup} from '../../lib/fixtures.js'
import {renderImpact} from '../../../src/render/impact.js'
import {consumer, Log, share, streams, T1} from '../../lib/records.js'

const md = cluster(3, 2) // orders p0 [1,2] p1 [2,3] p2 [3,1]; payments p0 [3] p1 [1]; racks a a b

function groups(specs: Array<[string, 'names' | 'regex' | 'share' | 'streams' | 'empty', string[], string?]>): Array<[string, ReplayResult]> {
  return specs.map(([g, kind, topics, regex]) => {
    const log = new Log()
    const h = hashOf(md, topics)
    if (kind === 'names') settledGroup(log, g, topics, h)
    else if (kind === 'regex')
      log.write([
        consumer.member(g, 'm1', {regex}),
        consumer.regex(g, regex!, topics),
        consumer.metadata(g, 3, h),
        consumer.current(g, 'm1', 3, [[T1, [0, 1]]]),
      ])
    else if (kind === 'share') log.write([share.member(g, 'm1', topics), share.metadata(g, 2, h), share.current(g, 'm1', 2, [[T1, [0]]])])
    else if (kind === 'streams') log.write([streams.topology(g, 0, topics), streams.member(g, 'm1', 0), streams.metadata(g, 2, h)])
    else log.write([consumer.metadata(g, 4, h)]) // no members
    return [g, replayGroup(g, log.records)]
  })
}

const withTopic = (m: ClusterMetadata, name: string, partitions: number[][]): ClusterMetadata => ({
  ...m,
  topics: m.topics.map(t => (t.name === name ? {...t, partitions: partitions.map((replicas, partition) => ({partition, replicas}))} : t)),
})
const groupHash = (m: ClusterMetadata, topics: string[]) => new TopicHasher(m).groupHash(topics).toString()
const G = groups([
  ['orders-g', 'names', ['orders']],
  ['pay-g', 'names', ['payments']],
  ['both-g', 'names', ['orders', 'payments']],
  ['share-g', 'share', ['orders']],
  ['streams-g', 'streams', ['orders']],
])
const find = (r: ReturnType<typeof predictImpact>, g: string) => r.groups.find(x => x.group === g)

describe('impact', () => {
  it('partitions added with their placement: one bump per group on the topic, with the new hash; other groups untouched', () => {
    const r = predictImpact(md, G, [parseAddPartitions('orders=4/1:2,2:3,3:1,2:1')])
    const after = withTopic(md, 'orders', [
      [1, 2],
      [2, 3],
      [3, 1],
      [2, 1],
    ])
    expect(r.groups.map(g => g.group)).toEqual(['both-g', 'orders-g', 'share-g', 'streams-g'])
    for (const g of r.groups) {
      const topics = g.group === 'both-g' ? ['orders', 'payments'] : ['orders']
      const step = expect.objectContaining({phase: 'topics', bump: 'yes', metadataHash: groupHash(after, topics), hashUnknown: null})
      if (g.type === 'share') {
        // and again, same hash, when the new share-partitions are initialized
        expect(g.bumps).toEqual({min: 2, max: 2})
        expect(g.steps).toEqual([step, expect.objectContaining({phase: 'share-initialization', bump: 'yes', metadataHash: groupHash(after, topics)})])
      } else {
        expect(g.bumps).toEqual({min: 1, max: 1})
        expect(g.steps).toEqual([step])
      }
    }
    expect(find(r, 'pay-g')).toBeUndefined()
    expect(r.summary).toMatchObject({groups: 5, touched: 4, rebalancing: 4, certain: 4})
    // the new partitions alone give the same answer
    expect(predictImpact(md, G, [parseAddPartitions('orders=4/2:1')]).groups[0].steps[0].metadataHash).toBe(groupHash(after, ['orders', 'payments']))
  })

  it('partitions added without placement: bump certain, hash never guessed', () => {
    const r = predictImpact(md, G, [parseAddPartitions('orders=6')])
    const g = find(r, 'orders-g')!
    expect(g.bumps).toEqual({min: 1, max: 1})
    expect(g.steps[0].metadataHash).toBeNull()
    expect(g.steps[0].hashUnknown).toContain('hash depends on placement')
  })

  it('reassignment changing racks twice: one or two bumps, decided by the copy against the heartbeat interval', () => {
    // p0 [1,2] (a,a) → [3,2] (a,b): during [3,2,1] (a,a,b)
    const r = predictImpact(md, G, [parseReassignmentJson('{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[3,2]}]}')])
    const g = find(r, 'orders-g')!
    expect(g.bumps).toEqual({min: 1, max: 2})
    expect(g.decides).toContain('heartbeat')
    expect(g.steps.map(s => [s.phase, s.bump, s.metadataHash])).toEqual([
      [
        'reassignment-start',
        'if-seen',
        groupHash(
          withTopic(md, 'orders', [
            [3, 2, 1],
            [2, 3],
            [3, 1],
          ]),
          ['orders'],
        ),
      ],
      [
        'reassignment-complete',
        'yes',
        groupHash(
          withTopic(md, 'orders', [
            [3, 2],
            [2, 3],
            [3, 1],
          ]),
          ['orders'],
        ),
      ],
    ])
    expect(r.summary.possible).toBe(0)
  })

  it('several partitions moving: they complete one by one, so up to one more bump each; the transient hash is not one state', () => {
    // p0 [1,2] → [3,2] and p1 [2,3] → [1,3]: both change racks when they complete
    const r = predictImpact(md, G, [
      parseReassignmentJson('{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[3,2]},{"topic":"orders","partition":1,"replicas":[1,3]}]}'),
    ])
    const g = find(r, 'orders-g')!
    expect(g.bumps).toEqual({min: 1, max: 3})
    expect(g.steps[0]).toMatchObject({
      phase: 'reassignment-start',
      metadataHash: null,
      allCopyingHash: groupHash(
        withTopic(md, 'orders', [
          [3, 2, 1],
          [1, 3, 2],
          [3, 1],
        ]),
        ['orders'],
      ),
    })
    expect(g.steps[0].hashUnknown).toContain('one by one')
    expect(g.steps[1].metadataHash).toBe(
      groupHash(
        withTopic(md, 'orders', [
          [3, 2],
          [1, 3],
          [3, 1],
        ]),
        ['orders'],
      ),
    )
    expect(g.decides).toContain('one by one')
  })

  it('reassignment whose final racks equal the old ones: zero or two bumps', () => {
    // p1 [2,3] (a,b) → [1,3] (a,b): during [1,3,2] (a,a,b)
    const r = predictImpact(md, G, [
      parseReassignmentJson('{"version":1,"partitions":[{"topic":"orders","partition":1,"replicas":[1,3],"log_dirs":["any","any"]}]}'),
    ])
    const g = find(r, 'orders-g')!
    expect(g.bumps).toEqual({min: 0, max: 2})
    expect(g.steps.at(-1)!.metadataHash).toBe(g.storedMetadataHash)
    // the bump back to the stored hash happens only after the transient one: neither step is certain
    expect(g.steps.map(s => s.bump)).toEqual(['if-seen', 'if-seen'])
    expect(r.summary.possible).toBe(5 - 1)
  })

  it('delete-topic: one bump, the hash without the topic; broker-rack: one bump with the new rack', () => {
    const del = predictImpact(md, G, [{kind: 'delete-topic', topic: 'payments'}])
    const both = find(del, 'both-g')!
    expect(both.steps).toEqual([expect.objectContaining({bump: 'yes', metadataHash: groupHash(md, ['orders'])})])
    expect(find(del, 'pay-g')!.steps[0].metadataHash).toBe('0')
    const rack = predictImpact(md, G, [parseBrokerRack('3=rack-c')])
    const moved = {...md, brokers: md.brokers.map(b => (b.id === 3 ? {...b, rack: 'rack-c'} : b))}
    expect(find(rack, 'pay-g')!.steps).toEqual([expect.objectContaining({phase: 'broker-restart', bump: 'yes', metadataHash: groupHash(moved, ['payments'])})])
    expect(find(rack, 'pay-g')!.bumps).toEqual({min: 1, max: 1})
    // two topics with a replica on broker 3: each is evicted at its own ISR change, so one or two bumps
    const both2 = find(rack, 'both-g')!
    expect(both2.bumps).toEqual({min: 1, max: 2})
    expect(both2.decides).toContain('ISR')
    expect(both2.steps.at(-1)!.metadataHash).toBe(groupHash(moved, ['orders', 'payments']))
  })

  it("shutdown: recomputed, no bump (a fenced broker's rack counts); unregistration: hidden until a coordinator move", () => {
    const down = predictImpact(md, G, [{kind: 'shutdown-broker', broker: 3}])
    expect(down.groups.every(g => g.bumps.max === 0 && g.steps.every(s => s.bump === 'no'))).toBe(true)
    expect(down.summary.rebalancing).toBe(0)
    // the header says so too (it said "groups bump at the shutdown" next to "0 would rebalance")
    const text = renderImpact(down)
    expect(text).toMatch(/^ {2}broker-shutdown: \d+ topic\(s\) changed; no group bumps \(hashes recomputed at the shutdown/m)
    expect(text).not.toMatch(/groups? bumps? at the shutdown/)
    expect(renderImpact(predictImpact(md, G, [parseBrokerRack('3=rack-c')]))).toMatch(
      /^ {2}broker-restart: \d+ topic\(s\) changed; \d+ groups? bumps? at the broker restart/m,
    )
    const gone = predictImpact(md, G, [{kind: 'unregister-broker', broker: 3, decommission: true}])
    const without = {...md, brokers: md.brokers.filter(b => b.id !== 3)}
    // shut down first: broker 3 left the ISRs then (stays the ELR of RF-1 payments p0): the unregistration changes no topic
    const g = find(gone, 'pay-g')!
    expect(g.bumps).toEqual({min: 0, max: 0})
    expect(g.deferredBumps).toBe(1)
    expect(g.steps.at(-1)).toMatchObject({phase: 'coordinator-move', deferred: true, metadataHash: groupHash(without, ['payments'])})
    expect(gone.summary).toMatchObject({rebalancing: 5, deferred: 5})
    // a running broker unregistered leaves the ISRs it shares (orders, RF 2) at once; RF-1 payments p0 stays hidden
    const live = predictImpact(md, G, [{kind: 'unregister-broker', broker: 3, decommission: false}])
    expect(find(live, 'orders-g')).toMatchObject({bumps: {min: 1, max: 1}, deferredBumps: 0})
    expect(find(live, 'orders-g')!.steps.find(s => s.bump === 'yes')).toMatchObject({
      phase: 'unregistration',
      deferred: false,
      metadataHash: groupHash(without, ['orders']),
    })
    expect(find(live, 'pay-g')).toMatchObject({bumps: {min: 0, max: 0}, deferredBumps: 1})
    // both topics: orders recomputed at the unregistration, payments still cached (with rack b); then the rest
    const both = find(live, 'both-g')!
    const mixed = computeGroupHash(
      new Map([
        ['orders', new TopicHasher(without).topicHash('orders')],
        ['payments', new TopicHasher(md).topicHash('payments')],
      ]),
    )
    expect(both.steps.filter(s => s.bump !== 'no').map(s => [s.phase, s.metadataHash])).toEqual([
      ['unregistration', mixed.toString()],
      ['coordinator-move', groupHash(without, ['orders', 'payments'])],
    ])
    expect(both).toMatchObject({bumps: {min: 1, max: 1}, deferredBumps: 1})
    // already fenced: as after the shutdown
    const fenced = {...md, brokers: md.brokers.map(b => (b.id === 3 ? {...b, fenced: true} : b))}
    const after = predictImpact(fenced, G, [{kind: 'unregister-broker', broker: 3, decommission: false}])
    expect(after.groups.every(x => x.bumps.max === 0 && x.deferredBumps === 1)).toBe(true)
  })

  it('create-topic: groups subscribed while it is missing, and broker-side regexes that match it, in RE2/J syntax', () => {
    const gs = groups([
      ['wait-g', 'names', ['orders', 'fresh-1']],
      ['re-g', 'regex', ['orders'], 'orders|fresh-.*'],
      ['ci-g', 'regex', ['orders'], '(?i)FRESH-.*'],
      ['no-g', 'regex', ['orders'], 'orders'],
    ])
    const r = predictImpact(md, gs, [parseCreateTopic('fresh-1:3:2')])
    expect(r.groups.map(g => g.group)).toEqual(['ci-g', 're-g', 'wait-g'])
    for (const g of r.groups) expect(g.steps).toEqual([expect.objectContaining({bump: 'yes', metadataHash: null})])
    expect(find(r, 're-g')!.steps[0].when).toContain('regex resolution')
    expect(re2jMatches('fresh-[0-9]+', 'fresh-12')).toEqual({matches: true})
    expect(re2jMatches('fresh', 'fresh-12')).toEqual({matches: false}) // whole-name match
  })

  it('regexes are evaluated with RE2/J syntax: what JavaScript refused or reads otherwise', () => {
    // RE2/J-only syntax, refused as "unknown" before (a hand-written list)
    expect(re2jMatches('(?i)FRESH-.*', 'fresh-1')).toEqual({matches: true})
    expect(re2jMatches('(?P<p>fresh)-\\d', 'fresh-1')).toEqual({matches: true})
    expect(re2jMatches('\\Qfresh.\\E[0-9]', 'fresh.1')).toEqual({matches: true})
    expect(re2jMatches('\\Qfresh.\\E[0-9]', 'freshx1')).toEqual({matches: false})
    expect(re2jMatches('\\p{L}+-1', 'fresh-1')).toEqual({matches: true})
    expect(re2jMatches('[[:alpha:]]+-[[:digit:]]', 'fresh-1')).toEqual({matches: true})
    expect(re2jMatches('\\Afresh-1\\z', 'fresh-1')).toEqual({matches: true})
    // what the broker refuses (INVALID_REGULAR_EXPRESSION) is never resolved: say so, do not guess
    expect(re2jMatches('(?=f)fresh-1', 'fresh-1')).toEqual({unknown: expect.stringContaining('RE2/J does not accept it')})
    expect(re2jMatches('(f)\\1', 'ff')).toEqual({unknown: expect.stringContaining('RE2/J does not accept it')})
  })

  it('re-created topic: one or two bumps (the deletion seen alone or not); groups without members are not touched; --fail-on-rebalance', () => {
    const gs = [...G, ...groups([['idle-g', 'empty', ['orders']]])]
    const r = predictImpact(md, gs, [{kind: 'recreate-topic', topic: 'orders'}], {failOnRebalance: 2})
    expect(find(r, 'orders-g')!.bumps).toEqual({min: 1, max: 2})
    expect(find(r, 'orders-g')!.steps.map(s => s.metadataHash)).toEqual(['0', null])
    expect(find(r, 'idle-g')).toBeUndefined() // no members: no subscription, nothing hashed
    expect(r.summary.exitCode).toBe(3)
    expect(predictImpact(md, gs, [{kind: 'recreate-topic', topic: 'orders'}], {failOnRebalance: 10}).summary.exitCode).toBe(0)
  })

  it('a group already pending today is flagged: the operation folds into that bump', () => {
    const log = new Log()
    settledGroup(log, 'old-g', ['orders'], hashOf(cluster(2, 2), ['orders']))
    const r = predictImpact(md, [['old-g', replayGroup('old-g', log.records)]], [{kind: 'shutdown-broker', broker: 1}])
    const g = find(r, 'old-g')!
    expect(g.today).not.toBe('IN_SYNC')
    expect(g.bumps).toEqual({min: 1, max: 1}) // recomputed at the shutdown: the pending bump happens then
    expect(r.summary.alreadyPending).toBe(1)
  })

  it('rejects bad input naming it', () => {
    expect(() => parseReassignmentJson('{"version":2,"partitions":[]}')).toThrow(/version: expected 1/)
    expect(() => parseReassignmentJson('{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,1]}]}')).toThrow(/appears twice/)
    expect(() => parseAddPartitions('orders')).toThrow(/TOPIC=N/)
    expect(() => predictImpact(md, G, [parseAddPartitions('orders=2')])).toThrow(/has 3 partitions already/)
    expect(() => predictImpact(md, G, [{kind: 'delete-topic', topic: 'nope'}])).toThrow(/no topic nope/)
    expect(() => predictImpact(md, G, [parseAddPartitions('orders=4/9')])).toThrow(/no broker 9/)
    expect(() => predictImpact(md, G, [parseCreateTopic('orders')])).toThrow(/exists already/)
    const none: PlannedChange[] = []
    expect(predictImpact(md, G, none).groups).toEqual([])
  })
})
