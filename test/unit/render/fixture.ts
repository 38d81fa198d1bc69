/** A fixed group explain report for render tests: long member ids, joins, a leave, a member mid-revocation. */
import {explainGroup} from '../../../src/core/explain/explain.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {consumer, Log, T1, T2} from '../../lib/records.js'

export const G = 'orders-service'
export const A = 'consumer-orders-service-1-5c1e0f3a-9b7d-4e2f-8a61-0d3c2b1a9f88'
export const B = 'Yj4cM3n0RkK9lS2AvQmXqA'
export const C = 'q7ZbW1xT0kS8mN3pLr5uVg'

export const live = parseMetadataDocument(
  {
    brokers: [{id: 1, rack: null}],
    topics: [
      {name: 'orders', topicId: T1, partitions: [0, 1, 2, 3].map(partition => ({partition, replicas: [1]}))},
      {name: 'payments', topicId: T2, partitions: [{partition: 0, replicas: [1]}]},
    ],
  },
  'test',
)

/** The group's start: member A alone on orders and payments, settled at epoch 1. */
export function settledA(): Log {
  const log = new Log()
  log.write([
    consumer.member(G, A, {names: ['orders', 'payments']}),
    consumer.metadata(G, 1),
    consumer.targetMetadata(G, 1),
    consumer.target(G, A, [
      [T1, [0, 1, 2, 3]],
      [T2, [0]],
    ]),
    consumer.current(G, A, 1, [
      [T1, [0, 1, 2, 3]],
      [T2, [0]],
    ]),
  ])
  return log
}

export function fixtureLog(): Log {
  const log = settledA()
  log.write([consumer.member(G, C, {names: ['orders']}), consumer.metadata(G, 2), consumer.targetMetadata(G, 2), consumer.target(G, C, [])], {gap: 60_000})
  log.write([consumer.memberTombstone(G, C), consumer.targetTombstone(G, C), consumer.currentTombstone(G, C), consumer.metadata(G, 3)], {gap: 60_000})
  const revoking = consumer.current(G, A, 3, [
    [T1, [0, 1]],
    [T2, [0]],
  ])
  ;(revoking.value as {State: number}).State = 1
  ;(revoking.value as {PartitionsPendingRevocation: unknown}).PartitionsPendingRevocation = [{TopicId: T1, Partitions: [2, 3], AssignmentEpochs: null}]
  log.write(
    [
      consumer.member(G, B, {names: ['orders']}),
      consumer.metadata(G, 4),
      consumer.targetMetadata(G, 4),
      consumer.target(G, A, [
        [T1, [0, 1]],
        [T2, [0]],
      ]),
      consumer.target(G, B, [[T1, [2, 3]]]),
      revoking,
      consumer.current(G, B, 4, []),
    ],
    {gap: 60_000},
  )
  return log
}

export function fixtureReport() {
  const log = fixtureLog()
  return {log, report: explainGroup(G, replayGroup(G, log.records), {live, now: log.time + 180_000})}
}
