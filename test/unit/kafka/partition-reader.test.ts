/**
 * The partition reader's retry paths over a scripted transport (no broker): leaders that move, refuse
 * connections or are not elected yet, offsets out of range both ways, a batch larger than maxBytes, and the
 * deadline — with a virtual clock, so the backoff is counted rather than slept.
 */
import {describe, expect, it} from 'vitest'
import {RdError, RuntimeError} from '../../../src/core/errors.js'
import {type LeaderNode, type PartitionTransport, readPartitionVia, STALLED_FETCHES} from '../../../src/kafka/partition-reader.js'
import {LEADER_MOVES} from '../../../src/kafka/retry.js'
import type {FetchPartitionResponse, MetadataResponse} from '../../../src/kafka/protocol.js'
import {backoffMs, DEFAULT_BACKOFF, Retrier} from '../../../src/kafka/retry.js'
import {sealBatches} from '../../lib/batch-crc.js'

const TOPIC = '__consumer_offsets'

/** A v2 batch of `count` records without key or value, uncompressed. */
function batch(base: bigint, count: number): Buffer {
  const records = Array.from({length: count}, (_, i) => Buffer.from([0, 0, i * 2, 1, 1, 0])) // attrs, tsΔ, offsetΔ, key -1, value -1, headers 0
  const body = Buffer.concat(records.map(r => Buffer.concat([Buffer.from([r.length * 2]), r])))
  const head = Buffer.alloc(49)
  head.writeInt32BE(7, 0) // leader epoch
  head.writeInt8(2, 4) // magic
  head.writeInt16BE(0, 9) // attributes
  head.writeInt32BE(count - 1, 11)
  head.writeBigInt64BE(-1n, 31) // producer id
  head.writeInt16BE(-1, 39)
  head.writeInt32BE(-1, 41)
  head.writeInt32BE(count, 45)
  const afterLength = Buffer.concat([head, body])
  const pre = Buffer.alloc(12)
  pre.writeBigInt64BE(base, 0)
  pre.writeInt32BE(afterLength.length, 8)
  return sealBatches(Buffer.concat([pre, afterLength]))
}

const broker = (id: number): LeaderNode => ({id, host: `b${id}`, port: 9092})
const refused = (n: LeaderNode) => new RuntimeError(`connection refused by ${n.host}:${n.port}: nothing listens on that port`, undefined, 'CONNECTION_REFUSED')

interface Script {
  /** Batches of 5 records at offsets 0, 5, 10, …  */
  batches?: number
  logStart?: bigint
  leader?: number
  /** Each Metadata call may change the leader or fail first. */
  onMetadata?: (call: number, fake: Fake) => void
  onListOffsets?: (leader: LeaderNode, fake: Fake) => number | void
  /** `{throttle}`: a throttled answer without the partition (a principal over its quota). */
  onFetch?: (leader: LeaderNode, offset: bigint, call: number, fake: Fake) => Partial<FetchPartitionResponse> | {top: number} | {throttle: number} | void
  maxBytes?: number
  timeoutMs?: number
}

class Fake implements PartitionTransport {
  leader: number
  logStart: bigint
  readonly log: Buffer[]
  readonly calls = {metadata: 0, listOffsets: 0, fetch: 0, forgotten: [] as number[], fetchedAt: [] as Array<[number, bigint, number]>}
  refusing = new Set<number>()
  now = 0
  deadline: number
  readonly timeoutMs: number
  readonly retrier: Retrier
  readonly s: Script

  constructor(s: Script) {
    this.s = s
    this.leader = s.leader ?? 1
    this.logStart = s.logStart ?? 0n
    this.log = Array.from({length: s.batches ?? 4}, (_, i) => batch(BigInt(i * 5), 5))
    this.timeoutMs = s.timeoutMs ?? 30_000
    this.deadline = this.timeoutMs
    this.retrier = new Retrier({
      deadline: () => this.deadline,
      timeoutMs: this.timeoutMs,
      random: () => 0.5,
      clock: {now: () => this.now, sleep: async ms => void (this.now += ms)},
    })
  }

  get end(): bigint {
    return BigInt(this.log.length * 5)
  }

