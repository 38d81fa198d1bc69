import {describe, expect, it} from 'vitest'
import {groupOffsets, type LogEnd, offsetPartitionsOf} from '../../../src/core/explain/report/offsets.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {OFFSET_ROWS, offsetsText} from '../../../src/render/explain.js'
import {consumer, Log, share, T1, T2} from '../../lib/records.js'

const G = 'g'
const live = parseMetadataDocument(
  {
    brokers: [{id: 1, rack: null}],
    topics: [
      {name: 'orders', topicId: T1, partitions: [0, 1, 2].map(partition => ({partition, replicas: [1]}))},
      {name: 'payments', topicId: T2, partitions: [{partition: 0, replicas: [1]}]},
    ],
  },
  'test',
)

const ends = (e: Record<string, bigint | null>) =>
  new Map<string, LogEnd>(Object.entries(e).map(([k, v]) => [k, {offset: v, error: v === null ? 'LEADER_NOT_AVAILABLE' : null}]))

describe('offsets per partition, as kafka-consumer-groups --describe lists them', () => {
  const log = new Log()
  log.write([
    consumer.member(G, 'a', {names: ['orders', 'payments']}),
    consumer.metadata(G, 1),
    consumer.targetMetadata(G, 1),
    consumer.target(G, 'a', [[T1, [0, 1]]]),
    consumer.current(G, 'a', 1, [[T1, [1, 0]]]),
  ])
  log.write([consumer.offsetCommit(G, 'orders', 0, 5n), consumer.offsetCommit(G, 'payments', 0, 7n)])
  // a later commit replaces the earlier one; a tombstone deletes a commit
  log.write([consumer.offsetCommit(G, 'orders', 0, 9n), consumer.offsetCommit(G, 'orders', 2, 3n)])
  log.write([{type: 1, key: {group: G, topic: 'orders', partition: 2}, value: null}])
  const state = replayGroup(G, log.records).state

  it('assigned partitions with their member, then committed partitions no member has; the latest commit; lag = log end − committed', () => {
    expect(offsetPartitionsOf(state, live)).toEqual([
      {topic: 'orders', partition: 0},
      {topic: 'orders', partition: 1},
      {topic: 'payments', partition: 0},
    ])
    const o = groupOffsets(state, live, ends({'orders:0': 12n, 'orders:1': 4n, 'payments:0': null}))!
    expect(o.partitions).toEqual([
      {
        topic: 'orders',
        topicId: T1,
        partition: 0,
        committedOffset: '9',
        logEndOffset: '12',
        lag: '3',
        memberId: 'a',
        clientId: 'client-a',
        host: '/10.0.0.1',
        logEndError: null,
      },
      {
        topic: 'orders',
        topicId: T1,
        partition: 1,
        committedOffset: null,
        logEndOffset: '4',
        lag: null,
        memberId: 'a',
        clientId: 'client-a',
        host: '/10.0.0.1',
        logEndError: null,
      },
      {
        topic: 'payments',
        topicId: T2,
        partition: 0,
        committedOffset: '7',
        logEndOffset: null,
        lag: null,
        memberId: null,
        clientId: null,
        host: null,
        logEndError: 'LEADER_NOT_AVAILABLE',
      },
    ])
    expect(o.totalLag).toBe('3')
    expect(o.uncommitted).toBe(1)
  })

  it('64-bit offsets stay exact', () => {
    const big = new Log()
    big.write([consumer.metadata(G, 1), consumer.offsetCommit(G, 'orders', 0, 9007199254740993n)])
    const o = groupOffsets(replayGroup(G, big.records).state, live, ends({'orders:0': 9007199254741000n}))!
    expect(o.partitions[0]).toMatchObject({committedOffset: '9007199254740993', logEndOffset: '9007199254741000', lag: '7', memberId: null})
  })

  it('none for a share group', () => {
    const s = new Log()
    s.write([share.member(G, 's1', ['orders']), share.metadata(G, 1)])
    expect(groupOffsets(replayGroup(G, s.records).state, live, new Map())).toBeNull()
    expect(offsetPartitionsOf(replayGroup(G, s.records).state, live)).toEqual([])
  })

  it('text: a summary line, "-" for what is missing, rows cut after OFFSET_ROWS with the count of the rest', () => {
    const text = offsetsText(groupOffsets(state, live, ends({'orders:0': 12n, 'orders:1': 4n, 'payments:0': null}))!)
    expect(text.split('\n')[0]).toBe('offsets: 3 partitions, total lag 3, 1 without a committed offset')
    expect(text).toMatch(/│ orders\s+│\s+1 │\s+- │\s+4 │\s+- │ a\s+│ \/10\.0\.0\.1 │ client-a │/)
    const many = new Log()
    many.write([consumer.metadata(G, 1), ...Array.from({length: OFFSET_ROWS + 5}, (_, i) => consumer.offsetCommit(G, `t${String(i).padStart(2, '0')}`, 0, 1n))])
    const long = offsetsText(groupOffsets(replayGroup(G, many.records).state, live, new Map())!)
    expect(long).toContain('t19')
    expect(long).not.toContain('t20')
    expect(long.split('\n').at(-1)).toBe('… and 5 more partitions (--json lists them all)')
  })
})
