/**
 * Classic groups' members and lag from their stored GroupMetadata value: the consumer protocol's subscription and
 * assignment bytes are written here with the generic codec (Kafka's ConsumerProtocol schemas) and read back by
 * explain, offsets and audit as `kafka-consumer-groups --describe --members --verbose` / `--offsets` show them.
 */
import {describe, expect, it} from 'vitest'
import {auditContext, auditGroup, summarize} from '../../../src/core/audit/audit.js'
import {prometheusText} from '../../../src/core/audit/output.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {groupOffsets, type LogEnd, offsetPartitionsOf} from '../../../src/core/explain/report/offsets.js'
import {ConsumerProtocolAssignment, ConsumerProtocolSubscription, encodeEmbeddedMessage, type RecordToEncode} from '../../../src/core/records/index.js'
import {replayGroup, topicsEverUsed} from '../../../src/core/replay/index.js'
import {renderExplain} from '../../../src/render/explain.js'
import {PLAIN} from '../../../src/render/style.js'
import {cluster} from '../../lib/fixtures.js'
import {consumer, Log, T1, T2} from '../../lib/records.js'

const G = 'billing-legacy'

const subscription = (topics: string[], o: {owned?: Array<[string, number[]]>; generation?: number; rack?: string | null; version?: number} = {}) =>
  encodeEmbeddedMessage(
    ConsumerProtocolSubscription,
    {
      Topics: topics,
      UserData: null,
      OwnedPartitions: (o.owned ?? []).map(([Topic, Partitions]) => ({Topic, Partitions})),
      GenerationId: o.generation ?? -1,
      RackId: o.rack ?? null,
    },
    o.version ?? 3,
  )

const assignment = (tps: Array<[string, number[]]>) =>
  encodeEmbeddedMessage(ConsumerProtocolAssignment, {AssignedPartitions: tps.map(([Topic, Partitions]) => ({Topic, Partitions})), UserData: null}, 3)

interface MemberIn {
  memberId: string
  instance?: string | null
  subscription: Uint8Array
  assignment: Uint8Array
}

function group(generation: number, members: MemberIn[], protocolType = 'consumer'): RecordToEncode {
  return {
    type: 2,
    version: 3,
    key: {group: G},
    value: {
      protocolType,
      generation,
      protocol: protocolType === 'consumer' ? 'range' : 'sessioned',
      leader: members[0]?.memberId ?? null,
      currentStateTimestamp: 1_700_000_000_000n,
      members: members.map(m => ({
        memberId: m.memberId,
        groupInstanceId: m.instance ?? null,
        clientId: `client-${m.memberId.slice(0, 2)}`,
        clientHost: '/10.0.0.9',
        rebalanceTimeout: 300_000,
        sessionTimeout: 45_000,
        subscription: m.subscription,
        assignment: m.assignment,
      })),
    },
  }
}

const ends = (e: Record<string, bigint>) => new Map<string, LogEnd>(Object.entries(e).map(([k, v]) => [k, {offset: v, error: null}]))

