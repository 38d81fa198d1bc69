import type {RecordToEncode} from '../../../src/core/records/index.js'
import {describe, expect, it} from 'vitest'
import {auditContext, auditGroup, exitCodeFor, FINDING_KINDS, isDeleted, parseFailOn, summarize} from '../../../src/core/audit/audit.js'
import {groupMatcher, parseTypes} from '../../../src/core/group-filter.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {consumer, Log, T1} from '../../lib/records.js'
import {cluster, hashOf, settledGroup} from '../../lib/fixtures.js'

const NOW = 1_700_000_000_000 + 3_600_000

function audit(log: Log, g: string, md = cluster(), stuckAfterMs = 5 * 60_000) {
  return auditGroup(g, replayGroup(g, log.records), auditContext(md, NOW, stuckAfterMs))
}

/** Group g settled with member m1 at epoch 1, then m2 joins at epoch 2 with `targets` computed and nothing assigned yet. */
function secondMemberJoins(targets: RecordToEncode[]): Log {
  const log = new Log()
  const h = hashOf(cluster(), ['orders'])
  settledGroup(log, 'g', ['orders'], h)
  log.write([
    consumer.member('g', 'm2', {names: ['orders']}),
    consumer.metadata('g', 2, h),
    ...targets,
    consumer.targetMetadata('g', 2),
    consumer.current('g', 'm2', 2),
  ])
  return log
}

