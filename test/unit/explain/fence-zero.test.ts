/**
 * Kafka 4.1's streams fence stores metadata hash 0 (streamsGroupFenceMember in 4.1.0–4.1.2; 4.2.0 keeps the hash):
 * the bump that writes it, the recomputation that follows, the verdict while the 0 is stored, and the audit row, from
 * GroupReplay and from GroupReducer (the audit's reader) alike.
 */
import {describe, expect, it} from 'vitest'
import {auditContext, auditGroup} from '../../../src/core/audit/audit.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {classifyBump, GroupReducer, replayGroup} from '../../../src/core/replay/index.js'
import {renderExplain} from '../../../src/render/explain.js'
import {Log, streams as st, T1} from '../../lib/records.js'

const G = 'app'
const topic = (n: number) => ({
  name: 'in',
  topicId: T1,
  partitions: Array.from({length: n}, (_, p) => ({partition: p, replicas: [1 + (p % 2)]})),
})
const md = (n: number): ClusterMetadata =>
  parseMetadataDocument({
    brokers: [
      {id: 1, rack: null},
      {id: 2, rack: null},
    ],
    topics: [topic(n)],
  })
const H2 = new TopicHasher(md(2)).groupHash(['in'])
const H3 = new TopicHasher(md(3)).groupHash(['in'])

/** Two members on topic `in` (2 partitions, hash H2); then k2 is fenced by a 4.1 coordinator: epoch 3, hash 0. */
function fenced(): Log {
  const log = new Log()
  log.write([st.member(G, 'k1', 0), st.member(G, 'k2', 0), st.topology(G, 0, ['in']), st.metadata(G, 2, H2), st.targetMetadata(G, 2)])
  log.write([st.current(G, 'k1', 2), st.current(G, 'k2', 2)])
  log.write([st.memberTombstone(G, 'k2'), st.metadata(G, 3, 0n)])
  log.write([st.targetMetadata(G, 3), st.current(G, 'k1', 3)]) // k1's next heartbeat: the new target assignment
  return log
}

describe('a Kafka 4.1 streams fence storing metadata hash 0', () => {
  it('the fence is member-left and streams-hash-zeroed, never a metadata change', () => {
    const {timeline, state} = replayGroup(G, fenced().records)
    expect(timeline[1]).toMatchObject({previousMetadataHash: H2, metadataHash: 0n, fenceStoredZeroHash: true})
    expect(classifyBump(timeline[1]).map(c => c.kind)).toEqual(['member-left', 'streams-hash-zeroed'])
    expect(state.streams?.hashZeroedByFence).toEqual({epoch: 3, hashBefore: H2})
  })

  it('a join while the 0 is stored keeps it (no recomputation); the recomputation to the same hash is the fence’s consequence', () => {
    const log = fenced()
    log.write([st.member(G, 'k3', 0), st.metadata(G, 4, 0n)])
    log.write([st.metadata(G, 5, H2)])
    const {timeline, state} = replayGroup(G, log.records)
    expect(classifyBump(timeline[2]).map(c => c.kind)).toEqual(['member-joined'])
    expect(classifyBump(timeline[3])).toEqual([{kind: 'streams-hash-recomputed', fenceEpoch: 3, before: H2, after: H2, sameAsBefore: true}])
    expect(state.streams?.hashZeroedByFence).toBeNull()
    const r = explainGroup(G, replayGroup(G, log.records), {live: md(2), now: log.time + 1000})
    expect(r.timeline[3].causes[0]).toMatchObject({confidence: 'exact'})
    expect(r.timeline[3].causes[0].message).toContain('no topic changed')
  })

  it('a recomputation to another hash is also a metadata change, attributed against the hash before the fence', () => {
    const log = fenced()
    log.write([st.metadata(G, 4, H3)])
    log.write([st.targetMetadata(G, 4), st.current(G, 'k1', 4)])
    const r = explainGroup(G, replayGroup(G, log.records), {live: md(3), now: log.time + 1000})
    expect(r.timeline[2].causes.map(c => c.kind)).toEqual(['streams-hash-recomputed', 'metadata-hash-changed'])
    expect(r.timeline[2].causes[1].details.changes).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'in', then: '2', now: '3'})])
    expect(r.verdict.code).toBe('IN_SYNC')
  })

  it('while the 0 is stored: no drift when the hash before equals the live one, a real pending change otherwise', () => {
    const same = explainGroup(G, replayGroup(G, fenced().records), {live: md(2), now: Date.now()})
    expect(same.verdict).toMatchObject({code: 'HASH_ZEROED_BY_FENCE', pending: false})
    expect(same.findings.find(f => f.code === 'HASH_ZEROED_BY_FENCE')?.details).toEqual({fenceEpoch: 3, hashBefore: H2.toString(), sameAsLive: true})
    expect(same.storedMetadataHash).toBe('0')
    // the text says it once (the verdict), not again as a finding
    expect(renderExplain(same).split('stores 0 when a streams member leaves').length - 1).toBe(1)

    const moved = explainGroup(G, replayGroup(G, fenced().records), {live: md(3), now: Date.now()})
    expect(moved.verdict.code).toBe('REBALANCE_PENDING')
    const pending = moved.findings.find(f => f.code === 'REBALANCE_PENDING')
    expect(pending?.details).toMatchObject({stored: '0', comparedWith: H2.toString()})
    expect(pending?.details.changes).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'in', then: '2', now: '3'})])
  })

  it('audit, from the full replay and from the reducer: no drift finding, the fence named', () => {
    const log = fenced()
    const reducer = new GroupReducer(G)
    for (const r of log.records) reducer.push(r)
    for (const source of [replayGroup(G, log.records), reducer.finish()]) {
      const row = auditGroup(G, source, auditContext(md(2), log.time + 1000, 300_000))
      expect(row).toMatchObject({verdict: {code: 'HASH_ZEROED_BY_FENCE'}, inSync: false, findings: [], drift: []})
      expect(row.hashZeroedByFence).toEqual({fenceEpoch: 3, hashBefore: H2.toString(), sameAsLive: true})
      const moved = auditGroup(G, source, auditContext(md(3), log.time + 1000, 300_000))
      expect(moved.findings).toEqual(['drift'])
    }
  })

  it('4.2+ keeps the hash when it fences: an ordinary member-left', () => {
    const log = new Log()
    log.write([st.member(G, 'k1', 0), st.member(G, 'k2', 0), st.topology(G, 0, ['in']), st.metadata(G, 2, H2), st.targetMetadata(G, 2)])
    log.write([st.memberTombstone(G, 'k2'), st.metadata(G, 3, H2)])
    const {timeline, state} = replayGroup(G, log.records)
    expect(classifyBump(timeline[1]).map(c => c.kind)).toEqual(['member-left'])
    expect(timeline[1].fenceStoredZeroHash).toBeUndefined()
    expect(state.streams?.hashZeroedByFence).toBeNull()
  })
})
