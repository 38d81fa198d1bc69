/**
 * The audit over reduced groups (PartitionScan: GroupReducer, offset commits skipped undecoded) equals the audit
 * over a full replay (every record decoded, PartitionReplay with snapshots), over generated logs of many groups
 * of every type: joins, leaves, hash drift, pending and lagging assignments, deletions, unknown records, offset
 * commits, several groups' writes in one batch.
 * @slow: equivalence over generated logs of many groups (the slow unit project)
 */
import {describe, expect, it} from 'vitest'
import {auditContext, auditGroup, isDeleted} from '../../../src/core/audit/audit.js'
import {PartitionScan} from '../../../src/core/audit/scan.js'
import type {LogBatch} from '../../../src/core/log/batch.js'
import {decodeRecord} from '../../../src/core/records/index.js'
import {type LoggedRecord, PartitionReplay, type ReplayResult} from '../../../src/core/replay/index.js'
import {cluster} from '../../lib/fixtures.js'
import {batches, generate} from './generated.js'

/** The audit as it was: every record decoded and replayed with snapshots, the timeline trimmed to `keep`. */
function fullReplay(bs: readonly LogBatch[], keep: number): Map<string, ReplayResult> {
  const replay = new PartitionReplay()
  for (const b of bs) {
    for (const rec of b.records) {
      const lr: LoggedRecord = {
        offset: rec.offset,
        timestamp: Number(rec.timestamp),
        batchBaseOffset: b.baseOffset,
        record: decodeRecord(rec.key, rec.value, rec.offset),
      }
      replay.push(lr)
    }
  }
  const out = replay.finish()
  for (const r of out.values()) (r.timeline as unknown[]).splice(0, Math.max(0, r.timeline.length - keep))
  return out
}

function reduced(bs: readonly LogBatch[], keep: number) {
  const scan = new PartitionScan({keepEpochs: keep})
  for (const b of bs) scan.onBatch(b)
  return {groups: scan.finish(), scan}
}

describe('audit over reduced groups = audit over a full replay', () => {
  const md = cluster(3, 2)
  for (const keep of [3, Number.POSITIVE_INFINITY]) {
    it(`generated logs, ${keep} bumps kept`, () => {
      let compared = 0
      let drifted = 0
      let pendingOrStuck = 0
      let deleted = 0
      for (let seed = 1; seed <= 25; seed++) {
        const bs = batches(generate(seed), seed)
        const now = Number(bs.at(-1)!.records.at(-1)!.timestamp) + 600_000
        const old = fullReplay(bs, keep)
        const {groups, scan} = reduced(bs, keep)
        expect([...groups.keys()].sort()).toEqual([...old.keys()].sort())
        expect(scan.offsetCommitsSkipped).toBeGreaterThan(0)
        const ctxOld = auditContext(md, now, 10 * 60_000)
        const ctxNew = auditContext(md, now, 10 * 60_000)
        for (const [id, replay] of old) {
          const summary = groups.get(id)!
          expect(isDeleted(summary), id).toBe(isDeleted(replay))
          if (isDeleted(replay)) {
            deleted++
            continue
          }
          const a = auditGroup(id, replay, ctxOld)
          expect(auditGroup(id, summary, ctxNew), `${id} (seed ${seed})`).toEqual(a)
          compared++
          if (a.findings.includes('drift')) drifted++
          if (a.findings.includes('pending') || a.findings.includes('stuck')) pendingOrStuck++
        }
      }
      // the generated logs cover what the reduction could get wrong
      expect(compared).toBeGreaterThan(150)
      expect(drifted).toBeGreaterThan(20)
      expect(pendingOrStuck).toBeGreaterThan(10)
      expect(deleted).toBeGreaterThan(0)
    })
  }

  it('keeps only the last bumps, without snapshots', () => {
    const bs = batches(generate(3, 4, 200), 3)
    const {groups} = reduced(bs, 3)
    for (const g of groups.values()) {
      expect(g.recent.length).toBeLessThanOrEqual(3)
      for (const m of g.recent) expect(Object.keys(m).sort()).toEqual(['epoch', 'groupType', 'offset', 'timestamp'])
    }
  })
})
