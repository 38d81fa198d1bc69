import {describe, expect, it} from 'vitest'
import {classifyBump, replayGroup, GroupReplay, groupTypeOf, type EpochChange} from '../../../src/core/replay/index.js'
import {describeCause} from '../../../src/core/explain/report/causes.js'
import {Log, T1, T2, T3, classic, consumer as c, share as s, streams as st} from '../../lib/records.js'

const kinds = (e: EpochChange) => classifyBump(e).map(x => x.kind)
const G = 'g1'
const H1 = 111n
const H2 = 222n
const H3 = 333n

/** A 4.1-style consumer group: created by m1, joined by m2, then many kinds of bumps. */
function consumerLog(): Log {
  const log = new Log()
  // epoch 1: m1 joins (group created)
  log.write([
    c.member(G, 'm1', {names: ['a']}),
    c.metadata(G, 1, H1),
    c.target(G, 'm1', [[T1, [0, 1]]]),
    c.targetMetadata(G, 1),
    c.current(G, 'm1', 1, [[T1, [0, 1]]]),
  ])
  // epoch 2: m2 joins with [a, b]
  log.write([
    c.member(G, 'm2', {names: ['a', 'b']}),
    c.metadata(G, 2, H2),
    c.target(G, 'm1', [[T1, [0]]]),
    c.target(G, 'm2', [
      [T1, [1]],
      [T2, [0]],
    ]),
    c.targetMetadata(G, 2),
  ])
  // offsets and reconciliation: no bump
  log.write([c.offsetCommit(G, 'a', 0, 42n)])
  log.write([
    c.current(G, 'm2', 2, [
      [T1, [1]],
      [T2, [0]],
    ]),
  ])
  return log
}

