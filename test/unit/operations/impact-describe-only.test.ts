/**
 * `impact` without READ on __consumer_offsets: the Fetch refused, it warns once with the grant and predicts every
 * listed group from its describe and the live metadata (src/core/impact/described.ts); with --describe-only it does
 * so without trying the records. Over the fake cluster that refuses the Fetch.
 */
import {describe, expect, it} from 'vitest'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {describedMember as member, refusedDescribe} from '../../lib/describes.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {T1, T2} from '../../lib/records.js'
import {run} from '../helpers.js'

const live: ClusterMetadata = parseMetadataDocument({
  clusterId: 'K-imp',
  brokers: [
    {id: 1, rack: 'rack-a'},
    {id: 2, rack: 'rack-b'},
  ],
  topics: [
    {name: 'orders', topicId: T1, partitions: [0, 1].map(p => ({partition: p, replicas: [1]}))},
    {name: 'payments', topicId: T2, partitions: [{partition: 0, replicas: [2]}]},
  ],
})

const group = (groupId: string, members: unknown[], epochs: [number, number] = [4, 4], state = 'Stable') => ({
  groupId,
  state,
  groupEpoch: epochs[0],
  assignmentEpoch: epochs[1],
  assignorName: 'uniform',
  members,
})

/** Groups on orders (in sync, pending by the epochs, empty) and one on payments; READ refused unless `read`. */
function cluster(read = false): FakeCluster {
  const fake = new FakeCluster(live, {offsetsPartitions: 1})
  fake.describeGroup('consumer', group('calm-app', [member('m1', 4, [0, 1], [0, 1])]))
  fake.describeGroup('consumer', group('late-app', [member('l1', 6, [0, 1], [0, 1])], [7, 6], 'Assigning'))
  fake.describeGroup('consumer', group('idle-app', [], [3, 3], 'Empty'))
  fake.describeGroup('consumer', group('pay-app', [member('p1', 4, [], [], ['payments'])]))
  fake.offsetsReadRefused = !read
  return fake
}

const impact = (fake: FakeCluster, ...args: string[]) => run(['impact', '-b', 'fake:9092', ...args], fake)

describe('impact when READ on __consumer_offsets is refused', () => {
  it('--json: every non-empty group on the topic bumps once, from the describes; reading says what needs READ', async () => {
    const fake = cluster()
    const r = await impact(fake, '--add-partitions', 'orders=4', '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    expect(fake.reads).toBeGreaterThan(0) // it tried the records first
    const doc = JSON.parse(r.stdout)
    expect(doc.groups.map((g: {group: string; today: string; bumps: unknown}) => [g.group, g.today, g.bumps])).toEqual([
      ['calm-app', 'EPOCHS_IN_SYNC', {min: 1, max: 1}],
      ['late-app', 'ASSIGNMENT_PENDING', {min: 1, max: 1}],
    ])
    expect(doc.groups[0]).toMatchObject({storedMetadataHash: null, rules: null, members: 1, assignedPartitions: 2, touchedTopics: ['orders']})
    expect(doc.summary).toMatchObject({groups: 4, touched: 2, rebalancing: 2, certain: 2, alreadyPending: 1, exitCode: 0})
    expect(doc.reading).toMatchObject({mode: 'describe-only', reason: 'Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED'})
    expect(doc.reading.missing[0].needs).toEqual({resourceType: 'topic', resourceName: '__consumer_offsets', operation: 'READ'})
    expect(doc.warnings).toHaveLength(1)
    expect(doc.warnings[0]).toContain('needs READ on topic __consumer_offsets (Fetch refused: TOPIC_AUTHORIZATION_FAILED)')
    expect(doc.warnings[0]).toContain('predicting every group from its describe')
  })

  it('text: the table, what the prediction assumes and the grant; --fail-on-rebalance exits 3 as usual', async () => {
    const r = await impact(cluster(), '--add-partitions', 'orders=4', '--fail-on-rebalance', '1')
    expect(r.exitCode, r.stderr).toBe(3)
    expect(r.stdout).toMatch(/calm-app .*EPOCHS_IN_SYNC/)
    expect(r.stdout).toContain('as if its stored hash equals it')
    expect(r.stdout).toContain('--operation Read --topic __consumer_offsets')
    expect(r.stdout).toContain('1 already pending (by the epochs)')
    expect(r.stdout).not.toContain('idle-app')
  })

  it('--describe-only reads no record even where READ is granted', async () => {
    const fake = cluster(true)
    const r = await impact(fake, '--add-partitions', 'orders=4', '--describe-only', '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    expect(fake.reads).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.reading.reason).toBe('--describe-only given')
    expect(doc.warnings).toEqual([])
    expect(doc.groups.map((g: {group: string}) => g.group)).toEqual(['calm-app', 'late-app'])
  })

  it('a group whose describe is refused: every other group predicted, the refusal in `refused` and a warning with the grant, exit 1', async () => {
    const fake = cluster()
    fake.describeGroup('consumer', refusedDescribe('secret-app'))
    const r = await impact(fake, '--add-partitions', 'orders=4', '--json')
    expect(r.exitCode, r.stderr).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(doc.groups.map((g: {group: string}) => g.group)).toEqual(['calm-app', 'late-app'])
    expect(doc.refused).toEqual([expect.objectContaining({group: 'secret-app', request: 'FindCoordinator', resourceType: 'group', operation: 'DESCRIBE'})])
    expect(doc.refused[0].grant).toContain('--operation Describe --group secret-app')
    expect(doc.warnings[1]).toMatch(/^describing group secret-app needs DESCRIBE on group secret-app \(FindCoordinator refused: GROUP_AUTHORIZATION_FAILED\)/)
    // without the refusal the same prediction exits 0 and has no `refused`
    const all = await impact(cluster(), '--add-partitions', 'orders=4', '--json')
    expect([all.exitCode, JSON.parse(all.stdout).refused]).toEqual([0, undefined])
  })

  it('--describe-only is refused with the offline files (usage error, exit 2)', async () => {
    const r = await run(['impact', '--metadata-file', 'md.json', '--offsets-segment', 'x.log', '--describe-only', '--add-partitions', 'orders=4'])
    expect(r.exitCode).toBe(2)
    expect(r.error?.message).toMatch(/--metadata-file cannot be used with --describe-only/)
  })
})
