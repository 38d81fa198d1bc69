/**
 * One connection to one broker: a TCP or TLS socket, Kafka's framing (an int32 size before every request and
 * response), request headers v1/v2, response headers v0/v1, and correlation of each response with its request.
 * Bodies are bytes here: ./protocol.ts encodes and decodes them; ./sasl.ts authenticates through `request`.
 *
 * Why not @platformatic/kafka's Connection (used until 2026-12): importing it loads every API module of the library
 * and ajv (its utils.js compiles JSON schemas at import), ~0.25 s of every live command's start on the 2-core test
 * machine, while we already encoded every body ourselves. Sockets, framing and TLS are Node's; what is left here
 * is the frame loop.
 *
 * Every response frame is checked by ./frame-guard.ts (size bound, correlation order) as it arrives, before its
 * bytes are kept. A frame is assembled from its chunks once, with one copy; a large one as its chunks arrive.
 */
import {EventEmitter} from 'node:events'
import {connect as tcpConnect, type Socket} from 'node:net'
import {createRequire} from 'node:module'
import type {ConnectionOptions} from 'node:tls'
import {guardSocket} from './frame-guard.js'

/** node:tls, loaded by the first TLS connection only (~5 ms of every plaintext command's start otherwise). */
const tlsModule = (): typeof import('node:tls') => createRequire(import.meta.url)('node:tls') as typeof import('node:tls')

/** A failure of the connection itself (not a Kafka error code): the socket's error (its cause), or a close. */
export class NetworkFailure extends Error {
  /** True when the peer closed the connection without a socket error. */
  readonly closed: boolean

  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : {cause})
    this.name = 'NetworkFailure'
    this.closed = cause === undefined
  }
}

export interface BrokerConnectionOptions {
  readonly clientId: string
  /** TLS options (node:tls), or undefined for PLAINTEXT / SASL_PLAINTEXT. */
  readonly tls?: ConnectionOptions
  /** The largest response frame beyond what a request asks for (./frame-guard.ts). */
  readonly maxResponseBytes: number
}

interface Pending {
  readonly responseHeaderTags: boolean
  readonly resolve: (body: Buffer) => void
  readonly reject: (error: Error) => void
}

const INT32 = 4
/** Frames from this size on are copied into their buffer as they arrive (ListGroups of a million groups: ~40 MB). */
const LARGE_FRAME = 1 << 20

export class BrokerConnection extends EventEmitter {
  readonly socket: Socket
  readonly #clientId: Buffer
  readonly #pending = new Map<number, Pending>()
  #correlationId = 0
  #chunks: Buffer[] = []
  #buffered = 0
  /** Size of the frame being read (after its prefix), or -1 until the prefix is in. */
  #frameSize = -1
  /** A large frame, copied in as its chunks arrive (not all its chunks held beside one copy: 2x its size). */
  #large: Buffer | undefined
  #filled = 0
  #failure: NetworkFailure | undefined
  readonly #ready: Promise<void>