describe('consumer group replay', () => {
  it('keeps the coordinator state after each record', () => {
    const {state, timeline, skipped} = replayGroup(G, consumerLog().records)
    expect(groupTypeOf(state)).toBe('consumer')
    expect(state.consumer).toMatchObject({epoch: 2, metadataHash: H2, targetAssignmentEpoch: 2})
    expect([...state.consumer!.members.keys()]).toEqual(['m1', 'm2'])
    expect(state.consumer!.currentAssignment.get('m2')).toMatchObject({
      MemberEpoch: 2,
      AssignedPartitions: [
        {TopicId: T1, Partitions: [1]},
        {TopicId: T2, Partitions: [0]},
      ],
    })
    expect(state.offsets.get('a:0')?.value.offset).toBe(42n)
    // "Since when": where each member's records were last written.
    const last = consumerLog().records.at(-1)!
    expect(state.consumer!.memberWrites.get('m2')).toEqual({
      metadata: {offset: 105n, timestamp: expect.any(Number)},
      targetAssignment: {offset: 108n, timestamp: expect.any(Number)},
      currentAssignment: {offset: last.offset, timestamp: last.timestamp},
    })
    expect(state.consumer!.epochAt?.offset).toBe(106n)
    expect(state.consumer!.targetAssignmentAt?.offset).toBe(109n)
    expect(timeline.map(e => [e.previousEpoch, e.epoch])).toEqual([
      [undefined, 1],
      [1, 2],
    ])
    expect(skipped).toEqual([])
  })

  it('a timeline entry carries the write, hashes, and before/after', () => {
    const [first, second] = replayGroup(G, consumerLog().records).timeline
    expect(first).toMatchObject({groupType: 'consumer', previousMetadataHash: undefined, metadataHash: H1, offset: 101n})
    expect(first.write).toEqual({firstOffset: 100n, lastOffset: 104n, batchBaseOffset: 100n, grouping: 'batch'})
    expect(first.records.map(r => r.record.kind === 'record' && r.record.name)).toEqual([
      'ConsumerGroupMemberMetadata',
      'ConsumerGroupMetadata',
      'ConsumerGroupTargetAssignmentMember',
      'ConsumerGroupTargetAssignmentMetadata',
      'ConsumerGroupCurrentMemberAssignment',
    ])
    expect(first.before.consumer).toBeNull()
    expect(first.after.consumer?.epoch).toBe(1)
    expect(kinds(first)).toEqual(['group-created', 'member-joined'])
    expect(second).toMatchObject({previousEpoch: 1, epoch: 2, previousMetadataHash: H1, metadataHash: H2})
    expect(second.before.consumer?.members.size).toBe(1)
    expect(second.after.consumer?.members.size).toBe(2)
    expect(second.diff.subscribedTopics).toEqual({before: ['a'], after: ['a', 'b'], added: ['b'], removed: []})
    expect(second.diff.targetAssignmentTopicIds).toMatchObject({before: [T1], after: [T1, T2], added: [T2]})
    expect(classifyBump(second)).toEqual([
      {kind: 'member-joined', memberId: 'm2', instanceId: null, subscribedTopicNames: ['a', 'b'], subscribedTopicRegex: null},
    ])
    // The target assignment of the same write covered the epoch.
    expect(second.assignment).toEqual({assignmentEpoch: 2, offset: 109n, timestamp: second.timestamp})
  })

  it('subscription change, partition change (hash only), member leaving', () => {
    const log = consumerLog()
    log.write([c.member(G, 'm1', {names: ['a', 'c']}), c.metadata(G, 3, H3)])
    log.write([c.metadata(G, 4, 444n)]) // e.g. partitions added to "a": same topics, new hash
    log.write([c.currentTombstone(G, 'm2'), c.targetTombstone(G, 'm2'), c.memberTombstone(G, 'm2'), c.metadata(G, 5, 555n)])
    const {timeline, state} = replayGroup(G, log.records)
    const [, , sub, meta, leave] = timeline
    expect(classifyBump(sub)).toEqual([{kind: 'subscription-changed', memberId: 'm1', added: ['c'], removed: []}])
    expect(sub.diff.membersChanged[0].changes).toEqual([{field: 'SubscribedTopicNames', before: ['a'], after: ['a', 'c']}])
    expect(classifyBump(meta)).toEqual([{kind: 'metadata-hash-changed', before: H3, after: 444n, topics: ['a', 'b', 'c']}])
    expect(classifyBump(leave)).toEqual([{kind: 'member-left', memberId: 'm2', instanceId: null, lastMemberEpoch: 2}])
    expect(leave.diff.membersRemoved[0].tombstones).toEqual(['current-assignment', 'target-assignment', 'member-metadata'])
    expect(state.consumer!.members.has('m2')).toBe(false)
    expect(state.consumer!.targetAssignment.has('m2')).toBe(false)
    expect(state.consumer!.memberWrites.has('m2')).toBe(false)
  })

  it('member-field changes alone write records but no bump', () => {
    const log = consumerLog()
    log.write([c.member(G, 'm1', {names: ['a'], rack: 'rack-b', rebalanceTimeoutMs: 1})])
    expect(replayGroup(G, log.records).timeline).toHaveLength(2)
  })

  it('regex subscription: new regex (no bump), then its resolution bumps', () => {
    const log = consumerLog()
    log.write([c.member(G, 'm1', {names: ['a'], regex: 'orders-.*'})])
    log.write([c.regex(G, 'orders-.*', ['orders-1', 'orders-2'], 50n, 9000n), c.metadata(G, 3, H3)])
    log.write([c.regex(G, 'orders-.*', ['orders-1', 'orders-2'], 60n, 19000n)]) // refresh, same topics: no bump
    log.write([c.regex(G, 'orders-.*', ['orders-2', 'orders-3'], 70n, 29000n), c.metadata(G, 4, 444n)])
    const {timeline, state} = replayGroup(G, log.records)
    expect(timeline.map(e => e.epoch)).toEqual([1, 2, 3, 4])
    expect(classifyBump(timeline[2])).toEqual([{kind: 'regex-resolution-changed', regex: 'orders-.*', added: ['orders-1', 'orders-2'], removed: []}])
    expect(timeline[2].diff.subscribedTopics.added).toEqual(['orders-1', 'orders-2'])
    expect(classifyBump(timeline[3])).toEqual([{kind: 'regex-resolution-changed', regex: 'orders-.*', added: ['orders-3'], removed: ['orders-1']}])
    expect(timeline[3].diff.regexResolutions[0].before?.Version).toBe(60n)
    expect(state.consumer!.regexes.get('orders-.*')).toMatchObject({Topics: ['orders-2', 'orders-3'], Version: 70n, Timestamp: 29000n})
  })

  it('regex changed on a member, and its tombstone when the last subscriber drops it', () => {
    const log = consumerLog()
    log.write([c.member(G, 'm1', {names: ['a'], regex: 'x.*'}), c.regex(G, 'x.*', ['x1'])])
    // m2 joins the already-resolved regex: the group's topic set (and hash) stay the same.
    log.write([c.member(G, 'm2', {names: ['a', 'b'], regex: 'x.*'}), c.metadata(G, 3, H2)])
    log.write([c.member(G, 'm1', {names: ['a']}), c.member(G, 'm2', {names: ['a', 'b']}), c.regexTombstone(G, 'x.*'), c.metadata(G, 4, H2)])
    const {timeline} = replayGroup(G, log.records)
    expect(kinds(timeline[2])).toEqual(['regex-changed'])
    expect(timeline[2].diff.subscribedTopics).toMatchObject({after: ['a', 'b', 'x1'], added: []})
    expect(classifyBump(timeline[3])).toEqual([
      {kind: 'regex-changed', memberId: 'm1', before: 'x.*', after: null},
      {kind: 'regex-changed', memberId: 'm2', before: 'x.*', after: null},
      {kind: 'regex-resolution-deleted', regex: 'x.*', topics: ['x1']},
    ])
    // the tombstone is not a resolution that lost x1: x1 still matches; nobody subscribes to the regex any more
    expect(describeCause(classifyBump(timeline[3])[2])).toBe(
      'no member subscribes to regex x.* any more: the coordinator deleted its resolution (x1; the topics themselves did not change)',
    )
  })

  it('upgrade from 4.0: hash absent (0) then non-zero, with the partition-metadata tombstone', () => {
    const log = new Log()
    log.write([c.member(G, 'm1', {names: ['a']}), c.metadata(G, 1), c.partitionMetadata(G, [{id: T1, name: 'a', n: 3}])]) // a 4.0 write
    log.write([c.metadata(G, 2, H1), c.partitionMetadataTombstone(G)]) // first 4.1 heartbeat
    const {timeline, state} = replayGroup(G, log.records)
    expect(timeline[0].metadataHash).toBe(0n)
    expect(classifyBump(timeline[1])).toEqual([{kind: 'upgrade-from-4.0', after: H1, partitionMetadataTombstoned: true}])
    expect(state.consumer!.partitionMetadata).toBeNull()
  })

  it('hash 0 → non-zero without a 4.0 record is a topic coming into existence, not an upgrade', () => {
    const log = new Log()
    log.write([c.member(G, 'm1', {names: ['not-yet']}), c.metadata(G, 1, 0n)])
    log.write([c.metadata(G, 2, H1)])
    expect(classifyBump(replayGroup(G, log.records).timeline[1])).toEqual([{kind: 'metadata-hash-changed', before: 0n, after: H1, topics: ['not-yet']}])
  })

  it('preferred assignor changed (4.4+ bump rule)', () => {
    const log = consumerLog()
    log.write([c.member(G, 'm1', {names: ['a'], assignor: 'range'}), c.member(G, 'm2', {names: ['a', 'b'], assignor: 'range'}), c.metadata(G, 3, H2)])
    const causes = classifyBump(replayGroup(G, log.records).timeline[2])
    expect(causes).toEqual([{kind: 'assignor-changed', before: null, after: 'range'}])
  })

  it('a joining member that moves the preferred assignor is a join, not an assignor change', () => {
    const log = consumerLog()
    log.write([c.member(G, 'm3', {names: ['a'], assignor: 'range'}), c.metadata(G, 3, H2)])
    expect(kinds(replayGroup(G, log.records).timeline[2])).toEqual(['member-joined'])
  })

  it('4.3+: the target assignment may come in a later write', () => {
    const log = consumerLog()
    log.write([c.metadata(G, 3, H3)])
    log.write([c.metadata(G, 4, 444n)])
    const at = log.write([c.target(G, 'm1', [[T3, [0]]]), c.targetMetadata(G, 4, 123n)])
    const {timeline, state} = replayGroup(G, log.records)
    expect(timeline[2].assignment).toMatchObject({assignmentEpoch: 4, offset: at + 1n})
    expect(timeline[3].assignment).toMatchObject({assignmentEpoch: 4, offset: at + 1n})
    expect(timeline[2].diff.targetAssignmentEpoch).toEqual({before: 2, after: 2})
    expect(state.consumer!.targetAssignmentTimestamp).toBe(123n)
  })

  it('same-epoch metadata rewrites are not bumps; a deleted then recreated group starts again', () => {
    const log = consumerLog()
    log.write([c.metadata(G, 2, H2)])
    log.write([
      c.currentTombstone(G, 'm1'),
      c.targetTombstone(G, 'm1'),
      c.memberTombstone(G, 'm1'),
      c.currentTombstone(G, 'm2'),
      c.targetTombstone(G, 'm2'),
      c.memberTombstone(G, 'm2'),
      c.metadata(G, 3, 0n),
    ])
    log.write([{type: 6, key: {GroupId: G}, value: null}, c.metadataTombstone(G)])
    const mid = replayGroup(G, log.records).state
    expect(mid.consumer).toBeNull()
    log.write([c.member(G, 'n1', {names: ['z']}), c.metadata(G, 1, H1)])
    const {timeline} = replayGroup(G, log.records)
    expect(timeline.map(e => [e.previousEpoch, e.epoch])).toEqual([
      [undefined, 1],
      [1, 2],
      [2, 3],
      [undefined, 1],
    ])
    expect(kinds(timeline[2])).toEqual(['member-left', 'member-left'])
    expect(kinds(timeline[3])).toEqual(['group-created', 'member-joined'])
  })

  it('a log whose history was compacted starts mid-way', () => {
    const log = new Log()
    log.write([c.metadata(G, 17, H1)])
    log.write([c.metadata(G, 18, H1)])
    const {timeline} = replayGroup(G, log.records)
    expect(kinds(timeline[0])).toEqual(['history-starts'])
    expect(kinds(timeline[1])).toEqual(['unexplained'])
  })
})

