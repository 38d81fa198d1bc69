/**
 * How each metadata cause is known. Hashes the scenarios' "then" metadata with TopicHasher and checks
 * the confidence, the alternatives and the wording (an inference is never worded as a fact).
 */
import {describe, expect, it} from 'vitest'
import {auditContext, auditGroup} from '../../../src/core/audit/audit.js'
import {explainGroup, type ExplainReport} from '../../../src/core/explain/explain.js'
import {type ReassignmentInFlight, searchHypotheses} from '../../../src/core/explain/search/hypotheses.js'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {historyRacks, historyView, recordedHistory} from '../../../src/core/history/view.js'
import {exactFrom} from '../../lib/evidence.js'
import {consumer as c, Log, T1, T2, T3} from '../../lib/records.js'
import {historyMoment} from '../../lib/history.js'

const G = 'g1'
const OLD = 'ICEiIyQlJicoKSorLC0uLw'
type Broker = {id: number; rack: string | null}
const BROKERS: Broker[] = [
  {id: 1, rack: 'rack-a'},
  {id: 2, rack: 'rack-a'},
  {id: 3, rack: 'rack-b'},
]
const layout = (name: string, topicId: string, replicas: number[][]) => ({name, topicId, partitions: replicas.map((r, p) => ({partition: p, replicas: r}))})
const md = (topics: ReturnType<typeof layout>[], brokers: Broker[] = BROKERS): ClusterMetadata => parseMetadataDocument({brokers, topics})
const hash = (m: ClusterMetadata, names: string[]) => new TopicHasher(m).groupHash(names)

function created(names: string[], h: bigint, tps: [string, number[]][] = [[T1, [0]]]): Log {
  const log = new Log()
  log.write([c.member(G, 'm1', {names}), c.metadata(G, 1, h), c.target(G, 'm1', tps), c.targetMetadata(G, 1), c.current(G, 'm1', 1, tps)])
  return log
}
function bump(log: Log, epoch: number, h: bigint, tps: [string, number[]][] = [[T1, [0]]]): void {
  log.write([c.metadata(G, epoch, h), c.target(G, 'm1', tps), c.targetMetadata(G, epoch)])
  log.write([c.current(G, 'm1', epoch, tps)])
}
const explain = (log: Log, live: ClusterMetadata, o: {reassignments?: ReassignmentInFlight[]; knownRacks?: string[]} = {}): ExplainReport =>
  explainGroup(G, replayGroup(G, log.records), {
    live,
    now: log.time + 1000,
    reassignments: o.reassignments,
    // racks only an earlier audit saw (no broker has them today)
    ...(o.knownRacks ? {history: {view: {clusterId: null, moments: []}, racks: o.knownRacks}} : {}),
  })
const metadataCause = (r: ExplainReport, epoch: number) => r.timeline.find(e => e.epoch === epoch)!.causes.find(x => x.kind === 'metadata-hash-changed')!

