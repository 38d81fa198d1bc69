/**
 * Every `__consumer_offsets` partition read from its leader (ListOffsets + Fetch, no group id: read-only), a
 * bounded number at a time, each streamed through a PartitionScan (src/core/audit/scan.ts): batches are applied
 * and dropped, so memory follows groups and members, not records.
 */
import {PartitionScan, type PartitionScanOptions} from '../core/audit/scan.js'
import type {GroupSummary} from '../core/replay/index.js'
import type {KafkaClient} from '../kafka/client.js'
import {OFFSETS_TOPIC, offsetsPartitionCount} from './group-log.js'

export interface OffsetsScanResult {
  /** Every group's summary; empty when onPartition takes them. */
  groups: Map<string, GroupSummary>
  partitions: number
  recordsScanned: number
  offsetCommitsSkipped: number
  decodeErrors: number
  batches: number
}

export interface OffsetsScanOptions extends PartitionScanOptions {
  /** Partitions read at the same time (default 4). */
  concurrency?: number
  onProgress?: (done: number, total: number, records: number) => void
  /** Takes each partition's groups as soon as it is read (audit them and drop them: memory then follows the
   * largest partitions read at once, not the cluster); they are not kept in the result. */
  onPartition?: (partition: number, groups: Map<string, GroupSummary>) => void
}

export async function scanOffsets(client: KafkaClient, options: OffsetsScanOptions = {}): Promise<OffsetsScanResult> {
  const count = await offsetsPartitionCount(client)
  const result: OffsetsScanResult = {groups: new Map(), partitions: count, recordsScanned: 0, offsetCommitsSkipped: 0, decodeErrors: 0, batches: 0}
  let next = 0
  let done = 0
  const worker = async () => {
    for (;;) {
      const partition = next++
      if (partition >= count) return
      const scan = new PartitionScan(options)
      await client.readPartition({
        topic: OFFSETS_TOPIC,
        partition,
        isolation: 'read_committed',
        onAborted: list => scan.onAborted(list),
        onBatch: batch => {
          scan.onBatch(batch)
          result.recordsScanned += batch.records.length
          if ((scan.batches & 63) === 0) options.onProgress?.(done, count, result.recordsScanned)
        },
      })
      // a group lives on exactly one partition
      const groups = scan.finish()
      if (options.onPartition) options.onPartition(partition, groups)
      else for (const [id, r] of groups) result.groups.set(id, r)
      result.offsetCommitsSkipped += scan.offsetCommitsSkipped
      result.decodeErrors += scan.decodeErrors
      result.batches += scan.batches
      done++
      options.onProgress?.(done, count, result.recordsScanned)
    }
  }
  await Promise.all(Array.from({length: Math.max(1, Math.min(options.concurrency ?? 4, count))}, worker))
  return result
}
