/**
 * Hostile "brokers" for the harness: small TCP (or TLS) servers on 127.0.0.1 that misbehave in one way each.
 * Every server stops itself after `lifetimeMs` (sockets destroyed, listener closed) so a test that forgets one
 * cannot keep the process alive, and nothing listens beyond loopback.
 */
import {createServer, type Server, type Socket} from 'node:net'

export type Probe =
  | 'never-answers'
  | 'closes-at-once'
  | 'garbage'
  | 'bad-correlation-id'
  | 'zero-length'
  | 'negative-length'
  | '2GB-length'
  | 'garbage-content'
  | '1-byte-per-second'
  | 'tls-to-plaintext-client'
  | 'plaintext-to-tls-client'

export const PROBES: readonly Probe[] = [
  'never-answers',
  'closes-at-once',
  'garbage',
  'bad-correlation-id',
  'zero-length',
  'negative-length',
  '2GB-length',
  'garbage-content',
  '1-byte-per-second',
  'tls-to-plaintext-client',
  'plaintext-to-tls-client',
]

export interface HostileBroker {
  readonly port: number
  readonly address: string
  stop(): Promise<void>
  /** Kafka-speaking servers: each request's api key and, for FindCoordinator and the group describes, how many groups it asked for. */
  readonly requests?: Array<{apiKey: number; groups?: number}>
}

/** Each request frame a client sends on `socket`, without its size prefix (api key int16, api version int16, correlation id int32, ...). */
export function onRequestFrames(socket: Socket, handle: (frame: Buffer) => void): void {
  let buf = Buffer.alloc(0)
  socket.on('data', chunk => {
    buf = Buffer.concat([buf, chunk])
    while (buf.length >= 12) {
      const size = buf.readInt32BE(0)
      if (size < 8 || buf.length < 4 + size) break
      const frame = buf.subarray(4, 4 + size)
      buf = buf.subarray(4 + size)
      handle(frame)
    }
  })
}

/** Each request frame's correlation id. */
function onRequests(socket: Socket, handle: (correlationId: number) => void): void {
  onRequestFrames(socket, frame => handle(frame.readInt32BE(4)))
}

function frame(correlationId: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeInt32BE(4 + body.length, 0)
  head.writeInt32BE(correlationId, 4)
  return Buffer.concat([head, body])
}

function int32(v: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(v)
  return b
}

const GARBAGE = Buffer.from('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nnot kafka\r\n')

function behave(probe: Probe, socket: Socket, stopAt: number): void {
  socket.on('error', () => {})
  switch (probe) {
    case 'never-answers':
      return
    case 'tls-to-plaintext-client':
      // What a TLS listener (Java's SSLEngine) does with a plaintext request: a fatal alert record, then close.
      socket.once('data', () => socket.end(Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a])))
      return
    case 'closes-at-once':
      socket.destroy()
      return
    case 'plaintext-to-tls-client':
      // A plaintext Kafka listener reads the ClientHello as a huge size and closes the connection.
      socket.once('data', () => socket.destroy())
      return
    case 'garbage':
      socket.once('data', () => socket.write(GARBAGE))
      return
    case 'bad-correlation-id':
      onRequests(socket, id => socket.write(frame(id + 7, Buffer.alloc(16))))
      return
    case 'zero-length':
      onRequests(socket, () => socket.write(Buffer.concat([int32(0), int32(0), Buffer.alloc(32)])))
      return
    case 'negative-length':
      onRequests(socket, () => socket.write(Buffer.concat([int32(-16), Buffer.alloc(32)])))
      return
    case 'garbage-content':
      // The right correlation id, a plausible size, then bytes no response decoder accepts.
      onRequests(socket, id => socket.write(frame(id, Buffer.from([0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff]))))
      return
    case '1-byte-per-second':
      onRequests(socket, id => {
        const bytes = frame(id, Buffer.alloc(64))
        let i = 0
        const tick = setInterval(() => {
          if (socket.destroyed || i >= bytes.length || Date.now() > stopAt) return clearInterval(tick)
          socket.write(bytes.subarray(i, ++i))
        }, 1000)
        tick.unref()
      })
      return
    case '2GB-length':
      onRequests(socket, id => {
        socket.write(Buffer.concat([int32(0x7fffffff), int32(id)]))
        const chunk = Buffer.alloc(1 << 20, 0x41)
        const pump = () => {
          while (!socket.destroyed && Date.now() < stopAt) if (!socket.write(chunk)) return void socket.once('drain', pump)
        }
        pump()
      })
      return
  }
}

