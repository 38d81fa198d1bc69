/**
 * Checks every response frame a broker sends before the connection (./broker-connection.ts) keeps its bytes. A
 * connection that appends whatever arrives until the 4-byte size prefix is satisfied lets a 2 GB prefix followed by
 * a stream of bytes grow the process to gigabytes, and misreads a zero, negative or foreign size (TLS alert, HTTP).
 *
 * The guard sits on the socket: it sees each request written (api key, correlation id, and for Fetch its
 * MaxBytes) and each chunk received before the connection does. A frame is refused as soon as its size prefix is
 * read if it is shorter than a correlation id or longer than the request can legitimately return; its
 * correlation id must be the oldest outstanding request's (Kafka answers in order on a connection). A refused
 * frame destroys the socket with a RuntimeError (PROTOCOL_ERROR) naming the broker; `frameError(socket)` returns
 * it so the failed request reports it instead of "Connection closed".
 */
import type {Socket} from 'node:net'
import {byteLimitFromEnv} from '../config/limits.js'
import {RuntimeError} from '../core/errors.js'

export const MAX_RESPONSE_ENV = 'REBALANCE_DOCTOR_MAX_RESPONSE_BYTES'
/**
 * Headroom over what a request asks for. Metadata of a 1,000,000-partition cluster at replication factor 3 is
 * about 45 MB; ListGroups of a million groups about 50 MB. Fetch may also return a first batch larger than its
 * MaxBytes, up to the topic's max.message.bytes (1 MiB by default).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 << 20

const FETCH = 1

/** The response bound from $REBALANCE_DOCTOR_MAX_RESPONSE_BYTES (bytes; a positive integer) or the default. */
export function maxResponseBytes(env: NodeJS.ProcessEnv = process.env): number {
  return byteLimitFromEnv(MAX_RESPONSE_ENV, DEFAULT_MAX_RESPONSE_BYTES, env)
}

interface Pending {
  readonly correlationId: number
  readonly apiKey: number
  /** The largest frame (after the size prefix) this request may get back. */
  readonly bound: number
}

/** What a request frame says about its response: api key, correlation id, Fetch MaxBytes. */
export function describeRequest(frame: Buffer, headroom: number): Pending | undefined {
  if (frame.length < 14) return undefined
  const apiKey = frame.readInt16BE(4)
  const apiVersion = frame.readInt16BE(6)
  const correlationId = frame.readInt32BE(8)
  let bound = headroom
  if (apiKey === FETCH && apiVersion >= 3 && apiVersion <= 14) {
    // header v1/v2: client id (int16 length + bytes), then a tag section (v12+, flexible); the body starts with
    // ReplicaId, MaxWaitMs, MinBytes, MaxBytes (int32 each).
    const idLength = Math.max(0, frame.readInt16BE(12))
    const body = 14 + idLength + (apiVersion >= 12 ? 1 : 0)
    if (frame.length >= body + 16) bound += Math.max(0, frame.readInt32BE(body + 12))
  }
  return {correlationId, apiKey, bound: Math.min(bound, 0x7fffffff)}
}

const errors = new WeakMap<Socket, RuntimeError>()

/** The protocol error that made the guard close this socket, if any. */
export function frameError(socket: Socket | undefined): RuntimeError | undefined {
  return socket ? errors.get(socket) : undefined
}

function hex(b: Buffer): string {
  return [...b].map(x => x.toString(16).padStart(2, '0')).join(' ')
}

/** Reads the response stream frame by frame; returns a message for the first bad frame. */
export class FrameChecker {
  readonly #pending: Pending[] = []
  #head = Buffer.alloc(0) // size prefix and correlation id of the frame being read
  #left = 0 // bytes of the current frame's remainder still to come
  #bound = 0

  constructor(readonly headroom: number) {}

  request(frame: Buffer): void {
    const p = describeRequest(frame, this.headroom)
    if (p) this.#pending.push(p)
  }