describe('auditGroup', () => {
  it('in sync: stored = live hash, no findings', () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders', 'payments'], hashOf(cluster(), ['orders', 'payments']))
    const a = audit(log, 'g')
    expect(a.verdict.code).toBe('IN_SYNC')
    expect(a.inSync).toBe(true)
    expect(a.storedMetadataHash).toBe(a.liveMetadataHash)
    expect(a.findings).toEqual([])
    expect(a.members).toBe(1)
    expect(a.topics).toEqual(['orders', 'payments'])
  })

  it('drift after a partition increase: REBALANCE_PENDING naming the topic and the old count', () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders', 'payments'], hashOf(cluster(3), ['orders', 'payments']))
    const a = audit(log, 'g', cluster(5))
    expect(a.inSync).toBe(false)
    expect(a.verdict.code).toBe('REBALANCE_PENDING')
    expect(a.findings).toEqual(['drift'])
    expect(a.drift).toHaveLength(1)
    expect(a.drift[0]).toMatchObject({kind: 'partition-count', topic: 'orders', then: '3', now: '5'})
    expect(a.liveMetadataHash).toBe(hashOf(cluster(5), ['orders', 'payments']).toString())
  })

  it('groups of the same topics that drifted alike: one search for all, each row as its own audit gives it', () => {
    const log = new Log()
    for (const g of ['a', 'b', 'c']) settledGroup(log, g, ['orders', 'payments'], hashOf(cluster(3), ['orders', 'payments']))
    settledGroup(log, 'other', ['orders'], hashOf(cluster(3), ['orders']))
    const ctx = auditContext(cluster(5), NOW, 5 * 60_000)
    const rows = ['a', 'b', 'c', 'other'].map(g => auditGroup(g, replayGroup(g, log.records), ctx))
    expect(ctx.searches.size).toBe(2)
    for (const row of rows) expect(row).toEqual(audit(log, row.group, cluster(5)))
    expect(rows.map(r => r.drift[0]?.topic)).toEqual(['orders', 'orders', 'orders', 'orders'])
  })

  it('drift from a broker rack change: STALE_COORDINATOR_CACHE, still drift', () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders'], hashOf(cluster(3, 2, 'rack-a'), ['orders']))
    const a = audit(log, 'g', cluster(3, 2, 'rack-b'))
    expect(a.verdict.code).toBe('STALE_COORDINATOR_CACHE')
    expect(a.findings).toContain('drift')
    expect(a.drift.some(d => d.kind === 'broker-rack' && d.broker === 3)).toBe(true)
  })

  it('two topics changed at once: drift named as one change of both, not an unexplained HASH_DIFFERS', () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders', 'payments'], hashOf(cluster(3, 2), ['orders', 'payments']))
    const a = audit(log, 'g', cluster(4, 3))
    expect(a.verdict.code).toBe('REBALANCE_PENDING')
    expect(a.findings).toEqual(['drift'])
    expect(a.drift).toEqual([expect.objectContaining({kind: 'combined', description: expect.stringMatching(/orders.*payments|payments.*orders/)})])
  })

  it('a stored hash nothing tried reproduces: drift without an explanation (HASH_DIFFERS)', () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders', 'payments'], 0x1234_5678n)
    const a = audit(log, 'g', cluster(4, 3))
    expect(a.verdict.code).toBe('HASH_DIFFERS')
    expect(a.findings).toEqual(['drift'])
    expect(a.drift).toEqual([])
  })

  it('assignment pending: target assignment epoch behind the group epoch', () => {
    const log = new Log()
    const h = hashOf(cluster(), ['orders'])
    settledGroup(log, 'g', ['orders'], h)
    log.write([consumer.member('g', 'm2', {names: ['orders']}), consumer.metadata('g', 2, h)])
    const a = audit(log, 'g')
    expect(a.assignmentPending).toBe(true)
    expect(a.verdict.code).toBe('ASSIGNMENT_PENDING')
    expect(a.findings).toContain('pending')
  })

  it('stuck: the member that holds what another is to get is named as blocking it', () => {
    // m2 joins and is to get partition 0, which m1 (still at epoch 1) has not revoked
    const log = secondMemberJoins([consumer.target('g', 'm1', []), consumer.target('g', 'm2', [[T1, [0]]])])
    const a = audit(log, 'g', cluster(), 60_000)
    const m1 = a.stuckMembers.find(m => m.memberId === 'm1')!
    expect(m1).toMatchObject({blocking: ['m2'], waitingOn: []})
  })

  it('stuck: a member reconciling longer than --stuck-after; the same member within the threshold is not stuck', () => {
    const log = secondMemberJoins([consumer.target('g', 'm2', [])])
    // m1 stays at epoch 1 while the target is at 2
    const stuck = audit(log, 'g', cluster(), 60_000)
    expect(stuck.membersReconciling).toBe(1)
    expect(stuck.stuckMembers.map(m => m.memberId)).toEqual(['m1'])
    expect(stuck.stuckMembers[0]).toMatchObject({clientId: expect.any(String), waitingOn: [], blocking: []})
    expect(stuck.findings).toEqual(['stuck'])
    const fresh = audit(log, 'g', cluster(), 24 * 3_600_000)
    expect(fresh.stuckMembers).toEqual([])
    expect(fresh.verdict.code).toBe('RECONCILING')
    expect(fresh.findings).toEqual([])
  })

  it('stuck without --stuck-after: per group, half the smallest rebalance timeout its members declared (5m when none did); the flag overrides it for every group', () => {
    const h = hashOf(cluster(), ['orders'])
    // m1 reconciles from about an hour before NOW in each group; only the rebalance timeouts differ
    const group = (g: string, timeoutMs: number | undefined) => {
      const log = new Log()
      log.write([
        consumer.member(g, 'm1', {names: ['orders'], rebalanceTimeoutMs: timeoutMs}),
        consumer.metadata(g, 1, h),
        consumer.target(g, 'm1', [[T1, [0]]]),
        consumer.targetMetadata(g, 1),
        consumer.current(g, 'm1', 1, [[T1, [0]]]),
      ])
      log.write([
        consumer.member(g, 'm2', {names: ['orders'], rebalanceTimeoutMs: timeoutMs}),
        consumer.metadata(g, 2, h),
        consumer.target(g, 'm2', []),
        consumer.targetMetadata(g, 2),
        consumer.current(g, 'm2', 2),
      ])
      return replayGroup(g, log.records)
    }
    const ctx = auditContext(cluster(), NOW)
    const fast = auditGroup('fast', group('fast', 60_000), ctx)
    expect(fast.stuckAfter).toEqual({ms: 30_000, source: 'rebalance-timeout', smallestRebalanceTimeoutMs: 60_000})
    expect(fast.stuckMembers.map(m => m.memberId)).toEqual(['m1'])
    const slow = auditGroup('slow', group('slow', 4 * 3_600_000), ctx)
    expect(slow.stuckAfter).toEqual({ms: 2 * 3_600_000, source: 'rebalance-timeout', smallestRebalanceTimeoutMs: 4 * 3_600_000})
    expect(slow.membersReconciling).toBe(1)
    expect(slow.stuckMembers).toEqual([])
    // the flag: one threshold for every group
    const flagged = auditContext(cluster(), NOW, 24 * 3_600_000)
    expect(auditGroup('fast', group('fast', 60_000), flagged).stuckMembers).toEqual([])
    expect(auditGroup('slow', group('slow', 4 * 3_600_000), auditContext(cluster(), NOW, 60_000)).stuckAfter).toEqual({
      ms: 60_000,
      source: 'flag',
      smallestRebalanceTimeoutMs: 4 * 3_600_000,
    })
    // no member declared a timeout (-1, the schema default): 5m
    expect(auditGroup('fast', group('fast', -1), ctx).stuckAfter).toEqual({ms: 5 * 60_000, source: 'default', smallestRebalanceTimeoutMs: null})
  })

  it('missing topics: subscribed names that do not exist', () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders', 'nope'], hashOf(cluster(), ['orders', 'nope']))
    const a = audit(log, 'g')
    expect(a.inSync).toBe(true)
    expect(a.missingTopics).toEqual(['nope'])
    expect(a.findings).toEqual(['missing-topics'])
  })

  it('unknown record types are counted', () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders'], hashOf(cluster(), ['orders']))
    const key = Buffer.from([0x00, 0x63, 0x00, 0x01, 0x67]) // type 99, group "g"
    log.raw(key, Buffer.from([0, 0, 1]))
    const a = audit(log, 'g')
    expect(a.unknownRecords).toBe(1)
    expect(a.findings).toEqual(['unknown-records'])
  })

  it("an empty group's drift is reported but is no finding", () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders'], hashOf(cluster(3), ['orders']))
    log.write([
      consumer.memberTombstone('g', 'm1'),
      consumer.targetTombstone('g', 'm1'),
      consumer.currentTombstone('g', 'm1'),
      consumer.metadata('g', 2, hashOf(cluster(3), ['orders'])),
      consumer.targetMetadata('g', 2),
    ])
    const a = audit(log, 'g', cluster(6))
    expect(a.members).toBe(0)
    expect(a.verdict.code).toBe('EMPTY_GROUP')
    expect(a.findings).toEqual([])
  })
})

