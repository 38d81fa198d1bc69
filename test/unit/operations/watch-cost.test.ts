/**
 * The bumps both watches print carry what they cost (`cost`, core/cost's RebalanceCost), measured from the group as
 * the last read left it: a member joins between two reads, the first member revokes two partitions, the new one
 * takes them. The watch loop runs on real timers at a 10 ms interval and is stopped (SIGTERM) once the bump is out.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {type BumpEvent, bumpDocument} from '../../../src/core/audit/watch.js'
import {watchAudit} from '../../../src/operations/audit/watch.js'
import {explainOne} from '../../../src/operations/explain/one.js'
import {watchGroup} from '../../../src/operations/explain/watch.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {auditSettings, fakeSession} from '../../lib/operations.js'
import {cluster, hashOf} from '../../lib/fixtures.js'
import {consumer, settledConsumer, T1} from '../../lib/records.js'
import {current, UNRELEASED, UNREVOKED} from '../cost/records.js'

const G = 'orders-app'
const all: [string, number[]][] = [[T1, [0, 1, 2, 3]]]

/** m2 joins (epoch 2); m1 revokes 2 and 3 after 4 s; m2 holds them 500 ms later. Returns the times. */
function join2(fake: FakeCluster, h: bigint): {bumpMs: number; releasedMs: number; endMs: number} {
  fake.write(G, [
    consumer.member(G, 'm2', {names: ['orders']}),
    consumer.metadata(G, 2, h),
    consumer.target(G, 'm1', [[T1, [0, 1]]]),
    consumer.target(G, 'm2', [[T1, [2, 3]]]),
    consumer.targetMetadata(G, 2),
    current(G, 'm2', {epoch: 2, state: UNRELEASED}),
  ])
  const bumpMs = fake.time
  fake.write(G, [current(G, 'm1', {epoch: 1, previous: 1, state: UNREVOKED, assigned: [[T1, [0, 1]]], pending: [[T1, [2, 3]]]})])
  fake.write(G, [current(G, 'm1', {epoch: 2, previous: 1, assigned: [[T1, [0, 1]]]})], 4000)
  const releasedMs = fake.time
  fake.write(G, [current(G, 'm2', {epoch: 2, assigned: [[T1, [2, 3]]]})], 500)
  return {bumpMs, releasedMs, endMs: fake.time}
}

function setup() {
  const fake = new FakeCluster(cluster(), {offsetsPartitions: 1})
  const h = hashOf(fake.md, ['orders'])
  fake.write(G, settledConsumer(G, 'm1', ['orders'], h, all))
  return {fake, h}
}

/** The bump event's cost is the join's: two partitions from m1 to m2, each 500 ms without an owner, converged. */
function expectJoinCost(e: BumpEvent, t: {bumpMs: number; releasedMs: number; endMs: number}) {
  expect(e.epoch).toBe(2)
  const cost = bumpDocument(e).cost!
  expect(cost).toMatchObject({epoch: 2, previousEpoch: 1, atMs: t.bumpMs, movedCount: 2, unownedPartitionMs: 1000})
  expect(cost.moved.map(m => [m.partition, m.from?.memberId, m.to?.memberId, m.releasedBy, m.unownedMs])).toEqual([
    [2, 'm1', 'm2', 'revocation', t.endMs - t.releasedMs],
    [3, 'm1', 'm2', 'revocation', t.endMs - t.releasedMs],
  ])
  expect(cost.moved[0].topic).toBe('orders')
  expect(cost.convergence).toMatchObject({status: 'converged', afterMs: t.endMs - t.bumpMs})
  expect(cost.slowest).toMatchObject({member: {memberId: 'm1', clientId: 'client-m1'}, doing: 'revoking'})
  // the NDJSON line as printed
  expect(JSON.parse(JSON.stringify(bumpDocument(e))).cost.offset).toBe(cost.offset)
}

describe('watch bump events carry their cost', () => {
  it('group explain --watch: the bump read after the report', async () => {
    const {fake, h} = setup()
    const historyDir = mkdtempSync(join(tmpdir(), 'rd-wc-'))
    const {watchFrom, report} = await explainOne(fakeSession(fake), G, {now: Date.now(), stuckAfterMs: undefined, historyDir})
    const t = join2(fake, h)
    const events: BumpEvent[] = []
    await watchGroup(
      fakeSession(fake),
      G,
      {...watchFrom!, report},
      {interval: {text: '10ms', ms: 10}, stuckAfterMs: undefined, historyDir},
      {
        bumps: e => {
          events.push(...e)
          if (events.length > 0) process.emit('SIGTERM', 'SIGTERM')
        },
        revisions: () => {},
        readEnded: () => {},
      },
    )
    expect(events).toHaveLength(1)
    expectJoinCost(events[0], t)
  }, 20_000)

  it('audit --watch: the bump of the pass after the first', async () => {
    const {fake, h} = setup()
    const events: BumpEvent[] = []
    let t: ReturnType<typeof join2> | undefined
    const settings = auditSettings(mkdtempSync(join(tmpdir(), 'rd-wc-')))
    const w = {interval: {text: '10ms', ms: 10}, version: 'test', persistCheckpoints: false, filters: '', debug: false}
    await watchAudit(fakeSession(fake), settings, w, {
      bumps: e => {
        events.push(...e)
        if (events.length > 0) process.emit('SIGTERM', 'SIGTERM')
      },
      revisions: () => {},
      stuck: () => {},
      // the first pass is the baseline: the join is written after it
      passEnded: () => {
        t ??= join2(fake, h)
      },
    })
    expect(events).toHaveLength(1)
    expectJoinCost(events[0], t!)
  }, 20_000)
})
