/**
 * group explain without READ on __consumer_offsets: the Fetch refused, the operation warns once with what to grant
 * and answers from the group's describe, OffsetFetch and the live metadata through the same pipeline; with
 * --describe-only it does so without trying the records.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import type {BumpEvent} from '../../../src/core/audit/watch.js'
import {explainOne} from '../../../src/operations/explain/one.js'
import {watchDescribedGroup} from '../../../src/operations/explain/watch.js'
import type {Session} from '../../../src/operations/session.js'
import {describedMember as member, refusedDescribe} from '../../lib/describes.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {run} from '../helpers.js'
import {consumer as c, T1} from '../../lib/records.js'

const G = 'orders-app'
const live: ClusterMetadata = parseMetadataDocument({
  brokers: [{id: 1, rack: 'rack-a'}],
  topics: [{name: 'orders', topicId: T1, partitions: [0, 1].map(p => ({partition: p, replicas: [1]}))}],
})

/** A consumer group mid-rebalance (m2 waits for m1 to revoke partition 1) that committed offsets; READ refused. */
function refusing(): FakeCluster {
  const fake = new FakeCluster(live, {offsetsPartitions: 1, logEnd: 10n})
  fake.write(G, [c.offsetCommit(G, 'orders', 0, 4n), c.offsetCommit(G, 'orders', 1, 9n)])
  fake.describeGroup('consumer', {
    groupId: G,
    state: 'Reconciling',
    groupEpoch: 6,
    assignmentEpoch: 6,
    assignorName: 'uniform',
    members: [member('m1', 6, [0, 1], [0]), member('m2', 5, [], [1])],
  })
  fake.offsetsReadRefused = true
  return fake
}

function session(fake: FakeCluster): Session & {warnings: string[]} {
  const warnings: string[] = []
  return {
    warnings,
    withCluster: work => work(fake, {update: () => {}, stop: () => {}} as never),
    warn: m => warnings.push(m),
    report: m => warnings.push(m),
  }
}

const request = {now: Date.now(), stuckAfterMs: undefined, historyDir: mkdtempSync(join(tmpdir(), 'rd-do-h-'))}

describe('group explain when READ on __consumer_offsets is refused', () => {
  it('answers describe-only: members, assignment vs target, lag, the live hash, and one warning naming READ on topic __consumer_offsets', async () => {
    const s = session(refusing())
    const {report, watchFrom} = await explainOne(s, G, {...request, describeOnly: 'on-denial'})
    expect(watchFrom).toBeUndefined()
    expect(report.reading?.mode).toBe('describe-only')
    expect(report.reading?.reason).toBe('Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED')
    expect(report.verdict).toMatchObject({code: 'RECONCILING', pending: true})
    expect([report.groupEpoch, report.assignmentEpoch, report.storedMetadataHash]).toEqual([6, 6, null])
    expect(report.liveMetadataHash).toBe(new TopicHasher(live).groupHash(['orders']).toString())
    expect(report.members.map(m => [m.memberId, m.memberEpoch, m.partitions?.assigned[0]?.partitions ?? [], m.partitions?.target[0]?.partitions])).toEqual([
      ['m1', 6, [0, 1], [0]],
      ['m2', 5, [], [1]],
    ])
    expect(report.members[1].partitions?.waitingOn).toEqual(['m1'])
    expect(report.offsets?.partitions.map(p => [p.partition, p.committedOffset, p.logEndOffset, p.lag, p.memberId])).toEqual([
      [0, '4', '10', '6', 'm1'],
      [1, '9', '10', '1', 'm1'],
    ])
    expect(report.timeline).toEqual([])
    expect(s.warnings).toHaveLength(1)
    expect(s.warnings[0]).toContain('needs READ on topic __consumer_offsets (Fetch refused: TOPIC_AUTHORIZATION_FAILED)')
    expect(s.warnings[0]).toContain('--operation Read --topic __consumer_offsets')
  })

  it('OffsetFetch refused as well (no DESCRIBE on the group for it): the report goes on without committed offsets, a warning names OffsetFetch, DESCRIBE on the group and the grant', async () => {
    const fake = refusing()
    fake.committedErrors.set(G, 30)
    const s = session(fake)
    const {report} = await explainOne(s, G, {...request, describeOnly: 'on-denial'})
    expect(report.verdict.code).toBe('RECONCILING')
    expect(report.offsets?.partitions.map(p => [p.partition, p.committedOffset, p.lag])).toEqual([
      [0, null, null],
      [1, null, null],
    ])
    expect(s.warnings).toHaveLength(2)
    expect(s.warnings[1]).toBe(
      'offsets not read where refused: OffsetFetch refused (GROUP_AUTHORIZATION_FAILED): it needs DESCRIBE on group orders-app; ' +
        'grant: kafka-acls --bootstrap-server <bootstrap-server> --add --allow-principal User:<you> --operation Describe --group orders-app',
    )
  })

  it('without the fallback asked for, the refusal stays the error', async () => {
    await expect(explainOne(session(refusing()), G, request)).rejects.toMatchObject({code: 'NOT_AUTHORIZED', operation: 'READ'})
  })
})

