/**
 * The --prometheus file's labels: --prometheus-label (validated, escaped, on every series), the file's name while
 * no cluster id is known (two files of runs that never reached a cluster are never the same series set: node_exporter
 * drops one of two duplicates without an error), and the per-group time of the last bump.
 */
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {auditContext, auditGroup, type GroupAudit, summarize} from '../../../src/core/audit/audit.js'
import {parsePrometheusLabels, prometheusFailureText, prometheusText} from '../../../src/core/audit/output.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {Log} from '../../lib/records.js'
import {cluster, hashOf, settledGroup} from '../../lib/fixtures.js'
import {run} from '../helpers.js'
import {parseExposition, seriesKey} from '../../lib/prom-text.js'

const NOW = 1_700_000_000_000 + 3_600_000

function row(): GroupAudit {
  const log = new Log()
  settledGroup(log, 'orders', ['orders'], hashOf(cluster(5), ['orders']))
  return auditGroup('orders', replayGroup('orders', log.records), auditContext(cluster(5), NOW))
}

describe('--prometheus-label', () => {
  it('NAME=VALUE pairs in order; a value may hold = and any character', () => {
    expect(parsePrometheusLabels(['cluster=prod', 'env=a=b "c"\n'])).toEqual([
      ['cluster', 'prod'],
      ['env', 'a=b "c"\n'],
    ])
    expect(parsePrometheusLabels([])).toEqual([])
  })

  it.each([
    ['no =', 'cluster', /not NAME=VALUE/],
    ['a name Prometheus does not allow', '1x=a', /not a Prometheus label name/],
    ['a dash in the name', 'my-label=a', /not a Prometheus label name/],
    ['a reserved __ name', '__name__=a', /not a Prometheus label name/],
    ['a label the tool writes', 'group=a', /written by rebalance-doctor itself/],
    ['cluster_id', 'cluster_id=a', /written by rebalance-doctor itself/],
  ])('%s is refused', (_what, item, message) => {
    expect(() => parsePrometheusLabels([item])).toThrow(message)
  })

  it('a name given twice is refused', () => {
    expect(() => parsePrometheusLabels(['a=1', 'a=2'])).toThrow(/given twice/)
  })

  it('every series carries cluster_id, then the labels, escaped; no file label once the cluster id is known', () => {
    const r = row()
    const summary = summarize([r], {partitions: 1, recordsScanned: 5, decodeErrors: 0, durationMs: 10}, ['drift'], 'cid', NOW)
    const text = prometheusText(summary, [r], {
      labels: [
        ['cluster', 'prod'],
        ['note', 'a"b\\c\nd'],
      ],
      fileName: 'rd.prom',
    })
    const samples = parseExposition(text)
    expect(samples.length).toBeGreaterThan(10)
    for (const s of samples) {
      expect(Object.keys(s.labels).slice(0, 3)).toEqual(['cluster_id', 'cluster', 'note'])
      expect(s.labels.note).toBe('a"b\\c\nd')
      expect(s.labels.file).toBeUndefined()
    }
    expect(text).toContain('rebalance_doctor_up{cluster_id="cid",cluster="prod",note="a\\"b\\\\c\\nd"} 1')
  })

  it('the time of the last bump per group, in seconds', () => {
    const r = row()
    const summary = summarize([r], {partitions: 1, recordsScanned: 5, decodeErrors: 0, durationMs: 10}, ['drift'], 'cid', NOW)
    const s = parseExposition(prometheusText(summary, [r])).find(x => x.name === 'rebalance_doctor_group_epoch_timestamp_seconds')
    expect(r.lastEpochTime).not.toBeNull()
    expect(s).toEqual({
      name: 'rebalance_doctor_group_epoch_timestamp_seconds',
      labels: {cluster_id: 'cid', group: 'orders', type: 'consumer'},
      value: Date.parse(r.lastEpochTime!) / 1000,
    })
  })

  it('no cluster id known: the file name is a label, so two such files never hold the same series', () => {
    const f = {clusterId: null, startedAt: NOW, durationMs: 1000, exitCode: 1, errorCode: 'CONNECTION_REFUSED'}
    const a = parseExposition(prometheusFailureText(f, {fileName: 'a.prom'})).map(seriesKey)
    const b = parseExposition(prometheusFailureText(f, {fileName: 'b.prom'})).map(seriesKey)
    expect(a.filter(k => b.includes(k))).toEqual([])
    expect(a[0]).toBe('rebalance_doctor_up{cluster_id="",file="a.prom"}')
    // with a cluster id: no file label (the label set of the good runs)
    expect(parseExposition(prometheusFailureText({...f, clusterId: 'K'}, {fileName: 'a.prom'}))[0].labels).toEqual({cluster_id: 'K'})
  })
})

describe('audit --prometheus-label through the command', () => {
  it('two audits of two unreachable clusters into one textfile directory: no series in both files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-prom-'))
    for (const name of ['east.prom', 'west.prom']) {
      const r = await run(['audit', '-b', '127.0.0.1:1', '--timeout', '1s', '--no-record', '--prometheus', join(dir, name)])
      expect(r.exitCode).toBe(1)
    }
    const east = parseExposition(readFileSync(join(dir, 'east.prom'), 'utf8')).map(seriesKey)
    const west = parseExposition(readFileSync(join(dir, 'west.prom'), 'utf8')).map(seriesKey)
    expect(east.length).toBeGreaterThan(0)
    expect(east.filter(k => west.includes(k))).toEqual([])
  }, 30_000)

  it('the labels are on every series of a failed run; a bad label is a usage error (exit 2, in the file too)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-prom-'))
    const prom = join(dir, 'rd.prom')
    const r = await run([
      'audit',
      '-b',
      '127.0.0.1:1',
      '--timeout',
      '1s',
      '--no-record',
      '--prometheus',
      prom,
      '--prometheus-label',
      'cluster=prod',
      '--prometheus-label',
      'dc=eu-1',
    ])
    expect(r.exitCode, r.error?.message).toBe(1)
    for (const s of parseExposition(readFileSync(prom, 'utf8'))) expect(s.labels).toMatchObject({cluster_id: '', cluster: 'prod', dc: 'eu-1', file: 'rd.prom'})
    const bad = await run(['audit', '-b', '127.0.0.1:1', '--no-record', '--prometheus', prom, '--prometheus-label', 'type=x'])
    expect(bad.exitCode).toBe(2)
    expect(bad.error?.message).toMatch(/type/)
    expect(readFileSync(prom, 'utf8')).toMatch(/^rebalance_doctor_audit_exit_code\{cluster_id="",file="rd.prom"\} 2$/m)
  }, 30_000)
})
