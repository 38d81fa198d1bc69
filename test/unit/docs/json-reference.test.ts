/**
 * docs/output.md is the reference of the JSON documents: every field name a command's --json document holds must
 * be named there (a field added without its documentation fails here), and every document schema must have its
 * name in it. The documents come from the commands run in-process on the fake cluster and on files, as a user
 * runs them. Keys that are data, not fields (group types, verdict codes, cause kinds, Kafka's own record field
 * names in `group records`), are left out by where they sit.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {SCHEMAS} from '../../../src/core/documents.js'
import {AuthorizationDenied} from '../../../src/core/errors.js'
import {denialOf} from '../../../src/kafka/authorization.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {cluster, hashOf} from '../../lib/fixtures.js'
import {ROOT, run, tempFile, WORKED} from '../helpers.js'
import {consumer, T1, settledConsumer} from '../../lib/records.js'

const reference = readFileSync(join(ROOT, 'docs', 'output.md'), 'utf8')

/** Objects whose keys are data (a map), by the field that holds them. */
const MAPS = new Set([
  'byType',
  'byVerdict',
  'byCause',
  'findings',
  'departureKinds',
  'replicaRacks',
  'classicMigration',
  'before',
  'after',
  'key',
  'value',
  'records',
])

function fieldNames(v: unknown, out: Set<string>, parent = ''): Set<string> {
  if (Array.isArray(v)) for (const x of v) fieldNames(x, out, parent)
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (MAPS.has(parent)) continue
      out.add(k)
      fieldNames(x, out, k)
    }
  }
  return out
}

const undocumented = (doc: unknown) => [...fieldNames(doc, new Set())].filter(k => !new RegExp(`\\b${k}\\b`).test(reference)).sort()

function busyCluster(): FakeCluster {
  const fake = new FakeCluster(cluster(), {logEnd: 100n})
  const h = hashOf(fake.md, ['orders'])
  fake.write('g1', settledConsumer('g1', 'm1', ['orders'], h, [[T1, [0, 1, 2]]]))
  fake.write('g1', [consumer.member('g1', 'm2', {names: ['orders']}), consumer.metadata('g1', 2, h)], 60_000)
  fake.write('g1', [
    consumer.memberTombstone('g1', 'm2'),
    consumer.targetTombstone('g1', 'm2'),
    consumer.currentTombstone('g1', 'm2'),
    consumer.metadata('g1', 3, h),
  ])
  fake.write('g1', [consumer.offsetCommit('g1', 'orders', 0, 40n)])
  fake.addGroup('g1', 'consumer', 'Stable', {groupEpoch: 3, assignmentEpoch: 1, members: 1})
  fake.brokerConfigsById.set(1, {'metadata.log.dir': '/srv/meta'})
  return fake
}

const live = async (...args: string[]) => {
  const r = await run([...args, '-b', 'fake:9092'], busyCluster())
  expect([0, 3], `${args.join(' ')}: ${r.stderr}${r.error?.message ?? ''}`).toContain(r.exitCode)
  return JSON.parse(r.stdout)
}
const offline = async (...args: string[]) => {
  const r = await run(args)
  expect([0, 3], `${args.join(' ')}: ${r.stderr}${r.error?.message ?? ''}`).toContain(r.exitCode)
  return JSON.parse(r.stdout)
}

