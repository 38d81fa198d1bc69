/**
 * A bump printed by a --watch with a cause not known exactly is explained again on later passes;
 * once the history (recorded meanwhile, by this watch or another audit) names it exactly, a revision is printed
 * once, referring to the first print. An inference from later live metadata is never a revision.
 */
import {describe, expect, it} from 'vitest'
import {type BumpEvent, newBumpEvents, OpenBumps, PrintedBumps, revisionDocument} from '../../../src/core/audit/watch.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {type ReplayResult, replayGroup} from '../../../src/core/replay/index.js'
import {historyView, recordedHistory} from '../../../src/core/history/view.js'
import {revisionLine} from '../../../src/render/watch.js'
import {consumer as c, Log, T1} from '../../lib/records.js'
import {historyMoment} from '../../lib/history.js'

const G = 'g1'
const brokers = [
  {id: 1, rack: 'rack-a'},
  {id: 2, rack: 'rack-a'},
  {id: 3, rack: 'rack-b'},
]
const md = (replicas: number[][]): ClusterMetadata =>
  parseMetadataDocument({brokers, topics: [{name: 'orders', topicId: T1, partitions: replicas.map((r, p) => ({partition: p, replicas: r}))}]})
const hash = (m: ClusterMetadata) => new TopicHasher(m).groupHash(['orders'])
// partition 0 moved [1,2] → [2,3]: the hashes alone cannot tell it from broker 3's rack change
const before = md([[1, 2]])
const live = md([[2, 3]])

function scenario(): {replay: ReplayResult; time: number} {
  const log = new Log()
  const tps: [string, number[]][] = [[T1, [0]]]
  log.write([
    c.member(G, 'm1', {names: ['orders']}),
    c.metadata(G, 1, hash(before)),
    c.target(G, 'm1', tps),
    c.targetMetadata(G, 1),
    c.current(G, 'm1', 1, tps),
  ])
  log.write([c.metadata(G, 2, hash(live)), c.target(G, 'm1', tps), c.targetMetadata(G, 2)])
  return {replay: replayGroup(G, log.records), time: log.time}
}

function explained(replay: ReplayResult, time: number, history: Array<ReturnType<typeof historyMoment>>) {
  return explainGroup(G, replay, {live, now: time + 1000, history: recordedHistory(historyView(history as never, 'cid'))})
}

describe('OpenBumps: revisions of bumps printed before', () => {
  it('a bump first inferred is revised once when the history names it exactly, referring to the first print', () => {
    const {replay, time} = scenario()
    const printed = new PrintedBumps()
    const open = new OpenBumps()
    // first pass: no history around the bump yet (only the moment before it): inferred
    const first = newBumpEvents(explained(replay, time, [historyMoment(before, time - 60_000)]), 'cid', printed)
    const bump2 = first.find(e => e.epoch === 2)!
    expect(bump2.causes.find(x => x.kind === 'metadata-hash-changed')!.confidence).toBe('inferred-ambiguous')
    open.add(first, () => replay, time)
    expect(open.size).toBe(1) // epoch 1's causes were exact: not kept

    // a later pass with the same history: nothing better, no revision
    const again = open.replays(time + 5000)
    expect(again).toEqual([{group: G, type: 'consumer', replay}])
    expect(open.revise(explained(replay, time, [historyMoment(before, time - 60_000)]), 'cid')).toEqual([])

    // the history now holds the moment after the bump: exact, and revised
    const revs = open.revise(explained(replay, time, [historyMoment(before, time - 60_000), historyMoment(live, time + 500)]), 'cid')
    expect(revs).toHaveLength(1)
    const r = revs[0]
    expect(r).toMatchObject({group: G, type: 'consumer', epoch: 2, offset: bump2.offset, revises: {epoch: 2, offset: bump2.offset}, revision: 1})
    expect(r.causes.find(x => x.kind === 'metadata-hash-changed')!.confidence).toBe('exact')
    expect(r.previousCauses).toEqual([expect.objectContaining({kind: 'metadata-hash-changed', confidence: 'inferred-ambiguous'})])
    expect(revisionLine(r)).toMatch(
      / g1 \(consumer\) epoch 1 → 2 revised: metadata changed \(exact\), from recorded history: orders: partition 0: .* \(was inferred-ambiguous\)$/,
    )
    expect(revisionDocument(r).schema).toEqual({name: 'rebalance-doctor/bump-revision', version: 1})
    // closed: exact now, nothing more to improve
    expect(open.size).toBe(0)
    expect(open.replays(time + 10_000)).toEqual([])
  })

  it('never revises to a new inference, nor to a report that lost an exact cause; gives up after maxAgeMs; bounded', () => {
    const ev = (epoch: number, confidence: string, kind = 'metadata-hash-changed'): BumpEvent =>
      ({
        clusterId: 'c',
        group: 'g',
        type: 'consumer',
        epoch,
        previousEpoch: epoch - 1,
        timestamp: 0,
        time: '',
        offset: String(epoch * 10),
        metadataHash: '1',
        previousMetadataHash: '0',
        rules: '4.1+',
        assignmentEpoch: epoch,
        causes: [{kind, message: kind, confidence, alternatives: [], details: {}}],
      }) as never
    const replay = {} as ReplayResult
    const open = new OpenBumps(2, 1000)
    open.add([ev(2, 'unexplained')], () => replay, 0)
    const report = (e: BumpEvent) => ({group: 'g', type: 'consumer' as const, timeline: [e]})
    expect(open.revise(report(ev(2, 'inferred-unique')), 'c')).toEqual([]) // an inference: not better evidence
    expect(open.size).toBe(1)
    // a bump with a member cause exact and a metadata cause inferred: a report missing the exact one is no revision
    const mixed = {...ev(3, 'inferred-unique'), causes: [...ev(3, 'exact', 'member-joined').causes, ...ev(3, 'inferred-unique').causes]}
    open.add([mixed], () => replay, 0)
    expect(open.revise(report(ev(3, 'exact')), 'c')).toEqual([])
    // bounded: a third open bump drops the oldest
    open.add([ev(4, 'unexplained')], () => replay, 0)
    expect(open.size).toBe(2)
    expect(open.revise(report(ev(2, 'exact')), 'c')).toEqual([]) // epoch 2 was dropped
    // given up after maxAgeMs
    expect(open.replays(500)).toHaveLength(1) // (one replay object shared by both)
    expect(open.replays(2000)).toEqual([])
    expect(open.size).toBe(0)
  })
})