  async metadata(): Promise<MetadataResponse> {
    const call = this.calls.metadata++
    this.s.onMetadata?.(call, this)
    const partition = {errorCode: 0, partition: 3, leaderId: this.leader, replicas: [1, 2, 3], isr: [1, 2, 3], offline: []}
    return {
      brokers: [1, 2, 3].map(id => ({...broker(id), rack: null, fenced: false})),
      clusterId: 'c',
      controllerId: 1,
      topics: [{errorCode: 0, name: TOPIC, topicId: new Uint8Array(16), internal: true, partitions: [partition]}],
    }
  }

  async listOffsets(leader: LeaderNode, _t: string, _p: number, ts: bigint): Promise<{errorCode: number; offset: bigint}> {
    this.calls.listOffsets++
    if (this.refusing.has(leader.id)) throw refused(leader)
    const code = this.s.onListOffsets?.(leader, this) ?? 0
    return {errorCode: code, offset: ts === -2n ? this.logStart : this.end}
  }

  async fetch(
    leader: LeaderNode,
    _t: string,
    _p: number,
    offset: bigint,
    maxBytes: number,
  ): Promise<{errorCode: number; throttleTimeMs?: number; partition: FetchPartitionResponse | undefined}> {
    const call = this.calls.fetch++
    // A reader that never stops fetching fails the test instead of hanging it.
    if (call > 10_000) throw new Error(`runaway: ${call} fetches`)
    this.calls.fetchedAt.push([leader.id, offset, maxBytes])
    if (this.refusing.has(leader.id)) throw refused(leader)
    const base = {errorCode: 0, highWatermark: this.end, lastStableOffset: this.end, logStartOffset: this.logStart, abortedTransactions: []}
    const over = this.s.onFetch?.(leader, offset, call, this)
    if (over && 'top' in over) return {errorCode: over.top, partition: undefined}
    if (over && 'throttle' in over) return {errorCode: 0, throttleTimeMs: over.throttle, partition: undefined}
    if (over && (over.errorCode || 'records' in over)) return {errorCode: 0, partition: {...base, records: null, ...over}}
    if (leader.id !== this.leader) return {errorCode: 0, partition: {...base, errorCode: 6, records: null}}
    let bytes = Buffer.concat(this.log.filter((_, i) => BigInt(i * 5) >= offset))
    if (bytes.length > maxBytes) bytes = bytes.subarray(0, maxBytes) // as a broker truncates at the limit
    return {errorCode: 0, partition: {...base, records: bytes}}
  }

  forget(leader: LeaderNode): void {
    this.calls.forgotten.push(leader.id)
  }

  progress(): void {
    this.deadline = Math.max(this.deadline, this.now + this.timeoutMs)
  }
}

async function read(fake: Fake, fromOffset?: bigint) {
  const delivered: bigint[] = []
  const r = await readPartitionVia(
    {
      transport: fake,
      retrier: fake.retrier,
      decompress: () => {
        throw new Error('no compression here')
      },
      kafkaError: (code, what, subject) => new RuntimeError(`${what}${subject ? ` ${subject}` : ''} failed: error ${code}`, undefined, 'KAFKA_ERROR'),
      errorName: code => `E${code}`,
    },
    {topic: TOPIC, partition: 3, maxBytes: fake.s.maxBytes, fromOffset, onBatch: b => delivered.push(b.baseOffset)},
  )
  return {r, delivered}
}

const all = (n = 4) => Array.from({length: n}, (_, i) => BigInt(i * 5))