describe('a reassignment and a rack change that hash alike', () => {
  // partition 0 of orders moved from [1,2] to [2,3]: racks [a,a] → [a,b]; "broker 3 had rack-a" gives [a,a] too
  const before = md([layout('orders', T1, [[1, 2]])])
  const live = md([layout('orders', T1, [[2, 3]])])

  it('the search finds both, and the broker hypothesis is checked against the equivalent placement', () => {
    const r = searchHypotheses({target: hash(before, ['orders']), topics: ['orders'], metadata: live})
    expect(r.matches.map(m => m.kind)).toEqual(['broker-rack'])
    expect(r.alternatives).toEqual([
      expect.objectContaining({kind: 'replica-placement', topic: 'orders', partitions: [0], replicasThen: [{partition: 0, replicas: [2, 1]}]}),
    ])
    // when no broker change fits (broker 3 also holds partition 1, unchanged), the single-replica move is found directly
    const then2 = md([
      layout('orders', T1, [
        [1, 2],
        [3, 1],
      ]),
    ])
    const r2 = searchHypotheses({
      target: hash(then2, ['orders']),
      topics: ['orders'],
      metadata: md([
        layout('orders', T1, [
          [2, 3],
          [3, 1],
        ]),
      ]),
    })
    expect(r2.matches).toEqual([expect.objectContaining({kind: 'replica-placement', topic: 'orders', partitions: [0]})])
  })

  it('explain: inferred-ambiguous, the replica move listed, the step that would answer it, never stated as fact', () => {
    const log = created(['orders'], hash(before, ['orders']))
    bump(log, 2, hash(live, ['orders']))
    const cause = metadataCause(explain(log, live), 2)
    expect(cause.confidence).toBe('inferred-ambiguous')
    expect([...(cause.details.changes as {kind: string}[]), ...cause.alternatives].map(m => m.kind).sort()).toEqual(['broker-rack', 'replica-placement'])
    expect(cause.message).toMatch(/^metadata changed, consistent with any of: /)
    expect(cause.message).toContain('partition 0 of orders had replicas on other racks then')
    expect(cause.message).toContain('broker 3 had rack rack-a then')
    expect(cause.message).toMatch(/record history with `audit`.*--metadata-log/)
    expect(cause.message).not.toMatch(/metadata changed: broker/)
  })

  it('a broker change over many partitions: the equivalent placement of that topic is an alternative', () => {
    const then = md(
      [
        layout('orders', T1, [
          [1, 3],
          [3, 2],
          [1, 2],
        ]),
      ],
      [BROKERS[0], BROKERS[1], {id: 3, rack: 'rack-a'}],
    )
    const now = md([
      layout('orders', T1, [
        [1, 3],
        [3, 2],
        [1, 2],
      ]),
    ])
    const r = searchHypotheses({target: hash(then, ['orders']), topics: ['orders'], metadata: now})
    expect(r.matches.map(m => m.kind)).toEqual(['broker-rack'])
    expect(r.alternatives).toEqual([expect.objectContaining({kind: 'replica-placement', topic: 'orders', partitions: [0, 1]})])
    // the placement it names reproduces the hash too
    const placed = md([
      layout('orders', T1, [
        [1, 2],
        [2, 1],
        [1, 2],
      ]),
    ])
    expect(r.alternatives[0].replicasThen!.map(x => x.replicas.map(b => placed.brokers.find(y => y.id === b)!.rack))).toEqual([
      ['rack-a', 'rack-a'],
      ['rack-a', 'rack-a'],
    ])
  })

  it('with history: exact, naming the racks', () => {
    const log = created(['orders'], hash(before, ['orders']))
    bump(log, 2, hash(live, ['orders']))
    const replay = replayGroup(G, log.records)
    const view = historyView([historyMoment(before, log.time - 60_000), historyMoment(live, log.time + 500)] as never)
    expect(historyRacks(view)).toEqual(['rack-a', 'rack-b'])
    const r = explainGroup(G, replay, {live, now: log.time + 1000, history: recordedHistory(view)})
    expect(exactFrom(r, 'history')).toBe(1)
    const cause = metadataCause(r, 2)
    expect(cause).toMatchObject({confidence: 'exact', alternatives: []})
    // the partition, its replicas and their racks on both sides, not just the topic's racks
    expect(cause.message).toContain('orders: partition 0: replicas [1,2] on rack-a,rack-a → [2,3] on rack-a,rack-b')
    expect(cause.message).not.toContain('to answer it')
    // every field is the history's; the guess lives only under details.inferred
    expect(cause.details.changes).toEqual([
      {
        kind: 'replica-placement',
        topic: 'orders',
        partitions: [0],
        then: '0: [1,2] on rack-a,rack-a',
        now: '0: [2,3] on rack-a,rack-b',
        replicasThen: [{partition: 0, replicas: [1, 2]}],
        description: expect.stringContaining('orders: partition 0: replicas [1,2] on rack-a,rack-a → [2,3] on rack-a,rack-b'),
        time: new Date(log.time + 500).toISOString(),
      },
    ])
    expect(cause.details.inferred!.changes!.length).toBeGreaterThan(0)
    expect(cause.details.inferred!.confidence).not.toBe('exact')
    expect(cause.details.nextStep).toBeUndefined()
  })
})

