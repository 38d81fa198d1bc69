/**
 * audit rows carry what each group's rebalances cost (core/audit/cost.ts): measured by the scan for a group whose
 * records it read, the same for a group resumed from a checkpoint (its fold goes on from the checkpoint's state);
 * null with the reason when the checkpoint kept none; the table's DETAILS
 * line, the JSON and NDJSON rows, and the Prometheus series of the last rebalance.
 */
import {describe, expect, it} from 'vitest'
import {auditContext} from '../../../src/core/audit/audit.js'
import {AUDIT_COST_WINDOW_MS} from '../../../src/core/audit/cost.js'
import {ndjsonLines, prometheusText} from '../../../src/core/audit/output.js'
import {AuditPass} from '../../../src/core/audit/pass.js'
import {PartitionScan} from '../../../src/core/audit/scan.js'
import {fullRow} from '../../../src/core/audit/stored-row.js'
import {rebalanceCosts} from '../../../src/core/cost/index.js'
import {decodeRecord} from '../../../src/core/records/index.js'
import type {LoggedRecord} from '../../../src/core/replay/index.js'
import {renderAuditTable} from '../../../src/render/audit.js'
import {PLAIN} from '../../../src/render/style.js'
import {cluster} from '../../lib/fixtures.js'
import {parseExposition} from '../../lib/prom-text.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {hashOf} from '../../lib/fixtures.js'
import {settledConsumer} from '../../lib/records.js'
import {run} from '../helpers.js'
import {parse} from 'yaml'
import {BatchWriter, consumer, T1} from '../../lib/records.js'
import {current, UNRELEASED, UNREVOKED} from '../cost/records.js'
import type {RecordToEncode} from '../../../src/core/records/index.js'
import type {LogBatch} from '../../../src/core/log/batch.js'

/** Batches, and the same records as LoggedRecords (for core/cost's own fold, the reference). */
class Writer {
  readonly w = new BatchWriter()
  readonly batches: LogBatch[] = []
  readonly records: LoggedRecord[] = []

  write(records: RecordToEncode[], gap = 1000): number {
    this.w.time += gap - 1000
    const b = this.w.batch(records)
    this.batches.push(b)
    for (const r of b.records)
      this.records.push({offset: r.offset, timestamp: Number(r.timestamp), batchBaseOffset: b.baseOffset, record: decodeRecord(r.key!, r.value, r.offset)})
    return this.w.time
  }
}

const all: [string, number[]][] = [[T1, [0, 1, 2, 3]]]

/** m1 alone (epoch 1), then m2 joins (epoch 2): m1 revokes 2 and 3 in 6 s, m2 holds them 500 ms later. */
function join(w: Writer, g: string, o: {converge: boolean}): {bumpMs: number; releasedMs: number; endMs: number} {
  w.write([
    consumer.member(g, 'm1'),
    consumer.metadata(g, 1),
    consumer.target(g, 'm1', all),
    consumer.targetMetadata(g, 1),
    current(g, 'm1', {epoch: 1, assigned: all}),
  ])
  const bumpMs = w.write(
    [
      consumer.member(g, 'm2'),
      consumer.metadata(g, 2),
      consumer.target(g, 'm1', [[T1, [0, 1]]]),
      consumer.target(g, 'm2', [[T1, [2, 3]]]),
      consumer.targetMetadata(g, 2),
      current(g, 'm2', {epoch: 2, state: UNRELEASED}),
    ],
    60_000,
  )
  w.write([current(g, 'm1', {epoch: 1, previous: 1, state: UNREVOKED, assigned: [[T1, [0, 1]]], pending: [[T1, [2, 3]]]})])
  if (!o.converge) return {bumpMs, releasedMs: 0, endMs: w.w.time}
  const releasedMs = w.write([current(g, 'm1', {epoch: 2, previous: 1, assigned: [[T1, [0, 1]]]})], 6000)
  const endMs = w.write([current(g, 'm2', {epoch: 2, assigned: [[T1, [2, 3]]]})], 500)
  return {bumpMs, releasedMs, endMs}
}