  /** Connects to host:port; `ready` settles when TCP (and TLS) are up. */
  constructor(host: string, port: number, options: BrokerConnectionOptions) {
    super()
    this.#clientId = Buffer.from(options.clientId, 'utf8')
    const tls = options.tls
    this.socket = tls ? tlsModule().connect({...tls, host, port, ...(isIp(host) ? {} : {servername: host})}) : tcpConnect({host, port})
    this.socket.setNoDelay(true)
    guardSocket(this.socket, host, port, options.maxResponseBytes, Boolean(tls))
    this.#ready = new Promise<void>((resolve, reject) => {
      const up = () => {
        this.socket.off('error', early)
        resolve()
      }
      const early = (error: Error) => reject(new NetworkFailure(`cannot connect: ${error.message}`, error))
      this.socket.once(tls ? 'secureConnect' : 'connect', up)
      this.socket.once('error', early)
      this.socket.once('close', () => reject(this.#failure ?? new NetworkFailure('Connection closed')))
    })
    this.#ready.catch(() => {})
    this.socket.on('data', (chunk: Buffer) => this.#receive(chunk))
    this.socket.on('error', error => this.#fail(new NetworkFailure(error.message, error)))
    this.socket.on('close', () => {
      this.#fail(new NetworkFailure('Connection closed'))
      this.emit('close')
    })
  }

  /** Settles when the connection is up (TCP connected, TLS handshake done); rejects with a NetworkFailure. */
  ready(): Promise<void> {
    return this.#ready
  }

  /**
   * Sends one request; resolves with the response body. Header v2 (with a tag section) when `flexible`, else v1;
   * the response header has a tag section when `responseHeaderTags` (ApiVersions' never has).
   */
  request(apiKey: number, apiVersion: number, body: Buffer, flexible = true, responseHeaderTags = flexible): Promise<Buffer> {
    if (this.#failure) return Promise.reject(this.#failure)
    const correlationId = this.#correlationId
    this.#correlationId = (this.#correlationId + 1) & 0x7fffffff
    const headerSize = 2 + 2 + 4 + 2 + this.#clientId.length + (flexible ? 1 : 0)
    const frame = Buffer.allocUnsafe(INT32 + headerSize + body.length)
    frame.writeInt32BE(headerSize + body.length, 0)
    frame.writeInt16BE(apiKey, 4)
    frame.writeInt16BE(apiVersion, 6)
    frame.writeInt32BE(correlationId, 8)
    frame.writeInt16BE(this.#clientId.length, 12)
    this.#clientId.copy(frame, 14)
    if (flexible) frame[14 + this.#clientId.length] = 0 // no tagged fields
    body.copy(frame, INT32 + headerSize)
    return new Promise<Buffer>((resolve, reject) => {
      this.#pending.set(correlationId, {responseHeaderTags, resolve, reject})
      this.socket.write(frame)
    })
  }

  /** Ends the connection politely (FIN); pending requests fail with a NetworkFailure. */
  close(): Promise<void> {
    if (this.socket.destroyed || this.socket.closed) return Promise.resolve()
    return new Promise<void>(resolve => {
      this.socket.once('close', () => resolve())
      this.socket.end()
    })
  }

  #fail(failure: NetworkFailure): void {
    this.#failure ??= failure
    for (const p of this.#pending.values()) p.reject(this.#failure)
    this.#pending.clear()
  }

  #receive(chunk: Buffer): void {
    const rest = this.#large ? this.#fill(chunk) : chunk
    if (rest.length === 0) return
    this.#chunks.push(rest)
    this.#buffered += rest.length
    for (;;) {
      if (this.#frameSize < 0) {
        if (this.#buffered < INT32) return
        const head = this.#take(INT32)
        this.#frameSize = head.readInt32BE(0)
      }
      // (the guard has already refused a size below 4 or beyond the request's bound, destroying the socket)
      if (this.#buffered < this.#frameSize) {
        if (this.#frameSize >= LARGE_FRAME) this.#startLarge()
        return
      }
      const frame = this.#take(this.#frameSize)
      this.#frameSize = -1
      this.#deliver(frame)
    }
  }

  /** The large frame's buffer, with what is buffered of it (all of it is: the frame is not complete). */
  #startLarge(): void {
    const large = Buffer.allocUnsafe(this.#frameSize)
    let at = 0
    for (const c of this.#chunks) at += c.copy(large, at)
    ;[this.#large, this.#filled, this.#chunks, this.#buffered] = [large, at, [], 0]
  }

  /** `chunk` copied into the large frame, delivered when complete; what is left of the chunk (the next frames). */
  #fill(chunk: Buffer): Buffer {
    const large = this.#large!
    const k = chunk.copy(large, this.#filled, 0, Math.min(chunk.length, large.length - this.#filled))
    this.#filled += k
    if (this.#filled < large.length) return chunk.subarray(k)
    ;[this.#large, this.#frameSize] = [undefined, -1]
    this.#deliver(large)
    return chunk.subarray(k)
  }

  /** The first `n` buffered bytes, as one Buffer (a copy only when they span chunks). */
  #take(n: number): Buffer {
    const first = this.#chunks[0]
    let out: Buffer
    if (first.length >= n) {
      out = first.subarray(0, n)
      if (first.length === n) this.#chunks.shift()
      else this.#chunks[0] = first.subarray(n)
    } else {
      out = Buffer.allocUnsafe(n)
      let at = 0
      while (at < n) {
        const c = this.#chunks[0]
        const k = Math.min(c.length, n - at)
        c.copy(out, at, 0, k)
        at += k
        if (k === c.length) this.#chunks.shift()
        else this.#chunks[0] = c.subarray(k)
      }
    }
    this.#buffered -= n
    return out
  }

  #deliver(frame: Buffer): void {
    const correlationId = frame.readInt32BE(0)
    const p = this.#pending.get(correlationId)
    if (!p) return // (the guard refuses a correlation id out of order before this is reached)
    this.#pending.delete(correlationId)
    let at = INT32
    try {
      if (p.responseHeaderTags) at = skipTaggedFields(frame, at)
    } catch (error) {
      p.reject(error as Error)
      return
    }
    p.resolve(frame.subarray(at))
  }
}

/** The offset after a tag section (an unsigned varint count, then tag, size and bytes of each). */
function skipTaggedFields(frame: Buffer, at: number): number {
  let [count, i] = uvarint(frame, at)
  for (let t = 0; t < count; t++) {
    ;[, i] = uvarint(frame, i)
    let size: number
    ;[size, i] = uvarint(frame, i)
    i += size
    if (i > frame.length) throw new Error('response header: a tagged field runs past the frame')
  }
  return i
}

function uvarint(b: Buffer, at: number): [number, number] {
  let value = 0
  for (let shift = 0, i = at; shift <= 28; shift += 7, i++) {
    if (i >= b.length) throw new Error('response header: truncated varint')
    const byte = b[i]
    value |= (byte & 0x7f) << shift
    if ((byte & 0x80) === 0) return [value >>> 0, i + 1]
  }
  throw new Error('response header: varint longer than 5 bytes')
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':')
}