describe('classic group members from the stored GroupMetadata value', () => {
  const log = new Log()
  log.write([
    group(3, [
      {
        memberId: 'm1-abc',
        instance: 'inst-1',
        subscription: subscription(['payments', 'orders'], {owned: [['orders', [1, 0]]], generation: 2, rack: 'rack-a'}),
        assignment: assignment([['orders', [2, 0, 1]]]),
      },
      {
        memberId: 'm2-def',
        subscription: subscription(['orders', 'payments'], {version: 0}),
        assignment: assignment([
          ['payments', [1, 0]],
          ['gone', [0]],
        ]),
      },
    ]),
  ])
  log.write([
    consumer.offsetCommit(G, 'orders', 0, 5n),
    consumer.offsetCommit(G, 'orders', 1, 7n),
    consumer.offsetCommit(G, 'payments', 0, 2n),
    consumer.offsetCommit(G, 'old', 0, 4n),
  ])
  const replay = replayGroup(G, log.records)
  const md = cluster()

  it('group explain: members with instance/client id, host, subscribed topics, rack, assigned partitions by topic name', () => {
    const r = explainGroup(G, replay, {live: md})
    expect(r.type).toBe('classic')
    expect(r.groupEpoch).toBe(3)
    expect(r.members.map(m => [m.memberId, m.instanceId, m.clientId, m.clientHost, m.subscribedTopicNames, m.rackId])).toEqual([
      ['m1-abc', 'inst-1', 'client-m1', '/10.0.0.9', ['orders', 'payments'], 'rack-a'],
      ['m2-def', null, 'client-m2', '/10.0.0.9', ['orders', 'payments'], null],
    ])
    expect(r.members[0].partitions!.assigned).toEqual([{topic: 'orders', topicId: T1, partitions: [0, 1, 2]}])
    expect(r.members[1].partitions!.assigned).toEqual([
      {topic: 'gone', topicId: null, partitions: [0]},
      {topic: 'payments', topicId: T2, partitions: [0, 1]},
    ])
    expect(r.members[0].partitions!.pendingRevocation).toEqual([])
    expect(r.members[0].classic).toEqual({
      protocolType: 'consumer',
      sessionTimeoutMs: 45_000,
      rebalanceTimeoutMs: 300_000,
      subscription: {version: 3, topics: ['payments', 'orders'], ownedPartitions: [{topic: 'orders', partitions: [0, 1]}], generation: 2, userDataBytes: null},
      assignment: {version: 3, userDataBytes: null},
      undecoded: [],
    })
    expect(r.members[1].classic!.subscription).toMatchObject({version: 0, ownedPartitions: [], generation: null})
    expect(r.members.every(m => m.memberEpoch === null && !m.reconciling)).toBe(true)
  })

  it('offsets: each assigned partition with its member, then committed partitions no member has; lag = log end − committed', () => {
    expect(offsetPartitionsOf(replay.state, md).map(p => `${p.topic}:${p.partition}`)).toEqual([
      'gone:0',
      'old:0',
      'orders:0',
      'orders:1',
      'orders:2',
      'payments:0',
      'payments:1',
    ])
    const o = groupOffsets(replay.state, md, ends({'orders:0': 9n, 'orders:1': 7n, 'orders:2': 3n, 'payments:0': 2n, 'payments:1': 0n, 'old:0': 4n}))!
    const row = (t: string, p: number) => o.partitions.find(x => x.topic === t && x.partition === p)
    expect(row('orders', 0)).toEqual({
      topic: 'orders',
      topicId: T1,
      partition: 0,
      committedOffset: '5',
      logEndOffset: '9',
      lag: '4',
      memberId: 'm1-abc',
      clientId: 'client-m1',
      host: '/10.0.0.9',
      logEndError: null,
    })
    expect(row('orders', 2)).toMatchObject({committedOffset: null, lag: null, memberId: 'm1-abc'})
    expect(row('payments', 1)).toMatchObject({memberId: 'm2-def', clientId: 'client-m2'})
    expect(row('old', 0)).toMatchObject({committedOffset: '4', lag: '0', memberId: null, clientId: null, host: null})
    expect(o.totalLag).toBe('4')
  })

  it('its topics (subscribed and assigned) are among those the live metadata is read for', () => {
    expect([...topicsEverUsed(replay)].sort()).toEqual(['gone', 'orders', 'payments'])
  })

  it('audit and Prometheus count the members', () => {
    const a = auditGroup(G, replay, auditContext(md, 1_700_000_100_000))
    expect(a.members).toBe(2)
    const text = prometheusText(summarize([a], {partitions: 1, recordsScanned: 5, decodeErrors: 0, durationMs: 1}, [], 'c', 1_700_000_100_000), [a])
    expect(text).toMatch(/^rebalance_doctor_group_members\{[^}]*group="billing-legacy"[^}]*\} 2$/m)
  })

  it('text: the classic members and their assigned partitions', () => {
    const text = renderExplain(explainGroup(G, replay, {live: md}), {...PLAIN, width: 200})
    expect(text).toMatch(/m1-abc \(client client-m1\) \(instance inst-1\)/)
    expect(text).toMatch(/m1-abc\s+│ \/10\.0\.0\.9\s+│ orders 0-2/)
  })
})

describe('classic groups of other protocol types', () => {
  it('connect: the members as the record lists them; subscription and assignment said to be undecoded; offsets without members', () => {
    const log = new Log()
    log.write([group(7, [{memberId: 'w1', subscription: Uint8Array.from([0, 1, 0, 0, 0, 3]), assignment: Uint8Array.from([0, 1, 9])}], 'connect')])
    log.write([consumer.offsetCommit(G, 'orders', 0, 5n)])
    const replay = replayGroup(G, log.records)
    const r = explainGroup(G, replay, {live: cluster()})
    expect(r.members).toHaveLength(1)
    expect(r.members[0]).toMatchObject({memberId: 'w1', clientId: 'client-w1', clientHost: '/10.0.0.9', subscribedTopicNames: [], partitions: null})
    expect(r.members[0].classic).toMatchObject({protocolType: 'connect', sessionTimeoutMs: 45_000, subscription: null, assignment: null})
    expect(r.members[0].classic!.undecoded).toEqual([
      "subscription: 6 bytes in protocol type connect's own format, not decoded",
      "assignment: 3 bytes in protocol type connect's own format, not decoded",
    ])
    expect(renderExplain(r, PLAIN)).toContain("member w1: subscription: 6 bytes in protocol type connect's own format, not decoded")
    expect(groupOffsets(replay.state, cluster(), ends({'orders:0': 6n}))!.partitions).toEqual([
      {
        topic: 'orders',
        topicId: T1,
        partition: 0,
        committedOffset: '5',
        logEndOffset: '6',
        lag: '1',
        memberId: null,
        clientId: null,
        host: null,
        logEndError: null,
      },
    ])
  })

  it("consumer protocol bytes that do not decode: said so with the decoder's reason", () => {
    const log = new Log()
    log.write([group(1, [{memberId: 'm1', subscription: Uint8Array.from([0, 1, 0, 0, 0, 9]), assignment: assignment([['orders', [0]]])}])])
    const m = explainGroup(G, replayGroup(G, log.records), {}).members[0]
    expect(m.classic!.subscription).toBeNull()
    expect(m.classic!.undecoded).toHaveLength(1)
    expect(m.classic!.undecoded[0]).toMatch(/^subscription: 6 bytes that do not decode as the consumer protocol's ConsumerProtocolSubscription \(/)
    expect(m.partitions!.assigned).toEqual([{topic: 'orders', topicId: null, partitions: [0]}])
  })
})
