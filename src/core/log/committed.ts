/**
 * read_committed filtering of a partition's batches, the way Kafka's consumer does it (Fetcher/CompletedFetch):
 * an aborted transaction's entry (producer id, first offset) marks the producer aborted from that offset until
 * its ABORT control marker; transactional batches of a producer marked aborted are dropped; control batches are
 * never data. A producer that aborts several times has one entry per transaction, so each abort is handled in
 * turn. `__consumer_offsets` holds transactional batches from TxnOffsetCommit.
 */
import {type AbortedTransaction, controlType, type LogBatch, type LogRecord} from './batch.js'
import {by} from '../order.js'

export class CommittedFilter {
  private readonly pending: AbortedTransaction[] = []
  private readonly seen = new Set<string>()
  private readonly aborted = new Set<bigint>()
  /** Batches dropped as aborted, and control batches skipped. */
  readonly stats = {abortedBatches: 0, abortedRecords: 0, controlBatches: 0}

  /** Adds the aborted transactions of a fetch response (repeated entries across fetches are ignored). */
  addAborted(list: readonly AbortedTransaction[]): void {
    for (const t of list) {
      const k = `${t.producerId}:${t.firstOffset}`
      if (this.seen.has(k)) continue
      this.seen.add(k)
      this.pending.push(t)
    }
    this.pending.sort(by(x => x.firstOffset))
  }

  /** The committed data records of one batch (batches must come in offset order). */
  accept(batch: LogBatch): LogRecord[] {
    if (batch.producerId >= 0n) {
      while (this.pending.length > 0 && this.pending[0].firstOffset <= batch.lastOffset) this.aborted.add(this.pending.shift()!.producerId)
      if (batch.isControl) {
        if (batch.records.some(r => controlType(r.key) === 'abort')) this.aborted.delete(batch.producerId)
      } else if (batch.isTransactional && this.aborted.has(batch.producerId)) {
        this.stats.abortedBatches++
        this.stats.abortedRecords += batch.recordCount ?? batch.records.length
        return []
      }
    }
    if (batch.isControl) {
      this.stats.controlBatches++
      return []
    }
    return batch.records
  }
}
