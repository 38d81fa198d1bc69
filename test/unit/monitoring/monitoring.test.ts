/**
 * contrib/monitoring: the alerting rules pass `promtool check rules`, and `promtool test rules` fires the
 * stale-cache, audit-down and rebalance-not-converged alerts on the series a real audit run wrote (in-process against
 * the fake cluster, and against an unreachable address); the dashboard's and the rules' queries name only series the
 * tool writes.
 * promtool comes from Debian's `prometheus` package: where it is absent those tests are skipped with a message.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {stringify} from 'yaml'
import {beforeAll, describe, expect, it} from 'vitest'
import {cluster, hashOf} from '../../lib/fixtures.js'
import {consumer, T1, settledConsumer} from '../../lib/records.js'
import {current, UNRELEASED, UNREVOKED} from '../cost/records.js'
import {ROOT, run} from '../helpers.js'
import {refusedDescribe} from '../../lib/describes.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {parseExposition, type Sample} from '../../lib/prom-text.js'

const RULES = join(ROOT, 'contrib/monitoring/rebalance-doctor.rules.yml')
const DASHBOARD = join(ROOT, 'contrib/monitoring/rebalance-doctor.dashboard.json')
const promtool = spawnSync('promtool', ['--version'], {encoding: 'utf8', timeout: 60_000}).status === 0
if (!promtool) console.warn('promtool not found: skipping the promtool checks of contrib/monitoring (Debian: apt-get install prometheus)')

/** Series of two real runs: a good audit whose group's stored hash is stale in the coordinator cache, and a failed one. */
async function writtenSeries(): Promise<{good: Sample[]; failed: Sample[]}> {
  const dir = mkdtempSync(join(tmpdir(), 'rd-monitoring-'))
  const fake = new FakeCluster(cluster(3, 2, 'rack-a'))
  // records of two minutes ago: the not-converged rebalance is that old when the audit reads it
  fake.time = Date.now() - 120_000
  const g = 'orders-app'
  const h = hashOf(fake.md, ['orders'])
  fake.write(g, settledConsumer(g, 'm1', ['orders'], h, [[T1, [0, 1, 2]]]))
  // broker 3 moved from rack-a to rack-b: a broker change the coordinator's topic-hash cache has not seen (no bump)
  fake.md = cluster(3, 2, 'rack-b')
  notConverged(fake, 'payments-app', hashOf(fake.md, ['orders']))
  const good = join(dir, 'good.prom')
  const r = await run(['audit', '-b', 'fake:9092', '--no-record', '--quiet', '--prometheus', good, '--prometheus-label', 'env=test'], fake)
  expect(r.exitCode, r.stdout + r.stderr).toBe(3)
  const failed = join(dir, 'down.prom')
  expect((await run(['audit', '-b', '127.0.0.1:1', '--timeout', '1s', '--no-record', '--prometheus', failed, '--prometheus-label', 'env=test'])).exitCode).toBe(
    1,
  )
  return {good: parseExposition(readFileSync(good, 'utf8')), failed: parseExposition(readFileSync(failed, 'utf8'))}
}

/** Series of a describe-only audit (READ on __consumer_offsets refused) where one listed group's describe is refused. */
async function refusedSeries(dir: string): Promise<Sample[]> {
  const fake = new FakeCluster(cluster(3, 2, 'rack-a'), {offsetsPartitions: 1, logEnd: 0n})
  fake.describeGroup('consumer', {groupId: 'calm-app', state: 'Stable', groupEpoch: 4, assignmentEpoch: 4, assignorName: 'uniform', members: []})
  fake.describeGroup('consumer', refusedDescribe('secret-app'))
  fake.offsetsReadRefused = true
  const file = join(dir, 'refused.prom')
  const r = await run(['audit', '-b', 'fake:9092', '--describe-only', '--no-record', '--quiet', '--prometheus', file], fake)
  expect(r.exitCode, r.stdout + r.stderr).toBe(1)
  return parseExposition(readFileSync(file, 'utf8'))
}

