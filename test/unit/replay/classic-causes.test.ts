/**
 * A cause for every generation bump of a classic group, from consecutive GroupMetadata values (encoded with the
 * consumer protocol's subscription/assignment schemas) and the group's offset commits; and the topics a classic
 * group subscribes to (subscribedTopicsOf read the share section for classic groups).
 */
import {describe, expect, it} from 'vitest'
import {causeView} from '../../../src/core/explain/report/causes.js'
import {type ExplainReport, explainGroup} from '../../../src/core/explain/explain.js'
import type {MetadataLogView} from '../../../src/core/metadata-log/attribute.js'
import type {MetadataChange} from '../../../src/core/metadata-log/image.js'
import {ConsumerProtocolAssignment, ConsumerProtocolSubscription, encodeEmbeddedMessage, type RecordToEncode} from '../../../src/core/records/index.js'
import {type BumpCause, classifyBump, replayGroup, subscribedTopicsOf} from '../../../src/core/replay/index.js'
import {renderExplain} from '../../../src/render/explain.js'
import {PLAIN} from '../../../src/render/style.js'
import {exactFrom, history, logEvidence} from '../../lib/evidence.js'
import {Log, share, T1} from '../../lib/records.js'

const G = 'billing-legacy'

interface M {
  id: string
  topics: string[]
  assigned: Array<[string, number[]]>
  instance?: string
  session?: number
  rebalance?: number
}

const sub = (topics: string[]) =>
  encodeEmbeddedMessage(ConsumerProtocolSubscription, {Topics: topics, UserData: null, OwnedPartitions: [], GenerationId: -1, RackId: null}, 3)
const asg = (tps: Array<[string, number[]]>) =>
  encodeEmbeddedMessage(ConsumerProtocolAssignment, {AssignedPartitions: tps.map(([Topic, Partitions]) => ({Topic, Partitions})), UserData: null}, 3)

function group(generation: number, members: M[], protocol = 'range'): RecordToEncode {
  return {
    type: 2,
    version: 3,
    key: {group: G},
    value: {
      protocolType: 'consumer',
      generation,
      protocol: members.length ? protocol : null,
      leader: members[0]?.id ?? null,
      currentStateTimestamp: 1n,
      members: members.map(m => ({
        memberId: m.id,
        groupInstanceId: m.instance ?? null,
        clientId: `client-${m.id}`,
        clientHost: '/10.0.0.9',
        rebalanceTimeout: m.rebalance ?? 300_000,
        sessionTimeout: m.session ?? 45_000,
        subscription: sub(m.topics),
        assignment: asg(m.assigned),
      })),
    },
  }
}

/** Commits `tps` at the log's next write time (the coordinator's commit timestamp). */
function commit(log: Log, tps: Array<[string, number]>, gap: number): void {
  const at = log.time + gap
  log.write(
    tps.map(([topic, partition]) => ({
      type: 1,
      version: 4,
      key: {group: G, topic, partition},
      value: {offset: 5n, leaderEpoch: 0, metadata: '', commitTimestamp: BigInt(at), topicId: T1},
    })),
    {gap},
  )
}

const a: M = {id: 'a', topics: ['orders'], assigned: [['orders', [0, 1]]]}
const b: M = {id: 'b', topics: ['orders'], assigned: [['orders', [2]]]}
const aAll: M = {...a, assigned: [['orders', [0, 1, 2]]]}

/** The causes of the last bump (after the `classic-rebalance` summary). */
function lastCauses(log: Log): BumpCause[] {
  const r = replayGroup(G, log.records)
  const causes = classifyBump(r.timeline.at(-1)!)
  expect(causes[0].kind).toBe('classic-rebalance')
  return causes.slice(1)
}

describe('subscribedTopicsOf a classic group', () => {
  it('reads the classic members’ subscriptions, not the share section', () => {
    const log = new Log()
    log.write([share.metadata('billing-legacy', 1), share.member('billing-legacy', 's1', ['shared-topic'])])
    log.write([group(3, [a, {...b, topics: ['orders', 'payments']}])])
    const r = replayGroup(G, log.records)
    expect(subscribedTopicsOf('classic', r.state)).toEqual(['orders', 'payments'])
  })
})

