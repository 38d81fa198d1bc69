/**
 * audit's per-group lag: the sum core/audit/lag.ts makes of OffsetFetch's committed offsets and ListOffsets' log
 * ends, the rows that carry it (never the cached ones), and the command through a fake cluster: --json, --ndjson,
 * --prometheus, --incremental's rows read back from a checkpoint, --no-lag, and a failed OffsetFetch.
 */
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {groupLag, withLag} from '../../../src/core/audit/lag.js'
import {setClusterFactory} from '../../../src/kafka/session.js'
import {FakeCluster, withFake} from '../../lib/fake-cluster.js'
import {run} from '../helpers.js'
import {consumer, share, T1} from '../replay/log.js'
import {cluster, hashOf} from './fixtures.js'

afterEach(() => setClusterFactory(undefined))

const c = (topic: string, partition: number, offset: bigint, errorCode = 0) => ({topic, partition, offset, errorCode})

describe('groupLag', () => {
  it('sums log end − committed over the committed partitions; -1 is no position; an unknown log end is counted apart', () => {
    const ends = new Map([
      ['orders:0', {offset: 100n, error: null}],
      ['orders:1', {offset: 50n, error: null}],
      ['orders:2', {offset: null, error: 'LEADER_NOT_AVAILABLE'}],
      // beyond 2^53: exact as a decimal string
      ['big:0', {offset: 2n ** 60n, error: null}],
    ])
    expect(groupLag([c('orders', 0, 90n), c('orders', 1, 50n), c('orders', 2, 7n), c('orders', 3, -1n)], ends)).toEqual({
      totalLag: '10',
      partitions: 3,
      partitionsUnknown: 1,
      error: null,
    })
    expect(groupLag([c('big', 0, 1n)], ends).totalLag).toBe((2n ** 60n - 1n).toString())
    // a partition OffsetFetch answered with an error: counted, its lag unknown
    expect(groupLag([c('orders', 0, 90n, 3)], ends)).toEqual({totalLag: '0', partitions: 1, partitionsUnknown: 1, error: null})
  })
})

describe('withLag', () => {
  it('new rows with lag last; the rows given (an incremental audit caches them) are not changed', () => {
    const row = {group: 'g1', members: 1} as never
    const [out] = withLag([row], new Map([['g1', {totalLag: '5', partitions: 1, partitionsUnknown: 0, error: null}]]))
    expect(Object.keys(out).at(-1)).toBe('lag')
    expect(out).not.toBe(row)
    expect('lag' in (row as object)).toBe(false)
    expect((withLag([row], undefined)[0] as {lag: unknown}).lag).toBeNull()
  })
})

/** g1: a consumer group on orders with commits 40 and 70 on partitions 0 and 1 (log end 100 each); s1: a share group. */
function clusterWithCommits(): FakeCluster {
  const fake = new FakeCluster(cluster(), {logEnd: 100n})
  const h = hashOf(fake.md, ['orders'])
  fake.write('g1', [
    consumer.member('g1', 'm1', {names: ['orders']}),
    consumer.metadata('g1', 1, h),
    consumer.target('g1', 'm1', [[T1, [0, 1, 2]]]),
    consumer.targetMetadata('g1', 1),
    consumer.current('g1', 'm1', 1, [[T1, [0, 1, 2]]]),
  ])
  fake.write('g1', [consumer.offsetCommit('g1', 'orders', 0, 40n), consumer.offsetCommit('g1', 'orders', 1, 70n)])
  fake.write('s1', [
    share.member('s1', 'x1', ['orders']),
    share.metadata('s1', 1, h),
    share.target('s1', 'x1', [[T1, [0, 1, 2]]]),
    share.targetMetadata('s1', 1),
    share.current('s1', 'x1', 1, [[T1, [0, 1, 2]]]),
  ])
  return fake
}