describe('many topics altered within one heartbeat', () => {
  const three = (a: number, b: number, x: number, brokers: Broker[] = BROKERS) =>
    md(
      [
        layout(
          'a',
          T1,
          Array.from({length: a}, () => [1, 2]),
        ),
        layout(
          'b',
          T2,
          Array.from({length: b}, () => [2, 3]),
        ),
        layout(
          'x',
          T3,
          Array.from({length: x}, () => [3, 1]),
        ),
      ],
      brokers,
    )
  // broker 3 on a rack no source names: no hypothesis can reproduce a hash from before that change
  const UNSEEN: Broker[] = [...BROKERS.slice(0, 2), {id: 3, rack: 'rack-zz'}]
  const names = ['a', 'b', 'x']
  const assigned = (a: number, b: number, x: number): [string, number[]][] => [
    [T1, Array.from({length: a}, (_, i) => i)],
    [T2, Array.from({length: b}, (_, i) => i)],
    [T3, Array.from({length: x}, (_, i) => i)],
  ]

  it('three topics raised at once: no single change nor pair fits; the counts the assignment covered before do, as one change', () => {
    const before = three(2, 3, 1)
    const live = three(4, 5, 3)
    const log = created(names, hash(before, names), assigned(2, 3, 1))
    bump(log, 2, hash(live, names), assigned(4, 5, 3))
    const cause = metadataCause(explain(log, live), 2)
    expect(cause.confidence).toBe('inferred-unique')
    const [m] = cause.details.changes as Array<{kind: string; parts: Array<{topic: string; then: string; now: string}>}>
    expect(m.kind).toBe('combined')
    expect(m.parts.map(p => [p.topic, p.then, p.now])).toEqual([
      ['a', '2', '4'],
      ['b', '3', '5'],
      ['x', '1', '3'],
    ])
    expect(cause.message).toContain("the counts then are those the group's assignment covered before the bump")
  })

  it('partitions added with a change no search finds (a rack never seen): the additions evident from the assignment, the rest said unknown', () => {
    const before = three(2, 3, 1)
    const live = three(4, 5, 3, UNSEEN)
    const log = created(names, hash(before, names), assigned(2, 3, 1))
    bump(log, 2, hash(live, names), assigned(4, 5, 3))
    const cause = metadataCause(explain(log, live), 2)
    expect(cause.confidence).toBe('evident')
    expect(cause.details.evident).toEqual({
      deletedTopics: [],
      topicIds: [],
      partitionsAdded: [
        {topic: 'a', then: 2, now: 4},
        {topic: 'b', then: 3, now: 5},
        {topic: 'x', then: 1, now: 3},
      ],
    })
    expect(cause.message).toMatch(/^metadata changed: topic a: 2 → 4 partitions, topic b: 3 → 5 partitions, topic x: 1 → 3 partitions \(evident: /)
    expect(cause.message).toContain('whether anything else changed in the same bump cannot be told')
  })

  it('a later bump no search reconstructs does not erase what the records show of the earlier ones', () => {
    const v1 = three(2, 3, 1)
    const v2 = three(4, 3, 1) // epoch 2: a raised to 4
    const v3 = three(4, 3, 1, UNSEEN) // epoch 3: broker 3 on a rack nothing names
    const log = created(names, hash(v1, names), assigned(2, 3, 1))
    bump(log, 2, hash(v2, names), assigned(4, 3, 1))
    bump(log, 3, hash(v3, names), assigned(4, 3, 1))
    const r = explain(log, v3)
    expect(metadataCause(r, 3).confidence).toBe('unexplained')
    const earlier = metadataCause(r, 2)
    expect(earlier.confidence).toBe('evident')
    expect(earlier.message).toContain('topic a: 2 → 4 partitions')
    // the dependency worded as it is: a LATER change stopped the walk back
    expect(earlier.message).toContain('the later metadata change at group epoch 3 could not be reconstructed')
  })
})

describe('more kinds of change', () => {
  it('a deleted subscribed topic is evident from the ids in the records', () => {
    const both = md([layout('orders', OLD, [[1, 2]]), layout('payments', T2, [[2, 3]])])
    const live = md([layout('payments', T2, [[2, 3]])])
    const log = created(['orders', 'payments'], hash(both, ['orders', 'payments']), [
      [OLD, [0]],
      [T2, [0]],
    ])
    bump(log, 2, hash(live, ['orders', 'payments']), [[T2, [0]]])
    const r = explain(log, live)
    const cause = metadataCause(r, 2)
    expect(cause.confidence).toBe('evident')
    expect(cause.details.evident).toEqual({deletedTopics: ['orders'], topicIds: [OLD]})
    expect(cause.message).toContain(`topic orders was deleted (evident: the group's assignment records hold topic id ${OLD}`)
    expect(r.verdict.code).toBe('IN_SYNC')
  })

  it('not evident when the gone topic was not assigned before the bump (a dead id from elsewhere in the records)', () => {
    // 'ghost' never existed; OLD was assigned long before, then dropped; the bump itself is unexplained
    const live = md([layout('payments', T2, [[2, 3]])])
    const log = created(['ghost', 'payments'], hash(md([layout('payments', T2, [[1, 2]])]), ['ghost', 'payments']), [
      [OLD, [0]],
      [T2, [0]],
    ])
    bump(log, 2, 12345n, [[T2, [0]]]) // a hash no single change reproduces
    bump(log, 3, hash(live, ['ghost', 'payments']), [[T2, [0]]])
    const cause = metadataCause(explain(log, live), 3)
    expect(cause.confidence).not.toBe('evident')
    expect(cause.message).not.toContain('was deleted')
  })

  it('a hidden broker change and a partition change in one bump: both named (a pair)', () => {
    // broker 3 unregistered while the coordinator's cache hid it, then partitions added
    const then = md([
      layout('orders', T1, [
        [1, 3],
        [3, 2],
      ]),
    ])
    const live = md(
      [
        layout('orders', T1, [
          [1, 3],
          [3, 2],
          [1, 2],
        ]),
      ],
      BROKERS.slice(0, 2),
    )
    const log = created(['orders'], hash(then, ['orders']))
    bump(log, 2, hash(live, ['orders']))
    // rack-b is on no broker today: its name comes from another source (history, a member's rack)
    const cause = metadataCause(explain(log, live, {knownRacks: ['rack-b']}), 2)
    expect(['inferred-unique', 'inferred-ambiguous']).toContain(cause.confidence)
    const combined = (cause.details.changes as {kind: string; parts?: {kind: string}[]}[]).filter(m => m.kind === 'combined')
    expect(combined.some(m => m.parts!.map(p => p.kind).join() === 'partition-count,broker-registered')).toBe(true)
    expect(cause.message).toContain('topic orders had 2 partitions then (3 now), and broker 3 was registered with rack rack-b then')
  })

  it('a rack name no broker has today is tried when known from another source (history)', () => {
    const then = md([layout('orders', T1, [[1, 3]])], [BROKERS[0], BROKERS[1], {id: 3, rack: 'rack-old'}])
    const live = md([layout('orders', T1, [[1, 3]])])
    const log = created(['orders'], hash(then, ['orders']))
    bump(log, 2, hash(live, ['orders']))
    expect(metadataCause(explain(log, live), 2).confidence).toBe('unexplained')
    const cause = metadataCause(explain(log, live, {knownRacks: ['rack-old']}), 2)
    expect(cause.details.changes).toEqual([expect.objectContaining({kind: 'broker-rack', broker: 3, then: 'rack-old'})])
    expect(cause.confidence).toBe('inferred-unique')
  })

  it('the temporary wider replica list of a reassignment is a state of its own', () => {
    // [1,2] → (adding 3) [1,2,3] → [2,3]: the first bump is the wider list, the second its completion
    const a = md([layout('orders', T1, [[1, 2]])])
    const wide = md([layout('orders', T1, [[1, 2, 3]])])
    const live = md([layout('orders', T1, [[2, 3]])])
    const log = created(['orders'], hash(a, ['orders']))
    bump(log, 2, hash(wide, ['orders']))
    bump(log, 3, hash(live, ['orders']))
    const r = explain(log, live)
    const c3 = metadataCause(r, 3)
    expect(
      (c3.details.changes as {kind: string; replicasThen?: {replicas: number[]}[]}[]).some(
        m => m.kind === 'replica-placement' && m.replicasThen![0].replicas.length === 3,
      ),
    ).toBe(true)
    expect(c3.message).toContain('a reassignment in flight then (its wider replica list)')
  })
})

describe('reassignments in flight', () => {
  const inFlight: ReassignmentInFlight[] = [{topic: 'orders', partition: 0, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [1]}]
  const before = md([layout('orders', T1, [[1, 2]])])
  const live = md([layout('orders', T1, [[1, 2, 3]])])

  it('REASSIGNMENT_IN_FLIGHT names the partitions and the bump still to come; its start explains the past bump', () => {
    const log = created(['orders'], hash(before, ['orders']))
    bump(log, 2, hash(live, ['orders']))
    const r = explain(log, live, {reassignments: inFlight})
    const f = r.findings.find(x => x.code === 'REASSIGNMENT_IN_FLIGHT')!
    expect(f.details).toMatchObject({
      topics: [{topic: 'orders', partitions: [{partition: 0, addingReplicas: [3], removingReplicas: [1]}], bumpOnCompletion: true}],
      expectedFurtherBumps: 1,
    })
    expect(f.message).toContain('Expect one more bump when it completes')
    const cause = metadataCause(r, 2)
    expect((cause.details.changes as {kind: string}[]).map(m => m.kind)).toContain('reassignment-started')
    // not in flight on the group's topics: no finding
    expect(explain(log, live, {reassignments: [{...inFlight[0], topic: 'other'}]}).findings.map(x => x.code)).not.toContain('REASSIGNMENT_IN_FLIGHT')
  })

  it('audit reports it as the finding kind reassignment', () => {
    const log = created(['orders'], hash(live, ['orders']))
    const row = auditGroup(G, replayGroup(G, log.records), auditContext(live, log.time + 1000, 300_000, inFlight))
    expect(row.findings).toContain('reassignment')
    expect(row.reassignments).toEqual([expect.objectContaining({topic: 'orders', bumpOnCompletion: true})])
    expect(auditGroup(G, replayGroup(G, log.records), auditContext(live, log.time + 1000)).findings).not.toContain('reassignment')
  })
})

describe('two topics altered in one bump', () => {
  // orders 2 → 3 partitions (epoch 2), later orders 3 → 4 and payments 2 → 3 within one heartbeat (epoch 3)
  const p = (n: number) => Array.from({length: n}, () => [1, 3])
  const at2 = md([layout('orders', T1, p(2)), layout('payments', T2, p(2))])
  const at3 = md([layout('orders', T1, p(3)), layout('payments', T2, p(2))])
  const live = md([layout('orders', T1, p(4)), layout('payments', T2, p(3))])
  const topics = ['orders', 'payments']

  it('one bump naming both; the bump before it is still attributed', () => {
    const log = created(topics, hash(at2, topics))
    bump(log, 2, hash(at3, topics))
    bump(log, 3, hash(live, topics))
    const r = explain(log, live)
    const both = metadataCause(r, 3)
    expect(both.confidence, both.message).toBe('inferred-unique')
    expect(both.details.changes).toEqual([
      expect.objectContaining({
        kind: 'combined',
        parts: [
          expect.objectContaining({kind: 'partition-count', topic: 'orders', then: '3', now: '4'}),
          expect.objectContaining({kind: 'partition-count', topic: 'payments', then: '2', now: '3'}),
        ],
      }),
    ])
    expect(both.message).toContain('orders')
    expect(both.message).toContain('payments')
    // the older bump: orders 2 → 3, from the metadata the two-topic step rebuilt
    const older = metadataCause(r, 2)
    expect(older.confidence, older.message).toBe('inferred-unique')
    expect(older.details.changes).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'orders', then: '2', now: '3'})])
  })

  it('when a later bump cannot be rebuilt, the earlier ones say which later epoch stopped them', () => {
    const log = created(topics, hash(at2, topics))
    bump(log, 2, hash(at3, topics))
    bump(log, 3, 0x1234_5678n) // nothing reproduces it
    const r = explain(log, live)
    expect(metadataCause(r, 3).confidence).toBe('unexplained')
    const older = metadataCause(r, 2)
    expect(older.confidence).toBe('unexplained')
    expect(older.message).toContain('the later metadata change at group epoch 3 could not be reconstructed')
  })
})