describe('write grouping', () => {
  it('without batch info: same timestamp and adjacent offsets form one write', () => {
    const log = new Log()
    log.write([c.member(G, 'm1', {names: ['a']}), c.metadata(G, 1, H1), c.targetMetadata(G, 1)], {batch: false})
    log.write([c.member(G, 'm2', {names: ['a']})], {batch: false})
    log.write([c.metadata(G, 2, H1)], {batch: false})
    const {timeline} = replayGroup(G, log.records)
    expect(timeline[0].write).toMatchObject({firstOffset: 100n, lastOffset: 102n, grouping: 'timestamp-and-adjacent-offsets'})
    expect(timeline[0].records).toHaveLength(3)
    // m2's metadata was an earlier write: the bump's own write shows no join.
    expect(timeline[1].records).toHaveLength(1)
    expect(kinds(timeline[1])).toEqual(['unexplained'])
  })

  it('one batch holding several writes: split by timestamp, and within one millisecond by record kind', () => {
    const log = new Log()
    log.write([c.member(G, 'm1', {names: ['a']}), c.metadata(G, 1, H1), c.targetMetadata(G, 1)])
    // Three writes in one batch: the first two in the same millisecond.
    const base = log.write([
      c.member(G, 'm2', {names: ['a']}),
      c.metadata(G, 2, H1),
      c.target(G, 'm2', [[T1, [0]]]),
      c.targetMetadata(G, 2),
      c.currentTombstone(G, 'm1'),
      c.targetTombstone(G, 'm1'),
      c.memberTombstone(G, 'm1'),
      c.metadata(G, 3, H1),
      c.targetMetadata(G, 3),
    ])
    log.records.push({...log.records.at(-1)!, offset: base + 9n, timestamp: log.time + 2, record: log.records.at(-1)!.record}) // a later ms, same batch
    const {timeline} = replayGroup(G, log.records)
    expect(timeline.map(e => [e.epoch, e.write.grouping, e.records.length])).toEqual([
      [1, 'batch', 3],
      [2, 'split-within-batch', 4],
      [3, 'split-within-batch', 5],
    ])
    expect(kinds(timeline[1])).toEqual(['member-joined'])
    expect(kinds(timeline[2])).toEqual(['member-left'])
    expect(timeline[2].before.consumer?.members.has('m2')).toBe(true)
  })

  it('ignores other groups and reports unknown and legacy records', () => {
    const log = new Log()
    log.write([c.member(G, 'm1', {names: ['a']}), c.member('other', 'x', {names: ['q']}), c.metadata('other', 9), c.metadata(G, 1, H1)])
    log.raw(Uint8Array.from([0, 99, 0, 2, 0x67, 0x31]), Uint8Array.from([0, 0])) // type 99 for g1
    log.raw(Uint8Array.from([0, 3, 0, 2, 0x67, 0x31]), Uint8Array.from([0, 7, 1, 2])) // ConsumerGroupMetadata v7
    log.write([{type: 18, key: {GroupId: G}, value: {Topics: []}}]) // never released: skipped, as brokers do
    log.write([{type: 9, key: {GroupId: G}, value: {Topics: []}}]) // a 4.0 share group's subscription metadata: applied
    const seen: bigint[] = []
    const {timeline, skipped, state} = replayGroup(G, log.records, {onRecord: r => seen.push(r.offset)})
    expect(timeline).toHaveLength(1)
    expect(timeline[0].records).toHaveLength(2)
    expect(state.consumer!.members.size).toBe(1)
    expect(skipped).toEqual([
      {offset: 104n, type: 99, version: 0, reason: 'unknown-type'},
      {offset: 105n, type: 3, version: 7, reason: 'unknown-version'},
      {offset: 106n, type: 18, version: 0, reason: 'legacy', note: expect.stringMatching(/never in a release/)},
    ])
    expect(state.share?.partitionMetadata).toEqual({Topics: []})
    expect(seen).toEqual([100n, 103n, 104n, 105n, 106n, 107n])
  })

  it('PartitionReplay: every group of a partition in one pass', async () => {
    const {PartitionReplay} = await import('../../../src/core/replay/index.js')
    const log = consumerLog()
    log.write([c.member('g2', 'x', {names: ['q']}), c.metadata('g2', 1, H3)])
    const p = new PartitionReplay()
    for (const r of log.records) p.push(r)
    const results = p.finish()
    expect([...results.keys()]).toEqual([G, 'g2'])
    expect(results.get(G)!.timeline).toHaveLength(2)
    expect(results.get('g2')!.state.consumer?.epoch).toBe(1)
  })

  it('streams records in incrementally; finish() flushes the last write', () => {
    const r = new GroupReplay(G)
    for (const x of consumerLog().records) r.push(x)
    expect(r.timeline).toHaveLength(2) // the last write is still buffered
    expect(r.finish().timeline).toHaveLength(2)
  })
})