describe('docs/output.md documents every JSON field', () => {
  const metadata = () => tempFile('cluster.json', WORKED)
  const docs: Array<[string, () => Promise<unknown>]> = [
    ['audit', () => live('audit', '--json', '--no-record')],
    ['group explain', () => live('group:explain', 'g1', '--json', '--history-dir', join(tempFile('x', ''), '..', 'history'))],
    ['group list', () => live('group:list', '--json')],
    ['cluster snapshot', () => live('cluster:snapshot', '--json')],
    ['cluster metadata-log', () => live('cluster:metadata-log', '--json')],
    ['topic-hash compute', () => offline('topic-hash:compute', 'orders', '--metadata-file', metadata(), '--json')],
    ['topic-hash bytes', () => offline('topic-hash:bytes', 'orders', '--metadata-file', metadata(), '--json')],
    [
      'impact',
      () =>
        offline(
          'impact',
          '--metadata-file',
          metadata(),
          '--add-partitions',
          'orders=4',
          '--offsets-segment',
          tempFile('00000000000000000000.log', ''),
          '--json',
        ),
    ],
  ]
  for (const [name, make] of docs) {
    it(name, async () => {
      const doc = await make()
      expect(undocumented(doc), `fields of \`${name} --json\` not named in docs/output.md`).toEqual([])
    })
  }

  it('an authorization refusal (the error document with error.authorization)', async () => {
    const fake = busyCluster()
    fake.readPartition = async () => {
      throw new AuthorizationDenied(denialOf(29, {request: 'Fetch', resourceName: '__consumer_offsets'})!, 'reading __consumer_offsets')
    }
    const r = await run(['group:records', 'g1', '--json', '-b', 'fake:9092'], fake)
    expect(r.exitCode).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(doc.error.authorization.operation).toBe('READ')
    expect(undocumented(doc), 'fields of the error document not named in docs/output.md').toEqual([])
  })

  it('group explain read describe-only (READ on __consumer_offsets refused): reading and the described members', async () => {
    const fake = new FakeCluster(cluster(), {logEnd: 100n})
    fake.write('g2', [consumer.offsetCommit('g2', 'orders', 0, 40n)])
    const tps = [{topicId: T1, topicName: 'orders', partitions: [0]}]
    fake.describeGroup('consumer', {
      groupId: 'g2',
      state: 'Stable',
      groupEpoch: 2,
      assignmentEpoch: 2,
      assignorName: 'uniform',
      members: [
        {
          memberId: 'm1',
          instanceId: null,
          rackId: null,
          memberEpoch: 2,
          clientId: 'c1',
          clientHost: '/10.0.0.1',
          subscribedTopicNames: ['orders'],
          subscribedTopicRegex: null,
          assignment: tps,
          targetAssignment: tps,
          memberType: 1,
        },
      ],
    })
    fake.offsetsReadRefused = true
    const r = await run(['group:explain', 'g2', '--json', '-b', 'fake:9092', '--history-dir', join(tempFile('x', ''), '..', 'history')], fake)
    expect(r.exitCode).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.reading.mode).toBe('describe-only')
    expect(undocumented(doc), 'fields of the describe-only report not named in docs/output.md').toEqual([])
  })

  it('audit read describe-only (READ on __consumer_offsets refused): reading on rows and summary, the history not written', async () => {
    const fake = new FakeCluster(cluster(), {logEnd: 100n})
    fake.write('g3', [consumer.offsetCommit('g3', 'orders', 0, 40n)])
    const tps = [{topicId: T1, topicName: 'orders', partitions: [0]}]
    const m = {instanceId: null, rackId: null, clientId: 'c1', clientHost: '/10.0.0.1', subscribedTopicRegex: null, memberType: 1}
    fake.describeGroup('consumer', {
      groupId: 'g3',
      state: 'Assigning',
      groupEpoch: 3,
      assignmentEpoch: 2,
      assignorName: 'uniform',
      members: [{...m, memberId: 'm1', memberEpoch: 2, subscribedTopicNames: ['orders', 'gone'], assignment: tps, targetAssignment: tps}],
    })
    fake.offsetsReadRefused = true
    const r = await run(['audit', '--json', '-b', 'fake:9092', '--history-dir', join(tempFile('x', ''), '..', 'history')], fake)
    expect(r.exitCode).toBe(3)
    const doc = JSON.parse(r.stdout)
    expect([doc.summary.reading.mode, doc.groups[0].reading.mode, doc.summary.history.reason]).toEqual(['describe-only', 'describe-only', 'describe-only'])
    expect(undocumented(doc), 'fields of the describe-only audit not named in docs/output.md').toEqual([])
  })

  it('every document schema is named (`rebalance-doctor/` + its name)', () => {
    for (const s of Object.values(SCHEMAS)) expect(reference, s.name).toContain(`\`${s.name.replace('rebalance-doctor/', '')}\``)
  })

  it('the check fails on a field that is not documented', () => {
    expect(undocumented({group: 'g', someNewField: 1})).toEqual(['someNewField'])
  })
})
