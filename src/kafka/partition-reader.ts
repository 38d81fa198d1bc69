/**
 * Reads one partition from its leader (ListOffsets + Fetch, no group id: read-only) over an injected transport,
 * so the retry paths are unit-tested without a broker. The leader is looked up in fresh metadata before every
 * attempt; within the deadline it waits (Retrier backoff) for a leader to be elected, for a refused or dropped
 * connection to the leader (a killed broker leads until it is fenced), and for a leader that moved mid-read —
 * the last at most LEADER_MOVES times. A retry resumes where the previous attempt stopped: no batch twice.
 * A fetch that brings nothing new below the end offset is asked again at most STALLED_FETCHES times, then the
 * read fails (INCOMPLETE_READ): a partial read never passes for the whole. Only a fetch that moves the read
 * forward extends the deadline; a throttled fetch (a quota) is waited out within it.
 */
import {RuntimeError} from '../core/errors.js'
import type {AbortedTransaction} from '../core/log/batch.js'
import type {AuthContext} from './connection.js'
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
   * longer than the client's timeout as long as each fetch moves it forward within it.
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
  /** throttleTimeMs > 0: the broker throttles us (a quota); no fetch before it has passed. */
  fetch(
    leader: LeaderNode,
    topic: string,
    partition: number,
    offset: bigint,
    maxBytes: number,
    isolation: Isolation,
  ): Promise<{errorCode: number; throttleTimeMs?: number; partition: FetchPartitionResponse | undefined}>
  /** The connection to `leader` failed: drop it, so that the next request to that address connects anew. */
  forget(leader: LeaderNode): void
  /** A fetch moved the read forward: a long read may run past the deadline as long as it keeps moving. */
  progress(): void
}

export interface PartitionReaderDeps {
  readonly transport: PartitionTransport
  readonly retrier: Retrier
  readonly decompress: Decompress
  /** A Kafka error code as the user's error (names the code; an authorization failure names request, resource and grant). */
  readonly kafkaError: (code: number, what: string, subject: string | undefined, auth: AuthContext) => RuntimeError
  readonly errorName: (code: number) => string
  readonly debug?: (line: string) => void
}

/** The partition's leader moved or is being elected: look it up again (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER,
 * FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, OFFSET_NOT_AVAILABLE). */
