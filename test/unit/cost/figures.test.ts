/**
 * CostTracker.figures: what an audit row needs, made from the fold without building every bump's cost, equals what
 * the bumps' whole costs (finish) say; after save() (bumps that can change no more kept as sums) and restore(), the
 * same figures.
 */
import {describe, expect, it} from 'vitest'
import {AUDIT_COST_WINDOW_MS} from '../../../src/core/audit/cost.js'
import {CostTracker, type RebalanceCost} from '../../../src/core/cost/index.js'
import {decodeRecord} from '../../../src/core/records/index.js'
import type {LoggedRecord} from '../../../src/core/replay/index.js'
import {batches, generate} from '../audit/generated.js'

/** Each generated group's records, in log order (consumer, share, streams and classic groups). */
function groups(seed: number): Map<string, LoggedRecord[]> {
  const out = new Map<string, LoggedRecord[]>()
  for (const b of batches(generate(seed, 24, 80), seed))
    for (const r of b.records) {
      const record = decodeRecord(r.key!, r.value, r.offset)
      const id = record.groupId
      if (id === undefined) continue
      let list = out.get(id)
      if (!list) out.set(id, (list = []))
      list.push({offset: r.offset, timestamp: Number(r.timestamp), batchBaseOffset: b.baseOffset, record})
    }
  return out
}

/** The brief of a whole RebalanceCost, read from its fields (the reference). */
function briefOf(c: RebalanceCost) {
  const v = c.convergence
  const s = c.slowest
  return {
    epoch: c.epoch,
    previousEpoch: c.previousEpoch,
    at: c.at,
    atMs: c.atMs,
    offset: c.offset,
    status: v.status,
    afterMs: v.status === 'not-measured' ? null : v.afterMs,
    asOf: v.status === 'not-converged' ? v.asOf : null,
    membersPending: v.status === 'not-converged' || v.status === 'superseded' ? v.pending.length : 0,
    partitionsMoved: c.movedCount,
    unownedPartitionMs: c.unownedPartitionMs,
    partitionsWithoutOwner: c.moved.filter(m => m.open).length,
    slowest: s && {member: s.member, doing: s.doing, ms: s.ms, ongoing: s.ongoing},
  }
}

describe('CostTracker.figures', () => {
  it("the last bump in brief and the sums equal the whole costs' figures, for every group type; and so after save and restore at any record", () => {
    const statuses = new Set<string>()
    for (const [id, records] of groups(11)) {
      const whole = new CostTracker(id)
      for (const r of records) whole.push(r)
      const costs = whole.finish()
      const f = whole.figures(AUDIT_COST_WINDOW_MS)
      const last = costs.at(-1)
      expect(f.last, id).toEqual(last ? briefOf(last) : null)
      if (last) statuses.add(`${last.groupType}/${last.convergence.status}`)
      expect(f.total.bumps).toBe(costs.length)
      expect(f.total.partitionsMoved).toBe(costs.reduce((n, c) => n + c.movedCount, 0))
      expect(f.total.unownedPartitionMs).toBe(costs.reduce((n, c) => n + c.unownedPartitionMs, 0))
      const inWindow = last ? costs.filter(c => c.atMs >= last.atMs - AUDIT_COST_WINDOW_MS) : []
      expect(f.window?.bumps ?? 0).toBe(inWindow.length)
      // saved (through JSON-like text: CostTracker.restore is given what a checkpoint reads back) at a few cuts
      for (const cut of [1, Math.floor(records.length / 3), Math.floor(records.length / 2), records.length - 1]) {
        const t = new CostTracker(id)
        for (const r of records.slice(0, cut)) t.push(r)
        const again = CostTracker.restore(id, structuredClone(t.save(AUDIT_COST_WINDOW_MS)))!
        for (const r of records.slice(cut)) again.push(r)
        expect(again.figures(AUDIT_COST_WINDOW_MS), `${id} cut at ${cut}`).toEqual(f)
      }
    }
    // the generated groups reach the cases the brief reads differently
    expect([...statuses]).toEqual(expect.arrayContaining(['classic/not-measured', 'share/not-measured']))
    expect([...statuses].some(s => s.startsWith('consumer/'))).toBe(true)
  })

  it('a saved tracker gives its figures only; what restore cannot read is none', () => {
    const t = new CostTracker('g')
    t.save(AUDIT_COST_WINDOW_MS)
    expect(() => t.finish()).toThrow()
    expect(() => t.figures(2 * AUDIT_COST_WINDOW_MS)).toThrow()
    expect(CostTracker.restore('g', undefined)).toBeUndefined()
    expect(CostTracker.restore('g', {v: 2, modern: [], lastMs: 0, windowMs: 1})).toBeUndefined()
    expect(CostTracker.restore('g', {v: 1, modern: [{type: 'consumer'}], lastMs: 0, windowMs: 1})).toBeUndefined()
  })

  it('a tracker that keeps figures only (its ended bumps as sums as it goes) gives the same figures and saves the same state, at every record', () => {
    for (const seed of [11, 12]) {
      for (const [id, records] of groups(seed)) {
        const whole = new CostTracker(id)
        const brief = new CostTracker(id).keepFiguresOnly()
        for (const r of records) {
          whole.push(r)
          brief.push(r)
          expect(brief.figures(AUDIT_COST_WINDOW_MS), `${id} at ${r.offset}`).toEqual(whole.figures(AUDIT_COST_WINDOW_MS))
        }
        // (the whole tracker's bumps before its save, then both saved: the same state, as a checkpoint keeps it)
        expect(brief.save(AUDIT_COST_WINDOW_MS)).toEqual(whole.save(AUDIT_COST_WINDOW_MS))
      }
    }
  })

  it('a tracker that keeps figures only has no whole costs to give, and keeps fewer bumps whole than it read', () => {
    const [id, records] = [...groups(11)].find(([, rs]) => new Set(rs.map(r => (r.record as {value?: {Epoch?: number}}).value?.Epoch)).size > 12)!
    const brief = new CostTracker(id).keepFiguresOnly()
    for (const r of records) brief.push(r)
    expect(() => brief.finish()).toThrow()
    const internal = brief as unknown as {modern: Map<string, {drafts: unknown[]; done: {total: {bumps: number}}}>}
    const folds = [...internal.modern.values()]
    expect(folds.reduce((n, f) => n + f.done.total.bumps, 0)).toBeGreaterThan(0)
    expect(folds.reduce((n, f) => n + f.drafts.length, 0)).toBeLessThan(brief.figures(AUDIT_COST_WINDOW_MS).total.bumps)
  })
})
