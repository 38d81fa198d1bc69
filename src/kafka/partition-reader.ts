/**
 * Reads one partition from its leader (ListOffsets + Fetch, no group id: read-only) over an injected transport,
 * so the retry paths are unit-tested without a broker. The leader is looked up in fresh metadata before every
 * attempt; within the deadline it waits (Retrier backoff) for a leader to be elected, for a refused or dropped
 * connection to the leader (a killed broker leads until it is fenced), and for a leader that moved mid-read —
 * the last at most LEADER_MOVES times. A retry resumes where the previous attempt stopped: no batch twice.
 */
import {RuntimeError} from '../core/errors.js'
import type {AbortedTransaction} from '../core/log/batch.js'
import type {FetchPartitionResponse, MetadataResponse} from './protocol.js'
import {EARLIEST_TIMESTAMP, LATEST_TIMESTAMP} from './protocol.js'
import {CorruptBatchError, type Decompress, type KeyFilter, type RawRecordBatch, recordBatches} from './record-batch.js'
import {isRetriableConnection, type Retrier} from './retry.js'

export interface PartitionReadOptions {
  /** Default `__consumer_offsets`. */
  readonly topic?: string
  readonly partition: number
  /** Default: the log start offset. */
  readonly fromOffset?: bigint
  /** Default read_committed: up to the last stable offset, with the aborted transactions to filter. */
  readonly isolation?: 'read_committed' | 'read_uncommitted'
  /** Per Fetch request; doubled when a single batch is larger. Default 8 MiB. */
  readonly maxBytes?: number
  /**
   * Streaming: called for each batch in offset order; the result then holds no batches. The read may take
   * longer than the client's timeout as long as each fetch answers within it.
   */
  readonly onBatch?: (batch: RawRecordBatch) => void
  /** Only data records whose key this accepts are made into records (batch.recordCount still counts all). */
  readonly keepKey?: KeyFilter
  /** Streaming: each fetch's aborted transactions, before that fetch's batches reach onBatch. */
  readonly onAborted?: (aborted: readonly AbortedTransaction[]) => void
}

export interface PartitionRead {
  readonly topic: string
  readonly partition: number
  /** The partition leader the batches were read from. */
  readonly leader: number
  readonly logStartOffset: bigint
  /** Where the read stopped: the last stable offset (read_committed) or high watermark when it started. */
  readonly endOffset: bigint
  readonly batches: RawRecordBatch[]
  /** Aborted transactions reported by the fetches (for src/core/log's CommittedFilter). */
  readonly abortedTransactions: AbortedTransaction[]
  readonly fetches: number
}

export interface LeaderNode {
  readonly id: number
  readonly host: string
  readonly port: number
}

export type Isolation = 0 | 1

/** What the reader needs from a cluster; connection failures are thrown as RdErrors (src/kafka/errors.ts). */
export interface PartitionTransport {
  /** Metadata of `topic` from any reachable broker. */
  metadata(topic: string): Promise<MetadataResponse>
  listOffsets(leader: LeaderNode, topic: string, partition: number, timestamp: bigint, isolation: Isolation): Promise<{errorCode: number; offset: bigint}>
  fetch(leader: LeaderNode, topic: string, partition: number, offset: bigint, maxBytes: number, isolation: Isolation): Promise<{errorCode: number; partition: FetchPartitionResponse | undefined}>
  /** The connection to `leader` failed: drop it, so that the next request to that address connects anew. */
  forget(leader: LeaderNode): void
  /** A fetch answered: a long read may run past the deadline as long as every fetch answers within the timeout. */
  progress(): void
}

export interface PartitionReaderDeps {
  readonly transport: PartitionTransport
  readonly retrier: Retrier
  readonly decompress: Decompress
  /** A Kafka error code as the user's error (names the code, maps authorization failures). */
  readonly kafkaError: (code: number, what: string, subject?: string) => RuntimeError
  readonly errorName: (code: number) => string
  readonly debug?: (line: string) => void
}

/** The partition's leader moved or is being elected: look it up again (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER,
 * FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, OFFSET_NOT_AVAILABLE). */
export const RETRIABLE_LEADER = new Set([5, 6, 74, 75, 78])
/** Leader changes met during one read before it gives up (a partition whose leader never settles). */
export const LEADER_MOVES = 10

type Attempt = {done: PartitionRead} | {moved: string}

