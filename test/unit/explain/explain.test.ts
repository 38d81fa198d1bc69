/**
 * explainGroup on logs built with the record encoder (test/lib/records.ts) and metadata documents; every hash
 * the records store is computed by TopicHasher from the metadata the scenario says the coordinator saw then.
 */
import {describe, expect, it} from 'vitest'
import {explainGroup, type ExplainReport} from '../../../src/core/explain/explain.js'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {classic, consumer as c, Log, share as s, streams as st, T1, T2} from '../../lib/records.js'

const G = 'g1'
const OLD = 'ICEiIyQlJicoKSorLC0uLw'
type Broker = {id: number; rack: string | null}
const BROKERS: Broker[] = [
  {id: 1, rack: 'rack-a'},
  {id: 2, rack: 'rack-a'},
  {id: 3, rack: 'rack-b'},
]
const topic = (name: string, topicId: string, n: number) => ({
  name,
  topicId,
  partitions: Array.from({length: n}, (_, p) => ({partition: p, replicas: [1 + (p % 3), 1 + ((p + 1) % 3)]})),
})
const md = (topics: ReturnType<typeof topic>[], brokers: Broker[] = BROKERS): ClusterMetadata => parseMetadataDocument({brokers, topics})
const hash = (m: ClusterMetadata, names: string[]) => new TopicHasher(m).groupHash(names)

const A2 = topic('a', T1, 2)
const A4 = topic('a', T1, 4)
const B1 = topic('b', T2, 1)
const LIVE = md([A4, B1])

const explain = (log: Log, live: ClusterMetadata | null = LIVE, options: {now?: number; stuckAfterMs?: number} = {}): ExplainReport =>
  explainGroup(G, replayGroup(G, log.records), {
    live: live ?? undefined,
    now: options.now ?? log.time + 1000,
    ...(options.stuckAfterMs === undefined ? {} : {stuckAfterMs: options.stuckAfterMs}),
  })

/** One member m1 on `names`, stored hash `h`, assignment and member at `epoch`. */
function created(names: string[], h: bigint, epoch = 1, o: {rack?: string; tps?: [string, number[]][]} = {}): Log {
  const log = new Log()
  const tps = o.tps ?? [[T1, [0, 1]]]
  log.write([
    c.member(G, 'm1', {names, rack: o.rack}),
    c.metadata(G, epoch, h),
    c.target(G, 'm1', tps),
    c.targetMetadata(G, epoch),
    c.current(G, 'm1', epoch, tps),
  ])
  return log
}

/** A bump with nothing but a new hash (the coordinator recomputed after a metadata change), fully reconciled. */
function metadataBump(log: Log, epoch: number, h: bigint, tps: [string, number[]][] = [[T1, [0, 1]]]): void {
  log.write([c.metadata(G, epoch, h), c.targetMetadata(G, epoch)])
  log.write([c.current(G, 'm1', epoch, tps)])
}

const changesOf = (r: ExplainReport, epoch: number) =>
  r.timeline.find(e => e.epoch === epoch)!.causes.find(x => x.kind === 'metadata-hash-changed')!.details.changes

