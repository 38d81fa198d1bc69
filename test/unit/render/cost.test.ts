/** The cost line under a bump: what moved, the time without an owner, convergence, and the slowest member, in words. */
import {describe, expect, it} from 'vitest'
import type {RebalanceCost} from '../../../src/core/cost/index.js'
import {costLine} from '../../../src/render/cost.js'

const base: RebalanceCost = {
  groupId: 'g',
  groupType: 'consumer',
  epoch: 3,
  previousEpoch: 2,
  offset: '10',
  at: '2026-12-04T10:00:00.000Z',
  atMs: 0,
  moved: [],
  movedCount: 2,
  unownedPartitionMs: 12_400,
  convergence: {status: 'converged', at: '2026-12-04T10:00:06.200Z', atMs: 6200, offset: '20', afterMs: 6200},
  slowest: {
    member: {memberId: 'abcdef123456', clientId: 'slow\u001b[31m'},
    doing: 'revoking',
    ms: 6000,
    fromMs: 0,
    toMs: 6000,
    ongoing: false,
    removed: false,
    units: 2,
    unitRefs: [],
  },
  protocol: null,
  assignor: null,
  cannotTell: [],
}

describe('costLine', () => {
  it('says what moved, for how long nothing owned it, when the group converged and who held it up (escaped)', () => {
    const line = costLine(base)
    expect(line).toBe(
      'cost: 2 partitions moved; 12.4 partition-s without an owner; converged in 6.2 s; slowest client slow\\x1b[31m: revoking 2 partitions for 6.0 s',
    )
  })

  it('a member with no record since the bump is not said to have stopped heartbeating', () => {
    const line = costLine({...base, slowest: {...base.slowest!, doing: 'not-heartbeating', ms: 1000}})
    expect(line).toContain('no record of it for 1.0 s')
    expect(line).not.toContain('heartbeat')
  })

  it('a bump the next one overtook, and a classic group: no duration claimed for classic', () => {
    const superseded = costLine({
      ...base,
      convergence: {status: 'superseded', byEpoch: 4, at: '', atMs: 0, afterMs: 3100, pending: [], settled: {at: '', atMs: 0, offset: '30', afterMs: 9000}},
    })
    expect(superseded).toContain('epoch 4 came after 3.1 s; settled after 9.0 s')
    const classic = costLine({
      ...base,
      groupType: 'classic',
      unownedPartitionMs: 0,
      slowest: null,
      protocol: 'eager',
      convergence: {status: 'not-measured', reason: 'classic-group'},
    })
    expect(classic).toBe('cost: 2 partitions moved; eager protocol; no duration in the records')
  })
})