describe('share groups', () => {
  it('created, then share-state initialization bumps', () => {
    const log = new Log()
    log.write([s.member(G, 'm1', ['a']), s.metadata(G, 1, H1), s.targetMetadata(G, 1), s.current(G, 'm1', 1)])
    log.write([s.state(G, [], [[T1, 'a', [0, 1]]])]) // initializing
    log.write([s.state(G, [[T1, 'a', [0, 1]]])]) // initialized
    log.write([s.metadata(G, 2, H1), s.target(G, 'm1', [[T1, [0, 1]]]), s.targetMetadata(G, 2)])
    const {timeline, state} = replayGroup(G, log.records)
    expect(kinds(timeline[0])).toEqual(['group-created', 'member-joined'])
    expect(classifyBump(timeline[1])).toEqual([{kind: 'share-initialization', topics: [{TopicId: T1, TopicName: 'a', Partitions: [0, 1]}]}])
    expect(state.share?.statePartitionMetadata?.InitializedTopics).toHaveLength(1)
    expect(groupTypeOf(state)).toBe('share')
  })
})

describe('streams groups', () => {
  it('topology initialized, validated, configs changed, member changed; non-bump metadata rewrites', () => {
    const log = new Log()
    // 4.2+ records the assignment configs from the group's first epoch on
    log.write([
      st.member(G, 'm1', 0),
      st.topology(G, 0, ['in'], ['app-store-changelog']),
      st.metadata(G, 1, H1, {LastAssignmentConfigs: [{Key: 'num.standby.replicas', Value: '1'}]}),
    ])
    log.write([st.metadata(G, 2, H1, {ValidatedTopologyEpoch: 0, LastAssignmentConfigs: [{Key: 'num.standby.replicas', Value: '0'}]})])
    log.write([
      st.metadata(G, 2, H1, {ValidatedTopologyEpoch: 0, LastAssignmentConfigs: [{Key: 'num.standby.replicas', Value: '0'}], StoredDescriptionTopologyEpoch: 0}),
    ]) // 4.4+: no bump
    log.write([st.metadata(G, 3, H1, {ValidatedTopologyEpoch: 0, LastAssignmentConfigs: [{Key: 'num.standby.replicas', Value: '1'}]})])
    log.write([
      st.member(G, 'm1', 0, {RackId: 'r2'}),
      st.metadata(G, 4, H1, {ValidatedTopologyEpoch: 0, LastAssignmentConfigs: [{Key: 'num.standby.replicas', Value: '1'}]}),
    ])
    log.write([
      st.topology(G, 1, ['in', 'in2'], ['app-store-changelog']),
      st.metadata(G, 5, H2, {ValidatedTopologyEpoch: 0, LastAssignmentConfigs: [{Key: 'num.standby.replicas', Value: '1'}]}),
    ])
    const {timeline, state} = replayGroup(G, log.records)
    expect(timeline.map(e => e.epoch)).toEqual([1, 2, 3, 4, 5])
    expect(kinds(timeline[0])).toEqual(['group-created', 'member-joined', 'streams-topology-changed'])
    expect(timeline[0].diff.subscribedTopics.after).toEqual(['app-store-changelog', 'in'])
    expect(classifyBump(timeline[1])).toEqual([
      {kind: 'streams-topology-validated', before: -1, after: 0},
      {kind: 'streams-assignment-configs-changed', changes: [{field: 'num.standby.replicas', before: '1', after: '0'}]},
    ])
    expect(kinds(timeline[2])).toEqual(['streams-assignment-configs-changed'])
    expect(classifyBump(timeline[3])).toEqual([{kind: 'streams-member-changed', memberId: 'm1', fields: ['RackId']}])
    expect(classifyBump(timeline[4])).toEqual([{kind: 'streams-topology-changed', epochBefore: 0, epochAfter: 1, topicsAdded: ['in2'], topicsRemoved: []}])
    expect(state.streams).toMatchObject({epoch: 5, storedDescriptionTopologyEpoch: -1, validatedTopologyEpoch: 0})
  })

  // Seen on a real 4.1.2 cluster restarted in place on 4.2.2 jars: epoch 3 with the same hash, ValidatedTopologyEpoch
  // and LastAssignmentConfigs written for the first time.
  const configs = [{Key: 'num.standby.replicas', Value: '0'}]
  it('upgrade from 4.1: the first 4.2+ write records the validated topology epoch and the configs; one cause, not two changes', () => {
    const log = new Log()
    log.write([st.member(G, 'm1', 0), st.topology(G, 0, ['in'], ['app-store-changelog']), st.metadata(G, 1, H1)]) // 4.1
    log.write([st.metadata(G, 2, H2)]) // 4.1: internal topics created
    log.write([st.metadata(G, 3, H2, {ValidatedTopologyEpoch: 0, LastAssignmentConfigs: configs})]) // 4.2.2
    const {timeline} = replayGroup(G, log.records)
    expect(classifyBump(timeline[2])).toEqual([
      {kind: 'streams-upgrade-from-4.1', validatedTopologyEpoch: 0, assignmentConfigs: [{field: 'num.standby.replicas', before: undefined, after: '0'}]},
    ])
    expect(describeCause(classifyBump(timeline[2])[0])).toContain('validated topology epoch -1 → 0; configs num.standby.replicas=0')
  })

  it('upgrade from 4.1 whose first 4.2+ write was a fence (loaded configs: none): the next heartbeat is still the upgrade bump', () => {
    const log = new Log()
    log.write([st.member(G, 'm1', 0), st.topology(G, 0, ['in'], []), st.metadata(G, 1, H1)]) // 4.1
    log.write([st.metadata(G, 2, H1, {LastAssignmentConfigs: []})]) // 4.2: a member fenced right after the restart
    log.write([st.metadata(G, 3, H1, {ValidatedTopologyEpoch: 0, LastAssignmentConfigs: configs})])
    const {timeline} = replayGroup(G, log.records)
    expect(kinds(timeline[2])).toEqual(['streams-upgrade-from-4.1'])
  })

  it('a 4.2+ group whose topology is validated later (configs recorded from the start): validation, not an upgrade', () => {
    const log = new Log()
    log.write([st.member(G, 'm1', 0), st.topology(G, 0, ['in'], ['app-store-changelog']), st.metadata(G, 1, H1, {LastAssignmentConfigs: configs})])
    log.write([st.metadata(G, 2, H1, {ValidatedTopologyEpoch: 0, LastAssignmentConfigs: configs})])
    const {timeline} = replayGroup(G, log.records)
    expect(kinds(timeline[1])).toEqual(['streams-topology-validated'])
  })
})