describe('explainGroup: verdicts', () => {
  it('IN_SYNC: stored = live hash, assignment and members caught up; causes name the client id', () => {
    const r = explain(created(['a'], hash(LIVE, ['a'])))
    expect(r).toMatchObject({group: G, type: 'consumer', groupEpoch: 1, assignmentEpoch: 1, inSync: true, storedMetadataHash: hash(LIVE, ['a']).toString()})
    expect(r.verdict).toMatchObject({code: 'IN_SYNC', pending: false})
    expect(r.findings).toEqual([])
    expect(r.timeline).toHaveLength(1)
    expect(r.timeline[0].causes.map(x => x.kind)).toEqual(['group-created', 'member-joined'])
    expect(r.timeline[0].causes[1].details.clientId).toBe('client-m1')
    expect(r.timeline[0].causes[1].message).toBe('member m1 (client client-m1) joined, subscribed to a')
    expect(r.members).toEqual([expect.objectContaining({memberId: 'm1', clientId: 'client-m1', memberEpoch: 1, state: 'STABLE', reconciling: false})])
    expect(r.topics).toEqual([{name: 'a', exists: true, topicId: T1, partitions: 4, hash: new TopicHasher(LIVE).topicHash('a').toString()}])
  })

  it('REBALANCE_PENDING: a topic change the next heartbeat will see (partitions added)', () => {
    const r = explain(created(['a', 'b'], hash(md([A2, B1]), ['a', 'b'])))
    expect(r.inSync).toBe(false)
    expect(r.verdict.code).toBe('REBALANCE_PENDING')
    expect(r.verdict.pending).toBe(true)
    expect(r.verdict.message).toContain('topic a had 2 partitions then (4 now)')
    expect(r.findings.find(f => f.code === 'REBALANCE_PENDING')!.details.changes).toEqual([
      expect.objectContaining({kind: 'partition-count', topic: 'a', then: '2', now: '4'}),
    ])
  })

  it('STALE_COORDINATOR_CACHE: a broker rack change (old rack known from a member) is not seen until a topic change or a reload', () => {
    const then = md([A4], [BROKERS[0], BROKERS[1], {id: 3, rack: 'rack-c'}])
    const r = explain(created(['a'], hash(then, ['a']), 1, {rack: 'rack-c'}), md([A4]))
    expect(r.verdict.code).toBe('STALE_COORDINATOR_CACHE')
    expect(r.verdict.pending).toBe(false)
    expect(r.verdict.message).toContain('broker 3 had rack rack-c then (rack rack-b now)')
    expect(r.verdict.message).toContain('__consumer_offsets partition')
    // without the rack's name nothing reproduces the stored hash
    expect(explain(created(['a'], hash(then, ['a'])), md([A4])).verdict.code).toBe('HASH_DIFFERS')
  })

  it('STALE_COORDINATOR_CACHE: a broker unregistered while still a replica', () => {
    const brokers = [
      {id: 1, rack: 'rack-a'},
      {id: 2, rack: 'rack-b'},
      {id: 3, rack: 'rack-b'},
    ]
    const r = explain(created(['a'], hash(md([A4], brokers), ['a'])), md([A4], brokers.slice(0, 2)))
    expect(r.verdict.code).toBe('STALE_COORDINATOR_CACHE')
    expect(r.findings.find(f => f.code === 'STALE_COORDINATOR_CACHE')!.details.changes).toEqual([
      expect.objectContaining({kind: 'broker-registered', broker: 3, then: 'registered, rack rack-b', now: 'not registered'}),
    ])
  })

  it('HASH_DIFFERS: no single change, nor a pair, explains the stored hash', () => {
    const r = explain(created(['a', 'b'], 0x1234_5678n))
    expect(r.verdict.code).toBe('HASH_DIFFERS')
    expect(r.verdict.pending).toBe(true)
    expect(r.verdict.message).toContain('no single topic or broker change, nor a pair of them, explains it')
    expect(r.verdict.message).toContain('record history with `audit`')
    expect(r.findings.find(f => f.code === 'HASH_DIFFERS')!.details).toMatchObject({confidence: 'unexplained', alternatives: []})
  })

  it('ASSIGNMENT_PENDING: the group epoch is ahead of the target assignment', () => {
    const log = created(['a'], hash(LIVE, ['a']))
    log.write([c.member(G, 'm2', {names: ['a']}), c.metadata(G, 2, hash(LIVE, ['a']))])
    const r = explain(log)
    expect(r).toMatchObject({groupEpoch: 2, assignmentEpoch: 1, inSync: true})
    expect(r.verdict).toMatchObject({code: 'ASSIGNMENT_PENDING', pending: true})
    expect(r.findings.find(f => f.code === 'ASSIGNMENT_PENDING')!.details).toMatchObject({groupEpoch: 2, assignmentEpoch: 1})
    expect(r.timeline[1].assignmentEpoch).toBeNull()
    // no assignment yet: reconciling since it joined, not since the group's first bump
    expect(r.members.find(m => m.memberId === 'm2')).toMatchObject({memberEpoch: null, reconciling: true, reconcilingSince: new Date(log.time).toISOString()})
  })

  it('RECONCILING: a member behind the target assignment, stuck after the threshold', () => {
    const log = created(['a'], hash(LIVE, ['a']))
    log.write([
      c.member(G, 'm2', {names: ['a']}),
      c.metadata(G, 2, hash(LIVE, ['a'])),
      c.target(G, 'm1', [[T1, [0]]]),
      c.target(G, 'm2', [[T1, [1]]]),
      c.targetMetadata(G, 2),
      c.current(G, 'm2', 2, [[T1, [1]]]),
    ])
    const bumpAt = log.time
    const soon = explain(log, LIVE, {now: bumpAt + 1000})
    expect(soon.verdict).toMatchObject({code: 'RECONCILING', pending: true})
    const m1 = soon.members.find(m => m.memberId === 'm1')!
    expect(m1).toMatchObject({memberEpoch: 1, reconciling: true, reconcilingSince: new Date(bumpAt).toISOString()})
    expect(soon.members.find(m => m.memberId === 'm2')!.reconciling).toBe(false)
    const f = soon.findings.find(x => x.code === 'MEMBER_RECONCILING')!
    expect(f.details).toMatchObject({memberId: 'm1', stuck: false})
    expect(f.message).toMatch(/^member m1 \(client client-m1\) is reconciling/)
    const late = explain(log, LIVE, {now: bumpAt + 10 * 60_000, stuckAfterMs: 5 * 60_000})
    expect(late.findings.find(x => x.code === 'MEMBER_RECONCILING')!).toMatchObject({
      details: {stuck: true},
      message: expect.stringContaining('is stuck reconciling'),
    })
  })

  it('RECONCILING: a member at the target epoch waiting for partitions is reconciling since it entered that state', () => {
    const log = created(['a'], hash(LIVE, ['a']))
    log.write([
      c.member(G, 'm2', {names: ['a']}),
      c.metadata(G, 2, hash(LIVE, ['a'])),
      c.target(G, 'm1', [[T1, [0]]]),
      c.target(G, 'm2', [[T1, [1]]]),
      c.targetMetadata(G, 2),
    ])
    const bumpAt = log.time
    const waiting = c.current(G, 'm2', 2, [])
    log.write([{...waiting, value: {...(waiting.value as object), State: 2}}]) // UNRELEASED_PARTITIONS
    const enteredAt = log.time
    const r = explain(log, LIVE, {now: enteredAt + 10 * 60_000})
    expect(r.members.find(m => m.memberId === 'm1')).toMatchObject({reconciling: true, reconcilingSince: new Date(bumpAt).toISOString()})
    expect(r.members.find(m => m.memberId === 'm2')).toMatchObject({
      memberEpoch: 2,
      state: 'UNRELEASED_PARTITIONS',
      reconciling: true,
      reconcilingSince: new Date(enteredAt).toISOString(),
    })
    expect(
      r.findings.filter(x => x.code === 'MEMBER_RECONCILING').map(f => [(f.details as {memberId: string}).memberId, (f.details as {stuck: boolean}).stuck]),
    ).toEqual([
      ['m1', true],
      ['m2', true],
    ])
  })

  it('MISSING_TOPICS: subscribed topics that do not exist, and who subscribes to them', () => {
    const r = explain(created(['a', 'nope'], hash(LIVE, ['a'])))
    expect(r.verdict.code).toBe('IN_SYNC')
    const f = r.findings.find(x => x.code === 'MISSING_TOPICS')!
    expect(f.details).toEqual({topics: ['nope'], members: ['m1']})
    expect(r.topics).toContainEqual({name: 'nope', exists: false})
  })

  it('EMPTY_GROUP: every member left', () => {
    const log = created(['a'], hash(LIVE, ['a']))
    log.write([c.currentTombstone(G, 'm1'), c.targetTombstone(G, 'm1'), c.memberTombstone(G, 'm1'), c.metadata(G, 2, 0n), c.targetMetadata(G, 2)])
    const r = explain(log)
    expect(r.verdict).toMatchObject({code: 'EMPTY_GROUP', pending: false})
    expect(r.members).toEqual([])
    expect(r.timeline[1].causes).toEqual([
      expect.objectContaining({kind: 'member-left', details: expect.objectContaining({memberId: 'm1', clientId: 'client-m1'})}),
    ])
    // 4.1 writes no target assignment when the last member goes: nothing is pending in an empty group
    const log41 = created(['a'], hash(LIVE, ['a']))
    log41.write([c.currentTombstone(G, 'm1'), c.targetTombstone(G, 'm1'), c.memberTombstone(G, 'm1'), c.metadata(G, 2, 0n)])
    const r41 = explain(log41)
    expect(r41).toMatchObject({groupEpoch: 2, assignmentEpoch: 1, verdict: {code: 'EMPTY_GROUP', pending: false}})
    expect(r41.findings).toEqual([])
  })

  it('CLASSIC_GROUP, NOT_FOUND, GROUP_DELETED, NO_LIVE_METADATA', () => {
    const cl = new Log()
    cl.write([classic.group(G, 3, ['x', 'y'])])
    const r = explain(cl)
    expect(r).toMatchObject({type: 'classic', groupEpoch: 3, verdict: {code: 'CLASSIC_GROUP', pending: false}})
    expect(r.timeline[0].causes[0].kind).toBe('classic-rebalance')

    expect(explain(new Log()).verdict.code).toBe('NOT_FOUND')

    const del = created(['a'], hash(LIVE, ['a']))
    del.write([c.metadataTombstone(G)])
    expect(explain(del).verdict.code).toBe('GROUP_DELETED')
    // an empty group without offsets deleted by the coordinator: every record tombstoned, the history stays
    const gone = created(['a'], hash(LIVE, ['a']))
    gone.write([c.currentTombstone(G, 'm1'), c.targetTombstone(G, 'm1'), c.memberTombstone(G, 'm1'), c.metadata(G, 2, 0n), c.targetMetadata(G, 2)])
    gone.write([{type: 6, key: {GroupId: G}, value: null}, c.metadataTombstone(G)])
    const rg = explain(gone)
    expect(rg).toMatchObject({type: 'consumer', groupEpoch: null, verdict: {code: 'GROUP_DELETED', pending: false}})
    expect(rg.verdict.message).toContain('tombstoned after epoch 2')
    expect(rg.timeline.map(e => e.causes.map(x => x.kind))).toEqual([['group-created', 'member-joined'], ['member-left']])
    const cgone = new Log()
    cgone.write([classic.group(G, 3, ['x'])])
    cgone.write([classic.tombstone(G)])
    expect(explain(cgone)).toMatchObject({type: 'classic', verdict: {code: 'GROUP_DELETED'}})

    const none = explain(created(['a'], hash(LIVE, ['a'])), null)
    expect(none).toMatchObject({verdict: {code: 'NO_LIVE_METADATA', pending: false}, liveMetadataHash: null, inSync: null})
  })

  it('unknown records are reported and skipped', () => {
    const log = created(['a'], hash(LIVE, ['a']))
    log.raw(Uint8Array.from([0, 99, 0, 2, 0x67, 0x31]), Uint8Array.from([0, 0])) // type 99 for g1
    const r = explain(log)
    expect(r.skippedRecords).toEqual([{offset: '105', type: 99, version: 0, reason: 'unknown-type'}])
    expect(r.findings.map(f => f.code)).toEqual(['UNKNOWN_RECORDS'])
    expect(r.verdict.code).toBe('IN_SYNC')
  })

  it('share and streams groups get a verdict from their own hash', () => {
    const live = md([A4])
    const sh = new Log()
    sh.write([
      s.member(G, 'm1', ['a']),
      s.metadata(G, 1, hash(live, ['a'])),
      s.target(G, 'm1', [[T1, [0, 1, 2, 3]]]),
      s.targetMetadata(G, 1),
      s.current(G, 'm1', 1, [[T1, [0, 1, 2, 3]]]),
    ])
    const rs = explain(sh, live)
    expect(rs).toMatchObject({type: 'share', verdict: {code: 'IN_SYNC'}})
    expect(rs.timeline[0].causes.map(x => x.kind)).toEqual(['group-created', 'member-joined'])

    const stl = new Log()
    stl.write([st.member(G, 'm1', 0), st.topology(G, 0, ['a']), st.metadata(G, 1, hash(md([A2]), ['a'])), st.targetMetadata(G, 1)])
    const rt = explain(stl, live)
    expect(rt.type).toBe('streams')
    expect(rt.timeline[0].causes.map(x => x.kind)).toContain('streams-topology-changed')
    expect(rt.timeline[0].causes.find(x => x.kind === 'streams-topology-changed')!.message).toContain('initialized')
    expect(rt.verdict.code).toBe('REBALANCE_PENDING')
  })
})

