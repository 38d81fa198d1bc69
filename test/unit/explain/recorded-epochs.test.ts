/**
 * A describe-only report's history: the group's epochs as earlier runs recorded them, and for each rise the changes
 * of the group's topics recorded in that interval, settled honestly (exact only for one change and one bump).
 */
import {describe, expect, it} from 'vitest'
import {recordedEpochs} from '../../../src/core/explain/explain.js'
import {RECORDED_EPOCHS_SHOWN} from '../../../src/core/explain/evidence/history-epochs.js'
import {foldState, type GroupObservation, type HistoryEntry, makeEntry} from '../../../src/core/history/format.js'
import {historyView} from '../../../src/core/history/view.js'
import type {ClusterMetadata} from '../../../src/core/metadata.js'
import {observeTopics} from '../../../src/history/store.js'
import {cluster} from '../../lib/fixtures.js'

const G = 'orders-app'
const T0 = Date.parse('2026-11-01T10:00:00Z')
const HOUR = 3_600_000

/** One recorded run: when, the cluster it saw, and the group's epoch (absent: the group not recorded). */
interface Run {
  at: number
  md: ClusterMetadata
  epoch?: number
  hash?: string | null
}

/** The history lines these runs write: the first full, the others deltas, as the store writes them. */
function linesOf(runs: readonly Run[]): HistoryEntry[] {
  const out: HistoryEntry[] = []
  for (const r of runs) {
    const groups = new Map<string, GroupObservation>(r.epoch === undefined ? [] : [[G, {type: 'consumer', epoch: r.epoch, hash: r.hash ?? null}]])
    const brokers = r.md.brokers.map(b => ({id: b.id, rack: b.rack}))
    out.push(makeEntry(new Date(r.at).toISOString(), 'cid', {brokers, topics: observeTopics(r.md), groups}, out.length === 0 ? undefined : foldState(out)))
  }
  return out
}

const BOTH = ['orders', 'payments']

describe('the epochs a recorded history gives a describe-only report', () => {
  const runs: Run[] = [
    {at: T0, md: cluster(3, 2), epoch: 5},
    {at: T0 + HOUR, md: cluster(4, 2), epoch: 6},
    {at: T0 + 1.5 * HOUR, md: cluster(4, 3)},
    {at: T0 + 2 * HOUR, md: cluster(4, 3), epoch: 9},
    {at: T0 + 3 * HOUR, md: cluster(4, 3), epoch: 10},
  ]
  const h = recordedEpochs(historyView(linesOf(runs)), G, 'consumer', BOTH)!

  it('lists each observation of the group epoch with its time', () => {
    expect(h.recorded).toBe(4)
    expect(h.observations).toEqual([
      {time: '2026-11-01T10:00:00.000Z', epoch: 5},
      {time: '2026-11-01T11:00:00.000Z', epoch: 6},
      {time: '2026-11-01T12:00:00.000Z', epoch: 9},
      {time: '2026-11-01T13:00:00.000Z', epoch: 10},
    ])
    expect(h.rises.map(r => [r.previousEpoch, r.epoch, r.bumps])).toEqual([
      [5, 6, 1],
      [6, 9, 3],
      [9, 10, 1],
    ])
  })

  it('one recorded change and one bump in the interval: the change is exact', () => {
    const [cause] = h.rises[0].causes
    expect(cause).toMatchObject({kind: 'metadata-hash-changed', confidence: 'exact'})
    expect(cause.message).toContain('orders: 3 → 4 partitions')
    expect(cause.details.changes).toMatchObject([{kind: 'partition-count', topic: 'orders', then: '3', now: '4'}])
    // what the history alone said stays as the inference
    expect(cause.details.inferred?.confidence).toBe('inferred-ambiguous')
  })

  it('a rise of 3 with one recorded change (seen at a run between the two observations): a likely cause, not exact', () => {
    const [cause] = h.rises[1].causes
    expect(h.rises[1].causes).toHaveLength(1)
    expect(cause).toMatchObject({kind: 'metadata-hash-changed', confidence: 'inferred-ambiguous'})
    expect(cause.message).toContain('3 bumps seen as one observation')
    expect(cause.message).toContain('payments: 2 → 3 partitions, first seen at 2026-11-01T11:30:00.000Z')
    expect(cause.message).toContain('a likely cause')
    expect(cause.message).toContain('cannot be known')
  })

  it('a rise with no recorded change of the group topics: unexplained, saying members are not recorded', () => {
    const [cause] = h.rises[2].causes
    expect(cause).toMatchObject({kind: 'unexplained', confidence: 'unexplained'})
    expect(cause.message).toContain('no change of the group')
    expect(cause.message).toContain('a join, a leave or a subscription change')
  })

  it("a change of a topic not the group's is no cause", () => {
    const only = recordedEpochs(historyView(linesOf(runs)), G, 'consumer', ['orders'])!
    expect(only.rises[1].causes).toMatchObject([{kind: 'unexplained'}])
  })

  it('two recorded changes in a rise of one: neither is exact', () => {
    const two = recordedEpochs(historyView(linesOf([runs[0], {at: T0 + HOUR, md: cluster(4, 3), epoch: 6}])), G, 'consumer', BOTH)!
    const [cause] = two.rises[0].causes
    expect(cause.confidence).toBe('inferred-ambiguous')
    expect(cause.message).toContain('orders: 3 → 4 partitions')
    expect(cause.message).toContain('payments: 2 → 3 partitions')
  })

  it("one rack change in a rise of one: likely, not exact (Kafka 4.0's rules do not count racks)", () => {
    const racks = recordedEpochs(historyView(linesOf([runs[0], {at: T0 + HOUR, md: cluster(3, 2, 'rack-c'), epoch: 6}])), G, 'consumer', ['orders'])!
    expect(racks.rises[0].causes).toMatchObject([{kind: 'metadata-hash-changed', confidence: 'inferred-ambiguous'}])
  })

  it(`keeps the last ${RECORDED_EPOCHS_SHOWN} observations; a full line repeating an epoch adds none`, () => {
    const many: Run[] = Array.from({length: 25}, (_, i) => ({at: T0 + i * HOUR, md: cluster(), epoch: i + 1}))
    const lines = linesOf(many)
    // a new segment starts with a full line that repeats the group's epoch
    lines.push(
      makeEntry(
        new Date(T0 + 30 * HOUR).toISOString(),
        'cid',
        {brokers: [], topics: observeTopics(cluster()), groups: new Map([[G, {type: 'consumer', epoch: 25, hash: null}]])},
        undefined,
      ),
    )
    const r = recordedEpochs(historyView(lines), G, 'consumer', BOTH)!
    expect(r.recorded).toBe(25)
    expect(r.observations).toHaveLength(RECORDED_EPOCHS_SHOWN)
    expect(r.observations[0].epoch).toBe(6)
    expect(r.rises).toHaveLength(RECORDED_EPOCHS_SHOWN - 1)
  })

  it('nothing for a group the history does not hold, or of another type', () => {
    const view = historyView(linesOf(runs))
    expect(recordedEpochs(view, 'other', 'consumer', BOTH)).toBeUndefined()
    expect(recordedEpochs(view, G, 'classic', BOTH)).toBeUndefined()
  })
})