describe('static members', () => {
  it('a static member rejoining under a new member id is a replacement, not a join and a leave', () => {
    const log = new Log()
    log.write([c.member(G, 'm1', {names: ['a'], instanceId: 'host-1'}), c.member(G, 'm2', {names: ['a']}), c.metadata(G, 1, H1)])
    log.write([c.current(G, 'm1', -2)]) // temporary leave: epoch -2, no bump
    log.write([
      c.currentTombstone(G, 'm1'),
      c.targetTombstone(G, 'm1'),
      c.memberTombstone(G, 'm1'),
      c.member(G, 'm9', {names: ['a', 'b'], instanceId: 'host-1'}),
      c.metadata(G, 2, H2),
    ])
    log.write([c.currentTombstone(G, 'm2'), c.targetTombstone(G, 'm2'), c.memberTombstone(G, 'm2'), c.metadata(G, 3, H2)])
    const {timeline} = replayGroup(G, log.records)
    expect(timeline).toHaveLength(3)
    expect(classifyBump(timeline[1])).toEqual([{kind: 'static-member-replaced', instanceId: 'host-1', previousMemberId: 'm1', memberId: 'm9'}])
    expect(timeline[1].diff.membersRemoved[0].lastMemberEpoch).toBe(-2)
    expect(classifyBump(timeline[2])).toEqual([{kind: 'member-left', memberId: 'm2', instanceId: null, lastMemberEpoch: undefined}])
  })
})