describe('partition reader', () => {
  it('reads every batch from the leader in one pass when nothing fails', async () => {
    const fake = new Fake({})
    const {r, delivered} = await read(fake)
    expect(delivered).toEqual(all())
    expect(r).toMatchObject({leader: 1, logStartOffset: 0n, endOffset: 20n, fetches: 1})
    expect(fake.retrier.waits).toBe(0)
  })

  it('batches written after the read began (past the end offset ListOffsets gave) are left for the next read', async () => {
    // two batches appended between ListOffsets and the Fetch: the broker sends them, the reader must not deliver
    // them, or a caller resuming from endOffset reads them twice (audit --watch's baseline absorbed such a bump)
    const fake = new Fake({onFetch: (_l, _o, call, f) => void (call === 0 && f.log.push(batch(20n, 5), batch(25n, 5)))})
    const {r, delivered} = await read(fake)
    expect(fake.calls.fetch).toBe(1)
    expect(delivered).toEqual(all())
    expect(r.endOffset).toBe(20n)
    const next = await read(fake, r.endOffset)
    expect(next.delivered).toEqual([20n, 25n])
    expect(next.r.endOffset).toBe(30n)
  })

  for (const code of [5, 6, 74, 75, 78]) {
    it(`Fetch answering leader error ${code} mid-read: looks the leader up again and resumes, no batch twice`, async () => {
      const fake = new Fake({
        maxBytes: 200, // about two batches per fetch
        onFetch: (_l, _o, call, f) => {
          if (call === 1) {
            f.leader = 2
            return {errorCode: code}
          }
        },
      })
      const {r, delivered} = await read(fake)
      expect(delivered).toEqual(all())
      expect(r.leader).toBe(2)
      expect(fake.calls.fetchedAt.map(([id]) => id)).toEqual([1, 1, 2])
      expect(fake.retrier.waits).toBe(1)
    })

    it(`ListOffsets answering leader error ${code}: retried at the new leader`, async () => {
      const fake = new Fake({onListOffsets: (l, f) => (l.id === 1 ? ((f.leader = 3), code) : 0)})
      const {r, delivered} = await read(fake)
      expect(delivered).toEqual(all())
      expect(r.leader).toBe(3)
    })
  }

  it('OFFSET_OUT_OF_RANGE below the log start (retention): continues from the new log start', async () => {
    const fake = new Fake({
      onFetch: (_l, offset, call, f) => {
        if (call === 0) {
          f.logStart = 10n
          return {errorCode: 1, logStartOffset: 10n}
        }
        expect(offset).toBe(10n)
      },
    })
    const {delivered} = await read(fake)
    expect(delivered).toEqual([10n, 15n])
    expect(fake.retrier.waits).toBe(0)
  })

  it('OFFSET_OUT_OF_RANGE above the log start (a new leader truncated): leader and end looked up again, read resumes at the same offset', async () => {
    const fake = new Fake({
      maxBytes: 200,
      onFetch: (_l, _o, call, f) => {
        if (call === 1) {
          f.leader = 2
          return {errorCode: 1, logStartOffset: 0n}
        }
      },
    })
    const {r, delivered} = await read(fake)
    expect(delivered).toEqual(all())
    expect(r.leader).toBe(2)
    const [, second, third] = fake.calls.fetchedAt
    expect(third[1]).toBe(second[1]) // not backwards, not skipped
    expect(fake.calls.metadata).toBe(2)
  })

  it('a batch larger than maxBytes: maxBytes doubles until it fits', async () => {
    const size = batch(0n, 5).length
    const fake = new Fake({maxBytes: Math.floor(size / 3)})
    const {delivered, r} = await read(fake)
    expect(delivered).toEqual(all())
    const sizes = fake.calls.fetchedAt.map(([, , m]) => m)
    expect(sizes.slice(0, 3)).toEqual([sizes[0], sizes[0] * 2, sizes[0] * 4])
    expect(r.fetches).toBe(fake.calls.fetch)
  })

  it('connection refused by the leader (a killed broker still leads): forgets the connection, backs off, reads from the new leader', async () => {
    const fake = new Fake({
      onMetadata: (call, f) => {
        if (call === 0) f.refusing.add(1)
        if (call === 3) f.leader = 2 // fenced: a new leader is elected
      },
    })
    const {r, delivered} = await read(fake)
    expect(delivered).toEqual(all())
    expect(r.leader).toBe(2)
    expect(fake.calls.forgotten).toEqual([1, 1, 1])
    expect(fake.retrier.waits).toBe(3)
    expect(fake.now).toBe(100 + 200 + 400) // backoff 100 ms, doubling (jitter fixed at the middle)
  })

  it('connection dropped mid-read: resumes after the batches already delivered', async () => {
    const fake = new Fake({
      maxBytes: 200,
      onFetch: (l, _o, call, f) => {
        if (call === 1) {
          f.refusing.add(1)
          f.leader = 3
          throw refused(l)
        }
      },
    })
    const {delivered, r} = await read(fake)
    expect(delivered).toEqual(all())
    expect(r.leader).toBe(3)
  })

  it('no leader elected yet: waits within the deadline until one is', async () => {
    const fake = new Fake({leader: -1, onMetadata: call => call === 5 && (fake.leader = 2)})
    const {r} = await read(fake)
    expect(r.leader).toBe(2)
    expect(fake.retrier.waits).toBe(5)
  })

  it('metadata unreachable for a while: retried', async () => {
    const fake = new Fake({
      onMetadata: call => {
        if (call < 2) throw new RuntimeError('b1:9092 closed the connection', undefined, 'CONNECTION_CLOSED')
      },
    })
    await read(fake)
    expect(fake.retrier.waits).toBe(2)
  })

  it('the leader keeps moving: NO_LEADER after LEADER_MOVES moves, naming where the read stopped', async () => {
    const fake = new Fake({onFetch: (_l, _o, _c, f) => ((f.leader = (f.leader % 3) + 1), {errorCode: 6})})
    const error = await read(fake).catch((e: RdError) => e)
    expect(error).toBeInstanceOf(RdError)
    expect((error as RdError).code).toBe('NO_LEADER')
    expect((error as RdError).message).toBe(`${TOPIC}-3: the leader kept moving; read stopped at offset 0`)
    expect(fake.calls.fetch).toBe(LEADER_MOVES + 1)
  })

  it('the leader refuses until the deadline: a TIMEOUT naming the partition, the broker and the refusal, attempts bounded', async () => {
    const fake = new Fake({timeoutMs: 30_000, onMetadata: (_c, f) => f.refusing.add(1)})
    const error = (await read(fake).catch((e: RdError) => e)) as RdError
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toMatch(
      /^timed out after 30000 ms waiting for a leader of __consumer_offsets-3 \(\d+ attempts\): broker 1 \(b1:9092\): connection refused by b1:9092/,
    )
    expect(fake.now).toBeLessThanOrEqual(30_000)
    // 100, 200, … 1600, then 2000 ms each: about 20 attempts in 30 s, not a storm
    expect(fake.calls.listOffsets / 2).toBeLessThan(25)
    expect(fake.calls.listOffsets / 2).toBeGreaterThan(10)
  })

  it('errors every broker would repeat (TLS, SASL) are not retried', async () => {
    const fake = new Fake({
      onMetadata: () => {
        throw new RuntimeError('TLS: the certificate of b1:9092 is not trusted', undefined, 'TLS_UNTRUSTED')
      },
    })
    const error = (await read(fake).catch((e: RdError) => e)) as RdError
    expect(error.code).toBe('TLS_UNTRUSTED')
    expect(fake.retrier.waits).toBe(0)
  })

  it('a non-retriable Kafka error from Fetch fails at once', async () => {
    const fake = new Fake({onFetch: () => ({top: 29})})
    const error = (await read(fake).catch((e: RdError) => e)) as RdError
    expect(error.message).toBe(`Fetch of ${TOPIC}-3 failed: error 29`)
  })

  it("a batch whose CRC-32C does not match (a byte changed on the way or on the broker's disk): refused, naming the broker and partition", async () => {
    const fake = new Fake({leader: 2})
    fake.log[1] = Buffer.from(fake.log[1])
    fake.log[1][fake.log[1].length - 3] ^= 0x04 // in a record, after the CRC
    const delivered: bigint[] = []
    const error = (await read(fake)
      .then(x => delivered.push(...x.delivered))
      .catch((e: RdError) => e)) as RdError
    expect(error).toBeInstanceOf(RuntimeError)
    expect(error.message).toMatch(
      new RegExp(
        `^broker 2 sent a corrupt record batch of ${TOPIC}-3: record batch at offset 5 is corrupt: stored CRC-32C 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}$`,
      ),
    )
    expect(error.hint).toMatch(/kafka-dump-log/)
  })
})