describe('group explain --watch read describe-only', () => {
  /** The watch from `from` until it has printed a bump or polled `polls` times; what it printed. */
  async function watched(fake: FakeCluster, from: Parameters<typeof watchDescribedGroup>[2], polls: number): Promise<BumpEvent[]> {
    const printed: BumpEvent[] = []
    let n = 0
    const stop = () => process.emit('SIGTERM', 'SIGTERM')
    const o = {interval: {text: '10ms', ms: 10}, stuckAfterMs: undefined, historyDir: mkdtempSync(join(tmpdir(), 'rd-do-w-'))}
    await watchDescribedGroup(session(fake), G, from, o, {
      bumps: e => void printed.push(...e),
      readEnded: () => void (printed.length > 0 || ++n >= polls ? stop() : undefined),
    })
    return printed
  }

  /** m3 joins: epoch 6 -> 7. */
  const join3 = (fake: FakeCluster) =>
    fake.describeGroup('consumer', {
      groupId: G,
      state: 'Stable',
      groupEpoch: 7,
      assignmentEpoch: 7,
      assignorName: 'uniform',
      members: [member('m1', 7, [0], [0]), member('m2', 7, [1], [1]), member('m3', 7, [], [])],
    })

  it("compares its first poll with the report's describe: a join between the report and that poll is printed once, with its cause", async () => {
    const fake = refusing()
    const {describedFrom} = await explainOne(session(fake), G, {...request, describeOnly: 'asked'})
    expect(describedFrom).toMatchObject({group: {group: G, groupEpoch: 6}, metadataHash: new TopicHasher(live).groupHash(['orders']).toString()})
    join3(fake)
    const printed = await watched(fake, describedFrom, 3)
    expect(printed.map(e => [e.previousEpoch, e.epoch, e.causes.map(c => [c.kind, (c.details as {memberId?: string}).memberId])])).toEqual([
      [6, 7, [['member-joined', 'm3']]],
    ])
  }, 20_000)

  it("without the report's describe its first poll is a baseline: the same join is in no comparison", async () => {
    const fake = refusing()
    join3(fake)
    expect(await watched(fake, undefined, 3)).toEqual([])
  }, 20_000)
})