describe('deleted groups', () => {
  it('a group whose records end in tombstones is skipped; a live or unknown-record group is not', () => {
    const log = new Log()
    settledGroup(log, 'g', ['orders'], hashOf(cluster(), ['orders']))
    expect(isDeleted(replayGroup('g', log.records))).toBe(false)
    log.write([consumer.memberTombstone('g', 'm1'), consumer.targetTombstone('g', 'm1'), consumer.currentTombstone('g', 'm1'), consumer.metadataTombstone('g')])
    expect(isDeleted(replayGroup('g', log.records))).toBe(true)
    log.raw(Buffer.from([0x00, 0x63, 0x00, 0x01, 0x67]), Buffer.from([0, 0, 1]))
    expect(isDeleted(replayGroup('g', log.records))).toBe(false)
  })
})

describe('filters and policy', () => {
  it('--group: glob over the whole id, or /regex/flags searched', () => {
    const m = groupMatcher('orders-*')
    expect(m('orders-1')).toBe(true)
    expect(m('x-orders-1')).toBe(false)
    expect(groupMatcher('a?c')('abc')).toBe(true)
    expect(groupMatcher('a?c')('abbc')).toBe(false)
    expect(groupMatcher('g[12]')('g2')).toBe(true)
    expect(groupMatcher('g[!12]')('g2')).toBe(false)
    expect(groupMatcher('a.b')('axb')).toBe(false)
    expect(groupMatcher('/^Pay/i')('payments')).toBe(true)
    expect(groupMatcher('/pay/')('x-pay-y')).toBe(true)
    expect(groupMatcher(undefined)('anything')).toBe(true)
  })

  it('--fail-on and --type parsing, with the bad value named', () => {
    expect(parseFailOn('all')).toEqual([...FINDING_KINDS])
    expect(parseFailOn('none')).toEqual([])
    expect(parseFailOn('stuck,drift')).toEqual(['drift', 'stuck'])
    expect(() => parseFailOn('drift,bogus')).toThrow(/"bogus"/)
    expect([...parseTypes('share,consumer')]).toEqual(['share', 'consumer'])
    expect(() => parseTypes('consumer,nope')).toThrow(/"nope"/)
  })

  it('exit code 3 only for the kinds asked for; decode errors count as unknown-records', () => {
    const f = {drift: 1, pending: 0, stuck: 0, 'missing-topics': 0, 'unknown-records': 0, reassignment: 0}
    expect(exitCodeFor({findings: f, decodeErrors: 0}, ['drift'])).toBe(3)
    expect(exitCodeFor({findings: f, decodeErrors: 0}, ['stuck', 'pending'])).toBe(0)
    expect(exitCodeFor({findings: f, decodeErrors: 0}, [])).toBe(0)
    const none = {drift: 0, pending: 0, stuck: 0, 'missing-topics': 0, 'unknown-records': 0, reassignment: 0}
    expect(exitCodeFor({findings: none, decodeErrors: 2}, ['unknown-records'])).toBe(3)
    expect(exitCodeFor({findings: none, decodeErrors: 2}, ['drift'])).toBe(0)
  })

  it('summary counts groups per type, verdict and finding', () => {
    const a = new Log()
    settledGroup(a, 'ok', ['orders'], hashOf(cluster(), ['orders']))
    const b = new Log()
    settledGroup(b, 'drifted', ['orders'], hashOf(cluster(2), ['orders']))
    const ctx = auditContext(cluster(), NOW)
    const rows = [auditGroup('ok', replayGroup('ok', a.records), ctx), auditGroup('drifted', replayGroup('drifted', b.records), ctx)]
    const s = summarize(rows, {partitions: 5, recordsScanned: 10, decodeErrors: 0, durationMs: 12}, ['drift'], 'cid', NOW)
    expect(s).toMatchObject({
      groups: 2,
      byType: {consumer: 2},
      byVerdict: {IN_SYNC: 1, REBALANCE_PENDING: 1},
      groupsWithFindings: 1,
      exitCode: 3,
      clusterId: 'cid',
    })
    expect(s.findings.drift).toBe(1)
    expect(summarize(rows, {partitions: 5, recordsScanned: 10, decodeErrors: 0, durationMs: 12}, [], 'cid', NOW).exitCode).toBe(0)
  })
})
