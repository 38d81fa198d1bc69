/**
 * The connection side of the Kafka adapter: connections to brokers (./broker-connection.ts: TCP/TLS sockets,
 * framing, correlation, every response frame checked by ./frame-guard.ts; ./sasl.ts: PLAIN, SCRAM, OAUTHBEARER),
 * the bootstrap broker and its API versions, the operation deadline, and reaching any broker when one goes away.
 * What is asked lives in ./metadata.ts, ./groups.ts and ./partition-reader.ts; this file knows no request body but
 * ApiVersions.
 *
 * Every operation runs under one deadline (`settings.timeoutMs`); when it passes, all sockets are destroyed and a
 * one-line RuntimeError names the step that was waiting (`step`).
 */
import type {ConnectionSettings} from '../config/client-config.js'
import {AuthorizationDenied, type Denial, RdError, RuntimeError} from '../core/errors.js'
import {denialOf, principalOf} from './authorization.js'
import {BrokerConnection, NetworkFailure} from './broker-connection.js'
import {kafkaErrorName} from './error-codes.js'
import {connectionError, oneLine, timeoutError} from './errors.js'
import {frameError, maxResponseBytes} from './frame-guard.js'
import * as P from './protocol.js'
import {isRetriableConnection, Retrier} from './retry.js'
import {OAUTH_TOKENS} from './oauth.js'
import {authenticate} from './sasl.js'

export interface KafkaClientOptions {
  /** Redacted progress lines for --debug. */
  readonly debug?: (line: string) => void
  /** Warnings for the user (stderr). */
  readonly warn?: (line: string) => void
}

export interface Node {
  readonly id: number
  readonly host: string
  readonly port: number
}

/** Connection failures that another bootstrap server would repeat. */
const SAME_FOR_ALL_BROKERS = new Set([
  'SASL_AUTH_FAILED',
  'SASL_MECHANISM',
  'OAUTH_TOKEN',
  'TLS_UNTRUSTED',
  'TLS_HOSTNAME',
  'TLS_CERT_DATE',
  'TLS_CLIENT_KEY',
  'TLS_REJECTED',
  'TLS_HANDSHAKE',
  'TIMEOUT',
])

/** Which request a Kafka error code answered, what the tool was doing, and the resource asked about. */
export interface AuthContext {
  readonly request: string
  readonly doing: string
  readonly resourceName?: string | null
}

export type Decode<T> = (buf: Buffer, version: number) => T

export class KafkaSession {
  readonly #errorNames: (code: number) => string
  readonly settings: ConnectionSettings
  readonly opts: KafkaClientOptions
  /** When the current operation times out; a partition read that makes progress moves it forward. */
  deadline: number
  /** What the operation is waiting for, named by a timeout. */
  step = 'starting'
  closed = false
  /** Brokers from the last Metadata response: where to turn when the bootstrap broker goes away. */
  known: Node[] = []
  #bootstrap!: {conn: BrokerConnection; host: string; port: number}
  readonly #conns = new Map<string, Promise<BrokerConnection>>()
  readonly #addresses = new WeakMap<BrokerConnection, {host: string; port: number}>()
  readonly #all = new Set<BrokerConnection>()
  /** When the SASL session of the connection to host:port is to be replaced (KIP-368 session lifetime). */
  readonly #reauthAt = new Map<string, number>()
  /** Connections attempted (for --debug: retries must stay bounded). */
  #connectAttempts = 0
  #versions = new Map<number, P.ApiVersionRange>()
  readonly #maxResponse = maxResponseBytes()

  private constructor(errorNames: (code: number) => string, settings: ConnectionSettings, opts: KafkaClientOptions) {
    this.#errorNames = errorNames
    this.settings = settings
    this.opts = opts
    this.deadline = Date.now() + settings.timeoutMs
  }

  /** Connects to the first reachable bootstrap server and reads its API versions. */
  static async open(settings: ConnectionSettings, opts: KafkaClientOptions = {}): Promise<KafkaSession> {
    const session = new KafkaSession(kafkaErrorName, settings, opts)
    try {
      await session.within(session.#connectBootstrap())
    } catch (error) {
      await session.close()
      throw error
    }
    return session
  }

  get clusterAddress(): string {
    return `${this.#bootstrap.host}:${this.#bootstrap.port}`
  }

  get bootstrap(): {readonly host: string; readonly port: number} {
    return this.#bootstrap
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // Every connection made, connected or still connecting (a timeout can leave a handshake pending): close
    // politely for at most 200 ms, then destroy the socket so nothing keeps the process alive.
    await Promise.allSettled(
      [...this.#all].map(async conn => {
        await Promise.race([conn.close().catch(() => {}), new Promise(r => setTimeout(r, 200).unref())])
        conn.socket.destroy()
      }),
    )
  }