describe('a cause for every classic generation bump', () => {
  it('a member that committed its partitions right before it went: a leave (inferred)', () => {
    const log = new Log()
    log.write([group(3, [a, b])])
    commit(log, [['orders', 2]], 10_000)
    log.write([group(4, [aAll])], {gap: 2_000})
    const [c] = lastCauses(log)
    expect(c).toMatchObject({kind: 'classic-member-left', memberId: 'b', how: {kind: 'leave', inferred: true, msSinceLastCommit: 2_000}})
    expect(causeView(c)).toMatchObject({confidence: 'inferred-unique'})
    expect(causeView(c).message).toMatch(/^member b \(client client-b\) left: likely a leave \(clean close\): its partitions were last committed 2\.0 s before/)
  })

  it('a member whose last commit is about a session timeout before: a session timeout (inferred)', () => {
    const log = new Log()
    log.write([group(3, [a, {...b, session: 10_000}])])
    commit(log, [['orders', 2]], 1_000)
    log.write([group(4, [aAll])], {gap: 9_000})
    const [c] = lastCauses(log)
    expect(c).toMatchObject({kind: 'classic-member-left', how: {kind: 'session-timeout', msSinceLastCommit: 9_000, sessionTimeoutMs: 10_000}})
    expect(causeView(c).message).toContain('likely a session timeout')
  })

  it('no commit for a rebalance timeout: a poll timeout; no commit at all: unknown, said to be ambiguous', () => {
    const log = new Log()
    log.write([group(3, [a, {...b, session: 10_000, rebalance: 60_000}])])
    commit(log, [['orders', 2]], 1_000)
    log.write([group(4, [aAll])], {gap: 61_000})
    expect(lastCauses(log)[0]).toMatchObject({how: {kind: 'poll-timeout'}})

    const none = new Log()
    none.write([group(3, [a, b])])
    none.write([group(4, [aAll])])
    const [c] = lastCauses(none)
    expect(c).toMatchObject({how: {kind: 'unknown', msSinceLastCommit: null}})
    expect(causeView(c).confidence).toBe('inferred-ambiguous')
  })

  it('between a third and two thirds of the session timeout: too close to tell', () => {
    const log = new Log()
    log.write([group(3, [a, {...b, session: 9_000}])])
    commit(log, [['orders', 2]], 1_000)
    log.write([group(4, [aAll])], {gap: 4_500})
    expect(lastCauses(log)[0]).toMatchObject({how: {kind: 'unknown', msSinceLastCommit: 4_500}})
  })

  it('joined, static member replaced, subscription change and a pattern match, assignor change: exact from the values', () => {
    const log = new Log()
    log.write([group(1, [{...a, instance: 'i-a'}])])
    expect(lastCauses(log)).toEqual([{kind: 'member-joined', memberId: 'a', instanceId: 'i-a', subscribedTopicNames: ['orders'], subscribedTopicRegex: null}])
    log.write([group(3, [{...a, instance: 'i-a'}])])
    log.write([group(4, [{...a, id: 'a2', instance: 'i-a'}, b])])
    expect(lastCauses(log)).toEqual([
      {kind: 'static-member-replaced', instanceId: 'i-a', previousMemberId: 'a', memberId: 'a2'},
      {kind: 'member-joined', memberId: 'b', instanceId: null, subscribedTopicNames: ['orders'], subscribedTopicRegex: null},
    ])
    log.write([
      group(5, [
        {...a, id: 'a2', instance: 'i-a', topics: ['orders', 'orders-eu']},
        {...b, topics: ['orders', 'orders-eu']},
      ]),
    ])
    const causes = lastCauses(log)
    expect(causes.map(c => c.kind)).toEqual(['subscription-changed', 'subscription-changed', 'classic-pattern-match'])
    expect(causes[2]).toEqual({kind: 'classic-pattern-match', topics: ['orders-eu']})
    expect(causeView(causes[0]).confidence).toBe('exact')
    log.write([
      group(
        6,
        [
          {...a, id: 'a2', instance: 'i-a', topics: ['orders', 'orders-eu']},
          {...b, topics: ['orders', 'orders-eu']},
        ],
        'cooperative-sticky',
      ),
    ])
    expect(lastCauses(log)).toEqual([{kind: 'classic-assignor-changed', before: 'range', after: 'cooperative-sticky'}])
  })

  it('same members and subscriptions: the leader rejoined; a partition increase read from the assignments, said to be inferred', () => {
    const log = new Log()
    log.write([group(3, [a, b])])
    log.write([
      group(4, [
        {...a, assigned: [['orders', [0, 1, 2]]]},
        {...b, assigned: [['orders', [3, 4, 5]]]},
      ]),
    ])
    const [c] = lastCauses(log)
    expect(c).toEqual({kind: 'classic-metadata-rejoin', leader: 'a', partitionCounts: [{topic: 'orders', before: 3, after: 6}]})
    expect(causeView(c)).toMatchObject({confidence: 'inferred-unique', message: expect.stringContaining('orders 3 → 6 partitions')})
    log.write([
      group(5, [
        {...a, assigned: [['orders', [0, 1, 2]]]},
        {...b, assigned: [['orders', [3, 4, 5]]]},
      ]),
    ])
    const [d] = lastCauses(log)
    expect(d).toEqual({kind: 'classic-metadata-rejoin', leader: 'a', partitionCounts: []})
    expect(causeView(d).confidence).toBe('unexplained')
  })

  it('the group became empty: every member left, each with how', () => {
    const log = new Log()
    log.write([group(3, [a, b])])
    commit(
      log,
      [
        ['orders', 0],
        ['orders', 1],
        ['orders', 2],
      ],
      1_000,
    )
    log.write([group(4, [])], {gap: 1_000})
    expect(lastCauses(log).map(c => (c.kind === 'classic-member-left' ? `${c.memberId}:${c.how.kind}` : c.kind))).toEqual(['a:leave', 'b:leave'])
  })
})