export async function startHostileBroker(probe: Probe, lifetimeMs = 60_000): Promise<HostileBroker> {
  const stopAt = Date.now() + lifetimeMs
  const sockets = new Set<Socket>()
  const track = (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
    behave(probe, s, stopAt)
  }
  const server: Server = createServer(track)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const {port} = server.address() as {port: number}
  const stop = async () => {
    clearTimeout(timer)
    for (const s of sockets) s.destroy()
    await new Promise<void>(resolve => server.close(() => resolve()))
  }
  const timer = setTimeout(() => void stop(), lifetimeMs)
  timer.unref()
  return {port, address: `127.0.0.1:${port}`, stop}
}

// ---------------------------------------------------------------- brokers that speak Kafka, wrongly

/**
 * Servers that answer Kafka's protocol correctly up to one request, which they answer as no Kafka broker should
 * (or as one does under a quota). One broker (id 1, itself), `__consumer_offsets` with one partition holding
 * RECORDS offset commits of group g1, a topic `orders`, ListGroups listing g1 as a consumer group.
 */
export type ProtocolProbe =
  /** Fetch at any offset past 0 answers the batch at 0 again: the read never advances. */
  | 'fetch-never-advances'
  /** Fetch answers no records below the end offset. */
  | 'empty-fetches'
  /** The first two fetches on each connection are throttled (throttle time 300 ms, no partition), as a broker does for a principal over its quota. */
  | 'throttled-fetches'
  /** FindCoordinator answers without the group asked for. */
  | 'coordinator-without-group'
  /** DescribeTopicPartitions answers the same cursor for ever. */
  | 'endless-cursor'
  /** DescribeTopicPartitions answers a cursor that advances for ever (a new topic on every page). */
  | 'endless-advancing-cursor'
  /** DescribeTopicPartitions continues topic `orders` with 1,000,000 partitions (option `hugePage`) in one page. */
  | 'million-partition-page'
  /** Not hostile, large: ListGroups lists `groups` consumer groups (option, default 1,500,000), each described as Empty. */
  | 'many-groups'
  /** A working broker whose authorizer refuses one request (option `deny`): it answers that request's error code where Kafka puts it. */
  | 'denied'

export const PROTOCOL_PROBES: readonly ProtocolProbe[] = [
  'fetch-never-advances',
  'empty-fetches',
  'throttled-fetches',
  'coordinator-without-group',
  'endless-cursor',
  'endless-advancing-cursor',
  'million-partition-page',
] // 'many-groups' is a load and 'denied' a refusal, not probes: started on their own

/** Offset commits of g1 in __consumer_offsets-0 (offsets 0 .. RECORDS-1, one batch each). */
export const RECORDS = 5
const THROTTLE_MS = 300

const CRC32C = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

