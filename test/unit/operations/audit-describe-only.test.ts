/**
 * audit without READ on __consumer_offsets: the Fetch refused, the audit warns once with what to grant and answers
 * every listed group from its describe as group explain does (same pipeline, same verdicts), in every output; with
 * --describe-only it does so without trying the records. Over the fake cluster that refuses the Fetch.
 */
import {existsSync, mkdtempSync, readdirSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {describedMember as member, refusedDescribe} from '../../lib/describes.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {consumer as c, settledConsumer, T1} from '../../lib/records.js'
import {run} from '../helpers.js'

const live: ClusterMetadata = parseMetadataDocument({
  clusterId: 'K-do',
  brokers: [{id: 1, rack: 'rack-a'}],
  topics: [{name: 'orders', topicId: T1, partitions: [0, 1].map(p => ({partition: p, replicas: [1]}))}],
})

const group = (groupId: string, groupEpoch: number, assignmentEpoch: number, members: unknown[], state = 'Stable') => ({
  groupId,
  state,
  groupEpoch,
  assignmentEpoch,
  assignorName: 'uniform',
  members,
})

/**
 * Five consumer groups as their describes answer them: in sync (with committed offsets), a rebalance pending, empty,
 * subscribed to a topic that does not exist, and one member waiting for another to revoke. READ refused.
 */
function refusing(): FakeCluster {
  const fake = new FakeCluster(live, {offsetsPartitions: 1, logEnd: 10n})
  fake.write('calm-app', [c.offsetCommit('calm-app', 'orders', 0, 4n), c.offsetCommit('calm-app', 'orders', 1, 9n)])
  fake.describeGroup('consumer', group('calm-app', 4, 4, [member('m1', 4, [0, 1], [0, 1])]))
  fake.describeGroup('consumer', group('pending-app', 7, 6, [member('p1', 6, [0, 1], [0, 1])], 'Assigning'))
  fake.describeGroup('consumer', group('empty-app', 3, 3, [], 'Empty'))
  fake.describeGroup('consumer', group('missing-app', 2, 2, [member('x1', 2, [0, 1], [0, 1], ['orders', 'gone'])]))
  fake.describeGroup('consumer', group('moving-app', 6, 6, [member('r1', 6, [0, 1], [0]), member('r2', 5, [], [1])], 'Reconciling'))
  fake.offsetsReadRefused = true
  return fake
}

const historyDir = () => mkdtempSync(join(tmpdir(), 'rd-audit-do-h-'))
const audit = (fake: FakeCluster, ...args: string[]) => run(['audit', '-b', 'fake:9092', ...args], fake)
const verdicts = (doc: {groups: Array<{group: string; verdict: {code: string}}>}) => doc.groups.map(g => [g.group, g.verdict.code])

describe('audit when READ on __consumer_offsets is refused', () => {
  it('answers every listed group from its describe: a row per group with its verdict, exit 3 on its findings', async () => {
    const fake = refusing()
    const r = await audit(fake, '--json', '--history-dir', historyDir())
    expect(r.exitCode, r.stderr).toBe(3)
    // it did try the records first
    expect(fake.reads).toBeGreaterThan(0)
    const doc = JSON.parse(r.stdout)
    expect(verdicts(doc)).toEqual([
      ['calm-app', 'EPOCHS_IN_SYNC'],
      ['empty-app', 'EMPTY_GROUP'],
      ['missing-app', 'EPOCHS_IN_SYNC'],
      ['moving-app', 'RECONCILING'],
      ['pending-app', 'ASSIGNMENT_PENDING'],
    ])
    const row = (id: string) => doc.groups.find((g: {group: string}) => g.group === id)
    expect(row('pending-app')).toMatchObject({findings: ['pending'], assignmentPending: true, groupEpoch: 7, assignmentEpoch: 6})
    expect(row('missing-app')).toMatchObject({findings: ['missing-topics'], missingTopics: ['gone']})
    expect(row('empty-app')).toMatchObject({findings: [], members: 0})
    // reconciling is counted, never called stuck: since when needs the records
    expect(row('moving-app')).toMatchObject({findings: [], members: 2, membersReconciling: 2, stuckMembers: []})
    expect(row('moving-app').verdict.message).toMatch(/whether one is stuck needs the records/)
    expect(row('calm-app')).toMatchObject({findings: [], inSync: null, storedMetadataHash: null, drift: []})
    expect(doc.summary).toMatchObject({groups: 5, groupsWithFindings: 2, exitCode: 3, partitions: 0, recordsScanned: 0})
    expect(doc.summary.findings).toMatchObject({pending: 1, 'missing-topics': 1, drift: 0, stuck: 0})
  })

  it('warns once, naming the Fetch refused, READ on topic __consumer_offsets and the kafka-acls grant', async () => {
    const r = await audit(refusing(), '--no-record')
    expect(r.exitCode).toBe(3)
    // (oclif wraps a warning and marks its lines with ›)
    const warned = r.stderr
      .split('\n')
      .filter(l => l.includes('›'))
      .join(' ')
      .replace(/\s*›\s*/g, ' ')
      .replace(/\s+/g, ' ')
    expect(warned.match(/Fetch refused/g)).toHaveLength(1)
    expect(warned).toContain('needs READ on topic __consumer_offsets (Fetch refused: TOPIC_AUTHORIZATION_FAILED)')
    expect(warned).toContain('--operation Read --topic __consumer_offsets')
    // the table and its summary line say how it was read
    expect(r.stdout).toContain('ASSIGNMENT_PENDING')
    expect(r.stdout).toContain('missing topics: gone')
    expect(r.stdout).toContain('stuck or not, needs READ on __consumer_offsets')
    expect(r.stdout).toContain('read describe-only (Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED)')
    expect(r.stdout).not.toContain('calm-app')
    // the grant once: the warning named it, no note repeats it
    expect(r.stderr.match(/kafka-acls/g)).toHaveLength(1)
  })

  it('--json: each row and the summary carry reading with the grant; history not written, said so; lag as the audit reads it', async () => {
    const dir = historyDir()
    const r = await audit(refusing(), '--json', '--history-dir', dir)
    const doc = JSON.parse(r.stdout)
    const grant = expect.stringContaining('kafka-acls')
    const needs = {resourceType: 'topic', resourceName: '__consumer_offsets', operation: 'READ'}
    for (const g of doc.groups)
      expect(g.reading, g.group).toEqual({
        mode: 'describe-only',
        reason: 'Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED',
        missing: [{what: expect.any(String), needs, grant}],
      })
    expect(doc.summary.reading).toMatchObject({mode: 'describe-only', reason: 'Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED'})
    expect(doc.summary.reading.missing[0]).toMatchObject({needs, grant})
    expect(doc.summary.history).toEqual({recorded: false, disabled: true, reason: 'describe-only'})
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
    const calm = doc.groups.find((g: {group: string}) => g.group === 'calm-app')
    expect(calm.liveMetadataHash).toBe(new TopicHasher(live).groupHash(['orders']).toString())
    expect(calm.lag).toEqual({totalLag: '7', partitions: 2, partitionsUnknown: 0, error: null})
    expect(doc.warnings).toHaveLength(1)
    expect(JSON.stringify(doc.warnings)).toContain('needs READ on topic __consumer_offsets (Fetch refused: TOPIC_AUTHORIZATION_FAILED)')
  })

  it('--ndjson: a line per group with its reading, then the summary with its reading', async () => {
    const r = await audit(refusing(), '--ndjson', '--no-record')
    const lines = r.stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(lines).toHaveLength(6)
    expect(lines.slice(0, 5).every(l => l.reading?.mode === 'describe-only')).toBe(true)
    expect(lines[5].reading.mode).toBe('describe-only')
  })

  it('--group and --type filter the listing as they filter the records', async () => {
    const doc = JSON.parse((await audit(refusing(), '--json', '--no-record', '--group', 'pending-*')).stdout)
    expect(verdicts(doc)).toEqual([['pending-app', 'ASSIGNMENT_PENDING']])
    expect((await audit(refusing(), '--json', '--no-record', '--type', 'share')).exitCode).toBe(4)
  })

  it('share and classic groups: their describes, CLASSIC_GROUP for a classic one; lag only where offsets are committed', async () => {
    const fake = refusing()
    const {targetAssignment: _t, subscribedTopicRegex: _r, memberType: _m, instanceId: _i, ...s1} = member('s1', 3, [0, 1], [])
    fake.describeGroup('share', group('share-app', 4, 3, [s1], 'Stable'))
    fake.write('old-app', [c.offsetCommit('old-app', 'orders', 0, 8n)])
    fake.describeGroup('classic', {
      groupId: 'old-app',
      state: 'Stable',
      protocolType: 'consumer',
      protocol: 'range',
      members: [{memberId: 'k1', instanceId: null, clientId: 'c', clientHost: '/h'}],
    })
    const doc = JSON.parse((await audit(fake, '--json', '--no-record', '--type', 'share,classic')).stdout)
    expect(
      doc.groups.map((g: {group: string; type: string; verdict: {code: string}; findings: string[]}) => [g.group, g.type, g.verdict.code, g.findings]),
    ).toEqual([
      ['old-app', 'classic', 'CLASSIC_GROUP', []],
      ['share-app', 'share', 'ASSIGNMENT_PENDING', ['pending']],
    ])
    expect(doc.groups.map((g: {lag: {totalLag: string} | null}) => g.lag?.totalLag ?? null)).toEqual(['2', null])
  })

  it('--fail-on kinds that need the records cannot fire: exit 0', async () => {
    expect((await audit(refusing(), '--no-record', '--fail-on', 'drift,stuck')).exitCode).toBe(0)
    expect((await audit(refusing(), '--no-record', '--fail-on', 'pending')).exitCode).toBe(3)
  })

  it('a cluster whose groups are all in sync as far as the epochs show: exit 0', async () => {
    const fake = new FakeCluster(live, {offsetsPartitions: 1})
    fake.describeGroup('consumer', group('calm-app', 4, 4, [member('m1', 4, [0, 1], [0, 1])]))
    fake.offsetsReadRefused = true
    const r = await audit(fake, '--json', '--no-record')
    expect(r.exitCode).toBe(0)
    expect(verdicts(JSON.parse(r.stdout))).toEqual([['calm-app', 'EPOCHS_IN_SYNC']])
  })
})

describe('audit --describe-only', () => {
  it('reads no partition of __consumer_offsets, warns of no refusal, and names the grant in its reading', async () => {
    const fake = refusing()
    fake.offsetsReadRefused = false
    const r = await audit(fake, '--describe-only', '--json', '--no-record')
    expect(r.exitCode).toBe(3)
    expect(fake.reads).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.warnings).toEqual([])
    expect(doc.summary.reading.reason).toBe('--describe-only given')
    expect(doc.summary.reading.missing[0].grant).toContain('--operation Read --topic __consumer_offsets')
    expect(verdicts(doc).map(([, v]) => v)).toEqual(['EPOCHS_IN_SYNC', 'EMPTY_GROUP', 'EPOCHS_IN_SYNC', 'RECONCILING', 'ASSIGNMENT_PENDING'])
  })

  it('the table notes the grant on stderr', async () => {
    const fake = refusing()
    const r = await audit(fake, '--describe-only', '--no-record')
    expect(fake.reads).toBe(0)
    expect(r.stderr).toMatch(/read describe-only \(--describe-only given\): .* need READ on topic __consumer_offsets; grant: kafka-acls/)
  })

  it('is not for --incremental nor --metadata-log (usage error, before anything is read)', async () => {
    for (const other of [['--incremental'], ['--metadata-log', '/nonexistent/rd-no-such-dir']]) {
      const fake = refusing()
      const r = await audit(fake, '--describe-only', '--no-record', ...other)
      expect(r.exitCode, other[0]).toBe(2)
      expect(r.error?.message).toContain('--describe-only cannot be used with --incremental or --metadata-log')
      expect(fake.calls).toEqual([])
    }
  })
})