  /** Undefined if the chunk is fine so far, else why not. */
  chunk(data: Buffer): string | undefined {
    let i = 0
    while (i < data.length) {
      if (this.#left > 0) {
        const n = Math.min(this.#left, data.length - i)
        this.#left -= n
        i += n
        continue
      }
      const take = Math.min(8 - this.#head.length, data.length - i)
      this.#head = Buffer.concat([this.#head, data.subarray(i, i + take)])
      i += take
      if (this.#head.length >= 4) {
        const size = this.#head.readInt32BE(0)
        const expected = this.#pending[0]
        if (!expected) return `it sent ${this.#head.length >= 8 ? 'a response' : 'bytes'} nobody asked for (${describe(this.#head)})`
        if (size < 4) return `response size ${size} is ${size < 0 ? 'negative' : 'too small'}`
        if (size > expected.bound) {
          return `response size ${size} exceeds the ${expected.bound}-byte bound for ${apiName(expected.apiKey)} (${describe(this.#head)})`
        }
        this.#bound = size
      }
      if (this.#head.length < 8) continue
      const correlationId = this.#head.readInt32BE(4)
      const expected = this.#pending.shift()!
      if (correlationId !== expected.correlationId) {
        return `response correlation id ${correlationId} does not match request ${expected.correlationId} (${apiName(expected.apiKey)})`
      }
      this.#left = this.#bound - 4
      this.#head = Buffer.alloc(0)
    }
    return undefined
  }
}

function describe(head: Buffer): string {
  const first = head.subarray(0, 4)
  if (first[0] >= 0x14 && first[0] <= 0x17 && first[1] === 0x03) return `first bytes ${hex(first)}: a TLS record`
  const text = first.toString('latin1')
  if (/^[\x20-\x7e]{4}$/.test(text)) return `first bytes ${hex(first)}: text "${text}"`
  return `first bytes ${hex(first)}`
}

const API_NAMES: Record<number, string> = {
  0: 'Produce',
  1: 'Fetch',
  2: 'ListOffsets',
  3: 'Metadata',
  10: 'FindCoordinator',
  15: 'DescribeGroups',
  16: 'ListGroups',
  17: 'SaslHandshake',
  18: 'ApiVersions',
  36: 'SaslAuthenticate',
  60: 'DescribeCluster',
  69: 'ConsumerGroupDescribe',
  75: 'DescribeTopicPartitions',
  77: 'ShareGroupDescribe',
  89: 'StreamsGroupDescribe',
}

function apiName(key: number): string {
  return API_NAMES[key] ?? `API ${key}`
}

/**
 * Puts a FrameChecker between `socket` and its readers. Call right after the socket is created (the connection adds
 * its 'data' listener on connect). The checker sees writes through socket.write and reads through emit('data').
 */
export function guardSocket(socket: Socket, host: string, port: number, headroom: number, tls: boolean): void {
  const checker = new FrameChecker(headroom)
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
  socket.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (Buffer.isBuffer(chunk)) checker.request(chunk)
    return write(chunk, ...rest)
  }) as typeof socket.write
  const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean
  socket.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === 'data' && !errors.has(socket)) {
      const bad = checker.chunk(args[0] as Buffer)
      if (bad) {
        const plainToTls = !tls && / a TLS record/.test(bad)
        const error = new RuntimeError(
          `broker ${host}:${port} sent an invalid Kafka response: ${bad}`,
          plainToTls
            ? `The listener speaks TLS: set security.protocol=SSL (or SASL_SSL) in the --command-config file.`
            : /exceeds the/.test(bad)
              ? `Check that ${host}:${port} is a Kafka listener; if the response is legitimate, raise $${MAX_RESPONSE_ENV} (bytes of headroom over what a request asks for; default ${DEFAULT_MAX_RESPONSE_BYTES}).`
              : `Check that ${host}:${port} is a Kafka listener (and that security.protocol matches it).`,
          'PROTOCOL_ERROR',
        )
        errors.set(socket, error)
        socket.destroy(error)
        return false
      }
    }
    if (event === 'data' && errors.has(socket)) return false
    return emit(event, ...args)
  }) as typeof socket.emit
}