/** A group whose second member joined while the first has not revoked partition 2 yet: its last rebalance has not converged. */
function notConverged(fake: FakeCluster, g: string, h: bigint): void {
  fake.write(g, settledConsumer(g, 'm1', ['orders'], h, [[T1, [0, 1, 2]]]))
  fake.write(g, [
    consumer.member(g, 'm2', {names: ['orders']}),
    consumer.metadata(g, 2, h),
    consumer.target(g, 'm1', [[T1, [0, 1]]]),
    consumer.target(g, 'm2', [[T1, [2]]]),
    consumer.targetMetadata(g, 2),
    current(g, 'm2', {epoch: 2, state: UNRELEASED}),
  ])
  fake.write(g, [current(g, 'm1', {epoch: 1, previous: 1, state: UNREVOKED, assigned: [[T1, [0, 1]]], pending: [[T1, [2]]]})])
}

/** A sample as promtool's input series notation: name{k="v",…}. */
const seriesOf = (s: Sample) =>
  `${s.name}{${Object.entries(s.labels)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',')}}`

/** The labels of the alert on `s`: an empty label is no label in Prometheus. */
const alertLabels = (s: Sample, extra: Record<string, string>) => ({...Object.fromEntries(Object.entries(s.labels).filter(([, v]) => v !== '')), ...extra})

/** Metric names in a PromQL expression that are ours (every series the tool writes starts with rebalance_doctor_). */
const namesIn = (expr: string) => [...expr.matchAll(/\b(rebalance_doctor_[a-z_]+)\b/g)].map(m => m[1])

