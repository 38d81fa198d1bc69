import {describe, expect, it} from 'vitest'
import {
  classifyBump,
  diffSubscriptionMetadata,
  replayGroup,
  rulesOf,
  subscriptionMetadataFromLive,
  subscriptionMetadataFromRecord,
} from '../../../src/core/replay/index.js'
import {parseMetadataDocument, type ClusterMetadata} from '../../../src/core/metadata.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {auditContext, auditGroup} from '../../../src/core/audit/audit.js'
import {predictImpact} from '../../../src/core/impact/index.js'
import {Log, T1, T2, consumer as c, share as sh} from '../../lib/records.js'

const G = 'g40'

/** A group as a 4.0 coordinator writes it: no hash; the subscription metadata record in each bump's write. */
function log40(): Log {
  const log = new Log()
  log.write([
    c.member(G, 'm1', {names: ['a', 'b']}),
    c.partitionMetadata(G, [
      {id: T1, name: 'a', n: 3},
      {id: T2, name: 'b', n: 2},
    ]),
    c.metadata(G, 1),
  ])
  // kafka-topics --alter: a 3 -> 5 (the records of the report)
  log.write([
    c.partitionMetadata(G, [
      {id: T1, name: 'a', n: 5},
      {id: T2, name: 'b', n: 2},
    ]),
    c.metadata(G, 2),
  ])
  log.write([
    c.target(G, 'm1', [
      [T1, [0, 1, 2, 3, 4]],
      [T2, [0, 1]],
    ]),
    c.targetMetadata(G, 2),
    c.current(G, 'm1', 2, [
      [T1, [0, 1, 2, 3, 4]],
      [T2, [0, 1]],
    ]),
  ])
  return log
}

describe('Kafka 4.0 rules', () => {
  it('a group whose records carry the 4.0 subscription metadata and no hash is under 4.0 rules; after the 4.1 tombstone, 4.1+', () => {
    const log = log40()
    expect(rulesOf('consumer', replayGroup(G, log.records).state)).toBe('4.0')
    log.write([c.metadata(G, 3, 123n), c.partitionMetadataTombstone(G)])
    expect(rulesOf('consumer', replayGroup(G, log.records).state)).toBe('4.1+')
  })

  it('a 4.0 bump is attributed from the diff of consecutive subscription metadata records, exactly', () => {
    const {timeline} = replayGroup(G, log40().records)
    // at creation the topics entered with the member's subscription: the join explains them
    expect(classifyBump(timeline[0]).map(x => x.kind)).toEqual(['group-created', 'member-joined'])
    expect(classifyBump(timeline[1])).toEqual([
      {
        kind: 'subscription-metadata-changed',
        changes: [{kind: 'partition-count', topic: 'a', then: '3', now: '5', description: 'topic a had 3 partitions then (5 now)'}],
      },
    ])
  })

  it('compares as the 4.0 coordinator does: id, name, number of partitions of the subscribed topics that exist; racks and replicas do not count', () => {
    const doc = (rack: string, replicas: number[]) =>
      parseMetadataDocument({
        format: 'rebalance-doctor/metadata-v1',
        brokers: [
          {id: 1, rack},
          {id: 2, rack: 'r2'},
        ],
        topics: [
          {
            name: 'a',
            topicId: T1,
            partitions: [
              {partition: 0, replicas},
              {partition: 1, replicas},
              {partition: 2, replicas},
            ],
          },
        ],
      })
    const stored = subscriptionMetadataFromRecord({Topics: [{TopicId: T1, TopicName: 'a', NumPartitions: 3, PartitionMetadata: []}]})
    expect(diffSubscriptionMetadata(stored, subscriptionMetadataFromLive(['a', 'missing'], doc('r1', [1])))).toEqual([])
    expect(diffSubscriptionMetadata(stored, subscriptionMetadataFromLive(['a'], doc('other-rack', [2, 1])))).toEqual([])
    expect(diffSubscriptionMetadata(stored, subscriptionMetadataFromLive(['b'], doc('r1', [1]))).map(x => x.kind)).toEqual(['topic-deleted'])
  })
})

/** Live metadata: a (n partitions), b (2), brokers with racks. */
function live(n: number, rack3 = 'rack-b'): ClusterMetadata {
  const parts = (k: number) => Array.from({length: k}, (_, partition) => ({partition, replicas: [1, 2, 3]}))
  return parseMetadataDocument({
    format: 'rebalance-doctor/metadata-v1',
    brokers: [
      {id: 1, rack: 'rack-a'},
      {id: 2, rack: 'rack-a'},
      {id: 3, rack: rack3},
    ],
    topics: [
      {name: 'a', topicId: T1, partitions: parts(n)},
      {name: 'b', topicId: T2, partitions: parts(2)},
    ],
  })
}

