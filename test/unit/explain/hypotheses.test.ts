import {describe, expect, it} from 'vitest'
import {TopicHasher} from '../../../src/core/hash.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {applyHypothesis, searchHypotheses} from '../../../src/core/explain/search/hypotheses.js'

const brokers = [
  {id: 1, rack: 'rack-a'},
  {id: 2, rack: 'rack-a'},
  {id: 3, rack: 'rack-b'},
]
const topic = (name: string, id: string, n: number) => ({
  name,
  topicId: id,
  partitions: Array.from({length: n}, (_, p) => ({partition: p, replicas: [1 + (p % 3), 1 + ((p + 1) % 3)]})),
})
const ORDERS = 'AAECAwQFBgcICQoLDA0ODw'
const PAYMENTS = 'EBESExQVFhcYGRobHB0eHw'
const now = parseMetadataDocument({brokers, topics: [topic('orders', ORDERS, 16), topic('payments', PAYMENTS, 3)]})
const hashOf = (doc: unknown, topics = ['orders', 'payments']) => new TopicHasher(parseMetadataDocument(doc)).groupHash(topics)

describe('searchHypotheses', () => {
  it('finds the old partition count of a topic', () => {
    const target = hashOf({brokers, topics: [topic('orders', ORDERS, 12), topic('payments', PAYMENTS, 3)]})
    const r = searchHypotheses({target, topics: ['orders', 'payments'], metadata: now})
    expect(r.unchanged).toBe(false)
    expect(r.matches).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'orders', then: '12', now: '16'})])
    expect(r.matches[0].description).toBe('topic orders had 12 partitions then (16 now)')
  })

  it('finds a topic created since', () => {
    const target = hashOf({brokers, topics: [topic('orders', ORDERS, 16)]})
    const r = searchHypotheses({target, topics: ['orders', 'payments'], metadata: now})
    expect(r.matches.map(m => [m.kind, m.topic])).toEqual([['topic-absent', 'payments']])
  })

  it('finds a recreated topic from an id seen in the records', () => {
    const OLD = 'ICEiIyQlJicoKSorLC0uLw'
    const target = hashOf({brokers, topics: [topic('orders', OLD, 16), topic('payments', PAYMENTS, 3)]})
    const r = searchHypotheses({target, topics: ['orders', 'payments'], metadata: now, knownTopicIds: new Map([['orders', [ORDERS, OLD]]])})
    expect(r.matches).toEqual([expect.objectContaining({kind: 'topic-id', topic: 'orders', then: OLD, now: ORDERS})])
  })

  it('finds a broker rack change and an unregistration', () => {
    const rackThen = hashOf({brokers: [brokers[0], brokers[1], {id: 3, rack: 'rack-c'}], topics: [topic('orders', ORDERS, 16), topic('payments', PAYMENTS, 3)]})
    // rack-c is not a rack today: it cannot be guessed, so nothing matches, unless its name is known
    expect(searchHypotheses({target: rackThen, topics: ['orders', 'payments'], metadata: now}).matches).toEqual([])
    expect(searchHypotheses({target: rackThen, topics: ['orders', 'payments'], metadata: now, extraRacks: ['rack-c']}).matches).toEqual([
      expect.objectContaining({kind: 'broker-rack', broker: 3, then: 'rack-c', now: 'rack-b'}),
    ])
    const rackA = hashOf({brokers: [brokers[0], brokers[1], {id: 3, rack: 'rack-a'}], topics: [topic('orders', ORDERS, 16), topic('payments', PAYMENTS, 3)]})
    expect(searchHypotheses({target: rackA, topics: ['orders', 'payments'], metadata: now}).matches).toEqual([
      expect.objectContaining({kind: 'broker-rack', broker: 3, then: 'rack-a', now: 'rack-b'}),
    ])
    const gone = parseMetadataDocument({brokers: brokers.slice(0, 2), topics: [topic('orders', ORDERS, 16), topic('payments', PAYMENTS, 3)]})
    const before = hashOf({brokers, topics: [topic('orders', ORDERS, 16), topic('payments', PAYMENTS, 3)]})
    expect(searchHypotheses({target: before, topics: ['orders', 'payments'], metadata: gone}).matches).toEqual([])
    expect(searchHypotheses({target: before, topics: ['orders', 'payments'], metadata: gone, extraRacks: ['rack-b']}).matches).toEqual([
      expect.objectContaining({kind: 'broker-registered', broker: 3, then: 'registered, rack rack-b'}),
    ])
  })

  it('finds a deleted topic from an id seen in the records and a layout to try; applyHypothesis brings it back', () => {
    const OLD = 'ICEiIyQlJicoKSorLC0uLw'
    const target = hashOf({brokers, topics: [topic('orders', OLD, 16), topic('payments', PAYMENTS, 3)]})
    const gone = parseMetadataDocument({brokers, topics: [topic('payments', PAYMENTS, 3)]})
    const s = {target, topics: ['orders', 'payments'], metadata: gone, knownTopicIds: new Map([['orders', [OLD]]])}
    // without a layout to try, a topic that is gone cannot be hashed
    expect(searchHypotheses(s).matches).toEqual([])
    const templates = new Map([['orders', now.topics.find(t => t.name === 'orders')!]])
    const r = searchHypotheses({...s, absentTemplates: templates})
    expect(r.matches).toEqual([expect.objectContaining({kind: 'topic-deleted', topic: 'orders', then: OLD, now: 'absent'})])
    const back = applyHypothesis(gone, r.matches[0], templates)
    expect(new TopicHasher(back).groupHash(['orders', 'payments'])).toBe(target)
  })

  it('topic-absent names the id the topic has now', () => {
    const target = hashOf({brokers, topics: [topic('orders', ORDERS, 16)]})
    const r = searchHypotheses({target, topics: ['orders', 'payments'], metadata: now})
    expect(r.matches).toEqual([expect.objectContaining({kind: 'topic-absent', topic: 'payments', then: 'absent', now: PAYMENTS})])
    expect(new TopicHasher(applyHypothesis(now, r.matches[0])).groupHash(['orders', 'payments'])).toBe(target)
  })

  it('reports unchanged when the live hash already matches, and counts what it tried', () => {
    const live = hashOf({brokers, topics: [topic('orders', ORDERS, 16), topic('payments', PAYMENTS, 3)]})
    expect(searchHypotheses({target: live, topics: ['orders', 'payments'], metadata: now})).toMatchObject({unchanged: true, matches: [], tried: 0})
    const r = searchHypotheses({target: 12345n, topics: ['orders', 'payments'], metadata: now})
    expect(r.matches).toEqual([])
    expect(r.tried).toBeGreaterThan(15 + 2 + 2)
  })

  it('a priority topic whose change matches rules out every broker change: they are not tried', () => {
    const target = hashOf({brokers, topics: [topic('orders', ORDERS, 12), topic('payments', PAYMENTS, 3)]})
    const all = searchHypotheses({target, topics: ['orders', 'payments'], metadata: now})
    const prio = searchHypotheses({target, topics: ['orders', 'payments'], metadata: now, priorityTopics: new Set(['orders'])})
    expect(prio.matches).toEqual(all.matches)
    // orders' variants down to 12 partitions (topic-absent, 15..12) and nothing else; without priority the broker
    // changes come first
    expect(prio.tried).toBe(5)
    expect(all.tried).toBeGreaterThan(prio.tried)
    // a broker change is still found when the priority topic did not change
    const rackA = hashOf({brokers: [brokers[0], brokers[1], {id: 3, rack: 'rack-a'}], topics: [topic('orders', ORDERS, 16), topic('payments', PAYMENTS, 3)]})
    expect(searchHypotheses({target: rackA, topics: ['orders', 'payments'], metadata: now, priorityTopics: new Set(['payments'])}).matches).toEqual([
      expect.objectContaining({kind: 'broker-rack', broker: 3, then: 'rack-a'}),
    ])
    // and when every topic is a priority topic
    expect(searchHypotheses({target: rackA, topics: ['orders', 'payments'], metadata: now, priorityTopics: new Set(['orders', 'payments'])}).matches).toEqual([
      expect.objectContaining({kind: 'broker-rack', broker: 3, then: 'rack-a'}),
    ])
  })

  it('stops the placement search at the first placement that matches', () => {
    const moved = topic('orders', ORDERS, 16)
    moved.partitions[0].replicas = [3, 2]
    const target = hashOf({brokers, topics: [moved, topic('payments', PAYMENTS, 3)]})
    const r = searchHypotheses({target, topics: ['orders', 'payments'], metadata: now})
    expect(r.matches).toEqual([expect.objectContaining({kind: 'replica-placement', topic: 'orders', partitions: [0]})])
    // partition 0 is the first one searched: its few variants, not the 19 partitions' worth
    expect(r.placementsTried).toBeLessThanOrEqual(4)
  })

  it('stops at maxCandidates', () => {
    const r = searchHypotheses({target: 1n, topics: ['orders', 'payments'], metadata: now, maxCandidates: 5})
    expect(r).toMatchObject({tried: 5, truncated: true})
  })
})