/** `promtool test rules` of the rules over `input_series`, one sample a minute, evaluated each minute. */
function promtoolTestRules(input_series: object[], alert_rule_test: object[]) {
  const test = {rule_files: [RULES], evaluation_interval: '1m', tests: [{interval: '1m', input_series, alert_rule_test}]}
  const file = join(mkdtempSync(join(tmpdir(), 'rd-promtool-')), 'test.yml')
  writeFileSync(file, stringify(test))
  return spawnSync('promtool', ['test', 'rules', file], {encoding: 'utf8', timeout: 60_000})
}
describe('contrib/monitoring', () => {
  let series: {good: Sample[]; failed: Sample[]}
  beforeAll(async () => {
    series = await writtenSeries()
  }, 60_000)

  it('the runs wrote the series the rules are tested on (a STALE_COORDINATOR_CACHE verdict, up 1 and up 0)', () => {
    expect(series.good.find(s => s.name === 'rebalance_doctor_group_verdict')?.labels).toMatchObject({
      group: 'orders-app',
      verdict: 'STALE_COORDINATOR_CACHE',
      env: 'test',
    })
    expect(series.good.find(s => s.name === 'rebalance_doctor_up')?.value).toBe(1)
    const notConverged = series.good.find(s => s.name === 'rebalance_doctor_group_last_rebalance_not_converged_seconds')
    expect(notConverged?.labels.group).toBe('payments-app')
    expect(notConverged?.value).toBeGreaterThan(0)
    expect(series.good.find(s => s.name === 'rebalance_doctor_group_last_rebalance_convergence_seconds')?.labels.group).toBe('orders-app')
    expect(series.failed.find(s => s.name === 'rebalance_doctor_up')?.value).toBe(0)
  })

  it('the dashboard and the rules name only series the tool writes, and every query names one', () => {
    const written = new Set([...series.good, ...series.failed].map(s => s.name))
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: Array<{title: string; targets?: Array<{expr: string}>}>
      templating: {list: Array<{query?: unknown}>}
    }
    const exprs = [
      ...dashboard.panels.flatMap(p => (p.targets ?? []).map(t => t.expr)),
      ...dashboard.templating.list.map(v => v.query).filter((q): q is string => typeof q === 'string' && q.includes('(')),
      ...[...readFileSync(RULES, 'utf8').matchAll(/^\s+expr: (.+)$/gm)].map(m => m[1]),
    ]
    expect(exprs.length).toBeGreaterThan(15)
    for (const e of exprs) {
      expect(namesIn(e).length, e).toBeGreaterThan(0)
      for (const n of namesIn(e)) expect(written, `${n} in ${e}`).toContain(n)
    }
  })

  it.skipIf(!promtool)('promtool check rules', () => {
    const r = spawnSync('promtool', ['check', 'rules', RULES], {encoding: 'utf8', timeout: 60_000})
    expect(r.status, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toMatch(/SUCCESS: \d+ rules found/)
  })

  it.skipIf(!promtool)('promtool test rules: a rebalance not converged fires past 10 minutes, as later audits see it age', () => {
    const age = series.good.find(s => s.name === 'rebalance_doctor_group_last_rebalance_not_converged_seconds')!
    // an audit a minute: the bump a minute older each time (the written value, then +60 s a minute)
    const input = [{series: seriesOf(age), values: `${Math.round(age.value)}+60x30`}]
    const fired = {exp_labels: alertLabels(age, {severity: 'warning'}), exp_annotations: annotations('KafkaGroupRebalanceNotConverged', age)}
    const r = promtoolTestRules(input, [
      {eval_time: '5m', alertname: 'KafkaGroupRebalanceNotConverged', exp_alerts: []},
      {eval_time: '12m', alertname: 'KafkaGroupRebalanceNotConverged', exp_alerts: [fired]},
    ])
    expect(r.status, r.stdout + r.stderr).toBe(0)
  })

  it.skipIf(!promtool)('promtool test rules: stale-cache and audit-down fire on the written series (and not before their `for`)', () => {
    const input = [...series.good, ...series.failed].map(s => ({series: seriesOf(s), values: `${s.value}x90`}))
    const verdict = series.good.find(s => s.name === 'rebalance_doctor_group_verdict')!
    const down = series.failed.find(s => s.name === 'rebalance_doctor_up')!
    const r = promtoolTestRules(input, [
      {eval_time: '20m', alertname: 'KafkaGroupStaleCoordinatorCache', exp_alerts: []},
      {
        eval_time: '40m',
        alertname: 'KafkaGroupStaleCoordinatorCache',
        exp_alerts: [{exp_labels: alertLabels(verdict, {severity: 'info'}), exp_annotations: annotations('KafkaGroupStaleCoordinatorCache', verdict)}],
      },
      {eval_time: '10m', alertname: 'RebalanceDoctorAuditDown', exp_alerts: []},
      // only the failed run's file: the good one has up 1
      {
        eval_time: '20m',
        alertname: 'RebalanceDoctorAuditDown',
        exp_alerts: [{exp_labels: alertLabels(down, {severity: 'warning'}), exp_annotations: annotations('RebalanceDoctorAuditDown', down)}],
      },
    ])
    expect(r.status, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toMatch(/SUCCESS/)
  })
})

describe('contrib/monitoring: groups the audit may not describe', () => {
  let refused: Sample[]
  beforeAll(async () => {
    refused = await refusedSeries(mkdtempSync(join(tmpdir(), 'rd-monitoring-')))
  }, 60_000)

  it.skipIf(!promtool)('promtool test rules: RebalanceDoctorGroupsRefused fires on the written count after an hour, not on 0', () => {
    const count = refused.find(s => s.name === 'rebalance_doctor_audit_groups_refused')!
    expect(count.value).toBe(1)
    const none = {...count, labels: {...count.labels, cluster_id: 'other'}, value: 0}
    const fired = {exp_labels: alertLabels(count, {severity: 'info'}), exp_annotations: annotations('RebalanceDoctorGroupsRefused', count)}
    const r = promtoolTestRules(
      [count, none].map(s => ({series: seriesOf(s), values: `${s.value}x90`})),
      [
        {eval_time: '30m', alertname: 'RebalanceDoctorGroupsRefused', exp_alerts: []},
        {eval_time: '70m', alertname: 'RebalanceDoctorGroupsRefused', exp_alerts: [fired]},
      ],
    )
    expect(r.status, r.stdout + r.stderr).toBe(0)
  })
})

/** The rule's annotations with {{ $labels.x }} filled from the sample (the templates these two rules use). */
function annotations(alert: string, s: Sample): Record<string, string> {
  const text = readFileSync(RULES, 'utf8')
  const block = text.slice(text.indexOf(`alert: ${alert}\n`)).split(/\n\s+- alert: /)[0]
  const out: Record<string, string> = {}
  for (const m of block.matchAll(/^\s+(summary|description): "(.*)"$/gm))
    out[m[1]] = m[2].replace(/\{\{ \$labels\.([a-z_]+) \}\}/g, (_, k: string) => s.labels[k] ?? '')
  return out
}
