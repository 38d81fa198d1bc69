/**
 * One `__consumer_offsets` partition streamed into replay state for every group on it, with memory bounded by
 * groups and members, not by records: batches are filtered (read_committed), decoded and applied one at a
 * time and never kept; offset commits (record types 0 and 1, the bulk of the log) are skipped by their key
 * prefix without decoding; and each group's epoch timeline is trimmed to its last `keepEpochs` entries (the
 * audit only needs the recent bumps: "reconciling since", "assignment pending since"). Pure: the network
 * reader calls onAborted/onBatch.
 */
import {CommittedFilter} from '../log/committed.js'
import type {AbortedTransaction, LogBatch} from '../log/batch.js'
import {decodeRecord, RecordDecodeError} from '../records/index.js'
import {PartitionReplay, type ReplayResult} from '../replay/index.js'

export interface PartitionScanOptions {
  /** Timeline entries kept per group (default 3: each holds two snapshots of the group, so this bounds memory). */
  keepEpochs?: number
  /** Only groups this accepts are replayed (their records still count as scanned). */
  acceptGroup?: (groupId: string) => boolean
}

export class PartitionScan {
  readonly filter = new CommittedFilter()
  readonly replay = new PartitionReplay()
  recordsScanned = 0
  offsetCommitsSkipped = 0
  decodeErrors = 0
  batches = 0
  private readonly keep: number
  private readonly accept: (groupId: string) => boolean
  private readonly rejected = new Set<string>()

  constructor(options: PartitionScanOptions = {}) {
    this.keep = options.keepEpochs ?? 3
    this.accept = options.acceptGroup ?? (() => true)
  }

  onAborted(list: readonly AbortedTransaction[]): void {
    this.filter.addAborted(list)
  }

  onBatch(batch: LogBatch): void {
    this.batches++
    this.recordsScanned += batch.records.length
    const records = this.filter.accept(batch)
    const touched = new Set<string>()
    for (const r of records) {
      const key = r.key
      if (key === null || key.length < 2) {
        this.decodeErrors++
        continue
      }
      const type = ((key[0] << 24) >> 16) | key[1]
      if (type === 0 || type === 1) {
        this.offsetCommitsSkipped++
        continue
      }
      let record
      try {
        record = decodeRecord(key, r.value, r.offset)
      } catch (e) {
        if (!(e instanceof RecordDecodeError)) throw e
        this.decodeErrors++
        continue
      }
      const gid = record.groupId
      if (gid === undefined) continue
      if (this.rejected.has(gid)) continue
      if (!this.replay.groups.has(gid) && !this.accept(gid)) {
        this.rejected.add(gid)
        continue
      }
      this.replay.push({offset: r.offset, timestamp: Number(r.timestamp), batchBaseOffset: batch.baseOffset, record})
      touched.add(gid)
    }
    for (const gid of touched) {
      const tl = this.replay.groups.get(gid)?.timeline
      if (tl && tl.length > this.keep) tl.splice(0, tl.length - this.keep)
    }
  }

  finish(): Map<string, ReplayResult> {
    const out = this.replay.finish()
    for (const r of out.values()) {
      const tl = r.timeline as unknown[]
      if (tl.length > this.keep) tl.splice(0, tl.length - this.keep)
    }
    return out
  }
}