describe('Kafka 4.0 verdicts (explain, audit, impact)', () => {
  const replay = () => replayGroup(G, log40().records)

  it('a healthy 4.0 group is in sync, its hash "not kept", never 0; a rack change does not matter', () => {
    for (const md of [live(5), live(5, 'rack-c')]) {
      const r = explainGroup(G, replay(), {live: md})
      expect(r).toMatchObject({rules: '4.0', storedMetadataHash: null, liveMetadataHash: null, inSync: true, verdict: {code: 'IN_SYNC', pending: false}})
      expect(r.timeline.map(e => [e.rules, e.metadataHash])).toEqual([
        ['4.0', null],
        ['4.0', null],
      ])
      const a = auditGroup(G, replay(), auditContext(md))
      expect(a).toMatchObject({rules: '4.0', inSync: true, storedMetadataHash: null, drift: [], findings: []})
    }
  })

  it('a partition increase not yet seen by the coordinator is a pending rebalance, exact', () => {
    const r = explainGroup(G, replay(), {live: live(7)})
    expect(r.verdict.code).toBe('REBALANCE_PENDING')
    const a = auditGroup(G, replay(), auditContext(live(7)))
    expect(a.findings).toEqual(['drift'])
    expect(a.drift).toEqual([{kind: 'partition-count', topic: 'a', broker: null, then: '5', now: '7', description: 'topic a had 5 partitions then (7 now)'}])
  })

  it('impact under 4.0 rules: a partition increase bumps once, a rack change not at all', () => {
    const groups: Array<[string, ReturnType<typeof replay>]> = [[G, replay()]]
    const up = predictImpact(live(5), groups, [{kind: 'add-partitions', topic: 'a', count: 8}])
    expect(up.groups[0]).toMatchObject({rules: '4.0', storedMetadataHash: null, bumps: {min: 1, max: 1}, today: 'IN_SYNC'})
    const rack = predictImpact(live(5), groups, [{kind: 'broker-rack', broker: 3, rack: 'rack-c'}])
    expect(rack.groups.every(g => g.bumps.max === 0)).toBe(true)
  })
})

// (a 4.0 group stores no hash: read as 0, it would be 'drift' on every audit)
describe('a 4.0 group read through the pre-existing API: no hash is not hash 0', () => {
  it('audit: no drift, explain: the 3 -> 5 bump not unexplained', () => {
    const log = log40()
    const parts = (k: number) => Array.from({length: k}, (_, partition) => ({partition, replicas: [1]}))
    const md = parseMetadataDocument({
      format: 'rebalance-doctor/metadata-v1',
      brokers: [{id: 1, rack: 'r'}],
      topics: [
        {name: 'a', topicId: T1, partitions: parts(5)},
        {name: 'b', topicId: T2, partitions: parts(2)},
      ],
    })
    const r = replayGroup(G, log.records)
    const a = auditGroup(G, r, auditContext(md))
    expect(a.findings).toEqual([])
    expect(a.storedMetadataHash).toBeNull()
    expect(classifyBump(r.timeline[1]).map(x => x.kind)).toEqual(['subscription-metadata-changed'])
  })
})

describe('Kafka 4.0 share groups (early access): ShareGroupPartitionMetadata (type 9) is their subscription metadata', () => {
  /** As a 4.0.2 coordinator writes it (DumpLogSegments in kafka40.it): type 9 with each bump, no hash. */
  function share40(): Log {
    const log = new Log()
    log.write([
      sh.member(G, 's1', ['a']),
      {type: 9, key: {GroupId: G}, value: {Topics: [{TopicId: T1, TopicName: 'a', NumPartitions: 2, PartitionMetadata: []}]}},
      sh.metadata(G, 1),
    ])
    log.write([{type: 9, key: {GroupId: G}, value: {Topics: [{TopicId: T1, TopicName: 'a', NumPartitions: 3, PartitionMetadata: []}]}}, sh.metadata(G, 2)])
    log.write([sh.target(G, 's1', [[T1, [0, 1, 2]]]), sh.targetMetadata(G, 2), sh.current(G, 's1', 2, [[T1, [0, 1, 2]]])])
    return log
  }
  const live = (n: number) =>
    parseMetadataDocument({
      brokers: [{id: 1, rack: null}],
      topics: [{name: 'a', topicId: T1, partitions: Array.from({length: n}, (_, partition) => ({partition, replicas: [1]}))}],
    })

  it('4.0 rules, in sync, and the partition increase attributed exactly (it was read as 4.1+ drift against hash 0)', () => {
    const replay = replayGroup(G, share40().records)
    expect(rulesOf('share', replay.state)).toBe('4.0')
    expect(classifyBump(replay.timeline[1]).map(x => x.kind)).toEqual(['subscription-metadata-changed'])
    const r = explainGroup(G, replay, {live: live(3), now: Date.now()})
    expect(r).toMatchObject({rules: '4.0', storedMetadataHash: null, verdict: {code: 'IN_SYNC'}})
    const row = auditGroup(G, replay, auditContext(live(3), Date.now(), 300_000))
    expect(row).toMatchObject({rules: '4.0', inSync: true, findings: []})
  })

  it('upgraded in place: the first 4.1+ hash is upgrade-from-4.0 (4.1+ leaves the type 9 record and skips it)', () => {
    const log = share40()
    log.write([sh.metadata(G, 3, 77n)])
    const replay = replayGroup(G, log.records)
    expect(classifyBump(replay.timeline[2]).map(x => x.kind)).toEqual(['upgrade-from-4.0'])
    expect(rulesOf('share', replay.state)).toBe('4.1+')
  })
})
