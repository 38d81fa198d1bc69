import {describe, expect, it} from 'vitest'
import {auditContext} from '../../../src/core/audit/audit.js'
import {
  AuditPass,
  EXIT_HISTORY_FAILED,
  exitWithHistory,
  exitWithPrometheus,
  historyFailed,
  historyGroups,
  type HistoryStatus,
} from '../../../src/core/audit/pass.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {classic, consumer, Log, share} from '../../lib/records.js'
import {cluster, hashOf, settledGroup} from '../../lib/fixtures.js'

const NOW = 1_700_000_000_000 + 3_600_000
const STATS = {partitions: 2, recordsScanned: 40, decodeErrors: 0, durationMs: 5}

/** Groups c1, c2 (consumer; c2 drifting), s1 (share), k1 (classic), gone (deleted), each replayed on its own. */
function groups() {
  const log = new Log()
  settledGroup(log, 'c2', ['orders'], hashOf(cluster(3), ['orders']))
  settledGroup(log, 'c1', ['orders'], hashOf(cluster(5), ['orders']))
  log.write([share.member('s1', 'm1', ['payments']), share.metadata('s1', 1, hashOf(cluster(5), ['payments']))])
  log.write([classic.group('k1', 1, ['a'])])
  settledGroup(log, 'gone', ['orders'], 1n)
  log.write([
    consumer.memberTombstone('gone', 'm1'),
    consumer.targetTombstone('gone', 'm1'),
    consumer.currentTombstone('gone', 'm1'),
    consumer.metadataTombstone('gone'),
  ])
  const replay = (g: string) => replayGroup(g, log.records)
  return {replay, summaries: ['c2', 'c1', 's1', 'k1', 'gone'].map(g => [g, replay(g)] as [string, ReturnType<typeof replay>])}
}

describe('AuditPass', () => {
  const ctx = () => auditContext(cluster(5), NOW, 5 * 60_000)

  it('audits every group but the deleted ones (counted), sorted by id, in any partition order', () => {
    const {summaries} = groups()
    const pass = new AuditPass(ctx(), undefined)
    pass.addPartition(summaries.slice(2))
    expect(pass.audited).toBe(2)
    pass.addPartition(summaries.slice(0, 2))
    expect(pass.rows().map(r => r.group)).toEqual(['c1', 'c2', 'k1', 's1'])
    expect(pass.deleted).toBe(1)
    const s = pass.summary(STATS, ['drift'], 'cid', NOW, false)
    expect(s).toMatchObject({
      groups: 4,
      deletedGroupsSkipped: 1,
      byType: {consumer: 2, share: 1, classic: 1},
      findings: {drift: 1},
      exitCode: 3,
      clusterId: 'cid',
      partitions: 2,
    })
  })

  it('--type keeps only those types; a filter that matches nothing is exit 4, no filter is exit 0', () => {
    const {summaries} = groups()
    const shares = new AuditPass(ctx(), new Set(['share'] as const))
    shares.addPartition(summaries)
    expect(shares.rows().map(r => r.group)).toEqual(['s1'])
    const streams = new AuditPass(ctx(), new Set(['streams'] as const))
    streams.addPartition(summaries)
    expect(streams.rows()).toEqual([])
    expect(streams.summary(STATS, ['drift'], null, NOW, true).exitCode).toBe(4)
    const none = new AuditPass(ctx(), undefined)
    expect(none.summary(STATS, ['drift'], null, NOW, false).exitCode).toBe(0)
    // --group filtered them out before the pass saw them: the same exit 4
    expect(none.summary(STATS, ['drift'], null, NOW, true).exitCode).toBe(4)
  })

  it('new bumps (--watch) are kept for groups of the types asked, with a non-empty timeline', () => {
    const {replay} = groups()
    const pass = new AuditPass(ctx(), new Set(['consumer'] as const))
    const empty = {...replay('c1'), timeline: []}
    pass.addPartition(
      [],
      [
        ['c1', replay('c1')],
        ['c2', empty],
        ['s1', replay('s1')],
      ],
    )
    expect(pass.bumps.map(b => b.group)).toEqual(['c1'])
    expect(pass.audited).toBe(0)
  })
})

describe("the run's exit code and what the history records", () => {
  const recorded: HistoryStatus = {recorded: true, dir: '/h', file: '/h/f'}
  const failed: HistoryStatus = {recorded: false, dir: '/h', error: 'EACCES'}
  const off: HistoryStatus = {recorded: false, disabled: true}

  it('5 only when the history failed and nothing else is to say; --no-record is no failure', () => {
    expect([recorded, failed, off].map(historyFailed)).toEqual([false, true, false])
    expect(exitWithHistory({exitCode: 0}, failed)).toBe(EXIT_HISTORY_FAILED)
    expect(exitWithHistory({exitCode: 3}, failed)).toBe(3)
    expect(exitWithHistory({exitCode: 4}, failed)).toBe(4)
    expect(exitWithHistory({exitCode: 0}, off)).toBe(0)
    expect(exitWithHistory({exitCode: 0}, recorded)).toBe(0)
  })

  it('1 when the --prometheus file could not be written, whatever else', () => {
    expect(exitWithPrometheus(3, {file: 'f', written: false, error: 'ENOSPC'})).toBe(1)
    expect(exitWithPrometheus(5, {file: 'f', written: true})).toBe(5)
    expect(exitWithPrometheus(0, undefined)).toBe(0)
  })

  it('the history holds consumer, share and streams groups with an epoch and a stored hash (no classic)', () => {
    const {summaries} = groups()
    const pass = new AuditPass(auditContext(cluster(5), NOW), undefined)
    pass.addPartition(summaries)
    const h = historyGroups(pass.rows())
    expect([...h.keys()]).toEqual(['c1', 'c2', 's1'])
    expect(h.get('c2')).toEqual({type: 'consumer', epoch: 1, hash: hashOf(cluster(3), ['orders']).toString()})
    expect(h.get('s1')).toMatchObject({type: 'share', epoch: 1})
  })
})
