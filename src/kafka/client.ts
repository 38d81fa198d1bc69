/**
 * The Kafka adapter: the only code that talks to a cluster. Read-only by construction — it can only send the
 * requests encoded in ./protocol.ts (ApiVersions, Metadata, DescribeTopicPartitions, DescribeCluster,
 * FindCoordinator, ListGroups and the three group describes); it never joins a group, commits, creates or alters.
 *
 * Built on @platformatic/kafka 1.35's Connection (TCP/TLS, SASL PLAIN/SCRAM/OAUTHBEARER) and createAPI; the
 * bodies are our own codecs. The library is imported lazily on open().
 *
 * Every operation runs under one deadline (`settings.timeoutMs` from open()); when it passes, all sockets are
 * destroyed and a one-line RuntimeError names the step that was waiting. Within it, a broker that goes away is
 * waited for (./retry.ts): metadata from any reachable broker (#anyBroker), partition reads across leader moves
 * and refused leaders (./partition-reader.ts), describes and listings across coordinators that went away.
 */
import type {ConnectionSettings} from '../config/client-config.js'
import {RdError, RuntimeError} from '../core/errors.js'
import type {BrokerMetadata, ClusterMetadata, TopicMetadata} from '../core/metadata.js'
import {type Uuid, uuidFromBytes, uuidToString} from '../core/uuid.js'
import type {ClusterReader} from './cluster-reader.js'
import {connectionError, oneLine, timeoutError} from './errors.js'
import {frameError, guardSocket, maxResponseBytes} from './frame-guard.js'
import {type KafkaConnection, type KafkaLibrary, type LibraryApi, type LibraryReader, loadDecompressor, loadKafkaLibrary} from './library.js'
import * as P from './protocol.js'
import {LEADER_MOVES, type LeaderNode, type PartitionRead, type PartitionReadOptions, readPartitionVia, RETRIABLE_LEADER} from './partition-reader.js'
import {isRetriableConnection, Retrier} from './retry.js'

export type {RawRecordBatch, RawRecord} from './record-batch.js'
export type {PartitionRead, PartitionReadOptions} from './partition-reader.js'
export type {ConsumerGroupDescription, ShareGroupDescription, StreamsGroupDescription, ListedGroup, GroupType} from './protocol.js'

export interface KafkaClientOptions {
  /** Redacted progress lines for --debug. */
  readonly debug?: (line: string) => void
  /** Warnings for the user (stderr). */
  readonly warn?: (line: string) => void
}

export type MetadataMethod = 'metadata' | 'describe-topic-partitions'

export interface MetadataOptions {
  /** Only these topics (missing ones are left out, as the coordinator does); undefined = all topics. */
  readonly topics?: readonly string[]
  /** With all topics: include internal topics (__consumer_offsets, …). Named topics are always returned. */
  readonly includeInternal?: boolean
  /** How to read topic ids and replicas; default `metadata` (Metadata v12; see bench/metadata). */
  readonly method?: MetadataMethod
  /** DescribeTopicPartitions page size (ResponsePartitionLimit). */
  readonly partitionLimit?: number
}

export interface BrokersResult {
  readonly brokers: BrokerMetadata[]
  readonly clusterId?: string
  /** False when the cluster lacks DescribeCluster v2: fenced brokers (and their racks) may be missing. */
  readonly fencedIncluded: boolean
}

interface Node {
  readonly id: number
  readonly host: string
  readonly port: number
}

const RETRIABLE_COORDINATOR = new Set([14, 15, 16]) // LOAD_IN_PROGRESS, NOT_AVAILABLE, NOT_COORDINATOR

/** Connection failures that another bootstrap server would repeat. */
const SAME_FOR_ALL_BROKERS = new Set(['SASL_AUTH_FAILED', 'SASL_MECHANISM', 'TLS_UNTRUSTED', 'TLS_HOSTNAME', 'TLS_CERT_DATE', 'TLS_CLIENT_KEY', 'TLS_REJECTED', 'TLS_HANDSHAKE', 'TIMEOUT'])

export class KafkaClient implements ClusterReader {
  readonly #lib: KafkaLibrary
  readonly #settings: ConnectionSettings
  readonly #opts: KafkaClientOptions
  #deadline: number
  readonly #conns = new Map<string, Promise<KafkaConnection>>()
  readonly #apis = new Map<string, LibraryApi>()
  readonly #addresses = new WeakMap<KafkaConnection, {host: string; port: number}>()
  readonly #all = new Set<KafkaConnection>()
  #bootstrap!: {conn: KafkaConnection; host: string; port: number}
  /** Brokers from the last Metadata response: where to turn when the bootstrap broker goes away. */
  #known: Node[] = []
  /** Connections attempted (for --debug: retries must stay bounded). */
  #connectAttempts = 0
  #versions = new Map<number, P.ApiVersionRange>()
  #step = 'starting'
  #closed = false
  readonly #maxResponse = maxResponseBytes()

