/**
 * Every `__consumer_offsets` partition read from its leader (ListOffsets + Fetch, no group id: read-only), a
 * bounded number at a time, each streamed through a PartitionScan (src/core/audit/scan.ts): batches are applied
 * and dropped, so memory follows groups and members, not records.
 */
import {type BatchMark, checkpointMisfit, firstBatchMisfit, type PartitionCheckpoint, readMisfit, resumeOffset} from '../core/audit/checkpoint.js'
import {auditKeyFilter, PartitionScan, type PartitionScanOptions, type ScannedGroup, type TrackedReplay} from '../core/audit/scan.js'
import type {GroupSummary} from '../core/replay/index.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'
import type {CheckpointStore} from './audit-checkpoint.js'
import {OFFSETS_FETCH_BYTES, OFFSETS_TOPIC, offsetsPartitionCount} from './group-log.js'
import {limitHeapGrowth} from '../io/heap-growth.js'

export interface OffsetsScanResult {
  /** Every group's summary; empty when onPartition takes them. */
  groups: Map<string, GroupSummary>
  partitions: number
  /** Records the groups' state covers: with checkpoints, those read by earlier audits too. */
  recordsScanned: number
  /** Records read by this scan. */
  recordsRead: number
  offsetCommitsSkipped: number
  decodeErrors: number
  batches: number
  /** Partitions resumed from their checkpoint. */
  resumed: number
  /** Partitions read from their log start although checkpoints were asked for, and why (none yet is not listed). */
  fullReads: Array<{partition: number; reason: string}>
  /** Checkpoints that could not be written (the audit is complete; the next run reads those partitions in full). */
  checkpointErrors: Array<{partition: number; error: string; code?: string}>
}

export interface OffsetsScanOptions extends PartitionScanOptions {
  /** Partitions read at the same time (default 4). */
  concurrency?: number
  onProgress?: (done: number, total: number, records: number) => void
  /** Takes each partition's groups as soon as it is read (audit them and drop them: memory then follows the
   * largest partitions read at once, not the cluster); they are not kept in the result. It sets each group's
   * `entry` (kept in the checkpoint for the next run); a group's summary() throwing (a damaged checkpoint text)
   * must leave nothing behind: the partition is then read in full and handed over again. */
  onPartition?: (partition: number, groups: ScannedGroup[], newBumps: Map<string, TrackedReplay>) => void
  /** watch: per partition, the offset the last cycle read to; each group's records from there are also replayed
   * in full and handed to onPartition (newBumps), so their bumps get causes. undefined: nothing is new (baseline). */
  trackFrom?: (partition: number) => bigint | undefined
  /** Incremental: resume each partition from its checkpoint when it fits, and write a new one after reading.
   * rowsKey (row-cache.ts rowCacheKey): the cached audit entries of a checkpoint made with another are not used. */
  checkpoints?: {store: CheckpointStore; clusterId: string; rowsKey?: string}
}

/** Thrown from onBatch to stop a read whose first batch shows the checkpoint no longer fits. */
const STOP = Symbol('checkpoint misfit')

export async function scanOffsets(client: ClusterReader, options: OffsetsScanOptions = {}): Promise<OffsetsScanResult> {
  const count = await offsetsPartitionCount(client)
  const run: ScanRun = {
    client,
    options,
    count,
    keepEpochs: new PartitionScan(options).keepEpochs,
    next: 0,
    done: 0,
    result: {
      groups: new Map(),
      partitions: count,
      recordsScanned: 0,
      recordsRead: 0,
      offsetCommitsSkipped: 0,
      decodeErrors: 0,
      batches: 0,
      resumed: 0,
      fullReads: [],
      checkpointErrors: [],
    },
  }
  await Promise.all(Array.from({length: Math.max(1, Math.min(options.concurrency ?? 4, count))}, () => scanPartitions(run)))
  run.result.fullReads.sort((a, b) => a.partition - b.partition)
  return run.result
}

/** One scan of __consumer_offsets, shared by its workers: the next partition to take, how many are done, the result. */
interface ScanRun {
  readonly client: ClusterReader
  readonly options: OffsetsScanOptions
  readonly count: number
  readonly keepEpochs: PartitionScan['keepEpochs']
  next: number
  done: number
  readonly result: OffsetsScanResult
}

type PartitionOutcome = {misfit: string} | {scan: PartitionScan; checkpoint: PartitionCheckpoint | undefined}

/** A worker: takes the next partition until none is left; resumes it from its checkpoint when that fits, else reads it in full. */
async function scanPartitions(run: ScanRun): Promise<void> {
  const {options, count, result} = run
  const ck = options.checkpoints
  for (;;) {
    const partition = run.next++
    if (partition >= count) return
    let {cp, reason} = usableCheckpoint(run, partition)
    if (!cp) limitHeapGrowth()
    let r = await readPartitionOnce(run, partition, cp)
    if ('misfit' in r) {
      reason = `its checkpoint does not fit: ${r.misfit}`
      limitHeapGrowth()
      r = await readPartitionOnce(run, partition, undefined)
      if ('misfit' in r) throw new Error('unreachable: a full read has no checkpoint to misfit')
    } else if (cp) result.resumed++
    if (reason) result.fullReads.push({partition, reason})
    const {scan, checkpoint} = r
    if (checkpoint) {
      try {
        ck!.store.save(checkpoint)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        result.checkpointErrors.push({partition, error: (error as Error).message, ...(typeof code === 'string' ? {code} : {})})
      }
    }
    result.recordsScanned += scan.recordsScanned
    result.offsetCommitsSkipped += scan.offsetCommitsSkipped
    result.decodeErrors += scan.decodeErrors
    result.batches += scan.batches
    run.done++
    options.onProgress?.(run.done, count, result.recordsRead)
  }
}

