/**
 * The live commands' edges through a fake cluster (test/lib/fake-cluster.ts), run through oclif as a
 * user would: exit codes of group explain (--since, --last, --fail-on-pending, not found), group records filters,
 * audit's 0/3/4, group list's filters and 4, impact's 0/3, and --json documents alone on stdout.
 */
import {mkdtempSync, readdirSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {cluster, hashOf} from '../../lib/fixtures.js'
import {run} from '../helpers.js'
import {consumer, T1, settledConsumer} from '../../lib/records.js'
import {FakeCluster} from '../../lib/fake-cluster.js'

const history = () => mkdtempSync(join(tmpdir(), 'rd-live-'))
/** The arguments with the fake's address, and an empty history for the commands that read one. */
const live = (...args: string[]) => [...args, '-b', 'fake:9092', ...(['audit', 'group:explain'].includes(args[0]) ? ['--history-dir', history()] : [])]

/** A consumer group settled at epoch 2 (a member joined, then a second bump when another joined). */
function settled(fake: FakeCluster, g: string, o: {pending?: boolean} = {}): void {
  const h = hashOf(fake.md, ['orders'])
  fake.write(g, settledConsumer(g, 'm1', ['orders'], h, [[T1, [0, 1, 2]]]))
  fake.write(g, [consumer.member(g, 'm2', {names: ['orders']}), consumer.metadata(g, 2, h)], 60_000)
  if (o.pending) return // the target assignment of epoch 2 is not written: assignment pending
  fake.write(g, [
    consumer.target(g, 'm1', [[T1, [0, 1]]]),
    consumer.target(g, 'm2', [[T1, [2]]]),
    consumer.targetMetadata(g, 2),
    consumer.current(g, 'm1', 2, [[T1, [0, 1]]]),
    consumer.current(g, 'm2', 2, [[T1, [2]]]),
  ])
}

/** A cluster holding group `g` settled (or pending). */
function settledCluster(g = 'g1', o: {pending?: boolean} = {}): FakeCluster {
  const fake = new FakeCluster(cluster())
  settled(fake, g, o)
  return fake
}

/** The command run through oclif against `fake`. */
const runOn = (fake: FakeCluster, ...args: string[]) => run(live(...args), fake)

/** A --json document: schema first, warnings last. */
function documentOf(stdout: string) {
  const doc = JSON.parse(stdout)
  expect(Object.keys(doc)[0]).toBe('schema')
  expect(Object.keys(doc).at(-1)).toBe('warnings')
  return doc
}

describe('group explain through a fake cluster', () => {
  it('--json: one document on stdout (schema first, warnings last), no progress text; exit 0', async () => {
    const fake = settledCluster()
    const r = await runOn(fake, 'group:explain', 'g1', '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = documentOf(r.stdout)
    expect(doc.groupEpoch).toBe(2)
    expect(doc.timeline.map((e: {epoch: number}) => e.epoch)).toEqual([1, 2])
    expect(r.stderr).not.toMatch(/reading/)
    expect(fake.calls.filter(c => c.startsWith('readPartition'))).toHaveLength(1)
  })

  it('--last 1 keeps the last bump; --since after every bump keeps none', async () => {
    const fake = settledCluster()
    const last = await runOn(fake, 'group:explain', 'g1', '--json', '--last', '1')
    expect(JSON.parse(last.stdout).timeline.map((e: {epoch: number}) => e.epoch)).toEqual([2])
    const since = await run(live('group:explain', 'g1', '--json', '--since', new Date(fake.time + 1000).toISOString()), fake)
    expect(since.exitCode).toBe(0)
    expect(JSON.parse(since.stdout).timeline).toEqual([])
    const all = await run(live('group:explain', 'g1', '--json', '--since', new Date(fake.time - 30_000).toISOString()), fake)
    expect(JSON.parse(all.stdout).timeline.map((e: {epoch: number}) => e.epoch)).toEqual([2])
  })

  it('--fail-on-pending: exit 3 while the assignment is pending, 0 once it is written', async () => {
    const pending = settledCluster('g1', {pending: true})
    const r = await runOn(pending, 'group:explain', 'g1', '--json', '--fail-on-pending')
    expect(JSON.parse(r.stdout).verdict.pending).toBe(true)
    expect(r.exitCode).toBe(3)
    const without = await runOn(pending, 'group:explain', 'g1', '--json')
    expect(without.exitCode).toBe(0)
    const done = settledCluster()
    const ok = await runOn(done, 'group:explain', 'g1', '--json', '--fail-on-pending')
    expect(JSON.parse(ok.stdout).verdict.pending).toBe(false)
    expect(ok.exitCode).toBe(0)
  })

  it('a group with no records: NOT_FOUND, exit 4 (with --fail-on-pending too)', async () => {
    const fake = settledCluster()
    for (const extra of [[], ['--fail-on-pending']]) {
      const r = await runOn(fake, 'group:explain', 'nope', '--json', ...extra)
      expect(JSON.parse(r.stdout).verdict.code).toBe('NOT_FOUND')
      expect(r.exitCode).toBe(4)
    }
  })
})

describe('group records through a fake cluster', () => {
  it('filters: --last selects records; filters that match nothing exit 4', async () => {
    const fake = settledCluster()
    const all = await runOn(fake, 'group:records', 'g1', '--json')
    expect(all.exitCode, all.stdout).toBe(0)
    const records = JSON.parse(all.stdout).records as Array<{offset: string}>
    expect(records.length).toBe(12)
    const last = await runOn(fake, 'group:records', 'g1', '--json', '--last', '2')
    expect((JSON.parse(last.stdout).records as unknown[]).length).toBe(2)
    const none = await run(live('group:records', 'g1', '--json', '--since', new Date(fake.time + 60_000).toISOString()), fake)
    expect(none.exitCode).toBe(4)
    expect(JSON.parse(none.stdout).records).toEqual([])
    const missing = await runOn(fake, 'group:records', 'nope', '--json')
    expect(missing.exitCode).toBe(4)
  })
})

describe('audit through a fake cluster', () => {
  it('in sync: exit 0; a group whose stored hash differs from the live metadata: exit 3; --group matching nothing: exit 4', async () => {
    const fake = settledCluster()
    const ok = await runOn(fake, 'audit', '--json', '--no-record')
    expect(ok.exitCode, ok.stderr).toBe(0)
    const doc = documentOf(ok.stdout)
    expect(doc.groups.map((g: {group: string}) => g.group)).toEqual(['g1'])
    expect(ok.stderr).not.toMatch(/reading|scanning/)

    fake.md = cluster(4) // orders grew to 4 partitions: the stored hash is stale
    const drift = await runOn(fake, 'audit', '--json', '--no-record')
    expect(drift.exitCode).toBe(3)
    expect(drift.stdout).toMatch(/"inSync": ?false/)
    const ignored = await runOn(fake, 'audit', '--json', '--no-record', '--fail-on', 'none')
    expect(ignored.exitCode).toBe(0)

    const nothing = await runOn(fake, 'audit', '--json', '--no-record', '--group', 'nomatch*')
    expect(nothing.exitCode).toBe(4)
  })
})

describe('group list through a fake cluster', () => {
  function listed(): FakeCluster {
    const fake = new FakeCluster(cluster())
    fake.addGroup('orders-1', 'consumer', 'Stable', {groupEpoch: 3, assignmentEpoch: 3, members: 2})
    fake.addGroup('orders-2', 'share', 'Empty', {groupEpoch: 1, assignmentEpoch: 1, members: 0})
    // DescribeGroups answers for classic groups: state and members, no epoch; a group that vanished keeps ListGroups' word
    fake.addGroup('legacy', 'classic', 'Stable', {members: 1, state: 'PreparingRebalance'})
    fake.addGroup('legacy-gone', 'classic', 'Empty')
    return fake
  }

  it('--json: every group with its describe (DescribeGroups for classic ones); exit 0', async () => {
    const r = await runOn(listed(), 'group:list', '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = documentOf(r.stdout)
    expect(doc.schema).toEqual({name: 'rebalance-doctor/group-list', version: 1})
    expect(doc.groups.map((g: {group: string}) => g.group).sort()).toEqual(['legacy', 'legacy-gone', 'orders-1', 'orders-2'])
    expect(doc.groups.find((g: {group: string}) => g.group === 'orders-1')).toMatchObject({
      type: 'consumer',
      state: 'Stable',
      groupEpoch: 3,
      assignmentEpoch: 3,
      members: 2,
      coordinator: 1,
    })
    expect(doc.groups.find((g: {group: string}) => g.group === 'legacy')).toMatchObject({
      type: 'classic',
      state: 'PreparingRebalance',
      groupEpoch: null,
      assignmentEpoch: null,
      members: 1,
    })
    expect(doc.groups.find((g: {group: string}) => g.group === 'legacy-gone')).toMatchObject({type: 'classic', state: 'Empty', members: null})
  })

  it('--group, --type and --state filter; filters that match nothing exit 4; a bad --type is a usage error', async () => {
    const fake = listed()
    const orders = await runOn(fake, 'group:list', '--json', '--group', 'orders-*', '--type', 'consumer')
    expect(documentOf(orders.stdout).groups.map((g: {group: string}) => g.group)).toEqual(['orders-1'])
    const empty = await runOn(fake, 'group:list', '--json', '--state', 'empty')
    expect(documentOf(empty.stdout).groups.map((g: {group: string}) => g.group)).toEqual(['legacy-gone', 'orders-2'])
    const none = await runOn(fake, 'group:list', '--json', '--group', 'payments-*')
    expect(none.exitCode).toBe(4)
    expect(documentOf(none.stdout).groups).toEqual([])
    const bad = await runOn(fake, 'group:list', '--json', '--type', 'consumers')
    expect(bad.exitCode).toBe(2)
    expect(JSON.parse(bad.stdout).error).toMatchObject({code: 'BAD_GROUP_TYPE', exitCode: 2})
  })
})

describe('impact through a fake cluster', () => {
  it('--json: a change to a topic the group uses bumps it; --fail-on-rebalance 0 exits 3, a change it does not see exits 0', async () => {
    const fake = settledCluster()
    const r = await runOn(fake, 'impact', '--json', '--add-partitions', 'orders=6')
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = documentOf(r.stdout)
    expect(doc.schema).toEqual({name: 'rebalance-doctor/impact', version: 1})
    expect(doc.groups.map((g: {group: string}) => g.group)).toEqual(['g1'])
    expect(doc.groups[0]).toMatchObject({touchedTopics: ['orders'], bumps: {min: 1, max: 1}})
    expect(doc.summary.rebalancing).toBe(1)
    expect(r.stderr).not.toMatch(/reading/)
    const fail = await runOn(fake, 'impact', '--json', '--add-partitions', 'orders=6', '--fail-on-rebalance', '0')
    expect(fail.exitCode).toBe(3)
    const elsewhere = await runOn(fake, 'impact', '--json', '--add-partitions', 'payments=4', '--fail-on-rebalance', '0')
    expect(elsewhere.exitCode).toBe(0)
    expect(documentOf(elsewhere.stdout).summary.rebalancing).toBe(0)
  })
})

describe('audit --quiet through a fake cluster (cron: mail only when something is wrong)', () => {
  it('nothing found: nothing on stdout or stderr, exit 0, the history still recorded; a finding: table and summary, exit 3', async () => {
    const fake = settledCluster()
    const dir = history()
    const ok = await run(['audit', '--quiet', '-b', 'fake:9092', '--history-dir', dir], fake)
    expect(ok.exitCode, ok.stderr).toBe(0)
    expect(ok.stdout).toBe('')
    expect(ok.stderr).toBe('')
    expect(readdirSync(dir)).toEqual(['test-cluster-id'])
    // without --quiet the same run prints its summary line and history note
    const loud = await run(['audit', '-b', 'fake:9092', '--history-dir', dir], fake)
    expect(loud.stdout).toMatch(/no findings/)
    expect(loud.stderr).toMatch(/history: /)

    fake.md = cluster(4) // drift: a finding
    const found = await run(['audit', '-q', '-b', 'fake:9092', '--history-dir', dir], fake)
    expect(found.exitCode).toBe(3)
    expect(found.stdout).toMatch(/\bg1\b/)
    expect(found.stdout).toMatch(/1 with findings: drift 1/)
  })

  it('--quiet with --json, --ndjson or --watch is a usage error', async () => {
    for (const other of [['--json'], ['--ndjson'], ['--watch', '10s']]) {
      const r = await run(['audit', '--quiet', '-b', '127.0.0.1:1', ...other])
      expect(r.exitCode, other.join(' ')).toBe(2)
    }
  })
})