  private constructor(lib: KafkaLibrary, settings: ConnectionSettings, opts: KafkaClientOptions) {
    this.#lib = lib
    this.#settings = settings
    this.#opts = opts
    this.#deadline = Date.now() + settings.timeoutMs
  }

  /** Loads the library, connects to the first reachable bootstrap server and reads its API versions. */
  static async open(settings: ConnectionSettings, opts: KafkaClientOptions = {}): Promise<KafkaClient> {
    const lib = await loadKafkaLibrary()
    const client = new KafkaClient(lib, settings, opts)
    try {
      await client.#within(client.#connectBootstrap())
    } catch (error) {
      await client.close()
      throw error
    }
    return client
  }

  get clusterAddress(): string {
    return `${this.#bootstrap.host}:${this.#bootstrap.port}`
  }

  /** Highest version of an API the bootstrap broker supports, or undefined. */
  apiMaxVersion(apiKey: number): number | undefined {
    return this.#versions.get(apiKey)?.max
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    // Every connection made, connected or still connecting (a timeout can leave a handshake pending): close
    // politely for at most 200 ms, then destroy the socket so nothing keeps the process alive.
    await Promise.allSettled(
      [...this.#all].map(async conn => {
        await Promise.race([conn.close().catch(() => {}), new Promise(r => setTimeout(r, 200).unref())])
        conn.socket?.destroy()
      }),
    )
  }

  // ---------------------------------------------------------------- public API

  /** Brokers with racks, fenced brokers included (DescribeCluster v2 IncludeFencedBrokers=true). */
  async brokers(): Promise<BrokersResult> {
    return this.#within(this.#brokers())
  }

  /** Cluster metadata as the coordinator hashes it: registered brokers (fenced included), topics with ids and full replica lists. */
  async clusterMetadata(options: MetadataOptions = {}): Promise<ClusterMetadata> {
    return this.#within(
      (async () => {
        const capturedAt = new Date().toISOString()
        const [brokers, topics] = await Promise.all([this.#brokers(), this.#topics(options)])
        return {
          brokers: brokers.brokers,
          topics,
          ...(brokers.clusterId ? {clusterId: brokers.clusterId} : {}),
          capturedAt,
        }
      })(),
    )
  }

  /** Topics only (ids, replica lists). */
  async topics(options: MetadataOptions = {}): Promise<TopicMetadata[]> {
    return this.#within(this.#topics(options))
  }

  /**
   * Partition reassignments in flight (ListPartitionReassignments v0, forwarded by the broker to the controller;
   * needs DESCRIBE on the cluster). Read-only. Sorted by topic, then partition.
   */
  async listPartitionReassignments(): Promise<PartitionReassignment[]> {
    return this.#within(
      (async () => {
        const v = this.#requireVersion(P.API.ListPartitionReassignments, 0, 0, 'reassignments in flight')
        const r = await this.#anyBroker('ListPartitionReassignments', (conn, address) => {
          this.#step = `waiting for ListPartitionReassignments v${v} from ${address}`
          return this.#send(conn, P.API.ListPartitionReassignments, v, P.encodeListPartitionReassignmentsV0(Math.max(1000, Math.min(this.#settings.timeoutMs, 60_000))), P.decodeListPartitionReassignmentsV0)
        })
        if (r.errorCode !== 0) throw this.#kafkaError(r.errorCode, r.errorMessage, 'ListPartitionReassignments')
        return r.reassignments.map(x => ({...x})).sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
      })(),
    )
  }

  /** ListGroups v5 on every live broker, all group types (classic, consumer, share, streams) unless filtered. */
  async listGroups(filter: {types?: readonly P.GroupType[]; states?: readonly string[]} = {}): Promise<P.ListedGroup[]> {
    return this.#within(this.#listGroups(filter))
  }

  /** Each group's coordinator (broker id), by FindCoordinator (batched, v4+). */
  async groupCoordinators(groupIds: readonly string[]): Promise<Map<string, number>> {
    if (groupIds.length === 0) return new Map()
    const nodes = await this.#within(this.#findCoordinators([...new Set(groupIds)]))
    return new Map([...nodes].map(([g, n]) => [g, n.id]))
  }

  /** ConsumerGroupDescribe (v1, or v0), each group at its coordinator. Groups come back in the requested order, errors included. */
  async describeConsumerGroups(groupIds: readonly string[]): Promise<ConsumerGroupDescribed[]> {
    return this.#within(this.#describe(groupIds, P.API.ConsumerGroupDescribe, 1, (buf, v) => P.decodeConsumerGroupDescribe(buf, v))).then(gs =>
      gs.map(g => ({...g, errorName: this.#errorName(g.errorCode), members: g.members.map(m => ({...m, assignment: named(m.assignment), targetAssignment: named(m.targetAssignment)}))})),
    )
  }

  /** ShareGroupDescribe v1 (Kafka 4.1+), each group at its coordinator. */
  async describeShareGroups(groupIds: readonly string[]): Promise<ShareGroupDescribed[]> {
    return this.#within(this.#describe(groupIds, P.API.ShareGroupDescribe, 1, buf => P.decodeShareGroupDescribeV1(buf), 1)).then(gs =>
      gs.map(g => ({...g, errorName: this.#errorName(g.errorCode), members: g.members.map(m => ({...m, assignment: named(m.assignment)}))})),
    )
  }

  /** StreamsGroupDescribe (v1, or v0), each group at its coordinator. */
  async describeStreamsGroups(groupIds: readonly string[]): Promise<StreamsGroupDescribed[]> {
    return this.#within(this.#describe(groupIds, P.API.StreamsGroupDescribe, 1, (buf, v) => P.decodeStreamsGroupDescribe(buf, v))).then(gs =>
      gs.map(g => ({...g, errorName: this.#errorName(g.errorCode)})),
    )
  }

  /**
   * Reads one partition (by default of `__consumer_offsets`) from the log start (or `fromOffset`) to the last
   * stable offset, as raw record batches plus the aborted-transaction list. ListOffsets and Fetch only, to the
   * partition leader, with no group id: no group is joined, nothing is committed.
   */
  async readPartition(options: PartitionReadOptions): Promise<PartitionRead> {
    return this.#within(this.#readPartition(options))
  }

  /**
   * The latest offset of many partitions: one ListOffsets v7 per partition leader, read-only. READ_UNCOMMITTED
   * (the default) answers the log end offset (high watermark), as `kafka-consumer-groups --describe` shows
   * LOG-END-OFFSET (Admin listOffsets, OffsetSpec.latest()). Partitions whose leader moved or was unreachable are
   * asked again after fresh metadata a few times; what still fails comes back with an error name, not a throw.
   */
  async listOffsets(partitions: ReadonlyArray<{topic: string; partition: number}>, options: {isolation?: 'read_committed' | 'read_uncommitted'} = {}): Promise<ListedLogOffset[]> {
    return this.#within(this.#listOffsets(partitions, options.isolation === 'read_committed' ? 1 : 0))
  }

  // ---------------------------------------------------------------- internals

  async #readPartition(o: PartitionReadOptions): Promise<PartitionRead> {
    this.#requireVersion(P.API.Fetch, 12, 12, 'partition read')
    this.#requireVersion(P.API.ListOffsets, 7, 7, 'partition read')
    const decompress = await loadDecompressor()
    const send = async <T>(leader: LeaderNode, step: string, apiKey: number, version: number, body: Buffer, decode: (buf: Buffer, version: number) => T) => {
      const conn = await this.#connect(leader.host, leader.port)
      this.#step = `waiting for ${step} from broker ${leader.id} (${leader.host}:${leader.port})`
      return this.#send(conn, apiKey, version, body, decode)
    }
    return readPartitionVia(
      {
        transport: {
          metadata: topic => this.#metadata([topic]),
          listOffsets: (leader, topic, partition, ts, isolation) =>
            send(leader, 'ListOffsets v7', P.API.ListOffsets, 7, P.encodeListOffsetsV7(topic, partition, ts, isolation), P.decodeListOffsetsV7),
          fetch: (leader, topic, partition, offset, maxBytes, isolation) =>
            send(leader, `Fetch v12 of ${topic}-${partition} at offset ${offset}`, P.API.Fetch, 12, P.encodeFetchV12(topic, partition, offset, maxBytes, isolation), P.decodeFetchV12),
          forget: leader => this.#forget(leader.host, leader.port),
          // A long partition read may run past the deadline as long as every fetch answers within the timeout.
          progress: () => {
            this.#deadline = Math.max(this.#deadline, Date.now() + this.#settings.timeoutMs)
          },
        },
        retrier: this.#retrier(),
        decompress,
        kafkaError: (code, what, subject) => this.#kafkaError(code, null, what, subject),
        errorName: code => this.#errorName(code),
        debug: line => this.#debug(line),
      },
      o,
    )
  }

  /** Retries of one operation, within the client's deadline; each logged with --debug. */
  #retrier(): Retrier {
    return new Retrier({deadline: () => this.#deadline, timeoutMs: this.#settings.timeoutMs, debug: line => this.#debug(line)})
  }

  async #listOffsets(partitions: ReadonlyArray<{topic: string; partition: number}>, isolation: 0 | 1): Promise<ListedLogOffset[]> {
    const key = (t: string, p: number) => `${t}:${p}`
    const out = new Map<string, ListedLogOffset>()
    let pending = [...new Map(partitions.map(tp => [key(tp.topic, tp.partition), {topic: tp.topic, partition: tp.partition}])).values()]
    if (pending.length === 0) return []
    this.#requireVersion(P.API.ListOffsets, 7, 7, 'log end offsets')
    const fail = (tp: {topic: string; partition: number}, error: string) => out.set(key(tp.topic, tp.partition), {...tp, offset: null, error})
    for (let attempt = 0; pending.length > 0; attempt++) {
      const last = attempt >= LEADER_MOVES
      const md = await this.#metadata([...new Set(pending.map(tp => tp.topic))])
      const byLeader = new Map<number, Array<{topic: string; partition: number}>>()
      const retry: Array<{topic: string; partition: number}> = []
      for (const tp of pending) {
        const t = md.topics.find(x => x.name === tp.topic)
        const p = t?.errorCode === 0 ? t.partitions.find(x => x.partition === tp.partition) : undefined
        if (!t || t.errorCode === 3 || (t.errorCode === 0 && !p)) fail(tp, 'UNKNOWN_TOPIC_OR_PARTITION')
        else if (t.errorCode !== 0 && !RETRIABLE_LEADER.has(t.errorCode)) fail(tp, this.#errorName(t.errorCode))
        else if (!p || !md.brokers.some(b => b.id === p.leaderId)) (last ? fail(tp, 'LEADER_NOT_AVAILABLE') : retry.push(tp))
        else byLeader.set(p.leaderId, [...(byLeader.get(p.leaderId) ?? []), tp])
      }
      await Promise.all(
        [...byLeader].map(async ([id, tps]) => {
          const b = md.brokers.find(x => x.id === id)!
          const topics = new Map<string, number[]>()
          for (const tp of tps) topics.set(tp.topic, [...(topics.get(tp.topic) ?? []), tp.partition])
          try {
            const conn = await this.#connect(b.host, b.port)
            this.#step = `waiting for ListOffsets v7 (${tps.length} partitions) from broker ${id} (${b.host}:${b.port})`
            const got = await this.#send(conn, P.API.ListOffsets, 7, P.encodeListOffsetsV7Many(topics, P.LATEST_TIMESTAMP, isolation), P.decodeListOffsetsV7Many)
            const answered = new Set<string>()
            for (const r of got) {
              answered.add(key(r.topic, r.partition))
              if (r.errorCode === 0) out.set(key(r.topic, r.partition), {topic: r.topic, partition: r.partition, offset: r.offset, error: null})
              else if (RETRIABLE_LEADER.has(r.errorCode) && !last) retry.push({topic: r.topic, partition: r.partition})
              else fail(r, this.#errorName(r.errorCode))
            }
            for (const tp of tps) if (!answered.has(key(tp.topic, tp.partition))) fail(tp, 'NO_ANSWER')
          } catch (error) {
            if (this.#closed) throw error
            this.#debug(`ListOffsets from broker ${id} failed: ${(error as Error).message}`)
            for (const tp of tps) (last ? fail(tp, (error as RdError).code ?? 'NETWORK_ERROR') : retry.push(tp))
          }
        }),
      )
      pending = retry
      if (pending.length > 0) await sleep(Math.min(1000, 100 * 2 ** attempt))
    }
    return partitions.map(tp => out.get(key(tp.topic, tp.partition))!)
  }

  #errorName(code: number): string {
    return code === 0 ? 'NONE' : this.#lib.errorName(code)
  }

  async #within<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      // The deadline can move forward while a partition read makes progress (#progress); re-arm until it passes.
      const arm = () => {
        const left = this.#deadline - Date.now()
        timer = left > 0 ? setTimeout(arm, left) : undefined
        if (left <= 0) reject(timeoutError(this.#settings.timeoutMs, this.#step))
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

  #debug(line: string): void {
    this.#opts.debug?.(line)
  }

  async #connectBootstrap(): Promise<void> {
    const failures: RdError[] = []
    for (const {host, port} of this.#settings.bootstrap) {
      try {
        const conn = await this.#connect(host, port)
        this.#bootstrap = {conn, host, port}
        this.#step = `waiting for ApiVersions from ${host}:${port}`
        const av = await this.#send(conn, P.API.ApiVersions, 3, P.encodeApiVersionsV3('rebalance-doctor', '0'), P.decodeApiVersionsV3, false)
        if (av.errorCode !== 0) throw new RuntimeError(`ApiVersions failed at ${host}:${port}: ${this.#errorName(av.errorCode)}`, undefined, 'KAFKA_ERROR')
        this.#versions = av.apis
        this.#debug(`connected to ${host}:${port}; ${av.apis.size} APIs`)
        return
      } catch (error) {
        if (this.#closed) throw error // timed out meanwhile: the deadline's error is the one reported
        const e = error instanceof RdError ? error : connectionError(error, {host, port, settings: this.#settings})
        this.#debug(`bootstrap ${host}:${port} failed: ${e.message}`)
        // Credentials, certificates and the deadline are the same for every broker: do not try the others.
        if (SAME_FOR_ALL_BROKERS.has(e.code)) throw e
        failures.push(e)
      }
    }
    const [first] = failures
    if (failures.length === 1) throw first
    if (failures.every(f => f.code === first.code)) {
      throw new RuntimeError(`${first.message} (and ${failures.length - 1} more bootstrap server${failures.length > 2 ? 's' : ''} alike)`, first.hint, first.code)
    }
    throw new RuntimeError(`no bootstrap server reachable: ${failures.map(f => f.message).join('; ')}`, first.hint, 'NO_BROKER')
  }

  #connect(host: string, port: number): Promise<KafkaConnection> {
    const key = `${host}:${port}`
    let p = this.#conns.get(key)
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
  #forget(host: string, port: number): void {
    const key = `${host}:${port}`
    const p = this.#conns.get(key)
    if (!p) return
    this.#conns.delete(key)
    p.then(conn => conn.socket?.destroy(), () => {})
  }

  /**
   * Runs `op` on the bootstrap broker; when that one is unreachable, on the other brokers last seen in Metadata
   * and the other bootstrap servers (the first that answers becomes the bootstrap broker); when none is, waits
   * with backoff within the deadline.
   */
  async #anyBroker<T>(what: string, op: (conn: KafkaConnection, address: string) => Promise<T>): Promise<T> {
    let retrier: Retrier | undefined
    for (;;) {
      const seen = new Set<string>()
      const candidates = [this.#bootstrap, ...this.#known, ...this.#settings.bootstrap].filter(c => {
        const key = `${c.host}:${c.port}`
        return seen.has(key) ? false : (seen.add(key), true)
      })
      let last: RdError | undefined
      for (const {host, port} of candidates) {
        try {
          const conn = await this.#connect(host, port)
          const out = await op(conn, `${host}:${port}`)
          if (host !== this.#bootstrap.host || port !== this.#bootstrap.port) {
            this.#debug(`${this.clusterAddress} is unreachable: asking ${host}:${port} from now on`)
            this.#bootstrap = {conn, host, port}
          }
          return out
        } catch (error) {
          if (!isRetriableConnection(error) || this.#closed) throw error
          this.#forget(host, port)
          last = error
        }
      }
      retrier ??= this.#retrier()
      await retrier.wait(`a reachable broker for ${what}`, last?.message ?? 'no broker known')
    }
  }

  async #newConnection(host: string, port: number): Promise<KafkaConnection> {
    const s = this.#settings
    const left = Math.max(1, this.#deadline - Date.now())
    const options: Record<string, unknown> = {connectTimeout: left, requestTimeout: left, maxInflights: 5}
    if (s.tls) {
      options.tls = {
        ...(s.tls.ca ? {ca: s.tls.ca} : {}),
        ...(s.tls.cert ? {cert: s.tls.cert} : {}),
        ...(s.tls.key ? {key: s.tls.key.reveal()} : {}),
        ...(s.tls.keyPassword ? {passphrase: s.tls.keyPassword.reveal()} : {}),
        rejectUnauthorized: true,
        ...(s.tls.verifyHostname ? {} : {checkServerIdentity: () => undefined}),
      }
    }
    if (s.sasl) {
      options.sasl = {
        mechanism: s.sasl.mechanism,
        ...(s.sasl.username ? {username: s.sasl.username} : {}),
        ...(s.sasl.password ? {password: s.sasl.password.reveal()} : {}),
        ...(s.sasl.token ? {token: s.sasl.token.reveal()} : {}),
      }
    }
    this.#step = `connecting to ${host}:${port} (${s.securityProtocol})`
    this.#debug(`${this.#step}, connection attempt ${++this.#connectAttempts}`)
    if (this.#closed) throw new RuntimeError('the Kafka client is closed', undefined, 'CLOSED')
    const conn = new this.#lib.Connection(s.clientId, options as never)
    this.#all.add(conn)
    // Errors after the handshake are reported through the pending requests; keep the emitter from throwing.
    conn.on('error', () => {})
    try {
      const connecting = conn.connect(host, port)
      // Every response frame is checked (size, correlation id) before the library buffers it.
      if (conn.socket) guardSocket(conn.socket, host, port, this.#maxResponse, Boolean(s.tls))
      await connecting
    } catch (error) {
      conn.socket?.destroy()
      throw frameError(conn.socket) ?? connectionError(error, {host, port, settings: s})
    }
    this.#addresses.set(conn, {host, port})
    return conn
  }

  #api(apiKey: number, version: number, responseHeaderTags: boolean): LibraryApi {
    const id = `${apiKey}/${version}/${responseHeaderTags}`
    let api = this.#apis.get(id)
    if (!api) {
      api = this.#lib.createAPI(
        apiKey,
        version,
        (body: Buffer) => this.#lib.writerOf(body),
        (_c: number, _k: number, _v: number, reader: LibraryReader) => Buffer.from(reader.buffer.slice(reader.position, reader.length)),
        true,
        responseHeaderTags,
      )
      this.#apis.set(id, api)
    }
    return api
  }

  #send<T>(conn: KafkaConnection, apiKey: number, version: number, body: Buffer, decode: (buf: Buffer, version: number) => T, responseHeaderTags = true): Promise<T> {
    const api = this.#api(apiKey, version, responseHeaderTags)
    const name = `${P.API_NAMES[apiKey] ?? apiKey} v${version}`
    return new Promise<T>((resolve, reject) => {
      api(conn, body, (error: unknown, raw: Buffer) => {
        if (error) {
          const at = this.#addresses.get(conn)
          const bad = frameError(conn.socket)
          if (bad) reject(bad)
          else if (/timed out/i.test((error as Error).message ?? '')) reject(timeoutError(this.#settings.timeoutMs, `waiting for ${name}${at ? ` from ${at.host}:${at.port}` : ''}`))
          // (ApiVersions is a connection's first request: a close there is the handshake's, named by connectionError)
          else if (at && apiKey !== P.API.ApiVersions && /^Connection closed/.test((error as Error).message ?? '')) reject(new RuntimeError(`${at.host}:${at.port} closed the connection while waiting for ${name}`, undefined, 'CONNECTION_CLOSED'))
          else if (at && (error as {code?: string}).code === 'PLT_KFK_NETWORK') reject(connectionError(error, {...at, settings: this.#settings}))
          else reject(new RuntimeError(`${name} request failed: ${oneLine((error as Error).message)}`, undefined, 'KAFKA_ERROR'))
          return
        }
        try {
          resolve(decode(raw, version))
        } catch (error_) {
          const at = this.#addresses.get(conn)
          reject(new RuntimeError(`cannot decode the ${name} response${at ? ` from ${at.host}:${at.port}` : ''}: ${(error_ as Error).message}`, 'This is a bug or an unexpected broker version; run with --debug and report it.', 'DECODE_ERROR'))
        }
      })
    })
  }

  /** The version to use: our highest supported that the broker supports, or undefined. */
  #version(apiKey: number, ours: number, min = 0): number | undefined {
    const r = this.#versions.get(apiKey)
    if (!r) return undefined
    const v = Math.min(ours, r.max)
    return v >= Math.max(min, r.min) ? v : undefined
  }

  #requireVersion(apiKey: number, ours: number, min: number, what: string): number {
    const v = this.#version(apiKey, ours, min)
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

  async #brokers(): Promise<BrokersResult> {
    const v = this.#version(P.API.DescribeCluster, 2)
    const {host, port} = this.#bootstrap
    if (v === undefined) {
      this.#opts.warn?.(`${host}:${port} does not support DescribeCluster: taking brokers from Metadata, which omits fenced brokers; racks of fenced brokers may be missing`)
      const md = await this.#metadata([])
      return {brokers: md.brokers.map(b => ({id: b.id, rack: b.rack, fenced: false})), ...(md.clusterId ? {clusterId: md.clusterId} : {}), fencedIncluded: false}
    }
    if (v < 2) {
      this.#opts.warn?.(`${host}:${port} supports DescribeCluster up to v${v} only (v2, Kafka 4.0+, lists fenced brokers): racks of fenced brokers may be missing`)
    }
    const r = await this.#anyBroker('DescribeCluster', (conn, address) => {
      this.#step = `waiting for DescribeCluster v${v} from ${address}`
      return this.#send(conn, P.API.DescribeCluster, v, P.encodeDescribeCluster(v, true), P.decodeDescribeCluster)
    })
    if (r.errorCode !== 0) throw this.#kafkaError(r.errorCode, r.errorMessage, 'DescribeCluster')
    const brokers = r.brokers.map(b => ({id: b.id, rack: b.rack, fenced: b.fenced})).sort((a, b) => a.id - b.id)
    this.#debug(`DescribeCluster v${v}: ${brokers.length} brokers (${brokers.filter(b => b.fenced).length} fenced)`)
    return {brokers, clusterId: r.clusterId, fencedIncluded: v >= 2}
  }

  #kafkaError(code: number, message: string | null | undefined, what: string, subject?: string): RuntimeError {
    const name = this.#errorName(code)
    const about = subject ? ` ${subject}` : ''
    if (code === 29) return new RuntimeError(`not authorized to describe topic${about} (TOPIC_AUTHORIZATION_FAILED)`, 'Ask for DESCRIBE on the topic for your principal.', 'NOT_AUTHORIZED')
    if (code === 30) return new RuntimeError(`not authorized to describe group${about} (GROUP_AUTHORIZATION_FAILED)`, 'Ask for DESCRIBE on the group for your principal.', 'NOT_AUTHORIZED')
    if (code === 31) return new RuntimeError(`not authorized: ${what} needs DESCRIBE on the cluster (CLUSTER_AUTHORIZATION_FAILED)`, 'Ask for DESCRIBE on the cluster resource for your principal.', 'NOT_AUTHORIZED')
    return new RuntimeError(`${what}${about} failed: ${name}${message ? ` (${oneLine(message)})` : ''}`, undefined, 'KAFKA_ERROR')
  }

  async #metadata(topics: readonly string[] | null): Promise<P.MetadataResponse> {
    this.#requireVersion(P.API.Metadata, 12, 12, 'topic ids')
    const md = await this.#anyBroker('Metadata', (conn, address) => {
      this.#step = `waiting for Metadata v12 from ${address}`
      return this.#send(conn, P.API.Metadata, 12, P.encodeMetadataV12(topics), P.decodeMetadataV12)
    })
    if (md.brokers.length > 0) this.#known = md.brokers.map(b => ({id: b.id, host: b.host, port: b.port}))
    return md
  }

  async #topics(options: MetadataOptions): Promise<TopicMetadata[]> {
    const named = options.topics ? [...new Set(options.topics)] : undefined
    if (named && named.length === 0) return []
    const method = options.method ?? 'metadata'
    let wire: P.WireTopic[]
    const t0 = performance.now()
    if (method === 'metadata') {
      wire = (await this.#metadata(named ?? null)).topics
    } else {
      wire = await this.#anyBroker('DescribeTopicPartitions', conn => this.#describeTopicPartitions(conn, named ?? [], options.partitionLimit ?? 2000))
    }
    this.#debug(`${method}: ${wire.length} topics in ${Math.round(performance.now() - t0)} ms`)
    const out: TopicMetadata[] = []
    for (const t of wire) {
      // UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, INVALID_TOPIC_EXCEPTION (a name no topic can have): missing
      if (t.errorCode === 3 || t.errorCode === 100 || t.errorCode === 17) continue
      if (t.errorCode !== 0 && (t.errorCode === 29 || t.partitions.length === 0)) throw this.#kafkaError(t.errorCode, null, 'describing topic', t.name ?? '?')
      if (!t.name) continue
      if (!named && t.internal && !options.includeInternal) continue
      const partitions = [...t.partitions].sort((a, b) => a.partition - b.partition).map(p => ({partition: p.partition, replicas: p.replicas}))
      out.push({name: t.name, topicId: uuidFromBytes(t.topicId), partitions, ...(t.internal ? {internal: true} : {})})
    }
    out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return out
  }

  async #describeTopicPartitions(conn: KafkaConnection, names: readonly string[], limit: number): Promise<P.WireTopic[]> {
    this.#requireVersion(P.API.DescribeTopicPartitions, 0, 0, 'paged topic metadata')
    const byName = new Map<string, P.WireTopic>()
    const order: P.WireTopic[] = []
    let cursor: P.TopicPartitionCursor | null = null
    let pages = 0
    do {
      this.#step = `waiting for DescribeTopicPartitions (page ${pages + 1}) from ${this.clusterAddress}`
      const page: {topics: P.WireTopic[]; nextCursor: P.TopicPartitionCursor | null} = await this.#send(conn, P.API.DescribeTopicPartitions, 0, P.encodeDescribeTopicPartitionsV0(names, limit, cursor), P.decodeDescribeTopicPartitionsV0)
      pages++
      for (const t of page.topics) {
        const prev = t.name ? byName.get(t.name) : undefined
        // A topic split across pages continues in the next page with its remaining partitions.
        if (prev) prev.partitions.push(...t.partitions)
        else {
          const copy = {...t, partitions: [...t.partitions]}
          order.push(copy)
          if (t.name) byName.set(t.name, copy)
        }
      }
      cursor = page.nextCursor
    } while (cursor)
    this.#debug(`DescribeTopicPartitions: ${pages} pages`)
    return order
  }

  async #liveBrokers(): Promise<Node[]> {
    const md = await this.#metadata([])
    return md.brokers.map(b => ({id: b.id, host: b.host, port: b.port}))
  }

  async #listGroups(filter: {types?: readonly P.GroupType[]; states?: readonly string[]}): Promise<P.ListedGroup[]> {
    this.#requireVersion(P.API.ListGroups, 5, 5, 'group types')
    const groups = new Map<string, P.ListedGroup>()
    const answered = new Set<number>()
    let retrier: Retrier | undefined
    for (;;) {
      // Live brokers not yet listed: a broker that went away leaves them once fenced, its groups moved elsewhere.
      const nodes = (await this.#liveBrokers()).filter(n => !answered.has(n.id))
      const results = await Promise.allSettled(
        nodes.map(async n => {
          const conn = await this.#connect(n.host, n.port)
          this.#step = `waiting for ListGroups v5 from broker ${n.id} (${n.host}:${n.port})`
          const r = await this.#send(conn, P.API.ListGroups, 5, P.encodeListGroupsV5(filter.states ?? [], filter.types ?? []), P.decodeListGroupsV5)
          if (r.errorCode !== 0) throw this.#kafkaError(r.errorCode, null, `ListGroups on broker ${n.id}`)
          return r.groups
        }),
      )
      const failures: Array<{node: Node; error: unknown}> = []
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') {
          answered.add(nodes[i].id)
          for (const g of r.value) groups.set(g.groupId, g)
        } else failures.push({node: nodes[i], error: r.reason})
      })
      if (failures.length === 0) break
      for (const f of failures) if (isRetriableConnection(f.error)) this.#forget(f.node.host, f.node.port)
      if (failures.every(f => isRetriableConnection(f.error)) && !this.#closed) {
        const [f] = failures
        try {
          await (retrier ??= this.#retrier()).wait('ListGroups from every live broker', `broker ${f.node.id}: ${(f.error as Error).message}`)
          continue
        } catch (error) {
          if (answered.size === 0) throw error
        }
      }
      if (answered.size === 0) throw failures[0].error
      this.#opts.warn?.(`group list may be incomplete: ${failures.map(f => `broker ${f.node.id}: ${(f.error as Error).message}`).join('; ')}`)
      break
    }
    return [...groups.values()].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0))
  }

  async #findCoordinators(groupIds: readonly string[]): Promise<Map<string, Node>> {
    const v = this.#requireVersion(P.API.FindCoordinator, 6, 4, 'batched coordinator lookup')
    const out = new Map<string, Node>()
    let pending = [...groupIds]
    for (let attempt = 0; pending.length > 0; attempt++) {
      const ask = pending
      const rs = await this.#anyBroker('FindCoordinator', (conn, address) => {
        this.#step = `waiting for FindCoordinator v${v} from ${address}`
        return this.#send(conn, P.API.FindCoordinator, v, P.encodeFindCoordinator(ask, 0, v), P.decodeFindCoordinator)
      })
      const retry: string[] = []
      for (const c of rs) {
        if (c.errorCode === 0) out.set(c.key, {id: c.nodeId, host: c.host, port: c.port})
        else if (RETRIABLE_COORDINATOR.has(c.errorCode)) retry.push(c.key)
        else throw this.#kafkaError(c.errorCode, c.errorMessage, 'finding the coordinator of group', c.key)
      }
      pending = retry
      if (pending.length > 0) await sleep(Math.min(1000, 100 * 2 ** attempt))
    }
    return out
  }

  async #describe<T extends P.DescribeError & {groupId: string}>(
    groupIds: readonly string[],
    apiKey: number,
    ours: number,
    decode: (buf: Buffer, version: number) => T[],
    min = 0,
  ): Promise<T[]> {
    const ids = [...new Set(groupIds)]
    if (ids.length === 0) return []
    const v = this.#requireVersion(apiKey, ours, min, 'group describe')
    const name = P.API_NAMES[apiKey]
    const done = new Map<string, T>()
    let pending = ids
    let retrier: Retrier | undefined
    for (let attempt = 0; pending.length > 0; attempt++) {
      const coordinators = await this.#findCoordinators(pending)
      const byNode = new Map<string, {node: Node; ids: string[]}>()
      for (const id of pending) {
        const node = coordinators.get(id)!
        const key = `${node.host}:${node.port}`
        if (!byNode.has(key)) byNode.set(key, {node, ids: []})
        byNode.get(key)!.ids.push(id)
      }
      const retry: string[] = []
      let unreachable: string | undefined
      await Promise.all(
        [...byNode.values()].map(async ({node, ids}) => {
          let groups: T[]
          try {
            const conn = await this.#connect(node.host, node.port)
            this.#step = `waiting for ${name} v${v} from coordinator ${node.id} (${node.host}:${node.port})`
            groups = await this.#send(conn, apiKey, v, P.encodeGroupDescribe(ids, v, apiKey), decode)
          } catch (error) {
            // The coordinator went away (a killed broker coordinates until it is fenced): find it again.
            if (!isRetriableConnection(error) || this.#closed) throw error
            this.#forget(node.host, node.port)
            unreachable ??= `the coordinator of group ${ids[0]}${ids.length > 1 ? ` (and ${ids.length - 1} more)` : ''}, broker ${node.id}: ${error.message}`
            retry.push(...ids)
            return
          }
          for (const g of groups) {
            if (RETRIABLE_COORDINATOR.has(g.errorCode) && attempt < 10) retry.push(g.groupId)
            else done.set(g.groupId, g)
          }
        }),
      )
      pending = retry
      if (unreachable) await (retrier ??= this.#retrier()).wait('a reachable group coordinator', unreachable)
      else if (pending.length > 0) await sleep(Math.min(1000, 100 * 2 ** attempt))
    }
    return ids.map(id => done.get(id)!).filter(Boolean)
  }
}

export interface NamedTopicPartitions {
  /** Kafka's base64url form. */
  readonly topicId: string
  readonly topicName: string
  readonly partitions: number[]
}

function named(tps: readonly P.TopicPartitions[]): NamedTopicPartitions[] {
  return tps.map(tp => ({topicId: uuidToString(uuidFromBytes(tp.topicId)), topicName: tp.topicName, partitions: tp.partitions}))
}

type WithErrorName = {readonly errorName: string}

export type ConsumerGroupDescribed = Omit<P.ConsumerGroupDescription, 'members'> &
  WithErrorName & {members: Array<Omit<P.ConsumerGroupMember, 'assignment' | 'targetAssignment'> & {assignment: NamedTopicPartitions[]; targetAssignment: NamedTopicPartitions[]}>}

export type ShareGroupDescribed = Omit<P.ShareGroupDescription, 'members'> &
  WithErrorName & {members: Array<Omit<P.ShareGroupMember, 'assignment'> & {assignment: NamedTopicPartitions[]}>}

export type StreamsGroupDescribed = P.StreamsGroupDescription & WithErrorName

/** A partition's latest offset (offset null and an error name when it could not be read). */
export interface ListedLogOffset {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint | null
  readonly error: string | null
}

/** One partition under reassignment: its replica list now (adding + removing included) and the two sides. */
export type PartitionReassignment = P.WireReassignment

function sleep(ms: number): Promise<void> {
  return new Promise(r => setTimeout(r, ms))
}

export type {Uuid}