describe('partition reader: fetches that bring nothing (no progress, empty below the end, throttled)', () => {
  it('a fetch answering only batches that end before its offset: bounded retries, then INCOMPLETE_READ naming partition and broker', async () => {
    const fake = new Fake({onFetch: (_l, offset, _c, f) => (offset >= 5n ? {records: f.log[0]} : undefined)})
    const delivered: bigint[] = []
    const error = (await readPartitionVia(
      {transport: fake, retrier: fake.retrier, decompress: () => Buffer.alloc(0), kafkaError: () => new RuntimeError('x'), errorName: c => `E${c}`},
      {topic: TOPIC, partition: 3, maxBytes: 100, onBatch: b => delivered.push(b.baseOffset)},
    ).catch((e: RdError) => e)) as RdError
    expect(error.code).toBe('INCOMPLETE_READ')
    expect(error.message).toContain(`${TOPIC}-3`)
    expect(error.message).toContain('broker 1 (b1:9092)')
    expect(error.message).toContain('only batches ending before it')
    expect(error.hint).toBeTruthy()
    expect(delivered).toEqual([0n]) // batch 0 once, never again
    expect(fake.calls.fetch).toBe(1 + 1 + STALLED_FETCHES)
    expect(fake.now).toBeLessThan(30_000) // within the deadline: no fetch that does not advance moved it
  })

  it('with a short --timeout, the same broker ends in a TIMEOUT within it: fetches that do not advance never extend the deadline', async () => {
    const fake = new Fake({timeoutMs: 500, maxBytes: 100, onFetch: (_l, offset, _c, f) => (offset >= 5n ? {records: f.log[0]} : undefined)})
    const error = (await read(fake).catch((e: RdError) => e)) as RdError
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toContain(`records of ${TOPIC}-3 at offset 5 from broker 1 (b1:9092)`)
    expect(fake.now).toBeLessThanOrEqual(fake.timeoutMs + 0) // the one progress (batch 0) happened at time 0
  })

  it('empty fetches below the end offset: asked again, then INCOMPLETE_READ — never a read that looks complete', async () => {
    const fake = new Fake({onFetch: (_l, offset) => (offset >= 10n ? {records: Buffer.alloc(0)} : undefined), maxBytes: 200})
    const error = (await read(fake).catch((e: RdError) => e)) as RdError
    expect(error).toBeInstanceOf(RdError)
    expect(error.code).toBe('INCOMPLETE_READ')
    expect(error.message).toBe(
      `${TOPIC}-3 cannot be read to its end offset 20: the Fetch at offset 10 answered no records, below the end offset 20 from broker 1 (b1:9092), ${STALLED_FETCHES + 1} times in a row`,
    )
  })

  it('a few empty fetches, then records: the read goes on and delivers everything once', async () => {
    const fake = new Fake({onFetch: (_l, _o, call) => (call === 1 || call === 2 ? {records: null} : undefined), maxBytes: 200})
    const {r, delivered} = await read(fake)
    expect(delivered).toEqual(all())
    expect(r.endOffset).toBe(20n)
    expect(fake.retrier.waits).toBe(2)
  })

  it('a throttled fetch (throttle time, no partition): waited out, then the read goes on', async () => {
    const fake = new Fake({onFetch: (_l, _o, call) => (call < 2 ? {throttle: 700} : undefined)})
    const {delivered} = await read(fake)
    expect(delivered).toEqual(all())
    expect(fake.now).toBe(1400) // both throttle times, no less
    expect(fake.retrier.waits).toBe(0) // not a retry: the broker asked for the pause
  })

  it('a broker that throttles for ever: TIMEOUT within the deadline, naming the throttle, broker and partition', async () => {
    const fake = new Fake({timeoutMs: 5000, onFetch: () => ({throttle: 1000})})
    const error = (await read(fake).catch((e: RdError) => e)) as RdError
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toContain(`throttle of broker 1 (b1:9092) on the Fetch of ${TOPIC}-3`)
    expect(fake.now).toBeLessThanOrEqual(5000)
  })

  it('a fetch answered without the partition and without a throttle: PROTOCOL_ERROR naming the broker', async () => {
    const fake = new Fake({onFetch: () => ({top: 0})})
    const error = (await read(fake).catch((e: RdError) => e)) as RdError
    expect(error.code).toBe('PROTOCOL_ERROR')
    expect(error.message).toContain('broker 1 (b1:9092) answered the Fetch of __consumer_offsets-3 at offset 0 without the partition')
  })
})

describe('backoff', () => {
  it('doubles from 100 ms to at most 2 s, with ±20 % jitter', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(a => backoffMs(a, DEFAULT_BACKOFF, () => 0.5))).toEqual([100, 200, 400, 800, 1600, 2000, 2000])
    expect(backoffMs(0, DEFAULT_BACKOFF, () => 0)).toBe(80)
    expect(backoffMs(20, DEFAULT_BACKOFF, () => 1)).toBe(2400)
  })
})