const audit = (fake: FakeCluster, ...args: string[]) => withFake(fake, () => run(['audit', '-b', 'fake:9092', ...args]))
const rowOf = (doc: {groups: Array<{group: string}>}, g: string) => doc.groups.find(r => r.group === g) as unknown as {lag: unknown}

describe('audit: per-group lag through a fake cluster', () => {
  it("--json, --ndjson and --prometheus carry each group's lag; a share group has none", async () => {
    const fake = clusterWithCommits()
    const prom = join(mkdtempSync(join(tmpdir(), 'rd-lag-')), 'rd.prom')
    const r = await audit(fake, '--json', '--no-record', '--prometheus', prom)
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(rowOf(doc, 'g1').lag).toEqual({totalLag: '90', partitions: 2, partitionsUnknown: 0, error: null})
    expect(rowOf(doc, 's1').lag).toBeNull()
    expect(readFileSync(prom, 'utf8')).toMatch(/^rebalance_doctor_group_lag\{cluster_id="test-cluster-id",group="g1",type="consumer"\} 90$/m)
    expect(readFileSync(prom, 'utf8')).not.toMatch(/^rebalance_doctor_group_lag\{[^}]*group="s1"/m)

    const nd = await audit(fake, '--ndjson', '--no-record')
    const line = nd.stdout.split('\n').find(l => l.includes('"group":"g1"'))!
    expect(JSON.parse(line).lag).toEqual({totalLag: '90', partitions: 2, partitionsUnknown: 0, error: null})
  })

  it("--incremental: a row read back from its checkpoint gets this run's lag, not the last one's", async () => {
    const fake = clusterWithCommits()
    const dir = mkdtempSync(join(tmpdir(), 'rd-lag-'))
    const first = await audit(fake, '--json', '--incremental', '--history-dir', dir)
    expect(first.exitCode, first.stderr).toBe(0)
    expect(rowOf(JSON.parse(first.stdout), 'g1').lag).toMatchObject({totalLag: '90'})
    fake.logEnd.set('orders:0', 1040n) // the topic moved on; the group wrote nothing
    const second = await audit(fake, '--json', '--incremental', '--history-dir', dir)
    expect(second.exitCode, second.stderr).toBe(0)
    expect(JSON.parse(second.stdout).summary.incremental.partitionsResumed).toBeGreaterThan(0)
    expect(rowOf(JSON.parse(second.stdout), 'g1').lag).toMatchObject({totalLag: '1030'})
  })

  it("--no-lag reads no offsets (lag null); an OffsetFetch error is the group's; a failed fetch is a warning, not the audit's failure", async () => {
    const fake = clusterWithCommits()
    const off = await audit(fake, '--json', '--no-record', '--no-lag')
    expect(off.exitCode).toBe(0)
    expect(rowOf(JSON.parse(off.stdout), 'g1').lag).toBeNull()
    expect(fake.calls).not.toContain('committedOffsets')

    fake.committedErrors.set('g1', 30)
    const denied = await audit(fake, '--json', '--no-record')
    expect(rowOf(JSON.parse(denied.stdout), 'g1').lag).toEqual({totalLag: '0', partitions: 0, partitionsUnknown: 0, error: 'GROUP_AUTHORIZATION_FAILED'})
    // the warning says what OffsetFetch needs and the grant
    expect(JSON.parse(denied.stdout).warnings).toContain(
      'lag not read where refused: OffsetFetch refused (GROUP_AUTHORIZATION_FAILED): it needs DESCRIBE on group g1; grant: kafka-acls --bootstrap-server <bootstrap-server> --add --allow-principal User:<you> --operation Describe --group g1',
    )

    fake.committedErrors.clear()
    fake.committedOffsetsError = new Error('the broker went away')
    const failed = await audit(fake, '--json', '--no-record')
    expect(failed.exitCode).toBe(0)
    const doc = JSON.parse(failed.stdout)
    expect(rowOf(doc, 'g1').lag).toBeNull()
    expect(JSON.stringify(doc.warnings)).toContain('per-group lag not read (groups[].lag null): the broker went away')
  })
})
