import {describe, expect, it} from 'vitest'
import {SearchBudget} from '../../../src/core/explain/search/budget.js'
import {type HypothesisSearch, searchHypotheses} from '../../../src/core/explain/search/hypotheses.js'
import {runStages, SEARCH_STAGES} from '../../../src/core/explain/search/stages.js'
import {SearchState} from '../../../src/core/explain/search/state.js'
import {TopicHasher} from '../../../src/core/hash.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'

// Racks a, a, b: every topic below has a replica on each broker, so there are 9 broker changes (brokers 1 and 2: rack b,
// no rack, unregistered; broker 3: rack a, no rack, unregistered).
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
const AUDIT = 'MDEyMzQ1Njc4OTo7PD0-Pw'
const REFUNDS = 'QEFCQ0RFRkdISUpLTE1OTw'
const OLD = 'ICEiIyQlJicoKSorLC0uLw'
// payments' partition 0 is under reassignment (replica 3 being added)
const payments = {
  ...topic('payments', PAYMENTS, 3),
  partitions: topic('payments', PAYMENTS, 3).partitions.map(p => (p.partition === 0 ? {...p, replicas: [1, 2, 3]} : p)),
}
const now = parseMetadataDocument({brokers, topics: [topic('orders', ORDERS, 16), payments, topic('audit', AUDIT, 1)]})
const refunds = parseMetadataDocument({brokers, topics: [topic('refunds', REFUNDS, 3)]}).topics[0]

/** A search that reaches every stage: a priority topic, a recreated and a deleted topic, a reassignment, the group-wide inputs. */
const search = (target: bigint, more: Partial<HypothesisSearch> = {}): HypothesisSearch => ({
  target,
  topics: ['orders', 'payments', 'audit', 'refunds'],
  metadata: now,
  priorityTopics: new Set(['payments']),
  knownTopicIds: new Map([
    ['orders', [ORDERS, OLD, 'not-an-id']],
    ['refunds', [REFUNDS]],
  ]),
  absentTemplates: new Map([['refunds', refunds]]),
  reassignments: [{topic: 'payments', partition: 0, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: []}],
  assignedPartitionsBefore: new Map([
    ['orders', 12],
    ['payments', 2],
  ]),
  absentTogether: ['orders', 'payments', 'audit'],
  ...more,
})
const ordersHad12 = new TopicHasher(parseMetadataDocument({brokers, topics: [topic('orders', ORDERS, 12), payments, topic('audit', AUDIT, 1)]})).groupHash([
  'orders',
  'payments',
  'audit',
])

/** The budget spent (candidates, placements, pairs) and the matches after each stage, walked one at a time. */
function stageByStage(s: HypothesisSearch): Array<[string, number, number, number, number]> {
  const st = new SearchState(s)
  return SEARCH_STAGES.map(stage => {
    runStages(st, [stage])
    return [stage.name, st.budget.tried, st.budget.placementsTried, st.budget.pairsTried, st.matches.length]
  })
}

