/**
 * A fake cluster whose ids are as long as real ones get (Kafka Streams app ids, generated client ids), for the
 * layout tests at 80, 120 and 200 columns: a drifting group with a member that left, a group with a member stuck
 * revoking, and what ListGroups and the describes answer for them.
 */
import {cluster, hashOf} from './fixtures.js'
import {consumer, T1, T2} from './records.js'
import {FakeCluster} from './fake-cluster.js'
import type {RecordToEncode} from '../../src/core/records/index.js'

export const LONG = {
  drifting: 'orders-payment-reconciliation-eu-west-1-primary',
  stuck: 'clickstream-sessionizer-streams-app-analytics-prod',
  classic: 'legacy-billing-batch-exporter-nightly-consumer',
  memberA: 'vForXk6KQOegihAgBwidgg',
  memberB: 'Yj4cM3n0RkK9lS2AvQmXqA',
  memberC: 'q7ZbW1xT0kS8mN3pLr5uVg',
  clientA: 'consumer-orders-payment-reconciliation-7f3a2c',
  clientB: 'sessionizer-StreamThread-3-consumer-9d2e41',
  clientC: 'consumer-orders-payment-reconciliation-1b9e07',
} as const

function member(g: string, m: string, client: string, names: string[]): RecordToEncode {
  const r = consumer.member(g, m, {names})
  ;(r.value as {ClientId: string}).ClientId = client
  return r
}

export function longIdCluster(): FakeCluster {
  const L = LONG
  const fake = new FakeCluster(cluster(3))
  const h = hashOf(fake.md, ['orders'])
  // drifting: two members, one leaves; then orders grows (below): the stored hash is stale
  const g = L.drifting
  fake.write(g, [
    member(g, L.memberA, L.clientA, ['orders']),
    consumer.metadata(g, 1, h),
    consumer.target(g, L.memberA, [[T1, [0, 1, 2]]]),
    consumer.targetMetadata(g, 1),
    consumer.current(g, L.memberA, 1, [[T1, [0, 1, 2]]]),
  ])
  fake.write(
    g,
    [
      member(g, L.memberC, L.clientC, ['orders']),
      consumer.metadata(g, 2, h),
      consumer.target(g, L.memberA, [[T1, [0, 1]]]),
      consumer.target(g, L.memberC, [[T1, [2]]]),
      consumer.targetMetadata(g, 2),
      consumer.current(g, L.memberA, 2, [[T1, [0, 1]]]),
      consumer.current(g, L.memberC, 2, [[T1, [2]]]),
    ],
    60_000,
  )
  fake.write(
    g,
    [
      consumer.memberTombstone(g, L.memberC),
      consumer.targetTombstone(g, L.memberC),
      consumer.currentTombstone(g, L.memberC),
      consumer.metadata(g, 3, h),
      consumer.target(g, L.memberA, [[T1, [0, 1, 2]]]),
      consumer.targetMetadata(g, 3),
      consumer.current(g, L.memberA, 3, [[T1, [0, 1, 2]]]),
    ],
    60_000,
  )
  // stuck: member A keeps partitions member B is to get (UNREVOKED_PARTITIONS since long ago)
  const s = L.stuck
  const hs = hashOf(fake.md, ['orders', 'payments'])
  fake.write(s, [
    member(s, L.memberA, L.clientA, ['orders', 'payments']),
    consumer.metadata(s, 1, hs),
    consumer.target(s, L.memberA, [
      [T1, [0, 1, 2]],
      [T2, [0, 1]],
    ]),
    consumer.targetMetadata(s, 1),
    consumer.current(s, L.memberA, 1, [
      [T1, [0, 1, 2]],
      [T2, [0, 1]],
    ]),
  ])
  const revoking = consumer.current(s, L.memberA, 2, [
    [T1, [0, 1]],
    [T2, [0, 1]],
  ])
  ;(revoking.value as {State: number}).State = 1
  ;(revoking.value as {PartitionsPendingRevocation: unknown}).PartitionsPendingRevocation = [{TopicId: T1, Partitions: [2], AssignmentEpochs: null}]
  fake.write(
    s,
    [
      member(s, L.memberB, L.clientB, ['orders', 'payments']),
      consumer.metadata(s, 2, hs),
      consumer.target(s, L.memberA, [
        [T1, [0, 1]],
        [T2, [0, 1]],
      ]),
      consumer.target(s, L.memberB, [[T1, [2]]]),
      consumer.targetMetadata(s, 2),
      revoking,
      consumer.current(s, L.memberB, 2, []),
    ],
    60_000,
  )
  fake.md = cluster(5) // orders grew from 3 to 5 partitions: the drifting group's stored hash is stale
  fake.addGroup(L.drifting, 'consumer', 'Stable', {groupEpoch: 3, assignmentEpoch: 3, members: 1})
  fake.addGroup(L.stuck, 'consumer', 'Reconciling', {groupEpoch: 2, assignmentEpoch: 2, members: 2})
  fake.addGroup(L.classic, 'classic', 'Stable')
  return fake
}
