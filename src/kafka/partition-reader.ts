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
import {isRetriableConnection, LEADER_MOVES, type Retrier, RETRIABLE_LEADER} from './retry.js'
import {by} from '../core/order.js'

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

/** Fetches in a row that bring nothing at or past their offset, below the end offset, before the read fails. */
export const STALLED_FETCHES = 5

type Attempt = {done: PartitionRead} | {moved: string}

/** One attempt's position on a leader: the offsets it read at the start and how far it has come. */
interface Position {
  readonly leader: LeaderNode
  /** "broker 1 (host:9092)", for messages. */
  readonly at: string
  readonly start: bigint
  readonly end: bigint
  offset: bigint
  /** Fetches in a row that brought nothing new. */
  stalled: number
  /** The broker's throttle time from the last fetch (a quota). */
  pauseMs: number
}

/** What one fetch's batches did: how many there were, and how far the delivered ones reach. */
interface Delivered {
  readonly got: number
  readonly next: bigint
  readonly lastSeen: bigint | undefined
}

export async function readPartitionVia(d: PartitionReaderDeps, o: PartitionReadOptions): Promise<PartitionRead> {
  return new ReadCursor(d, o).read()
}

/**
 * A read of one partition across attempts: what was delivered, where a retry resumes (never before what was
 * delivered), the fetch size, and how often the leader moved. Each attempt is one leader's `Position`.
 */
class ReadCursor {
  private readonly topic: string
  private readonly name: string
  private readonly isolation: Isolation
  private readonly batches: RawRecordBatch[] = []
  private readonly aborted = new Map<string, AbortedTransaction>()
  private maxBytes: number
  private fetches = 0
  private resume: bigint | undefined
  private moves = 0

  constructor(
    private readonly d: PartitionReaderDeps,
    private readonly o: PartitionReadOptions,
  ) {
    this.topic = o.topic ?? '__consumer_offsets'
    this.name = `${this.topic}-${o.partition}`
    this.isolation = o.isolation === 'read_uncommitted' ? 0 : 1
    this.maxBytes = o.maxBytes ?? 8 << 20
    this.resume = o.fromOffset
  }

  /** Leader lookup and attempt until one reads to the end; waits out connection failures and leader moves. */
  async read(): Promise<PartitionRead> {
    const {d, name} = this
    for (;;) {
      const leader = await this.leader()
      if (!leader) continue
      let attempt: Attempt
      try {
        attempt = await this.attemptAt(leader)
      } catch (error) {
        if (!isRetriableConnection(error)) throw error
        d.transport.forget(leader)
        await d.retrier.wait(`a leader of ${name}`, `broker ${leader.id} (${leader.host}:${leader.port}): ${error.message}`)
        continue
      }
      if ('done' in attempt) return attempt.done
      if (++this.moves > LEADER_MOVES) {
        throw new RuntimeError(
          `${name}: the leader kept moving; read stopped at offset ${this.resume}`,
          'Wait until the partition has a stable leader, and retry.',
          'NO_LEADER',
        )
      }
      await d.retrier.wait(`the new leader of ${name}`, `broker ${leader.id}: ${attempt.moved}`)
    }
  }

  /** The partition's leader from fresh metadata; undefined after waiting (no metadata, no leader yet): ask again. */
  private async leader(): Promise<LeaderNode | undefined> {
    const {d, o, topic} = this
    let md: MetadataResponse
    try {
      md = await d.transport.metadata(topic)
    } catch (error) {
      if (!isRetriableConnection(error)) throw error
      await d.retrier.wait(`metadata of ${topic}`, error.message)
      return undefined
    }
    const tm = md.topics.find(x => x.name === topic)
    if (!tm || tm.errorCode === 3) throw new RuntimeError(`topic ${topic} does not exist`, undefined, 'NO_TOPIC')
    if (tm.errorCode !== 0)
      throw d.kafkaError(tm.errorCode, 'describing topic', topic, {request: 'Metadata', doing: `describing topic ${topic}`, resourceName: topic})
    const p = tm.partitions.find(x => x.partition === o.partition)
    if (!p) throw new RuntimeError(`${topic} has no partition ${o.partition} (it has ${tm.partitions.length})`, undefined, 'NO_PARTITION')
    const leader = md.brokers.find(b => b.id === p.leaderId)
    if (!leader)
      await d.retrier.wait(`a leader of ${this.name}`, p.leaderId < 0 ? 'none is elected' : `its leader, broker ${p.leaderId}, is not among the live brokers`)
    return leader
  }