describe('each group type read from its describe', () => {
  const asked = {...request, describeOnly: 'asked' as const}

  it("share: the members' assignments (no target is described), no offsets table; a member behind the assignment epoch reconciles", async () => {
    const fake = new FakeCluster(live, {offsetsPartitions: 1})
    const {targetAssignment: _t, subscribedTopicRegex: _r, memberType: _m, instanceId: _i, ...m} = member('s1', 3, [0, 1], [])
    fake.describeGroup('share', {groupId: 'sh', state: 'Stable', groupEpoch: 4, assignmentEpoch: 4, assignorName: 'simple', members: [m]})
    const {report} = await explainOne(session(fake), 'sh', asked)
    expect(report.type).toBe('share')
    expect(report.members[0].partitions).toMatchObject({assigned: [{topic: 'orders', partitions: [0, 1]}], pendingAssignment: [], pendingRevocation: []})
    expect(report.verdict.code).toBe('RECONCILING')
    expect(report.offsets).toBeNull()
    expect(fake.reads).toBe(0)
  })

  it("streams: the live hash covers the topology's topics; members' tasks against their target", async () => {
    const fake = new FakeCluster(live, {offsetsPartitions: 1})
    const tasks = (partitions: number[]) => ({activeTasks: [{subtopologyId: '0', partitions}], standbyTasks: [], warmupTasks: []})
    fake.describeGroup('streams', {
      groupId: 'st',
      state: 'Stable',
      groupEpoch: 2,
      assignmentEpoch: 2,
      assignorName: null,
      topology: {
        epoch: 1,
        subtopologies: [{subtopologyId: '0', sourceTopics: ['orders'], repartitionSinkTopics: [], stateChangelogTopics: [], repartitionSourceTopics: []}],
      },
      members: [
        {
          memberId: 'x',
          memberEpoch: 2,
          instanceId: null,
          rackId: null,
          clientId: 'c',
          clientHost: '/h',
          assignment: tasks([0]),
          targetAssignment: tasks([0, 1]),
        },
      ],
    })
    const {report} = await explainOne(session(fake), 'st', asked)
    expect(report.liveMetadataHash).toBe(new TopicHasher(live).groupHash(['orders']).toString())
    expect(report.members[0]).toMatchObject({partitions: null, reconciling: true})
    expect(report.verdict.code).toBe('RECONCILING')
  })

  it('classic: CLASSIC_GROUP, its members, committed offsets with no member named', async () => {
    const fake = new FakeCluster(live, {offsetsPartitions: 1, logEnd: 10n})
    fake.write('cl', [c.offsetCommit('cl', 'orders', 0, 8n)])
    fake.describeGroup('classic', {
      groupId: 'cl',
      state: 'Stable',
      protocolType: 'consumer',
      protocol: 'range',
      members: [{memberId: 'k1', instanceId: null, clientId: 'c', clientHost: '/h'}],
    })
    const {report} = await explainOne(session(fake), 'cl', asked)
    expect(report.verdict.code).toBe('CLASSIC_GROUP')
    expect(report.members.map(m => m.memberId)).toEqual(['k1'])
    expect(report.offsets?.partitions.map(p => [p.partition, p.committedOffset, p.lag, p.memberId])).toEqual([[0, '8', '2', null]])
  })

  it('a group no listing names: NOT_FOUND, and the command exits 4 as usual', async () => {
    const {report} = await explainOne(session(new FakeCluster(live)), 'nope', asked)
    expect(report.verdict.code).toBe('NOT_FOUND')
    const r = await run(['group:explain', 'nope', '-b', 'fake:9092', '--history-dir', request.historyDir, '--describe-only'], new FakeCluster(live))
    expect(r.exitCode).toBe(4)
  })
})