describe('explainGroup: metadata changes attributed, walking back from live metadata', () => {
  it('partitions added', () => {
    const log = created(['a', 'b'], hash(md([A2, B1]), ['a', 'b']))
    metadataBump(log, 2, hash(LIVE, ['a', 'b']))
    const r = explain(log)
    expect(r.verdict.code).toBe('IN_SYNC')
    expect(changesOf(r, 2)).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'a', then: '2', now: '4'})])
    expect(r.timeline[1].causes[0].message).toBe(
      'metadata changed, consistent with: topic a had 2 partitions then (4 now) (inferred from the stored hashes; no other change tried reproduces them)',
    )
    expect(r.timeline[1].causes[0]).toMatchObject({confidence: 'inferred-unique', alternatives: []})
    expect(r.timeline[0].causes.map(x => x.confidence)).toEqual(['exact', 'exact'])
  })

  it('several changes, one per bump: each attributed in turn (topic created, then partitions added)', () => {
    const log = created(['a', 'b'], hash(md([A2]), ['a', 'b']))
    metadataBump(log, 2, hash(md([A2, B1]), ['a', 'b']))
    metadataBump(log, 3, hash(LIVE, ['a', 'b']))
    const r = explain(log)
    expect(changesOf(r, 2)).toEqual([expect.objectContaining({kind: 'topic-absent', topic: 'b', now: T2})])
    expect(changesOf(r, 3)).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'a', then: '2', now: '4'})])
  })

  it('topic re-created between two heartbeats: the old id, seen in the assignment records', () => {
    const log = created(['a'], hash(md([topic('a', OLD, 4)]), ['a']), 1, {tps: [[OLD, [0, 1, 2, 3]]]})
    metadataBump(log, 2, hash(LIVE, ['a']), [[T1, [0, 1, 2, 3]]])
    const r = explain(log)
    expect(changesOf(r, 2)).toEqual([expect.objectContaining({kind: 'topic-id', topic: 'a', then: OLD, now: T1})])
    expect(r.timeline[1].causes[0].message).toContain(`topic a had id ${OLD} then: it was deleted and recreated (id ${T1} now)`)
  })

  it('topic deleted (one bump), then re-created (another): the old id, then the new one', () => {
    const log = created(['a', 'b'], hash(md([topic('a', OLD, 4), B1]), ['a', 'b']), 1, {
      tps: [
        [OLD, [0, 1, 2, 3]],
        [T2, [0]],
      ],
    })
    metadataBump(log, 2, hash(md([B1]), ['a', 'b']), [[T2, [0]]])
    metadataBump(log, 3, hash(LIVE, ['a', 'b']), [
      [T1, [0, 1, 2, 3]],
      [T2, [0]],
    ])
    const r = explain(log)
    expect(changesOf(r, 2)).toEqual([expect.objectContaining({kind: 'topic-deleted', topic: 'a', then: OLD, now: 'absent'})])
    expect(changesOf(r, 3)).toEqual([expect.objectContaining({kind: 'topic-absent', topic: 'a', now: T1})])
  })

  it('broker rack change, with the old rack known from a member or from the brokers today', () => {
    const then = md([A4], [BROKERS[0], BROKERS[1], {id: 3, rack: 'rack-c'}])
    const log = created(['a'], hash(then, ['a']), 1, {rack: 'rack-c'})
    metadataBump(log, 2, hash(md([A4]), ['a']))
    expect(changesOf(explain(log, md([A4])), 2)).toEqual([expect.objectContaining({kind: 'broker-rack', broker: 3, then: 'rack-c', now: 'rack-b'})])

    // broker 2: rack-a → rack-b; rack-a is still broker 1's
    const live = md([A4], [BROKERS[0], {id: 2, rack: 'rack-b'}, BROKERS[2]])
    const log2 = created(['a'], hash(md([A4]), ['a']))
    metadataBump(log2, 2, hash(live, ['a']))
    expect(changesOf(explain(log2, live), 2)).toEqual([expect.objectContaining({kind: 'broker-rack', broker: 2, then: 'rack-a', now: 'rack-b'})])

    // an unknown old rack: the bump is named, with what would pin it down
    const log3 = created(['a'], hash(then, ['a']))
    metadataBump(log3, 2, hash(md([A4]), ['a']))
    const r3 = explain(log3, md([A4]))
    expect(changesOf(r3, 2)).toEqual([])
    expect(r3.timeline[1].causes[0].message).toMatch(
      /no single topic or broker change, nor a pair of them, reproduces the previous hash.*record history with `audit`.*--metadata-log/,
    )
    expect(r3.timeline[1].causes[0]).toMatchObject({confidence: 'unexplained', details: {nextStep: expect.stringContaining('audit')}})
  })

  const brokers = [
    {id: 1, rack: 'rack-a'},
    {id: 2, rack: 'rack-b'},
    {id: 3, rack: 'rack-b'},
  ]
  /** Topic a grows from 2 to 4 partitions (epoch 2), then broker 3 unregisters (epoch 3). */
  function unregisteredAfterIncrease(): Log {
    const log = created(['a'], hash(md([A2], brokers), ['a']))
    metadataBump(log, 2, hash(md([A4], brokers), ['a']))
    metadataBump(log, 3, hash(md([A4], brokers.slice(0, 2)), ['a']))
    return log
  }

  it('broker unregistered, then the walk goes on through an earlier change', () => {
    const log = unregisteredAfterIncrease()
    const r = explain(log, md([A4], brokers.slice(0, 2)))
    expect(changesOf(r, 3)).toEqual([expect.objectContaining({kind: 'broker-registered', broker: 3, then: 'registered, rack rack-b'})])
    expect(changesOf(r, 2)).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'a', then: '2', now: '4'})])
    expect(r.verdict.code).toBe('IN_SYNC')
  })

  it('matches that hash alike (no rack, or not registered) do not stop the walk', () => {
    const log = unregisteredAfterIncrease()
    // broker 3 registered again since, with rack-a: not seen by the coordinator yet
    const live = md([A4], [...brokers.slice(0, 2), {id: 3, rack: 'rack-a'}])
    const r = explain(log, live)
    expect(r.verdict.code).toBe('STALE_COORDINATOR_CACHE')
    expect(
      r.findings
        .find(f => f.code === 'STALE_COORDINATOR_CACHE')!
        .details.changes.map((h: {kind: string}) => h.kind)
        .sort(),
    ).toEqual(['broker-rack', 'broker-unregistered'])
    expect(changesOf(r, 3)).toEqual([expect.objectContaining({kind: 'broker-registered', broker: 3, then: 'registered, rack rack-b'})])
    expect(changesOf(r, 2)).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'a', then: '2', now: '4'})])
  })

  it('a later change not yet in the records (pending) does not stop the walk', () => {
    const log = created(['a', 'b'], hash(md([A2, B1]), ['a', 'b']))
    metadataBump(log, 2, hash(md([topic('a', T1, 3), B1]), ['a', 'b']))
    const r = explain(log)
    expect(r.verdict.code).toBe('REBALANCE_PENDING')
    expect(r.verdict.message).toContain('topic a had 3 partitions then (4 now)')
    expect(changesOf(r, 2)).toEqual([expect.objectContaining({kind: 'partition-count', topic: 'a', then: '2', now: '3'})])
  })

  it('no live metadata: bumps are named but not attributed', () => {
    const log = created(['a'], hash(md([A2]), ['a']))
    metadataBump(log, 2, hash(LIVE, ['a']))
    const r = explain(log, null)
    expect(r.timeline[1].causes[0].kind).toBe('metadata-hash-changed')
    expect(r.timeline[1].causes[0].details.changes).toBeUndefined()
  })
})
