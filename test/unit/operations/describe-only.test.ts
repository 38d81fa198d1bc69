/**
 * group explain without READ on __consumer_offsets: the Fetch refused, the operation warns once with what to grant
 * and answers from the group's describe, OffsetFetch and the live metadata through the same pipeline; with
 * --describe-only it does so without trying the records.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {setClusterFactory} from '../../../src/kafka/session.js'
import {explainOne} from '../../../src/operations/explain/one.js'
import type {Session} from '../../../src/operations/session.js'
import {FakeCluster, withFake} from '../../lib/fake-cluster.js'
import {run} from '../helpers.js'
import {consumer as c, T1} from '../replay/log.js'

afterEach(() => setClusterFactory(undefined))

const G = 'orders-app'
const live: ClusterMetadata = parseMetadataDocument({
  brokers: [{id: 1, rack: 'rack-a'}],
  topics: [{name: 'orders', topicId: T1, partitions: [0, 1].map(p => ({partition: p, replicas: [1]}))}],
})

const tps = (...partitions: number[]) => [{topicId: T1, topicName: 'orders', partitions}]
const member = (memberId: string, memberEpoch: number, assignment: number[], target: number[]) => ({
  memberId,
  instanceId: null,
  rackId: null,
  memberEpoch,
  clientId: `c-${memberId}`,
  clientHost: '/10.0.0.7',
  subscribedTopicNames: ['orders'],
  subscribedTopicRegex: null,
  assignment: tps(...assignment),
  targetAssignment: tps(...target),
  memberType: 1,
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

  it('without the fallback (the watch) the refusal stays the error', async () => {
    await expect(explainOne(session(refusing()), G, request)).rejects.toMatchObject({code: 'NOT_AUTHORIZED', operation: 'READ'})
  })
})

describe('group explain through the command, describe-only', () => {
  it('exits 0 and prints, instead of the timeline, what the stored hash and the causes need', async () => {
    const r = await withFake(refusing(), () => run(['group:explain', G, '-b', 'fake:9092', '--history-dir', request.historyDir]))
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('RECONCILING')
    expect(r.stdout).toMatch(/stored metadata hash and the cause of each bump need READ on topic __consumer_offsets; grant: kafka-acls/)
    expect(r.stdout).not.toContain('no epoch change')
    expect(r.stdout).toContain('state not described (reconciling)')
  })

  it('--fail-on-pending exits 3 on a describe-only RECONCILING', async () => {
    const r = await withFake(refusing(), () => run(['group:explain', G, '-b', 'fake:9092', '--history-dir', request.historyDir, '--fail-on-pending', '--json']))
    expect(r.exitCode).toBe(3)
    expect(JSON.parse(r.stdout).reading.mode).toBe('describe-only')
  })

  it('--describe-only never reads __consumer_offsets, and warns of no refusal', async () => {
    const fake = refusing()
    fake.offsetsReadRefused = false
    const r = await withFake(fake, () => run(['group:explain', G, '-b', 'fake:9092', '--history-dir', request.historyDir, '--describe-only', '--json']))
    expect(r.exitCode).toBe(0)
    expect(fake.reads).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.reading.reason).toBe('--describe-only given')
    expect(doc.warnings).toEqual([])
  })
})