function audit(scan: PartitionScan) {
  const pass = new AuditPass(auditContext(cluster(), Date.now()), undefined)
  pass.addScanned(scan.scanned())
  return pass.rows().map(fullRow)
}

describe('audit rows: what the rebalances cost', () => {
  it('the last bump as core/cost measures it: moved partitions, their time without an owner, convergence, the slowest member', () => {
    const w = new Writer()
    const t = join(w, 'g', {converge: true})
    const scan = new PartitionScan({rowCosts: true})
    for (const b of w.batches) scan.onBatch(b)
    const [row] = audit(scan)
    const reference = rebalanceCosts('g', w.records).at(-1)!
    expect(row.cost.reason).toBeNull()
    expect(row.cost.last).toMatchObject({
      epoch: 2,
      previousEpoch: 1,
      atMs: t.bumpMs,
      offset: reference.offset,
      status: 'converged',
      afterMs: t.endMs - t.bumpMs,
      partitionsMoved: 2,
      unownedPartitionMs: 2 * (t.endMs - t.releasedMs),
      partitionsWithoutOwner: 0,
      membersPending: 0,
      slowest: {member: {memberId: 'm1', clientId: 'client-m1'}, doing: 'revoking', ongoing: false},
    })
    expect(row.cost.last!.unownedPartitionMs).toBe(reference.unownedPartitionMs)
    expect(row.cost.last!.slowest!.ms).toBe(reference.slowest!.ms)
    // the first bump (m1's four partitions, from nobody) is a minute before, inside the hour
    expect(row.cost.total).toEqual({bumps: 2, partitionsMoved: 6, unownedPartitionMs: 1000, notConverged: 0, maxConvergeMs: t.endMs - t.bumpMs})
    expect(row.cost.window).toMatchObject({bumps: 2, to: new Date(t.bumpMs).toISOString(), from: new Date(t.bumpMs - AUDIT_COST_WINDOW_MS).toISOString()})
  })

  it('a bump not converged: since when, what is pending, and the Prometheus flag and age', () => {
    const w = new Writer()
    const t = join(w, 'g', {converge: false})
    const scan = new PartitionScan({rowCosts: true})
    for (const b of w.batches) scan.onBatch(b)
    const rows = audit(scan)
    const last = rows[0].cost.last!
    expect(last).toMatchObject({status: 'not-converged', asOf: new Date(t.endMs).toISOString(), afterMs: t.endMs - t.bumpMs, membersPending: 2})
    const {member, doing, ms, ongoing} = rebalanceCosts('g', w.records).at(-1)!.slowest!
    expect(last.slowest).toEqual({member, doing, ms, ongoing})
    const auditTime = t.bumpMs + 10 * 60_000
    const samples = parseExposition(prometheusText(summaryAt(auditTime), rows))
    const value = (name: string) => samples.find(s => s.name === `rebalance_doctor_${name}` && s.labels.group === 'g')?.value
    expect(value('group_last_rebalance_not_converged')).toBe(1)
    expect(value('group_last_rebalance_not_converged_seconds')).toBe(600)
    expect(value('group_last_rebalance_convergence_seconds')).toBeUndefined()
    expect(value('group_last_rebalance_partitions_moved')).toBe(0)
    expect(renderAuditTable(rows, {all: true}, {...PLAIN, width: 80})).toContain('not converged as of')
  })

  it('the hour before the last bump, and every bump read', () => {
    const w = new Writer()
    join(w, 'g', {converge: true})
    // two hours later m2 leaves: its two partitions go back to m1
    w.write(
      [consumer.currentTombstone('g', 'm2'), consumer.targetTombstone('g', 'm2'), consumer.memberTombstone('g', 'm2'), consumer.metadata('g', 3)],
      2 * 3_600_000,
    )
    w.write([consumer.target('g', 'm1', all), consumer.targetMetadata('g', 3), current('g', 'm1', {epoch: 3, previous: 2, assigned: all})], 2000)
    const scan = new PartitionScan({rowCosts: true})
    for (const b of w.batches) scan.onBatch(b)
    const [row] = audit(scan)
    expect(row.cost.last).toMatchObject({epoch: 3, partitionsMoved: 2, unownedPartitionMs: 4000, status: 'converged', afterMs: 2000})
    expect(row.cost.window).toMatchObject({bumps: 1, partitionsMoved: 2})
    expect(row.cost.total).toMatchObject({bumps: 3, partitionsMoved: 8})
    const costs = rebalanceCosts('g', w.records)
    expect(row.cost.total!.unownedPartitionMs).toBe(costs.reduce((n, c) => n + c.unownedPartitionMs, 0))
  })

  /** g: a join, a leave two hours later, a bump superseded with partitions still without an owner; h: a join left revoking. */
  function longRun(): Writer {
    const w = new Writer()
    join(w, 'g', {converge: true})
    join(w, 'h', {converge: false})
    w.write(
      [consumer.currentTombstone('g', 'm2'), consumer.targetTombstone('g', 'm2'), consumer.memberTombstone('g', 'm2'), consumer.metadata('g', 3)],
      2 * 3_600_000,
    )
    w.write([consumer.target('g', 'm1', all), consumer.targetMetadata('g', 3), current('g', 'm1', {epoch: 3, previous: 2, assigned: all})], 2000)
    w.write([current('g', 'm1', {epoch: 3, previous: 3, assigned: [[T1, [0, 1]]]}), consumer.member('g', 'm3'), consumer.metadata('g', 4)], 3000)
    w.write([consumer.target('g', 'm3', [[T1, [2, 3]]]), consumer.targetMetadata('g', 4), current('g', 'm3', {epoch: 4, state: UNRELEASED})], 1500)
    return w
  }

  /** The rows of a scan resumed from the checkpoint data (texts) of scans that stopped after each of `cuts` batches. */
  function resumedAt(w: Writer, cuts: number[], strip = false) {
    let from: ConstructorParameters<typeof PartitionScan>[1]
    let start = 0
    for (const end of [...cuts, w.batches.length]) {
      const scan = new PartitionScan({rowCosts: true}, from)
      for (const b of w.batches.slice(start, end)) scan.onBatch(b)
      if (end === w.batches.length) return audit(scan)
      const groups = scan.data().map(([id, g]) => [id, strip ? {...g, data: JSON.stringify({...JSON.parse(g.data!), cost: undefined})} : g] as const)
      from = {groups, counters: scan.counters}
      start = end
    }
    throw new Error('unreachable')
  }

  it("a group resumed from a checkpoint goes on from its cost fold: cut anywhere, once or twice, its row is a full read's", () => {
    const w = longRun()
    const full = new PartitionScan({rowCosts: true})
    for (const b of w.batches) full.onBatch(b)
    const expected = JSON.stringify(audit(full))
    // (the full read measured every bump: not a comparison of two nulls)
    expect(JSON.parse(expected).map((r: {cost: {total: {bumps: number}}}) => r.cost.total.bumps)).toEqual([4, 2])
    const n = w.batches.length
    for (let i = 1; i < n; i++) {
      expect(JSON.stringify(resumedAt(w, [i])), `cut after batch ${i}`).toBe(expected)
      for (let j = i + 1; j < n; j++) expect(JSON.stringify(resumedAt(w, [i, j])), `cuts after batches ${i} and ${j}`).toBe(expected)
    }
  })

  it("a checkpoint state without the cost fold's (an older file's) is not measured: null and why, never a wrong cost", () => {
    const w = longRun()
    const rows = resumedAt(w, [w.batches.length - 2], true)
    const g = rows.find(r => r.group === 'g')!
    expect(g.cost).toEqual({last: null, window: null, total: null, reason: 'resumed-from-checkpoint'})
    // h had no records after the cut: its row is recomputed from the state kept, without a cost fold all the same
    expect(rows.find(r => r.group === 'h')!.cost.reason).toBe('resumed-from-checkpoint')
    const samples = parseExposition(prometheusText(summaryAt(Date.now()), rows)).filter(s => s.labels.group === 'g' && /last_rebalance|moved/.test(s.name))
    expect(samples).toEqual([])
    expect(renderAuditTable(rows, {all: true}, {...PLAIN, width: 80})).toContain('cost not measured (state resumed from the checkpoint)')
  })

  it('the table keeps the cost line within 80 columns; JSON and NDJSON rows carry the cost object', () => {
    const w = new Writer()
    join(w, 'g', {converge: true})
    const scan = new PartitionScan({rowCosts: true})
    for (const b of w.batches) scan.onBatch(b)
    const rows = audit(scan)
    const table = renderAuditTable(rows, {all: true}, {...PLAIN, width: 80})
    expect(table).toMatch(/last bump \(epoch 2,/)
    for (const line of table.split('\n')) expect(line.length).toBeLessThanOrEqual(80)
    const line = JSON.parse(ndjsonLines(summaryAt(Date.now()), rows).split('\n')[0])
    expect(line.cost).toEqual(JSON.parse(JSON.stringify(rows[0].cost)))
    expect(line.cost.last.offset).toMatch(/^\d+$/)
  })

  it('Prometheus: each series once with HELP and TYPE, the counter ending in _total', () => {
    const w = new Writer()
    const t = join(w, 'g', {converge: true})
    const scan = new PartitionScan({rowCosts: true})
    for (const b of w.batches) scan.onBatch(b)
    const text = prometheusText(summaryAt(Date.now()), audit(scan))
    expect(text).toContain('# TYPE rebalance_doctor_group_partitions_moved_total counter')
    for (const n of ['convergence_seconds', 'not_converged', 'not_converged_seconds', 'unowned_partition_seconds', 'partitions_moved'])
      expect(text).toContain(`# TYPE rebalance_doctor_group_last_rebalance_${n} gauge`)
    const samples = parseExposition(text)
    const value = (name: string) => samples.find(s => s.name === `rebalance_doctor_${name}` && s.labels.group === 'g')?.value
    expect(value('group_last_rebalance_convergence_seconds')).toBe((t.endMs - t.bumpMs) / 1000)
    expect(value('group_last_rebalance_not_converged')).toBe(0)
    expect(value('group_last_rebalance_not_converged_seconds')).toBeUndefined()
    expect(value('group_last_rebalance_unowned_partition_seconds')).toBe(1)
    expect(value('group_partitions_moved_total')).toBe(6)
  })
})

function summaryAt(ms: number) {
  const pass = new AuditPass(auditContext(cluster(), ms), undefined)
  return pass.summary({partitions: 1, recordsScanned: 0, decodeErrors: 0, durationMs: 0}, [], null, ms, false)
}

describe('audit -o yaml', () => {
  it('the row carries the same cost object as in JSON', async () => {
    const fake = new FakeCluster(cluster(), {offsetsPartitions: 1})
    const h = hashOf(fake.md, ['orders'])
    fake.write('g', settledConsumer('g', 'm1', ['orders'], h, [[T1, [0, 1, 2]]]))
    // (one at a time: run() captures the process's stdout)
    const yaml = await run(['audit', '-b', 'fake:9092', '--no-record', '--no-lag', '-o', 'yaml'], fake)
    const json = await run(['audit', '-b', 'fake:9092', '--no-record', '--no-lag', '--json'], fake)
    const fromYaml = (parse(yaml.stdout) as {groups: Array<{cost: unknown}>}).groups[0].cost
    expect(fromYaml).toMatchObject({reason: null, last: {epoch: 1, status: 'converged', partitionsMoved: 3}})
    expect(fromYaml).toEqual((JSON.parse(json.stdout) as {groups: Array<{cost: unknown}>}).groups[0].cost)
  })
})