describe('the hypothesis search order', () => {
  it('walks the stages in the stated order, each spending its own share of the budget, when nothing matches', () => {
    expect(stageByStage(search(12345n))).toEqual([
      // payments: absent, 2 and 1 partitions
      ['priority-topics', 3, 0, 0, 0],
      ['broker-changes', 3 + 9, 0, 0, 0],
      // orders: absent, 15..1 partitions, the old id (its own id and a text that is no id are skipped); audit: absent
      ['other-topics', 12 + 17 + 1, 0, 0, 0],
      ['deleted-topics', 30 + 1, 0, 0, 0],
      ['reassignments-in-flight', 31 + 1, 0, 0, 0],
      // each also a candidate: payments first (under reassignment) 2 + 4 + 4, orders 6 × 3 + 10 × 4, audit 3
      ['replica-placements', 32 + 71, 71, 0, 0],
      // 9 broker changes × 23 topic changes (placements are not paired)
      ['topic-and-broker-pairs', 103, 71, 207, 0],
      // topic changes of two different topics: payments 4 (with the reassignment), orders 17, audit 1, refunds 1
      ['topic-pairs', 103, 71, 207 + 4 * 17 + 4 + 4 + 17 + 17 + 1, 0],
      ['assigned-partition-counts', 104, 71, 318, 0],
      ['absent-together', 105, 71, 318, 0],
    ])
    expect(searchHypotheses(search(12345n))).toMatchObject({matches: [], tried: 105, placementsTried: 71, pairsTried: 318, truncated: false})
  })

  it('stops trying topic changes at a match, still tries the reassignments, and skips every stage that runs only while nothing matched', () => {
    expect(stageByStage(search(ordersHad12))).toEqual([
      ['priority-topics', 3, 0, 0, 0],
      ['broker-changes', 12, 0, 0, 0],
      // orders: absent, 15, 14, 13, 12 (the match); audit is not tried
      ['other-topics', 17, 0, 0, 1],
      ['deleted-topics', 17, 0, 0, 1],
      // a reassignment changes only replica lists, which a broker change can hash like: tried regardless
      ['reassignments-in-flight', 18, 0, 0, 1],
      ['replica-placements', 18, 0, 0, 1],
      ['topic-and-broker-pairs', 18, 0, 0, 1],
      ['topic-pairs', 18, 0, 0, 1],
      ['assigned-partition-counts', 18, 0, 0, 1],
      ['absent-together', 18, 0, 0, 1],
    ])
    expect(searchHypotheses(search(ordersHad12)).matches.map(m => m.description)).toEqual(['topic orders had 12 partitions then (16 now)'])
  })

  it('tries the priority topics before the broker changes, and the broker changes before the other topics', () => {
    // the budget of payments' 3 changes and the 9 broker changes: orders' change is never reached
    expect(searchHypotheses(search(ordersHad12, {maxCandidates: 12}))).toMatchObject({matches: [], tried: 12, truncated: true})
    expect(searchHypotheses(search(ordersHad12, {maxCandidates: 17})).matches).toHaveLength(1)
    // orders as the priority topic: its change comes first (the fifth candidate) and rules out every broker change;
    // only the reassignment is tried after it
    expect(searchHypotheses(search(ordersHad12, {maxCandidates: 6, priorityTopics: new Set(['orders'])}))).toMatchObject({
      matches: [expect.objectContaining({kind: 'partition-count', topic: 'orders', then: '12'})],
      tried: 6,
      truncated: false,
    })
  })

  it('shares one pair budget between the topic+broker pairs and the topic pairs, and turns pairs off at 0 without truncating', () => {
    expect(searchHypotheses(search(12345n, {maxPairs: 207}))).toMatchObject({pairsTried: 207, truncated: true})
    expect(searchHypotheses(search(12345n, {maxPairs: 250}))).toMatchObject({pairsTried: 250, truncated: true})
    expect(searchHypotheses(search(12345n, {maxPairs: 0}))).toMatchObject({pairsTried: 0, tried: 105, truncated: false})
  })

  it('stops the placements at their limit, truncated, and still walks the later stages', () => {
    expect(searchHypotheses(search(12345n, {maxPlacements: 10}))).toMatchObject({placementsTried: 10, tried: 32 + 10 + 2, pairsTried: 318, truncated: true})
  })

  it('skips the group-wide tests at the end when the candidates are spent, without truncating for them', () => {
    // 103 single candidates fit exactly: nothing single was left out, and the two closing tests find none left
    expect(searchHypotheses(search(12345n, {maxCandidates: 103}))).toMatchObject({tried: 103, truncated: false})
    expect(searchHypotheses(search(12345n, {maxCandidates: 104}))).toMatchObject({tried: 104, truncated: false})
  })
})

describe('SearchBudget', () => {
  it('counts candidates, placements and pairs up to their limits and marks the search truncated at the first refusal', () => {
    const b = new SearchBudget({candidates: 2, pairs: 1, placements: 1})
    expect([b.candidate(), b.candidate(), b.truncated]).toEqual([true, true, false])
    expect([b.candidate(), b.truncated, b.tried]).toEqual([false, true, 2])
    const p = new SearchBudget({candidates: 9, pairs: 1, placements: 1})
    expect([p.placement(), p.pair(), p.truncated]).toEqual([true, true, false])
    expect([p.placement(), p.placementsTried, p.pair(), p.pairsTried, p.truncated]).toEqual([false, 1, false, 1, true])
  })

  it('takes a closing test from the candidates without marking the search truncated when none is left', () => {
    const b = new SearchBudget({candidates: 1, pairs: 0, placements: 0})
    expect([b.closing(), b.closing(), b.tried, b.truncated]).toEqual([true, false, 1, false])
    expect(b.pairsAllowed).toBe(false)
  })

  it('takes the limits of the search, with the documented defaults', () => {
    expect(SearchBudget.of({}).limits).toEqual({candidates: 100_000, pairs: 20_000, placements: 40_000})
    expect(SearchBudget.of({maxCandidates: 5, maxPairs: 0, maxPlacements: 7}).limits).toEqual({candidates: 5, pairs: 0, placements: 7})
  })
})