/** The partition's checkpoint when it can be resumed from; else why not (undefined: there is none). */
function usableCheckpoint(run: ScanRun, partition: number): {cp?: PartitionCheckpoint; reason?: string} {
  const ck = run.options.checkpoints
  if (!ck) return {}
  const loaded = ck.store.load(partition)
  if (!loaded) return {}
  if ('error' in loaded) return {reason: `its checkpoint cannot be used: ${loaded.error}`}
  const m = checkpointMisfit(loaded, {clusterId: ck.clusterId, partition, keepEpochs: run.keepEpochs})
  if (m) return {reason: `its checkpoint does not fit: ${m}`}
  // audit entries computed with another version or --stuck-after: the states are used, the entries are not
  return {
    cp:
      loaded.rowsKey === (ck.rowsKey ?? null)
        ? loaded
        : {...loaded, groups: loaded.groups.map(([id, g]) => [id, {data: g.data, cold: g.cold, row: null}] as const)},
  }
}

/** One read of a partition, from its log start or resumed from `cp`; {misfit} when `cp` turns out not to fit. */
async function readPartitionOnce(run: ScanRun, partition: number, cp: PartitionCheckpoint | undefined): Promise<PartitionOutcome> {
  const {client, options, result, count} = run
  // a checkpoint of the right syntax but a wrong shape (edited, another version's) must cost a full read, not the
  // audit: anything that throws while its state is restored or replayed on makes it a misfit
  const damaged = (error: unknown) => ({misfit: `damaged (its group state cannot be resumed: ${(error as Error)?.message ?? String(error)})`})
  /** f(), or the misfit its throw makes of a checkpoint (without one, the error is the audit's). */
  const resuming = <T>(f: () => T): {ok: T} | {misfit: string} => {
    try {
      return {ok: f()}
    } catch (error) {
      if (cp) return damaged(error)
      throw error
    }
  }
  const made = resuming(() => new PartitionScan(options, cp, options.trackFrom?.(partition)))
  if ('misfit' in made) return made
  const scan = made.ok
  let first: BatchMark | undefined
  let last: BatchMark | undefined
  let misfit: string | undefined
  let got
  try {
    got = await client.readPartition({
      topic: OFFSETS_TOPIC,
      partition,
      isolation: 'read_committed',
      maxBytes: OFFSETS_FETCH_BYTES,
      keepKey: auditKeyFilter,
      fromOffset: cp ? resumeOffset(cp) : undefined,
      onAborted: list => scan.onAborted(list),
      onBatch: batch => {
        const mark = {baseOffset: batch.baseOffset, lastOffset: batch.lastOffset, leaderEpoch: batch.partitionLeaderEpoch}
        if (cp && first === undefined) {
          first = mark
          misfit = firstBatchMisfit(cp, mark)
          if (misfit) throw STOP
          if (cp.lastBatch) return // the checkpoint's last batch, read by the earlier audit: only checked
        }
        first ??= mark
        last = mark
        if (!cp) scan.onBatch(batch)
        else {
          try {
            scan.onBatch(batch)
          } catch (error) {
            misfit = damaged(error).misfit
            throw STOP
          }
        }
        result.recordsRead += batch.recordCount ?? batch.records.length
        if ((scan.batches & 63) === 0) options.onProgress?.(run.done, count, result.recordsRead)
      },
    })
  } catch (error) {
    if (error === STOP) return {misfit: misfit!}
    throw error
  }
  if (cp) {
    misfit = readMisfit(cp, {logStartOffset: got.logStartOffset, endOffset: got.endOffset, firstBatch: first})
    if (misfit) return {misfit}
  }
  // the audit takes the groups (their summaries, cached entries) before the checkpoint is made: it keeps their entries
  const groups = scan.scanned()
  const audited = resuming(() => {
    if (options.onPartition) options.onPartition(partition, groups, scan.newBumps())
    else for (const g of groups) result.groups.set(g.id, g.summary())
  })
  if ('misfit' in audited) return audited
  return {scan, checkpoint: nextCheckpoint(run, partition, cp, scan, groups, got, last)}
}

/** The checkpoint to write after a read; undefined without checkpoints, or when the one read is still exact. */
function nextCheckpoint(
  run: ScanRun,
  partition: number,
  cp: PartitionCheckpoint | undefined,
  scan: PartitionScan,
  groups: ScannedGroup[],
  got: {logStartOffset: bigint; endOffset: bigint},
  last: BatchMark | undefined,
): PartitionCheckpoint | undefined {
  const ck = run.options.checkpoints
  // a group's entry that is new (not the one read): the checkpoint is worth rewriting even with no new record
  const newEntries = groups.some(g => g.entry !== null && g.entry !== g.cached)
  // nothing new since the checkpoint (no batch, same log start, no new audit entry): it is still exact, and
  // rewriting it (encode, fsync) was a third of an incremental run's time on a quiet 10,000-group cluster
  const unchanged =
    cp !== undefined && !newEntries && got.endOffset === cp.nextOffset && got.logStartOffset === cp.logStartOffset && scan.batches === cp.counters.batches
  if (!ck || unchanged) return undefined
  // (states not read this run stay where they are: nothing is parsed here)
  const data = scan.data(groups)
  return {
    clusterId: ck.clusterId,
    partition,
    keepEpochs: run.keepEpochs,
    nextOffset: got.endOffset,
    logStartOffset: got.logStartOffset,
    lastBatch: last ?? cp?.lastBatch ?? null,
    counters: scan.counters,
    rowsKey: ck.rowsKey ?? null,
    statesFile: cp?.statesFile ?? null,
    groups: data,
  }
}