  private listOffset(leader: LeaderNode, timestamp: bigint) {
    return this.d.transport.listOffsets(leader, this.topic, this.o.partition, timestamp, this.isolation)
  }

  /** Reads from `leader` from where the last attempt stopped up to the end offset it answers now. */
  private async attemptAt(leader: LeaderNode): Promise<Attempt> {
    const {d, name} = this
    const [start, end] = await Promise.all([this.listOffset(leader, EARLIEST_TIMESTAMP), this.listOffset(leader, LATEST_TIMESTAMP)])
    const err = start.errorCode || end.errorCode
    if (RETRIABLE_LEADER.has(err) && this.moves < LEADER_MOVES) return {moved: `ListOffsets answered ${d.errorName(err)}`}
    if (err !== 0)
      throw d.kafkaError(err, `ListOffsets on ${name}`, undefined, {request: 'ListOffsets', doing: `reading the offsets of ${name}`, resourceName: this.topic})
    const pos: Position = {
      leader,
      at: `broker ${leader.id} (${leader.host}:${leader.port})`,
      start: start.offset,
      end: end.offset,
      offset: this.resume !== undefined && this.resume > start.offset ? this.resume : start.offset,
      stalled: 0,
      pauseMs: 0,
    }
    while (pos.offset < pos.end) {
      const moved = await this.fetchOnce(pos)
      if (moved !== undefined) return {moved}
    }
    d.debug?.(`read ${name} from broker ${leader.id}: ${pos.start}..${pos.end}, ${this.fetches} fetches`)
    return {done: this.result(pos)}
  }

  /** One Fetch at the position and what its answer means; returns why to look the leader up again, if it must. */
  private async fetchOnce(pos: Position): Promise<string | undefined> {
    const {d, o, name} = this
    // A throttled principal (a quota) must not ask again before the broker's throttle time has passed.
    if (pos.pauseMs > 0) await d.retrier.pause(pos.pauseMs, `waiting out the throttle of ${pos.at} on the Fetch of ${name} (${pos.pauseMs} ms, a quota)`)
    const r = await d.transport.fetch(pos.leader, this.topic, o.partition, pos.offset, this.maxBytes, this.isolation)
    this.fetches++
    pos.pauseMs = r.throttleTimeMs && r.throttleTimeMs > 0 ? r.throttleTimeMs : 0
    const fp = r.partition
    const code = r.errorCode || fp?.errorCode || 0
    if (code === 0 && !fp && pos.pauseMs > 0) return undefined // throttled: answered without the partition
    if (RETRIABLE_LEADER.has(code)) {
      this.resume = pos.offset
      return `Fetch at offset ${pos.offset} answered ${d.errorName(code)}`
    }
    if (code === 1 && fp) return this.outOfRange(pos, fp)
    if (code === 0 && !fp) {
      throw new RuntimeError(
        `${pos.at} answered the Fetch of ${name} at offset ${pos.offset} without the partition`,
        'Check that the address is a Kafka broker; if it is, run with --debug and report it.',
        'PROTOCOL_ERROR',
      )
    }
    if (code !== 0 || !fp) throw d.kafkaError(code, `Fetch of ${name}`, undefined, {request: 'Fetch', doing: `reading ${this.topic}`, resourceName: this.topic})
    for (const a of fp.abortedTransactions) this.aborted.set(`${a.producerId}:${a.firstOffset}`, a)
    if (o.onAborted && fp.abortedTransactions.length > 0) o.onAborted(fp.abortedTransactions)
    const delivered = this.deliver(pos, fp)
    if (delivered.next > pos.offset) {
      pos.offset = this.resume = delivered.next
      pos.stalled = 0
      d.transport.progress() // only a fetch that moved the read forward earns more time
      return undefined
    }
    if (delivered.got === 0 && fp.records && fp.records.length > 0 && this.maxBytes < 256 << 20) {
      this.maxBytes *= 2 // one batch is larger than maxBytes
      return undefined
    }
    await this.stalledFetch(pos, delivered)
    return undefined
  }

