import {describe, expect, it} from 'vitest'
import {auditContext, auditGroup, isDeleted, summarize} from '../../../src/core/audit/audit.js'
import {checkpointMisfit, decodeCheckpoint, encodeCheckpoint, firstBatchMisfit, type PartitionCheckpoint, readMisfit, resumeOffset} from '../../../src/core/audit/checkpoint.js'
import {auditDocument} from '../../../src/core/audit/output.js'
import {PartitionScan} from '../../../src/core/audit/scan.js'
import type {LogBatch} from '../../../src/core/log/batch.js'
import {cluster} from './fixtures.js'
import {batches, generate} from './generated.js'

const md = cluster(3, 2)

/** The audit JSON document of a finished scan (time and duration fixed: they differ between any two runs). */
function auditJson(scan: PartitionScan, now: number): string {
  const ctx = auditContext(md, now, 10 * 60_000)
  const rows = []
  let deleted = 0
  for (const [id, g] of [...scan.finish()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (isDeleted(g)) deleted++
    else rows.push(auditGroup(id, g, ctx))
  }
  const c = scan.counters
  const summary = summarize(rows, {partitions: 1, recordsScanned: c.recordsScanned, decodeErrors: c.decodeErrors, durationMs: 0, deletedGroupsSkipped: deleted}, ['drift'], 'test-cluster-id', now)
  return JSON.stringify(auditDocument(summary, rows))
}

function checkpointOf(scan: PartitionScan, last: LogBatch, nextOffset: bigint): PartitionCheckpoint {
  return {clusterId: 'test-cluster-id', partition: 0, keepEpochs: scan.keepEpochs, nextOffset, logStartOffset: 0n, lastBatch: {baseOffset: last.baseOffset, lastOffset: last.lastOffset, leaderEpoch: 0}, counters: scan.counters, groups: scan.data()}
}

describe('incremental audit (checkpoint)', () => {
  it('full run = runs resumed from checkpoints (written as text and read back) at any batch, over generated logs', () => {
    let resumed = 0
    for (let seed = 1; seed <= 12; seed++) {
      const bs = batches(generate(seed), seed)
      const now = Number(bs.at(-1)!.records.at(-1)!.timestamp) + 600_000
      const full = new PartitionScan()
      for (const b of bs) full.onBatch(b)
      const expected = auditJson(full, now)
      // two resumes: up to a, then a..b, then the rest (each audit in between, as consecutive runs would)
      const a = 1 + ((seed * 37) % (bs.length - 2))
      const b = a + 1 + ((seed * 11) % (bs.length - a - 1))
      let scan = new PartitionScan()
      let from = 0
      for (const cut of [a, b]) {
        for (const x of bs.slice(from, cut)) scan.onBatch(x)
        auditJson(scan, now) // an audit at the checkpoint finishes every group's pending write
        const text = encodeCheckpoint(checkpointOf(scan, bs[cut - 1], bs[cut].baseOffset))
        const cp = decodeCheckpoint(text)
        if ('error' in cp) throw new Error(cp.error)
        expect(checkpointMisfit(cp, {clusterId: 'test-cluster-id', partition: 0, keepEpochs: 3})).toBeUndefined()
        expect(resumeOffset(cp)).toBe(bs[cut - 1].baseOffset)
        scan = new PartitionScan({}, cp)
        from = cut
        resumed++
      }
      for (const x of bs.slice(from)) scan.onBatch(x)
      expect(auditJson(scan, now), `seed ${seed}`).toBe(expected)
    }
    expect(resumed).toBe(24)
  })

  it('tagged values survive the file: bigints, bytes, Maps, keys starting with $', () => {
    const cp: PartitionCheckpoint = {
      clusterId: 'c', partition: 3, keepEpochs: 3, nextOffset: 2n ** 62n, logStartOffset: 5n, lastBatch: null,
      counters: {recordsScanned: 1, offsetCommitsSkipped: 2, decodeErrors: 3, batches: 4},
      groups: [['g', {state: {groupId: 'g', consumer: null, share: null, streams: null, classic: {value: {x: new Uint8Array([1, 2, 255]), $odd: 1n, m: new Map([['k', {TopicId: 'a'}]])}} as never, offsets: new Map()}, skipped: [], recent: []}]],
    }
    const back = decodeCheckpoint(encodeCheckpoint(cp))
    expect(back).toEqual(cp)
  })

  it('misfits: another cluster or keep, log start past it, truncated, last batch changed or gone; damaged files', () => {
    const cp: PartitionCheckpoint = {clusterId: 'c', partition: 0, keepEpochs: 3, nextOffset: 100n, logStartOffset: 0n, lastBatch: {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 4}, counters: {recordsScanned: 0, offsetCommitsSkipped: 0, decodeErrors: 0, batches: 0}, groups: []}
    expect(checkpointMisfit(cp, {clusterId: 'other', partition: 0, keepEpochs: 3})).toMatch(/another cluster/)
    expect(checkpointMisfit(cp, {clusterId: 'c', partition: 0, keepEpochs: 5})).toMatch(/keeps 3/)
    expect(firstBatchMisfit(cp, {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 4})).toBeUndefined()
    expect(firstBatchMisfit(cp, {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 5})).toMatch(/diverged/)
    expect(firstBatchMisfit(cp, {baseOffset: 120n, lastOffset: 130n, leaderEpoch: 4})).toMatch(/diverged/)
    const first = {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 4}
    expect(readMisfit(cp, {logStartOffset: 0n, endOffset: 150n, firstBatch: first})).toBeUndefined()
    expect(readMisfit(cp, {logStartOffset: 101n, endOffset: 150n, firstBatch: first})).toMatch(/moved past/)
    expect(readMisfit(cp, {logStartOffset: 0n, endOffset: 95n, firstBatch: first})).toMatch(/truncated/)
    expect(readMisfit(cp, {logStartOffset: 0n, endOffset: 100n, firstBatch: undefined})).toMatch(/gone/)
    expect(decodeCheckpoint('{')).toHaveProperty('error')
    expect(decodeCheckpoint('{"schema":"x"}')).toHaveProperty('error')
    expect(decodeCheckpoint(JSON.stringify({schema: 'rebalance-doctor/audit-checkpoint-v1', clusterId: 'c'}))).toHaveProperty('error')
    expect(decodeCheckpoint(encodeCheckpoint(cp).replace('"100"', '"1x"'))).toHaveProperty('error')
  })
})
