import {describe, expect, it} from 'vitest'
import {auditContext, auditGroup, type GroupAudit, summarize} from '../../../src/core/audit/audit.js'
import {auditDocument, escapeLabel, ndjsonLines, previousClusterId, prometheusFailureText, prometheusText} from '../../../src/core/audit/output.js'
import {renderAuditTable, summaryLine} from '../../../src/render/audit.js'
import {PLAIN} from '../../../src/render/style.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {Log} from '../../lib/records.js'
import {cluster, hashOf, settledGroup} from '../../lib/fixtures.js'

const NOW = 1_700_000_000_000 + 3_600_000

function rows(): GroupAudit[] {
  const ctx = auditContext(cluster(5), NOW)
  const out: GroupAudit[] = []
  for (const [g, md, topics] of [
    ['ok', cluster(5), ['orders']],
    ['drifted', cluster(3), ['orders']],
    ['miss "q"\\x', cluster(5), ['orders', 'nope']],
  ] as const) {
    const log = new Log()
    settledGroup(log, g, [...topics], hashOf(md, [...topics]))
    out.push(auditGroup(g, replayGroup(g, log.records), ctx))
  }
  return out
}

describe('audit outputs', () => {
  const rs = rows()
  const summary = summarize(rs, {partitions: 5, recordsScanned: 42, decodeErrors: 0, durationMs: 1500}, ['drift', 'missing-topics'], 'cid', NOW)

  it('JSON document: schema, summary and groups; 64-bit hashes as decimal strings; round-trips through JSON', () => {
    const doc = JSON.parse(JSON.stringify(auditDocument(summary, rs, [{code: 'HISTORY_NOT_WRITTEN', message: 'full disk'}])))
    expect(Object.keys(doc)).toEqual(['schema', 'summary', 'groups', 'warnings'])
    expect(doc.schema).toEqual({name: 'rebalance-doctor/audit', version: 1})
    expect(doc.warnings).toEqual([{code: 'HISTORY_NOT_WRITTEN', message: 'full disk'}])
    expect(doc.summary).toMatchObject({groups: 3, exitCode: 3, recordsScanned: 42, findings: {drift: 1, 'missing-topics': 1}})
    const d = doc.groups.find((g: GroupAudit) => g.group === 'drifted')
    expect(d.storedMetadataHash).toMatch(/^-?\d+$/)
    expect(BigInt(d.storedMetadataHash)).toBe(hashOf(cluster(3), ['orders']))
    expect(d.drift[0]).toEqual({
      kind: 'partition-count',
      topic: 'orders',
      broker: null,
      then: '3',
      now: '5',
      description: expect.stringContaining('orders had 3 partitions'),
    })
  })

  it('NDJSON: one object per group per line, then the summary', () => {
    const lines = ndjsonLines(summary, rs, ['fenced brokers'])
      .trimEnd()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(lines).toHaveLength(4)
    const group = {name: 'rebalance-doctor/audit-group', version: 1}
    expect(lines.slice(0, 3).map(l => [l.schema, l.group, l.clusterId])).toEqual([
      [group, 'ok', 'cid'],
      [group, 'drifted', 'cid'],
      [group, 'miss "q"\\x', 'cid'],
    ])
    expect(Object.keys(lines[0]).slice(0, 3)).toEqual(['schema', 'time', 'clusterId'])
    expect(lines[3]).toMatchObject({schema: {name: 'rebalance-doctor/audit-summary', version: 1}, groups: 3, exitCode: 3, warnings: ['fenced brokers']})
    expect(Object.keys(lines[3])[0]).toBe('schema')
    expect(Object.keys(lines[3]).at(-1)).toBe('warnings')
  })

  it('table: problems only (unless --all), multi-line details, and a summary line', () => {
    const t = renderAuditTable(rs)
    expect(t).toMatch(/drifted .*REBALANCE_PENDING/)
    expect(t).toContain('drift, consistent with: topic orders had 3 partitions')
    expect(t).toContain('missing topics: nope')
    expect(t).not.toMatch(/\bok\b.*IN_SYNC/)
    expect(renderAuditTable(rs, {all: true})).toMatch(/ok .*IN_SYNC/)
    expect(renderAuditTable(rs.filter(r => r.group === 'ok'))).toBe('')
    expect(summaryLine(summary)).toMatch(/^3 groups \(3 consumer\) · 2 with findings: drift 1, missing-topics 1 · 42 records in 5 partitions, 1\.5 s · exit 3$/)
  })

  it('table with --metadata-log: the exact changes replace the inferred drift; a log that cannot say keeps it and says why', () => {
    const drifted = rs.find(r => r.group === 'drifted')!
    const exact: GroupAudit = {
      ...drifted,
      driftFromLog: {
        source: 'metadata-log',
        exact: true,
        message: 'x',
        changes: [
          {
            offset: '42',
            kind: 'partitions-added',
            timestamp: NOW,
            time: new Date(NOW).toISOString(),
            topic: 'orders',
            description: 'topic orders partitions 3 → 5',
          } as never,
        ],
      },
    }
    const t = renderAuditTable([exact], {}, {...PLAIN, width: 400})
    expect(t).toContain(`drift (exact, from the metadata log): topic orders partitions 3 → 5 (${new Date(NOW).toISOString()})`)
    expect(t).not.toContain('consistent with')
    const notExact: GroupAudit = {
      ...drifted,
      driftFromLog: {source: 'metadata-log', exact: false, message: 'the metadata log does not reach the live metadata'},
    }
    const u = renderAuditTable([notExact], {}, {...PLAIN, width: 400})
    expect(u).toContain('drift, consistent with: topic orders had 3 partitions')
    expect(u).toContain('metadata log: the metadata log does not reach the live metadata')
  })

  it('Prometheus text format: HELP/TYPE per metric, escaped labels, one sample per line', () => {
    const text = prometheusText(summary, rs)
    expect(text.endsWith('\n')).toBe(true)
    const lines = text.trimEnd().split('\n')
    const names = new Set<string>()
    for (const l of lines) {
      if (l.startsWith('# HELP ')) continue
      if (l.startsWith('# TYPE ')) {
        // a counter's name ends in _total, a gauge's never does
        expect(l).toMatch(/^# TYPE rebalance_doctor_(?:[a-z_]+_total counter|[a-z_]+(?<!_total) gauge)$/)
        names.add(l.split(' ')[2])
        continue
      }
      // name{labels} value
      expect(l).toMatch(/^rebalance_doctor_[a-z_]+(\{([a-z_]+="(?:[^"\\\n]|\\["\\n])*",?)*\})? -?[\d.]+(e[+-]?\d+)?$/)
      expect(names.has(l.replace(/[{ ].*$/, ''))).toBe(true)
    }
    expect(text).toContain('rebalance_doctor_group_metadata_hash_in_sync{cluster_id="cid",group="ok",type="consumer"} 1')
    expect(text).toContain('rebalance_doctor_group_metadata_hash_in_sync{cluster_id="cid",group="drifted",type="consumer"} 0')
    expect(text).toContain('rebalance_doctor_group_missing_topics{cluster_id="cid",group="miss \\"q\\"\\\\x",type="consumer"} 1')
    expect(text).toContain('rebalance_doctor_group_verdict{cluster_id="cid",group="drifted",type="consumer",verdict="REBALANCE_PENDING"} 1')
    expect(text).toContain('rebalance_doctor_audit_groups_with_finding{cluster_id="cid",finding="drift"} 1')
    expect(text).toContain('rebalance_doctor_audit_exit_code{cluster_id="cid"} 3')
    expect(text).toContain('rebalance_doctor_up{cluster_id="cid"} 1')
    expect(text).toContain('rebalance_doctor_history_write_failed{cluster_id="cid"} 0')
    expect(text).toContain(`rebalance_doctor_audit_last_run_timestamp_seconds{cluster_id="cid"} ${NOW / 1000}`)
    // every sample carries cluster_id, first
    for (const l of lines.filter(l => !l.startsWith('#'))) expect(l).toMatch(/^[a-z_]+\{cluster_id="cid"/)
    expect(escapeLabel('a\nb')).toBe('a\\nb')
  })

  it('Prometheus: a cluster without an id gets cluster_id="" (same label set); history_write_failed 1 when asked', () => {
    const text = prometheusText({...summary, clusterId: null}, rs, {historyWriteFailed: true})
    expect(text).toContain('rebalance_doctor_up{cluster_id=""} 1')
    expect(text).toContain('rebalance_doctor_history_write_failed{cluster_id=""} 1')
  })

  it('Prometheus failure file: up 0, exit code, time of the run, error code; no per-group series', () => {
    const text = prometheusFailureText({clusterId: 'c"1', startedAt: NOW, durationMs: 1500, exitCode: 1, errorCode: 'CONNECTION_REFUSED'})
    const samples = text
      .trimEnd()
      .split('\n')
      .filter(l => !l.startsWith('#'))
    expect(samples).toEqual([
      'rebalance_doctor_up{cluster_id="c\\"1"} 0',
      'rebalance_doctor_audit_error{cluster_id="c\\"1",code="CONNECTION_REFUSED"} 1',
      'rebalance_doctor_audit_duration_seconds{cluster_id="c\\"1"} 1.5',
      `rebalance_doctor_audit_last_run_timestamp_seconds{cluster_id="c\\"1"} ${NOW / 1000}`,
      'rebalance_doctor_audit_exit_code{cluster_id="c\\"1"} 1',
    ])
    // the cluster id read back from a file, escapes undone; none in a file without one
    expect(previousClusterId(text)).toBe('c"1')
    expect(previousClusterId(prometheusText({...summary, clusterId: 'a\\b\nc'}, rs))).toBe('a\\b\nc')
    expect(previousClusterId('# HELP x\nx 1\n')).toBeUndefined()
  })
})