  /**
   * OFFSET_OUT_OF_RANGE: if the log start moved past us (retention, compaction of the head), continue from it;
   * otherwise the end moved under us (a new leader truncated the log): look up leader and end again. Never
   * backwards: that would deliver batches twice.
   */
  private async outOfRange(pos: Position, fp: FetchPartitionResponse): Promise<string | undefined> {
    const earliest = fp.logStartOffset > pos.offset ? fp.logStartOffset : (await this.listOffset(pos.leader, EARLIEST_TIMESTAMP)).offset
    if (earliest > pos.offset) {
      pos.offset = this.resume = earliest
      return undefined
    }
    this.resume = pos.offset
    return `offset ${pos.offset} is out of range (the log was truncated)`
  }

  /** The fetch's batches at or past the position and below the end offset, batch by batch: each is applied (onBatch) and dropped before the next is decoded. */
  private deliver(pos: Position, fp: FetchPartitionResponse): Delivered {
    let got = 0
    let next = pos.offset // past the last batch delivered: a batch ending before it is never delivered (twice)
    let lastSeen: bigint | undefined
    const batchesOfFetch = recordBatches(fp.records ?? Buffer.alloc(0), this.d.decompress, this.o.keepKey)
    for (;;) {
      const step = this.nextBatch(batchesOfFetch, pos.leader, next)
      if (step.done) break
      const b = step.value
      got++
      lastSeen = b.lastOffset
      if (b.lastOffset < next) continue // a compressed batch may start before the fetch offset
      // written after the read began: left for the next read, so that what was delivered ends exactly at endOffset
      // (a caller resumes from endOffset: a batch past it delivered now would be delivered again, or, for an audit
      // --watch that tracks bumps from endOffset, silently absorbed into the read that was only a baseline)
      if (b.baseOffset >= pos.end) break
      next = b.lastOffset + 1n
      if (this.o.onBatch) this.o.onBatch(b)
      else this.batches.push(b)
    }
    return {got, next, lastSeen}
  }

  /** The next batch; a batch that cannot be decoded becomes the user's error (a corrupt replica, a size limit, or a bug). */
  private nextBatch(batches: Iterator<RawRecordBatch>, leader: LeaderNode, next: bigint): IteratorResult<RawRecordBatch> {
    const {name} = this
    try {
      return batches.next() // only the log's bytes are judged here, not what onBatch does with them
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
  }

  /**
   * Nothing at or past the offset, below the end offset: the broker answered empty (or only batches ending
   * before the offset). Ask again a few times; never end the read here, it would look complete.
   */
  private async stalledFetch(pos: Position, {got, lastSeen}: Delivered): Promise<void> {
    const {d, name} = this
    const why =
      got === 0
        ? `the Fetch at offset ${pos.offset} answered no records, below the end offset ${pos.end}`
        : `the Fetch at offset ${pos.offset} answered only batches ending before it (the last at ${lastSeen})`
    if (++pos.stalled > STALLED_FETCHES) {
      throw new RuntimeError(
        `${name} cannot be read to its end offset ${pos.end}: ${why} from ${pos.at}, ${pos.stalled} times in a row`,
        `Retry later; if it persists, check broker ${pos.leader.id} (its log of ${name}) and run with --debug.`,
        'INCOMPLETE_READ',
      )
    }
    await d.retrier.wait(`records of ${name} at offset ${pos.offset} from ${pos.at}`, why)
  }

  private result(pos: Position): PartitionRead {
    return {
      topic: this.topic,
      partition: this.o.partition,
      leader: pos.leader.id,
      logStartOffset: pos.start,
      endOffset: pos.end,
      batches: this.batches,
      abortedTransactions: [...this.aborted.values()].sort(by(x => x.firstOffset)),
      fetches: this.fetches,
    }
  }
}