  /** Runs `work` under the deadline; a timeout closes every socket and names the step that was waiting. */
  async within<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      // The deadline can move forward while a partition read makes progress; re-arm until it passes.
      const arm = () => {
        const left = this.deadline - Date.now()
        timer = left > 0 ? setTimeout(arm, left) : undefined
        if (left <= 0) reject(timeoutError(this.settings.timeoutMs, this.step))
      }
      arm()
    })
    try {
      return await Promise.race([work, timeout])
    } catch (error) {
      if (error instanceof RdError && (error as RdError).code === 'TIMEOUT') {
        work.catch(() => {})
        await this.close()
      }
      throw error
    } finally {
      clearTimeout(timer)
    }
  }

  /** Retries of one operation, within the deadline; each logged with --debug. */
  retrier(): Retrier {
    return new Retrier({deadline: () => this.deadline, timeoutMs: this.settings.timeoutMs, debug: line => this.debug(line)})
  }

  debug(line: string): void {
    this.opts.debug?.(line)
  }

  warn(line: string): void {
    this.opts.warn?.(line)
  }

  errorName(code: number): string {
    return code === 0 ? 'NONE' : this.#errorNames(code)
  }

  /**
   * A Kafka error code as the user's error: an authorization failure names the request, the resource, the
   * operation and the grant (./authorization.ts); any other code `what failed: NAME (message)`.
   */
  kafkaError(code: number, message: string | null | undefined, what: string, subject: string | undefined, auth: AuthContext): RuntimeError {
    const denied = this.denied(code, auth)
    if (denied) return denied
    const about = subject ? ` ${subject}` : ''
    return new RuntimeError(`${what}${about} failed: ${this.errorName(code)}${message ? ` (${oneLine(message)})` : ''}`, undefined, 'KAFKA_ERROR')
  }

  /** An authorization failure of `request` as the error naming what to grant this connection's principal; else undefined. */
  denied(code: number, auth: AuthContext): AuthorizationDenied | undefined {
    const d = this.denial(code, auth)
    return d && new AuthorizationDenied(d, auth.doing)
  }

  /** The same as data, for answers that carry an error per group or per broker (describes, OffsetFetch, DescribeConfigs). */
  denial(code: number, c: {readonly request: string; readonly resourceName?: string | null}): Denial | undefined {
    // (asked once per group described: a million answers without error need no principal worked out)
    if (code === 0) return undefined
    const [first] = this.settings.bootstrap
    return denialOf(code, {...c, principal: principalOf(this.settings), bootstrap: first ? `${first.host}:${first.port}` : undefined})
  }

  /** The version to use: our highest supported that the bootstrap broker supports, or undefined. */
  version(apiKey: number, ours: number, min = 0): number | undefined {
    const r = this.#versions.get(apiKey)
    if (!r) return undefined
    const v = Math.min(ours, r.max)
    return v >= Math.max(min, r.min) ? v : undefined
  }

  requireVersion(apiKey: number, ours: number, min: number, what: string): number {
    const v = this.version(apiKey, ours, min)
    if (v === undefined) {
      const r = this.#versions.get(apiKey)
      throw new RuntimeError(
        `the broker at ${this.clusterAddress} does not support ${P.API_NAMES[apiKey]} v${min}${ours > min ? `-${ours}` : ''} (${what}); it offers ${r ? `v${r.min}-${r.max}` : 'none'}`,
        'rebalance-doctor needs Apache Kafka 4.1 or newer for this.',
        'UNSUPPORTED_VERSION',
      )
    }
    return v
  }

  async #connectBootstrap(): Promise<void> {
    const failures: RdError[] = []
    for (const {host, port} of this.settings.bootstrap) {
      try {
        const conn = await this.connect(host, port)
        this.#bootstrap = {conn, host, port}
        this.step = `waiting for ApiVersions from ${host}:${port}`
        const av = await this.send(conn, P.API.ApiVersions, 3, P.encodeApiVersionsV3('rebalance-doctor', '0'), P.decodeApiVersionsV3, false)
        if (av.errorCode !== 0) throw new RuntimeError(`ApiVersions failed at ${host}:${port}: ${this.errorName(av.errorCode)}`, undefined, 'KAFKA_ERROR')
        this.#versions = av.apis
        this.debug(`connected to ${host}:${port}; ${av.apis.size} APIs`)
        return
      } catch (error) {
        if (this.closed) throw error // timed out meanwhile: the deadline's error is the one reported
        const e = error instanceof RdError ? error : connectionError(error, {host, port, settings: this.settings})
        this.debug(`bootstrap ${host}:${port} failed: ${e.message}`)
        // Credentials, certificates and the deadline are the same for every broker: do not try the others.
        if (SAME_FOR_ALL_BROKERS.has(e.code)) throw e
        failures.push(e)
      }
    }
    const [first] = failures
    if (failures.length === 1) throw first
    if (failures.every(f => f.code === first.code)) {
      throw new RuntimeError(
        `${first.message} (and ${failures.length - 1} more bootstrap server${failures.length > 2 ? 's' : ''} alike)`,
        first.hint,
        first.code,
      )
    }
    throw new RuntimeError(`no bootstrap server reachable: ${failures.map(f => f.message).join('; ')}`, first.hint, 'NO_BROKER')
  }

  /** The connection to host:port, made once and shared. */
  connect(host: string, port: number): Promise<BrokerConnection> {
    const key = `${host}:${port}`
    let p = this.#conns.get(key)
    const reauthAt = this.#reauthAt.get(key)
    if (p && reauthAt !== undefined && Date.now() >= reauthAt) {
      // (the old connection takes no new request, so the broker never closes it for an expired session; close() ends it)
      this.debug(`${key}: the SASL session is about to expire; authenticating a new connection`)
      this.#conns.delete(key)
      this.#reauthAt.delete(key)
      p = undefined
    }
    if (!p) {
      const made = this.#newConnection(host, port)
      p = made
      this.#conns.set(key, made)
      made.then(
        // A broker that goes away closes the socket: the next request to that address connects anew.
        conn => conn.once('close', () => this.#conns.get(key) === made && this.#conns.delete(key)),
        () => this.#conns.get(key) === made && this.#conns.delete(key),
      )
    }
    return p
  }

  /** A request to host:port failed on the connection: drop it (destroying its socket) so the next one reconnects. */
  forget(host: string, port: number): void {
    const key = `${host}:${port}`
    const p = this.#conns.get(key)
    if (!p) return
    this.#conns.delete(key)
    p.then(
      conn => conn.socket.destroy(),
      () => {},
    )
  }

  /**
   * Runs `op` on the bootstrap broker; when that one is unreachable, on the other brokers last seen in Metadata
   * and the other bootstrap servers (the first that answers becomes the bootstrap broker); when none is, waits
   * with backoff within the deadline.
   */
  async anyBroker<T>(what: string, op: (conn: BrokerConnection, address: string) => Promise<T>): Promise<T> {
    let retrier: Retrier | undefined
    for (;;) {
      const seen = new Set<string>()
      const candidates = [this.#bootstrap, ...this.known, ...this.settings.bootstrap].filter(c => {
        const key = `${c.host}:${c.port}`
        return seen.has(key) ? false : (seen.add(key), true)
      })
      let last: RdError | undefined
      for (const {host, port} of candidates) {
        try {
          const conn = await this.connect(host, port)
          const out = await op(conn, `${host}:${port}`)
          if (host !== this.#bootstrap.host || port !== this.#bootstrap.port) {
            this.debug(`${this.clusterAddress} is unreachable: asking ${host}:${port} from now on`)
            this.#bootstrap = {conn, host, port}
          }
          return out
        } catch (error) {
          if (!isRetriableConnection(error) || this.closed) throw error
          this.forget(host, port)
          last = error
        }
      }
      retrier ??= this.retrier()
      await retrier.wait(`a reachable broker for ${what}`, last?.message ?? 'no broker known')
    }
  }

  async #newConnection(host: string, port: number): Promise<BrokerConnection> {
    const s = this.settings
    const tls = s.tls && {
      ...(s.tls.ca ? {ca: s.tls.ca} : {}),
      ...(s.tls.cert ? {cert: s.tls.cert} : {}),
      ...(s.tls.key ? {key: s.tls.key.reveal()} : {}),
      ...(s.tls.keyPassword ? {passphrase: s.tls.keyPassword.reveal()} : {}),
      rejectUnauthorized: true,
      ...(s.tls.verifyHostname ? {} : {checkServerIdentity: () => undefined}),
    }
    this.step = `connecting to ${host}:${port} (${s.securityProtocol})`
    this.debug(`${this.step}, connection attempt ${++this.#connectAttempts}`)
    if (this.closed) throw new RuntimeError('the Kafka client is closed', undefined, 'CLOSED')
    const conn = new BrokerConnection(host, port, {clientId: s.clientId, tls, maxResponseBytes: this.#maxResponse})
    this.#all.add(conn)
    try {
      await conn.ready()
      if (s.sasl) await this.#authenticate(conn, host, port, s.sasl)
    } catch (error) {
      conn.socket.destroy()
      throw frameError(conn.socket) ?? connectionError(error, {host, port, settings: s})
    }
    this.#addresses.set(conn, {host, port})
    return conn
  }

  /**
   * SASL on a new connection; an OAUTHBEARER token endpoint's token is fetched (or the one kept reused) first. When the
   * broker gives the session a lifetime (connections.max.reauth.ms, bounded by the token's expiry), the connection is
   * used until 85-95 % of it, as Kafka's clients re-authenticate (SaslClientAuthenticator); a new connection with a
   * fresh token replaces it then (./connect).
   */
  async #authenticate(conn: BrokerConnection, host: string, port: number, configured: NonNullable<ConnectionSettings['sasl']>): Promise<void> {
    const s = this.settings
    let sasl = configured
    if (sasl.tokenEndpoint) {
      this.step = `fetching an OAuth token from ${sasl.tokenEndpoint.shown}`
      sasl = {...sasl, token: (await OAUTH_TOKENS.token(sasl.tokenEndpoint, this.deadline, line => this.debug(line))).token}
    }
    this.step = `authenticating to ${host}:${port} (${s.securityProtocol}, ${sasl.mechanism})`
    const lifetimeMs = await authenticate((apiKey, version, body, flexible) => conn.request(apiKey, version, body, flexible), sasl, {host, port, settings: s})
    if (lifetimeMs > 0) {
      this.#reauthAt.set(`${host}:${port}`, Date.now() + Math.floor(lifetimeMs * (0.85 + 0.1 * Math.random())))
      this.debug(`${host}:${port}: SASL session lifetime ${lifetimeMs} ms`)
    }
  }

  /** One request on `conn`: our body out, the response body decoded; failures become one-line RuntimeErrors. */
  async send<T>(conn: BrokerConnection, apiKey: number, version: number, body: Buffer, decode: Decode<T>, responseHeaderTags = true): Promise<T> {
    const name = `${P.API_NAMES[apiKey] ?? apiKey} v${version}`
    let raw: Buffer
    try {
      raw = await conn.request(apiKey, version, body, true, responseHeaderTags)
    } catch (error) {
      const at = this.#addresses.get(conn)
      const bad = frameError(conn.socket)
      if (bad) throw bad
      // (ApiVersions is a connection's first request: a close there is the handshake's, named by connectionError)
      if (at && apiKey !== P.API.ApiVersions && error instanceof NetworkFailure)
        throw new RuntimeError(
          `${at.host}:${at.port} closed the connection while waiting for ${name}${error.closed ? '' : ` (${oneLine(error.message)})`}`,
          undefined,
          'CONNECTION_CLOSED',
        )
      if (error instanceof NetworkFailure) throw connectionError(error, {...(at ?? this.#bootstrap), settings: this.settings})
      throw new RuntimeError(`${name} request failed: ${oneLine((error as Error).message)}`, undefined, 'KAFKA_ERROR')
    }
    try {
      return decode(raw, version)
    } catch (error_) {
      const at = this.#addresses.get(conn)
      throw new RuntimeError(
        `cannot decode the ${name} response${at ? ` from ${at.host}:${at.port}` : ''}: ${(error_ as Error).message}`,
        'This is a bug or an unexpected broker version; run with --debug and report it.',
        'DECODE_ERROR',
      )
    }
  }
}