describe('group explain through the command, describe-only', () => {
  /** The refusing cluster with two more groups: one in sync on orders, one pending by its epochs. */
  function several(): FakeCluster {
    const fake = refusing()
    fake.describeGroup('consumer', {
      groupId: 'orders-calm',
      state: 'Stable',
      groupEpoch: 2,
      assignmentEpoch: 2,
      assignorName: 'uniform',
      members: [member('k1', 2, [0, 1], [0, 1])],
    })
    fake.describeGroup('consumer', {
      groupId: 'billing',
      state: 'Assigning',
      groupEpoch: 3,
      assignmentEpoch: 2,
      assignorName: 'uniform',
      members: [member('b1', 2, [0, 1], [0, 1])],
    })
    return fake
  }
  const list = (stdout: string) =>
    JSON.parse(stdout).groups.map((g: {group: string; verdict: {code: string}; reading?: {mode: string}}) => [g.group, g.verdict.code, g.reading?.mode])

  it('--all without READ: every listed group answered describe-only, one warning naming the grant; --fail-on-pending exits 3', async () => {
    const fake = several()
    const r = await run(['group:explain', '--all', '-b', 'fake:9092', '--history-dir', request.historyDir, '--json', '--fail-on-pending'], fake)
    expect(r.exitCode, r.stderr).toBe(3)
    expect(fake.reads).toBeGreaterThan(0) // it tried the records first
    expect(list(r.stdout)).toEqual([
      ['billing', 'ASSIGNMENT_PENDING', 'describe-only'],
      ['orders-app', 'RECONCILING', 'describe-only'],
      ['orders-calm', 'EPOCHS_IN_SYNC', 'describe-only'],
    ])
    const doc = JSON.parse(r.stdout)
    expect(doc.groups[1].reading.reason).toBe('Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED')
    expect(doc.groups[2].liveMetadataHash).toBe(new TopicHasher(live).groupHash(['orders']).toString())
    expect(doc.warnings).toHaveLength(1)
    expect(doc.warnings[0]).toContain('--operation Read --topic __consumer_offsets')
  })

  it('a pattern with --describe-only: only the matching groups, no record read; none matching exits 4', async () => {
    const fake = several()
    fake.offsetsReadRefused = false
    const r = await run(['group:explain', 'orders-*', '-b', 'fake:9092', '--history-dir', request.historyDir, '--describe-only', '--json'], fake)
    expect(r.exitCode, r.stderr).toBe(0)
    expect(fake.reads).toBe(0)
    expect(list(r.stdout)).toEqual([
      ['orders-app', 'RECONCILING', 'describe-only'],
      ['orders-calm', 'EPOCHS_IN_SYNC', 'describe-only'],
    ])
    expect(JSON.parse(r.stdout).groups[0].reading.reason).toBe('--describe-only given')
    const none = await run(['group:explain', 'nothing-*', '-b', 'fake:9092', '--history-dir', request.historyDir, '--describe-only'], several())
    expect(none.exitCode).toBe(4)
  })

  it('--all with one group whose describe is refused: every other group reported, the refusal named with its grant, exit 1', async () => {
    const fake = several()
    fake.describeGroup('consumer', refusedDescribe('payroll'))
    const r = await run(['group:explain', '--all', '-b', 'fake:9092', '--history-dir', request.historyDir, '--json'], fake)
    expect(r.exitCode, r.stderr).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(list(r.stdout).map((g: string[]) => g[0])).toEqual(['billing', 'orders-app', 'orders-calm'])
    expect(doc.refused).toEqual([
      {
        group: 'payroll',
        request: 'FindCoordinator',
        resourceType: 'group',
        resourceName: 'payroll',
        operation: 'DESCRIBE',
        errorName: 'GROUP_AUTHORIZATION_FAILED',
        principal: null,
        grant: 'kafka-acls --bootstrap-server <bootstrap-server> --add --allow-principal User:<you> --operation Describe --group payroll',
      },
    ])
    expect(doc.warnings).toContain(
      'describing group payroll needs DESCRIBE on group payroll (FindCoordinator refused: GROUP_AUTHORIZATION_FAILED): group payroll is not reported. ' +
        'Grant it (as a Kafka admin): kafka-acls --bootstrap-server <bootstrap-server> --add --allow-principal User:<you> --operation Describe --group payroll',
    )
    // a pattern that matches only the refused group: exit 1 for the refusal, not 4 (nothing matched)
    const only = await run(['group:explain', 'pay*', '-b', 'fake:9092', '--history-dir', request.historyDir, '--describe-only'], fake)
    expect(only.exitCode).toBe(1)
    expect(only.stderr).toContain('needs DESCRIBE on group payroll')
    expect(only.stderr).not.toContain('no group matches')
  })

  it('text: one describe-only report per group and the count line', async () => {
    const r = await run(['group:explain', '--all', '-b', 'fake:9092', '--history-dir', request.historyDir], several())
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout.match(/stored metadata hash and the cause of each bump need READ on topic __consumer_offsets/g)).toHaveLength(3)
    expect(r.stdout).toContain('3 groups matched --all; 2 with a rebalance pending or in progress')
  })

  it('exits 0 and prints, instead of the timeline, what the stored hash and the causes need', async () => {
    const r = await run(['group:explain', G, '-b', 'fake:9092', '--history-dir', request.historyDir], refusing())
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('RECONCILING')
    expect(r.stdout).toMatch(/stored metadata hash and the cause of each bump need READ on topic __consumer_offsets; grant: kafka-acls/)
    expect(r.stdout).not.toContain('no epoch change')
    expect(r.stdout).toContain('state not described (reconciling)')
  })

  it('--fail-on-pending exits 3 on a describe-only RECONCILING', async () => {
    const r = await run(['group:explain', G, '-b', 'fake:9092', '--history-dir', request.historyDir, '--fail-on-pending', '--json'], refusing())
    expect(r.exitCode).toBe(3)
    expect(JSON.parse(r.stdout).reading.mode).toBe('describe-only')
  })

  it('--describe-only never reads __consumer_offsets, and warns of no refusal', async () => {
    const fake = refusing()
    fake.offsetsReadRefused = false
    const r = await run(['group:explain', G, '-b', 'fake:9092', '--history-dir', request.historyDir, '--describe-only', '--json'], fake)
    expect(r.exitCode).toBe(0)
    expect(fake.reads).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.reading.reason).toBe('--describe-only given')
    expect(doc.warnings).toEqual([])
  })
})