describe('classic groups and conversion', () => {
  it('online downgrade: consumer records tombstoned in the write that stores the classic group', () => {
    const log = new Log()
    log.write([c.member(G, 'a', {names: ['t']}), c.metadata(G, 5, H1)])
    log.write([c.memberTombstone(G, 'a'), c.metadataTombstone(G), classic.group(G, 6, ['a'])])
    const {timeline, state} = replayGroup(G, log.records)
    expect(kinds(timeline[1])).toEqual(['converted-from-consumer', 'classic-rebalance'])
    expect(groupTypeOf(state)).toBe('classic')
  })

  it('generations are timeline entries; online upgrade converts at the generation', () => {
    const log = new Log()
    log.write([classic.group(G, 1, ['a'])])
    log.write([classic.group(G, 2, ['a', 'b'])])
    log.write([classic.group(G, 2, ['a', 'b'])]) // same generation rewritten (e.g. assignment stored): no entry
    log.write([classic.tombstone(G), c.member(G, 'a', {names: ['t']}), c.member(G, 'b', {names: ['t']}), c.metadata(G, 2, H1), c.targetMetadata(G, 2)])
    const {timeline, state} = replayGroup(G, log.records)
    expect(timeline.map(e => [e.groupType, e.previousEpoch, e.epoch])).toEqual([
      ['classic', undefined, 1],
      ['classic', 1, 2],
      ['consumer', undefined, 2],
    ])
    expect(classifyBump(timeline[1])).toEqual([
      {kind: 'classic-rebalance', generation: 2, membersAdded: ['b'], membersRemoved: [], protocol: 'range'},
      {kind: 'member-joined', memberId: 'b', instanceId: null, subscribedTopicNames: [], subscribedTopicRegex: null},
    ])
    expect(kinds(timeline[2])).toEqual(['converted-from-classic', 'member-joined', 'member-joined'])
    expect(classifyBump(timeline[2])[0]).toEqual({kind: 'converted-from-classic', generation: 2})
    expect(state.classic).toBeNull()
    expect(groupTypeOf(state)).toBe('consumer')
  })
})