/** Generation 3 with members a and b, then generation 4 after `gap` ms, the orders partitions split between them (a leader rejoin). */
function leaderRejoin(gap: number) {
  const log = new Log()
  log.write([group(3, [a, b])])
  log.write(
    [
      group(4, [
        {...a, assigned: [['orders', [0, 1, 2]]]},
        {...b, assigned: [['orders', [3, 4, 5]]]},
      ]),
    ],
    {gap},
  )
  return replayGroup(G, log.records)
}

describe('--metadata-log for a classic leader rejoin', () => {
  const replay = leaderRejoin(10_000)
  const at = replay.timeline.at(-1)!.timestamp
  const change = (o: Partial<MetadataChange>): MetadataChange => ({
    kind: 'partitions-added',
    offset: 7n,
    timestamp: at - 4000,
    movesHash: true,
    topic: 'orders',
    partitions: 6,
    previousPartitions: 3,
    ...o,
  })
  const view = (changes: MetadataChange[], historyStart: number | null = 0): MetadataLogView => ({hashes: new Map(), changes, historyStart})
  const rejoin = (r: ExplainReport) => r.timeline.at(-1)!.causes.find(c => c.kind === 'classic-metadata-rejoin')!

  it('a partition increase of a subscribed topic between the generations: exact', () => {
    expect(rejoin(explainGroup(G, replay)).confidence).toBe('inferred-unique')
    const report = explainGroup(G, replay, {metadataLog: logEvidence(view([change({})]))})
    expect(exactFrom(report, 'metadata-log')).toBe(1)
    expect(report.metadataLog?.attributed).toBe(1)
    expect(rejoin(report)).toMatchObject({confidence: 'exact', details: {source: 'metadata-log', metadataLog: {exact: true}}})
    expect(rejoin(report).message).toMatch(/exact, from the metadata log/)
  })

  it('nothing for its topics in that window, a log that starts later, a broker change without racks: not exact, and said why', () => {
    for (const [v, why] of [
      [view([change({topic: 'payments'})]), /holds no change of the subscribed topics/],
      [view([change({timestamp: at - 60_000})]), /holds no change/],
      [view([change({})], at - 1000), /does not reach back/],
      [view([change({kind: 'replicas-changed', partitions: undefined})]), /holds no change/],
    ] as const) {
      const report = explainGroup(G, replay, {metadataLog: logEvidence(v)})
      expect(report.metadataLog?.attributed).toBe(0)
      expect(rejoin(report)).toMatchObject({confidence: 'inferred-unique', details: {metadataLog: {exact: false, message: expect.stringMatching(why)}}})
    }
  })
})

describe('audit history for a classic leader rejoin', () => {
  const replay = leaderRejoin(60_000)
  const [t3, t4] = replay.timeline.map(e => e.timestamp)
  const moment = (at: number, partitions: number) => ({at, brokers: undefined, topics: new Map([['orders', {id: T1, partitions, hash: '1', racks: []}]])})
  const rejoin = (r: ExplainReport) => r.timeline.at(-1)!.causes.find(c => c.kind === 'classic-metadata-rejoin')!

  it('audits with 3 then 6 partitions between the two generations: exact', () => {
    const report = explainGroup(G, replay, {history: history({clusterId: null, moments: [moment(t3 + 1000, 3), moment(t4 - 1000, 6)]})})
    expect(exactFrom(report, 'history')).toBe(1)
    expect(rejoin(report)).toMatchObject({confidence: 'exact', details: {classicHistory: {exact: true, topics: [{topic: 'orders', before: 3, after: 6}]}}})
  })

  it('audits that bracket a wider window: evidence kept, still inferred', () => {
    const report = explainGroup(G, replay, {history: history({clusterId: null, moments: [moment(t3 - 1000, 3), moment(t4 + 1000, 6)]})})
    expect(exactFrom(report, 'history')).toBe(0)
    expect(rejoin(report)).toMatchObject({confidence: 'inferred-unique', details: {classicHistory: {exact: false}}})
    expect(rejoin(report).details.classicHistory!.message).toMatch(/^recorded history agrees, but does not place the change/)
  })
})

describe('group explain text for classic causes', () => {
  it('names how a member went and that it is inferred, at 120 columns', () => {
    const log = new Log()
    log.write([group(3, [a, {...b, session: 10_000}])])
    commit(log, [['orders', 2]], 1_000)
    log.write([group(4, [aAll])], {gap: 9_000})
    const text = renderExplain(explainGroup(G, replayGroup(G, log.records)), {...PLAIN, width: 120})
    expect(text).toMatch(/│ 3 → 4 │.*│ classic rebalance completed, generation 4; left b\s+│\n.*│ member b \(client client-b\) left: likely a session timeout/)
    // the log starts at generation 3 (older values compacted away): no one is said to have joined then
    expect(text).toMatch(/│ - → 3 │.*│ classic rebalance completed, generation 3; joined a, b\s+│\n.*│ earliest epoch in the log/)
    expect(text).not.toMatch(/member joined/)
  })
})