/** CRC-32C (Castagnoli), as a v2 record batch carries it. */
export function crc32c(b: Uint8Array): number {
  let c = 0xffffffff
  for (const x of b) c = CRC32C[(c ^ x) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function varint(v: number): Buffer {
  let z = (v << 1) ^ (v >> 31)
  const out: number[] = []
  while ((z & ~0x7f) !== 0) {
    out.push((z & 0x7f) | 0x80)
    z >>>= 7
  }
  out.push(z)
  return Buffer.from(out)
}

/** A v2 record batch of one record (key, value), uncompressed, with its CRC. */
export function recordBatch(baseOffset: bigint, key: Uint8Array, value: Uint8Array | null, timestamp = 1_700_000_000_000n): Buffer {
  const body = Buffer.concat([
    Buffer.from([0]), // attributes
    varint(0), // timestamp delta
    varint(0), // offset delta
    varint(key.length),
    key,
    value ? Buffer.concat([varint(value.length), value]) : varint(-1),
    varint(0), // headers
  ])
  const record = Buffer.concat([varint(body.length), body])
  const afterCrc = Buffer.alloc(40)
  afterCrc.writeInt16BE(0, 0) // attributes: no compression, not transactional, not control
  afterCrc.writeInt32BE(0, 2) // last offset delta
  afterCrc.writeBigInt64BE(timestamp, 6)
  afterCrc.writeBigInt64BE(timestamp, 14)
  afterCrc.writeBigInt64BE(-1n, 22) // producer id
  afterCrc.writeInt16BE(-1, 30)
  afterCrc.writeInt32BE(-1, 32)
  afterCrc.writeInt32BE(1, 36) // records
  const crcd = Buffer.concat([afterCrc, record])
  const head = Buffer.alloc(21)
  head.writeBigInt64BE(baseOffset, 0)
  head.writeInt32BE(4 + 1 + 4 + crcd.length, 8) // batch length: from the leader epoch on
  head.writeInt32BE(0, 12) // partition leader epoch
  head.writeInt8(2, 16) // magic
  head.writeUInt32BE(crc32c(crcd), 17)
  return Buffer.concat([head, crcd])
}

const OFFSETS_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'
const ORDERS_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAg'

interface Wire {
  readonly P: typeof import('../../src/kafka/protocol.js')
  readonly Req: typeof import('../../src/kafka/messages/requests.js')
  readonly Res: typeof import('../../src/kafka/messages/responses.js')
  readonly batches: Buffer[]
  /** The second DescribeTopicPartitions page of 'million-partition-page' (encoded once: seconds of CPU). */
  hugePage(partitions: number): Buffer
  /** 'many-groups'' ListGroups answer (encoded once). */
  groupList(groups: number): Buffer
}

async function wire(): Promise<Wire> {
  const [P, Req, Res, R] = await Promise.all([
    import('../../src/kafka/protocol.js'),
    import('../../src/kafka/messages/requests.js'),
    import('../../src/kafka/messages/responses.js'),
    import('../../src/core/records/index.js'),
  ])
  const batches = Array.from({length: RECORDS}, (_, i) => {
    const r = R.encodeRecord({
      type: 1,
      key: {group: 'g1', topic: 'orders', partition: 0},
      value: {offset: BigInt(i), metadata: '', commitTimestamp: 1_700_000_000_000n + BigInt(i)},
      version: 3,
    })
    return recordBatch(BigInt(i), r.key, r.value, 1_700_000_000_000n + BigInt(i))
  })
  let huge: Buffer | undefined
  const hugePage = (n: number) =>
    (huge ??= P.encodeBody(Res.DescribeTopicPartitionsResponse, 0, {
      ThrottleTimeMs: 0,
      Topics: [
        topicStruct(
          'orders',
          ORDERS_TOPIC_ID,
          Array.from({length: n}, (_, i) => i + 1),
        ),
      ],
      NextCursor: null,
    } as never))
  let listing: Buffer | undefined
  const groupList = (n: number) =>
    (listing ??= P.encodeBody(Res.ListGroupsResponse, 5, {
      ThrottleTimeMs: 0,
      ErrorCode: 0,
      Groups: Array.from({length: n}, (_, i) => ({
        GroupId: `group-${String(i).padStart(8, '0')}`,
        ProtocolType: 'consumer',
        GroupState: 'Empty',
        GroupType: 'consumer',
      })),
    }))
  return {P, Req, Res, batches, hugePage, groupList}
}

const SUPPORTED: Array<[number, number, number]> = [
  [18, 0, 3], // ApiVersions
  [3, 0, 12], // Metadata
  [1, 12, 12], // Fetch
  [2, 7, 7], // ListOffsets
  [10, 4, 6], // FindCoordinator
  [16, 5, 5], // ListGroups
  [60, 0, 2], // DescribeCluster
  [69, 0, 1], // ConsumerGroupDescribe
  [75, 0, 0], // DescribeTopicPartitions
  [46, 0, 0], // ListPartitionReassignments
  [9, 8, 8], // OffsetFetch
  [15, 5, 5], // DescribeGroups
  [32, 4, 4], // DescribeConfigs
  [77, 0, 1], // ShareGroupDescribe
  [89, 0, 1], // StreamsGroupDescribe
]

function partitionStruct(i: number) {
  return {
    ErrorCode: 0,
    PartitionIndex: i,
    LeaderId: 1,
    LeaderEpoch: 0,
    ReplicaNodes: [1],
    IsrNodes: [1],
    EligibleLeaderReplicas: null,
    LastKnownElr: null,
    OfflineReplicas: [],
  }
}

function topicStruct(name: string, id: string, partitions: number[], internal = false) {
  return {ErrorCode: 0, Name: name, TopicId: id, IsInternal: internal, Partitions: partitions.map(partitionStruct), TopicAuthorizedOperations: -2147483648}
}

/** The answer to one request, or undefined to leave it unanswered. */
interface Options {
  /** 'million-partition-page': partitions in the second page. */
  readonly hugePage?: number
  /** 'many-groups': groups listed. */
  readonly groups?: number
  /** 'denied': the request (api key) refused and its error code (29 topic, 30 group, 31 cluster authorization). */
  readonly deny?: {readonly apiKey: number; readonly code: number}
}

function answer(
  w: Wire,
  probe: ProtocolProbe,
  port: number,
  apiKey: number,
  version: number,
  body: Buffer,
  conn: {fetches: number},
  o: Options,
): Buffer | undefined {
  const {P, Req, Res} = w
  const end = BigInt(RECORDS)
  // the refused request's error code (0: answered as usual)
  const denied = probe === 'denied' && o.deny?.apiKey === apiKey ? o.deny.code : 0
  switch (apiKey) {
    case 18:
      return P.encodeBody(Res.ApiVersionsResponse, 3, {
        ErrorCode: 0,
        ApiKeys: SUPPORTED.map(([ApiKey, MinVersion, MaxVersion]) => ({ApiKey, MinVersion, MaxVersion})),
        ThrottleTimeMs: 0,
      })
    case 3: {
      const req = P.decodeBody(Req.MetadataRequest, 12, body) as {Topics: Array<{Name: string}> | null}
      const all = [topicStruct('__consumer_offsets', OFFSETS_TOPIC_ID, [0], true), topicStruct('orders', ORDERS_TOPIC_ID, [0])]
      const named = req.Topics === null ? all : all.filter(t => req.Topics!.some(x => x.Name === t.Name))
      // a named topic the principal may not DESCRIBE: its name, no id, no partitions (a listing leaves it out)
      const topics = denied && req.Topics !== null ? named.map(t => ({...t, ErrorCode: denied, TopicId: 'AAAAAAAAAAAAAAAAAAAAAA', Partitions: []})) : named
      return P.encodeBody(Res.MetadataResponse, 12, {
        ThrottleTimeMs: 0,
        Brokers: [{NodeId: 1, Host: '127.0.0.1', Port: port, Rack: null}],
        ClusterId: 'hostile',
        ControllerId: 1,
        Topics: topics,
      })
    }
    case 60:
      return P.encodeBody(Res.DescribeClusterResponse, version, {
        ThrottleTimeMs: 0,
        ErrorCode: denied,
        ErrorMessage: null,
        EndpointType: 1,
        ClusterId: 'hostile',
        ControllerId: 1,
        Brokers: [{BrokerId: 1, Host: '127.0.0.1', Port: port, Rack: null, IsFenced: false}],
        ClusterAuthorizedOperations: -2147483648,
      })
    case 2: {
      const req = P.decodeBody(Req.ListOffsetsRequest, 7, body) as {
        Topics: Array<{Name: string; Partitions: Array<{PartitionIndex: number; Timestamp: bigint}>}>
      }
      return P.encodeBody(Res.ListOffsetsResponse, 7, {
        ThrottleTimeMs: 0,
        Topics: req.Topics.map(t => ({
          Name: t.Name,
          Partitions: t.Partitions.map(p => ({
            PartitionIndex: p.PartitionIndex,
            ErrorCode: denied,
            Timestamp: -1n,
            Offset: p.Timestamp === -2n ? 0n : end,
            LeaderEpoch: 0,
          })),
        })),
      })
    }
    case 1: {
      const req = P.decodeBody(Req.FetchRequest, 12, body) as {Topics: Array<{Topic: string; Partitions: Array<{Partition: number; FetchOffset: bigint}>}>}
      const t = req.Topics[0]
      const p = t.Partitions[0]
      const at = p.FetchOffset
      if (probe === 'throttled-fetches' && conn.fetches++ < 2) {
        return P.encodeBody(Res.FetchResponse, 12, {ThrottleTimeMs: THROTTLE_MS, ErrorCode: 0, SessionId: 0, Responses: []})
      }
      let records: Buffer
      if (probe === 'fetch-never-advances') records = w.batches[0]
      else if (probe === 'empty-fetches') records = Buffer.alloc(0)
      else records = Buffer.concat(w.batches.slice(Number(at)))
      if (denied) records = Buffer.alloc(0)
      const partition = {
        PartitionIndex: p.Partition,
        ErrorCode: denied,
        HighWatermark: end,
        LastStableOffset: end,
        LogStartOffset: 0n,
        AbortedTransactions: [],
        PreferredReadReplica: -1,
        Records: records,
      }
      return P.encodeBody(Res.FetchResponse, 12, {ThrottleTimeMs: 0, ErrorCode: 0, SessionId: 0, Responses: [{Topic: t.Topic, Partitions: [partition]}]})
    }
    case 10: {
      const req = P.decodeBody(Req.FindCoordinatorRequest, version, body) as {CoordinatorKeys: string[]}
      const keys = probe === 'coordinator-without-group' ? req.CoordinatorKeys.slice(1) : req.CoordinatorKeys
      return P.encodeBody(Res.FindCoordinatorResponse, version, {
        ThrottleTimeMs: 0,
        Coordinators: keys.map(Key => ({
          Key,
          NodeId: denied ? -1 : 1,
          Host: denied ? '' : '127.0.0.1',
          Port: denied ? -1 : port,
          ErrorCode: denied,
          ErrorMessage: null,
        })),
      })
    }
    case 16:
      if (probe === 'many-groups') return w.groupList(o.groups ?? 1_500_000)
      return P.encodeBody(Res.ListGroupsResponse, 5, {
        ThrottleTimeMs: 0,
        ErrorCode: denied,
        Groups: denied ? [] : [{GroupId: 'g1', ProtocolType: 'consumer', GroupState: 'Stable', GroupType: 'consumer'}],
      })
    case 69: {
      const req = P.decodeBody(Req.ConsumerGroupDescribeRequest, version, body) as {GroupIds: string[]}
      return P.encodeBody(Res.ConsumerGroupDescribeResponse, version, {
        ThrottleTimeMs: 0,
        Groups: req.GroupIds.map(GroupId => ({
          ErrorCode: denied,
          ErrorMessage: null,
          GroupId,
          GroupState: 'Empty',
          GroupEpoch: 1,
          AssignmentEpoch: 1,
          AssignorName: 'uniform',
          Members: [],
          AuthorizedOperations: -2147483648,
        })),
      })
    }
    case 46:
      return P.encodeBody(Res.ListPartitionReassignmentsResponse, 0, {ThrottleTimeMs: 0, ErrorCode: denied, ErrorMessage: null, Topics: []})
    case 9: {
      const req = P.decodeBody(Req.OffsetFetchRequest, 8, body) as {Groups: Array<{GroupId: string}>}
      return P.encodeBody(Res.OffsetFetchResponse, 8, {ThrottleTimeMs: 0, Groups: req.Groups.map(g => ({GroupId: g.GroupId, Topics: [], ErrorCode: denied}))})
    }
    case 15: {
      const req = P.decodeBody(Req.DescribeGroupsRequest, 5, body) as {Groups: string[]}
      return P.encodeBody(Res.DescribeGroupsResponse, 5, {
        ThrottleTimeMs: 0,
        Groups: req.Groups.map(GroupId => ({ErrorCode: denied, GroupId, GroupState: denied ? '' : 'Empty', ProtocolType: '', ProtocolData: '', Members: []})),
      })
    }
    case 77:
    case 89: {
      const req = P.decodeBody(apiKey === 77 ? Req.ShareGroupDescribeRequest : Req.StreamsGroupDescribeRequest, version, body) as {GroupIds: string[]}
      return P.encodeBody(apiKey === 77 ? Res.ShareGroupDescribeResponse : Res.StreamsGroupDescribeResponse, version, {
        ThrottleTimeMs: 0,
        Groups: req.GroupIds.map(GroupId => ({
          ErrorCode: denied,
          ErrorMessage: null,
          GroupId,
          GroupState: 'Empty',
          GroupEpoch: 1,
          AssignmentEpoch: 1,
          Members: [],
        })),
      } as never)
    }
    case 32: {
      const req = P.decodeBody(Req.DescribeConfigsRequest, 4, body) as {Resources: Array<{ResourceType: number; ResourceName: string}>}
      return P.encodeBody(Res.DescribeConfigsResponse, 4, {
        ThrottleTimeMs: 0,
        Results: req.Resources.map(r => ({
          ErrorCode: denied,
          ErrorMessage: denied ? 'Cluster authorization failed.' : null,
          ResourceType: r.ResourceType,
          ResourceName: r.ResourceName,
          Configs: denied ? [] : [{Name: 'log.dirs', Value: '/srv/kafka', ReadOnly: true, ConfigSource: 4, IsSensitive: false, Synonyms: []}],
        })),
      })
    }
    case 75: {
      const req = P.decodeBody(Req.DescribeTopicPartitionsRequest, 0, body) as {Cursor: {TopicName: string; PartitionIndex: number} | null}
      const c = req.Cursor
      let topics: unknown[]
      let next: {TopicName: string; PartitionIndex: number} | null
      if (probe === 'endless-cursor') {
        topics = [topicStruct('orders', ORDERS_TOPIC_ID, [c?.PartitionIndex ?? 0])]
        next = {TopicName: 'orders', PartitionIndex: 1}
      } else if (probe === 'endless-advancing-cursor') {
        const n = c ? Number(c.TopicName.slice(1)) : 0
        const name = `t${String(n).padStart(9, '0')}`
        topics = [
          topicStruct(
            name,
            ORDERS_TOPIC_ID,
            Array.from({length: 100}, (_, i) => i),
          ),
        ]
        next = {TopicName: `t${String(n + 1).padStart(9, '0')}`, PartitionIndex: 0}
      } else if (probe === 'million-partition-page') {
        if (c) return w.hugePage(o.hugePage ?? 1_000_000)
        topics = [topicStruct('orders', ORDERS_TOPIC_ID, [0])]
        next = {TopicName: 'orders', PartitionIndex: 1}
      } else {
        topics = [topicStruct('__consumer_offsets', OFFSETS_TOPIC_ID, [0], true), topicStruct('orders', ORDERS_TOPIC_ID, [0])]
        next = null
      }
      return P.encodeBody(Res.DescribeTopicPartitionsResponse, 0, {ThrottleTimeMs: 0, Topics: topics, NextCursor: next} as never)
    }
  }
  return undefined
}

function groupsAsked(w: Wire, apiKey: number, version: number, body: Buffer): {groups?: number} {
  if (apiKey === 10) return {groups: (w.P.decodeBody(w.Req.FindCoordinatorRequest, version, body).CoordinatorKeys as string[]).length}
  if (apiKey === 69) return {groups: (w.P.decodeBody(w.Req.ConsumerGroupDescribeRequest, version, body).GroupIds as string[]).length}
  return {}
}

/** A request frame's header (v1/v2) and body: api key, version, correlation id, then past client id and tags. */
function parseRequest(frame: Buffer): {apiKey: number; version: number; correlationId: number; body: Buffer} {
  const apiKey = frame.readInt16BE(0)
  const version = frame.readInt16BE(2)
  const correlationId = frame.readInt32BE(4)
  const idLen = frame.readInt16BE(8)
  let i = 10 + Math.max(0, idLen)
  const flexible = !(apiKey === 17 || (apiKey === 18 && version < 3))
  if (flexible) i += 1 // no tagged fields (our client sends none)
  return {apiKey, version, correlationId, body: frame.subarray(i)}
}

export async function startHostileKafka(probe: ProtocolProbe, lifetimeMs = 60_000, options: Options = {}): Promise<HostileBroker> {
  const w = await wire()
  // before any client waits on them
  if (probe === 'million-partition-page') w.hugePage(options.hugePage ?? 1_000_000)
  if (probe === 'many-groups') w.groupList(options.groups ?? 1_500_000)
  const sockets = new Set<Socket>()
  const requests: Array<{apiKey: number; groups?: number}> = []
  let port = 0
  const server: Server = createServer(socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    const conn = {fetches: 0}
    onRequestFrames(socket, frame => {
      const r = parseRequest(frame)
      requests.push({apiKey: r.apiKey, ...groupsAsked(w, r.apiKey, r.version, r.body)})
      const out = answer(w, probe, port, r.apiKey, r.version, r.body, conn, options)
      if (!out) return
      const head = r.apiKey === 18 ? Buffer.alloc(8) : Buffer.alloc(9) // response header v0, or v1 with no tags
      head.writeInt32BE(head.length - 4 + out.length, 0)
      head.writeInt32BE(r.correlationId, 4)
      socket.write(Buffer.concat([head, out]))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  port = (server.address() as {port: number}).port
  const stop = async () => {
    clearTimeout(timer)
    for (const s of sockets) s.destroy()
    await new Promise<void>(resolve => server.close(() => resolve()))
  }
  const timer = setTimeout(() => void stop(), lifetimeMs)
  timer.unref()
  return {port, address: `127.0.0.1:${port}`, stop, requests}
}