describe('audit --prometheus read describe-only', () => {
  const series = (text: string, name: string) =>
    text
      .split('\n')
      .filter(l => l.startsWith(`${name}{`))
      .map(l => l.replace(/^[^{]+\{cluster_id="K-do",?/, '{'))

  it('rebalance_doctor_group_describe_only 1 per group; the series that need the records are absent, not 0', async () => {
    const prom = join(mkdtempSync(join(tmpdir(), 'rd-do-prom-')), 'rd.prom')
    const r = await audit(refusing(), '--no-record', '--prometheus', prom)
    expect(r.exitCode).toBe(3)
    const text = readFileSync(prom, 'utf8')
    expect(text).toContain('# TYPE rebalance_doctor_group_describe_only gauge')
    expect(text).toMatch(/^# HELP rebalance_doctor_group_describe_only .+$/m)
    expect(series(text, 'rebalance_doctor_group_describe_only')).toEqual(
      ['calm-app', 'empty-app', 'missing-app', 'moving-app', 'pending-app'].map(g => `{group="${g}",type="consumer"} 1`),
    )
    expect(series(text, 'rebalance_doctor_audit_describe_only')).toEqual(['{} 1'])
    for (const name of ['group_metadata_hash_in_sync', 'group_epoch_timestamp_seconds', 'group_members_stuck', 'group_unknown_records'])
      expect(series(text, `rebalance_doctor_${name}`), name).toEqual([])
    expect(series(text, 'rebalance_doctor_group_assignment_pending')).toContain('{group="pending-app",type="consumer"} 1')
    expect(series(text, 'rebalance_doctor_group_missing_topics')).toContain('{group="missing-app",type="consumer"} 1')
    expect(series(text, 'rebalance_doctor_group_lag')).toContain('{group="calm-app",type="consumer"} 7')
    expect(series(text, 'rebalance_doctor_group_verdict')).toContain('{group="moving-app",type="consumer",verdict="RECONCILING"} 1')
    expect(series(text, 'rebalance_doctor_audit_groups_with_finding').map(l => /finding="([^"]+)"/.exec(l)?.[1])).toEqual(['pending', 'missing-topics'])
    expect(series(text, 'rebalance_doctor_audit_exit_code')).toEqual(['{} 3'])
    expect(series(text, 'rebalance_doctor_up')).toEqual(['{} 1'])
  })

  it('an audit of the records writes rebalance_doctor_group_describe_only 0 and every series as before', async () => {
    const fake = new FakeCluster(live, {offsetsPartitions: 1, logEnd: 10n})
    fake.write('calm-app', settledConsumer('calm-app', 'm1', ['orders'], new TopicHasher(live).groupHash(['orders']), [[T1, [0, 1]]]))
    const prom = join(mkdtempSync(join(tmpdir(), 'rd-do-prom-')), 'rd.prom')
    const r = await audit(fake, '--no-record', '--prometheus', prom)
    expect(r.exitCode, r.stderr).toBe(0)
    const text = readFileSync(prom, 'utf8')
    expect(series(text, 'rebalance_doctor_group_describe_only')).toEqual(['{group="calm-app",type="consumer"} 0'])
    expect(series(text, 'rebalance_doctor_audit_describe_only')).toEqual(['{} 0'])
    expect(series(text, 'rebalance_doctor_audit_groups_refused')).toEqual(['{} 0'])
    expect(series(text, 'rebalance_doctor_group_metadata_hash_in_sync')).toEqual(['{group="calm-app",type="consumer"} 1'])
    expect(series(text, 'rebalance_doctor_audit_groups_with_finding')).toHaveLength(6)
  })
})

describe('audit read describe-only, one group refused', () => {
  /** The five groups, and secret-app whose FindCoordinator is refused (DESCRIBE on the group missing). */
  function withSecret(): FakeCluster {
    const fake = refusing()
    fake.describeGroup('consumer', refusedDescribe('secret-app'))
    return fake
  }
  const refusal = {
    group: 'secret-app',
    request: 'FindCoordinator',
    resourceType: 'group',
    resourceName: 'secret-app',
    operation: 'DESCRIBE',
    errorName: 'GROUP_AUTHORIZATION_FAILED',
    principal: null,
    grant: 'kafka-acls --bootstrap-server <bootstrap-server> --add --allow-principal User:<you> --operation Describe --group secret-app',
  }
  const warning =
    'describing group secret-app needs DESCRIBE on group secret-app (FindCoordinator refused: GROUP_AUTHORIZATION_FAILED): group secret-app is not reported. ' +
    'Grant it (as a Kafka admin): kafka-acls --bootstrap-server <bootstrap-server> --add --allow-principal User:<you> --operation Describe --group secret-app'

  it('--json: every other group audited, the refused one in summary.refused with its grant and warned of, exit 1 despite findings', async () => {
    const r = await audit(withSecret(), '--json', '--no-record')
    expect(r.exitCode, r.stderr).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(verdicts(doc).map(([g]) => g)).toEqual(['calm-app', 'empty-app', 'missing-app', 'moving-app', 'pending-app'])
    expect(doc.summary).toMatchObject({groups: 5, groupsWithFindings: 2, exitCode: 1, refused: [refusal]})
    expect(doc.warnings).toContain(warning)
    // without the refusal the same audit exits 3 on its findings and has no `refused`
    const all = JSON.parse((await audit(refusing(), '--json', '--no-record')).stdout)
    expect([all.summary.exitCode, all.summary.refused]).toEqual([3, undefined])
  })

  it('--describe-only too; --group matching only the refused group is exit 1, not 4 (nothing matched)', async () => {
    const fake = withSecret()
    fake.offsetsReadRefused = false
    const r = await audit(fake, '--describe-only', '--json', '--no-record')
    expect([r.exitCode, JSON.parse(r.stdout).summary.refused]).toEqual([1, [refusal]])
    const only = await audit(withSecret(), '--json', '--no-record', '--group', 'secret-*')
    expect(only.exitCode).toBe(1)
    expect(JSON.parse(only.stdout)).toMatchObject({groups: [], summary: {groups: 0, refused: [refusal]}})
  })

  it('the table: the summary line names the refused group, the warning its grant', async () => {
    const r = await audit(withSecret(), '--no-record')
    expect(r.exitCode).toBe(1)
    expect(r.stdout).toContain('1 refused (not reported): secret-app')
    expect(r.stdout).toContain('exit 1')
    expect(r.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ')).toContain(
      'needs DESCRIBE on group secret-app (FindCoordinator refused: GROUP_AUTHORIZATION_FAILED)',
    )
  })

  it('--ndjson and -o yaml: the summary carries refused', async () => {
    const lines = (await audit(withSecret(), '--ndjson', '--no-record')).stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(lines).toHaveLength(6)
    expect(lines.slice(0, 5).map(l => l.group)).not.toContain('secret-app')
    expect(lines[5]).toMatchObject({exitCode: 1, refused: [refusal]})
    const yaml = parse((await audit(withSecret(), '-o', 'yaml', '--no-record')).stdout) as {summary: {refused: unknown}}
    expect(yaml.summary.refused).toEqual([refusal])
  })

  it('--prometheus: rebalance_doctor_audit_groups_refused counts it (it has no series of its own), exit code 1', async () => {
    const prom = join(mkdtempSync(join(tmpdir(), 'rd-do-prom-')), 'rd.prom')
    const r = await audit(withSecret(), '--no-record', '--prometheus', prom)
    expect(r.exitCode).toBe(1)
    const text = readFileSync(prom, 'utf8')
    expect(text).toContain('# TYPE rebalance_doctor_audit_groups_refused gauge')
    expect(text).toMatch(/^rebalance_doctor_audit_groups_refused\{cluster_id="K-do"\} 1$/m)
    expect(text).toMatch(/^rebalance_doctor_audit_exit_code\{cluster_id="K-do"\} 1$/m)
    expect(text).not.toContain('secret-app')
  })
})