export const RETRIABLE_LEADER = new Set([5, 6, 74, 75, 78])
/** Fetches in a row that bring nothing at or past their offset, below the end offset, before the read fails. */
export const STALLED_FETCHES = 5
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
    if (err !== 0)
      throw d.kafkaError(err, `ListOffsets on ${name}`, undefined, {request: 'ListOffsets', doing: `reading the offsets of ${name}`, resourceName: topic})
    let offset = resume !== undefined && resume > start.offset ? resume : start.offset
    const at = `broker ${leader.id} (${leader.host}:${leader.port})`
    let stalled = 0
    let pauseMs = 0
    while (offset < end.offset) {
      // A throttled principal (a quota) must not ask again before the broker's throttle time has passed.
      if (pauseMs > 0) await d.retrier.pause(pauseMs, `waiting out the throttle of ${at} on the Fetch of ${name} (${pauseMs} ms, a quota)`)
      const r = await t.fetch(leader, topic, o.partition, offset, maxBytes, isolation)
      fetches++
      pauseMs = r.throttleTimeMs && r.throttleTimeMs > 0 ? r.throttleTimeMs : 0
      const fp = r.partition
      const code = r.errorCode || fp?.errorCode || 0
      if (code === 0 && !fp && pauseMs > 0) continue // throttled: answered without the partition
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
      if (code === 0 && !fp) {
        throw new RuntimeError(
          `${at} answered the Fetch of ${name} at offset ${offset} without the partition`,
          'Check that the address is a Kafka broker; if it is, run with --debug and report it.',
          'PROTOCOL_ERROR',
        )
      }
      if (code !== 0 || !fp) throw d.kafkaError(code, `Fetch of ${name}`, undefined, {request: 'Fetch', doing: `reading ${topic}`, resourceName: topic})
      for (const a of fp.abortedTransactions) aborted.set(`${a.producerId}:${a.firstOffset}`, a)
      if (o.onAborted && fp.abortedTransactions.length > 0) o.onAborted(fp.abortedTransactions)
      // batch by batch: each is applied (onBatch) and dropped before the next is decoded
      let got = 0
      let next = offset // past the last batch delivered: a batch ending before it is never delivered (twice)
      let lastSeen: bigint | undefined
      const batchesOfFetch = recordBatches(fp.records ?? Buffer.alloc(0), d.decompress, o.keepKey)
      for (;;) {
        let step: IteratorResult<RawRecordBatch>
        try {
          step = batchesOfFetch.next() // only the log's bytes are judged here, not what onBatch does with them
        } catch (error) {
          const m = (error as Error).message
          if (error instanceof CorruptBatchError) {
            throw new RuntimeError(
              `broker ${leader.id} sent a corrupt record batch of ${name}: ${m}`,
              `Retry; if it persists, that broker's replica of ${name} is damaged: check its segment with kafka-dump-log.sh --deep-iteration, or read when another replica leads.`,
              'DECODE_ERROR',
            )
          }
          throw new RuntimeError(
            `cannot read the record batches of ${name} at offset ${next}: ${m}`,
            /REBALANCE_DOCTOR_MAX_BATCH_BYTES/.test(m)
              ? 'If the batch is legitimate, raise $REBALANCE_DOCTOR_MAX_BATCH_BYTES (bytes; default 64 MiB).'
              : 'This is a bug or a corrupt log; run with --debug and report it.',
            'DECODE_ERROR',
          )
        }
        if (step.done) break
        const b = step.value
        got++
        lastSeen = b.lastOffset
        if (b.lastOffset < next) continue // a compressed batch may start before the fetch offset
        // written after the read began: left for the next read, so that what was delivered ends exactly at endOffset
        // (a caller resumes from endOffset: a batch past it delivered now would be delivered again, or, for an audit
        // --watch that tracks bumps from endOffset, silently absorbed into the read that was only a baseline)
        if (b.baseOffset >= end.offset) break
        next = b.lastOffset + 1n
        if (o.onBatch) o.onBatch(b)
        else batches.push(b)
      }
      if (next > offset) {
        offset = resume = next
        stalled = 0
        t.progress() // only a fetch that moved the read forward earns more time
        continue
      }
      if (got === 0 && fp.records && fp.records.length > 0 && maxBytes < 256 << 20) {
        maxBytes *= 2 // one batch is larger than maxBytes
        continue
      }
      // Nothing at or past the offset, below the end offset: the broker answered empty (or only batches ending
      // before the offset). Ask again a few times; never end the read here, it would look complete.
      const why =
        got === 0
          ? `the Fetch at offset ${offset} answered no records, below the end offset ${end.offset}`
          : `the Fetch at offset ${offset} answered only batches ending before it (the last at ${lastSeen})`
      if (++stalled > STALLED_FETCHES) {
        throw new RuntimeError(
          `${name} cannot be read to its end offset ${end.offset}: ${why} from ${at}, ${stalled} times in a row`,
          `Retry later; if it persists, check broker ${leader.id} (its log of ${name}) and run with --debug.`,
          'INCOMPLETE_READ',
        )
      }
      await d.retrier.wait(`records of ${name} at offset ${offset} from ${at}`, why)
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
    if (tm.errorCode !== 0)
      throw d.kafkaError(tm.errorCode, 'describing topic', topic, {request: 'Metadata', doing: `describing topic ${topic}`, resourceName: topic})
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
      throw new RuntimeError(
        `${name}: the leader kept moving; read stopped at offset ${resume}`,
        'Wait until the partition has a stable leader, and retry.',
        'NO_LEADER',
      )
    }
    await d.retrier.wait(`the new leader of ${name}`, `broker ${leader.id}: ${attempt.moved}`)
  }
}