export async function readPartitionVia(d: PartitionReaderDeps, o: PartitionReadOptions): Promise<PartitionRead> {
  const topic = o.topic ?? '__consumer_offsets'
  const name = `${topic}-${o.partition}`
  const isolation: Isolation = o.isolation === 'read_uncommitted' ? 0 : 1
  const t = d.transport
  const batches: RawRecordBatch[] = []
  const aborted = new Map<string, AbortedTransaction>()
  let maxBytes = o.maxBytes ?? 8 << 20
  let fetches = 0
  let resume = o.fromOffset // where a retry continues: never before what was delivered
  let moves = 0

  const attemptAt = async (leader: LeaderNode): Promise<Attempt> => {
    const listOffset = (ts: bigint) => t.listOffsets(leader, topic, o.partition, ts, isolation)
    const [start, end] = await Promise.all([listOffset(EARLIEST_TIMESTAMP), listOffset(LATEST_TIMESTAMP)])
    const err = start.errorCode || end.errorCode
    if (RETRIABLE_LEADER.has(err) && moves < LEADER_MOVES) return {moved: `ListOffsets answered ${d.errorName(err)}`}
    if (err !== 0) throw d.kafkaError(err, `ListOffsets on ${name}`)
    let offset = resume !== undefined && resume > start.offset ? resume : start.offset
    while (offset < end.offset) {
      const r = await t.fetch(leader, topic, o.partition, offset, maxBytes, isolation)
      fetches++
      const fp = r.partition
      const code = r.errorCode || fp?.errorCode || 0
      if (RETRIABLE_LEADER.has(code)) {
        resume = offset
        return {moved: `Fetch at offset ${offset} answered ${d.errorName(code)}`}
      }
      if (code === 1 && fp) {
        // OFFSET_OUT_OF_RANGE: if the log start moved past us (retention, compaction of the head), continue from
        // it; otherwise the end moved under us (a new leader truncated the log): look up leader and end again.
        // Never backwards: that would deliver batches twice.
        const earliest = fp.logStartOffset > offset ? fp.logStartOffset : (await listOffset(EARLIEST_TIMESTAMP)).offset
        if (earliest > offset) {
          offset = resume = earliest
          continue
        }
        resume = offset
        return {moved: `offset ${offset} is out of range (the log was truncated)`}
      }
      if (code !== 0 || !fp) throw d.kafkaError(code, `Fetch of ${name}`)
      t.progress()
      for (const a of fp.abortedTransactions) aborted.set(`${a.producerId}:${a.firstOffset}`, a)
      if (o.onAborted && fp.abortedTransactions.length > 0) o.onAborted(fp.abortedTransactions)
      // batch by batch: each is applied (onBatch) and dropped before the next is decoded
      let got = 0
      let nextOffset: bigint | undefined
      const batchesOfFetch = recordBatches(fp.records ?? Buffer.alloc(0), d.decompress, o.keepKey)
      for (;;) {
        let step: IteratorResult<RawRecordBatch>
        try {
          step = batchesOfFetch.next() // only the log's bytes are judged here, not what onBatch does with them
        } catch (error) {
          const m = (error as Error).message
          if (error instanceof CorruptBatchError) {
            throw new RuntimeError(`broker ${leader.id} sent a corrupt record batch of ${name}: ${m}`, `Retry; if it persists, that broker's replica of ${name} is damaged: check its segment with kafka-dump-log.sh --deep-iteration, or read when another replica leads.`, 'DECODE_ERROR')
          }
          throw new RuntimeError(
            `cannot read the record batches of ${name} at offset ${nextOffset ?? offset}: ${m}`,
            /compression is not supported/.test(m)
              ? 'Run with a Node.js that has zstd (22.15 or newer).'
              : /REBALANCE_DOCTOR_MAX_BATCH_BYTES/.test(m)
                ? 'If the batch is legitimate, raise $REBALANCE_DOCTOR_MAX_BATCH_BYTES (bytes; default 64 MiB).'
                : 'This is a bug or a corrupt log; run with --debug and report it.',
            'DECODE_ERROR',
          )
        }
        if (step.done) break
        const b = step.value
        got++
        nextOffset = b.lastOffset + 1n
        if (b.lastOffset < offset) continue // a compressed batch may start before the fetch offset
        if (o.onBatch) o.onBatch(b)
        else batches.push(b)
      }
      if (got === 0) {
        if (fp.records && fp.records.length > 0 && maxBytes < 256 << 20) {
          maxBytes *= 2 // one batch is larger than maxBytes
          continue
        }
        break // nothing more below the end offset (e.g. only removed records)
      }
      offset = resume = nextOffset!
    }
    d.debug?.(`read ${name} from broker ${leader.id}: ${start.offset}..${end.offset}, ${fetches} fetches`)
    return {
      done: {
        topic,
        partition: o.partition,
        leader: leader.id,
        logStartOffset: start.offset,
        endOffset: end.offset,
        batches,
        abortedTransactions: [...aborted.values()].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0)),
        fetches,
      },
    }
  }

  for (;;) {
    let md: MetadataResponse
    try {
      md = await t.metadata(topic)
    } catch (error) {
      if (!isRetriableConnection(error)) throw error
      await d.retrier.wait(`metadata of ${topic}`, error.message)
      continue
    }
    const tm = md.topics.find(x => x.name === topic)
    if (!tm || tm.errorCode === 3) throw new RuntimeError(`topic ${topic} does not exist`, undefined, 'NO_TOPIC')
    if (tm.errorCode !== 0) throw d.kafkaError(tm.errorCode, 'describing topic', topic)
    const p = tm.partitions.find(x => x.partition === o.partition)
    if (!p) throw new RuntimeError(`${topic} has no partition ${o.partition} (it has ${tm.partitions.length})`, undefined, 'NO_PARTITION')
    const leader = md.brokers.find(b => b.id === p.leaderId)
    if (!leader) {
      await d.retrier.wait(`a leader of ${name}`, p.leaderId < 0 ? 'none is elected' : `its leader, broker ${p.leaderId}, is not among the live brokers`)
      continue
    }
    let attempt: Attempt
    try {
      attempt = await attemptAt(leader)
    } catch (error) {
      if (!isRetriableConnection(error)) throw error
      t.forget(leader)
      await d.retrier.wait(`a leader of ${name}`, `broker ${leader.id} (${leader.host}:${leader.port}): ${error.message}`)
      continue
    }
    if ('done' in attempt) return attempt.done
    if (++moves > LEADER_MOVES) {
      throw new RuntimeError(`${name}: the leader kept moving; read stopped at offset ${resume}`, 'Wait until the partition has a stable leader, and retry.', 'NO_LEADER')
    }
    await d.retrier.wait(`the new leader of ${name}`, `broker ${leader.id}: ${attempt.moved}`)
  }
}
