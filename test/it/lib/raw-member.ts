/**
 * A KIP-848 consumer group member made of bare ConsumerGroupHeartbeat v1 requests (@platformatic/kafka's encoder and
 * Connection), for what Kafka's Java consumer cannot send: a member that keeps its topic names and drops its regex in
 * one heartbeat, without leaving (the Java consumer leaves and rejoins when its subscription changes). Test-only: the
 * product itself never writes to a cluster.
 */
import {randomBytes} from 'node:crypto'
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'

interface Connection {
  connect(host: string, port: number): Promise<void>
  close(): Promise<void>
}
interface HeartbeatResponse {
  memberEpoch: number
  heartbeatIntervalMs: number
}
type HeartbeatApi = {
  async(
    c: Connection,
    groupId: string,
    memberId: string,
    memberEpoch: number,
    instanceId: string | null,
    rackId: string | null,
    rebalanceTimeoutMs: number,
    subscribedTopicNames: string[] | null,
    subscribedTopicRegex: string | null,
    serverAssignor: string | null,
    topicPartitions: Array<{topicId: string; partitions: number[]}> | null,
  ): Promise<HeartbeatResponse>
}

const lib = async <T>(rel: string): Promise<T> =>
  (await import(new URL(rel, pathToFileURL(createRequire(import.meta.url).resolve('@platformatic/kafka'))).href)) as T

export class RawMember {
  /** KIP-1082: from ConsumerGroupHeartbeat v1 on, the member makes its own id. */
  readonly memberId = randomBytes(16).toString('base64url').slice(0, 22)
  epoch = 0
  private timer: NodeJS.Timeout | undefined
  private chain: Promise<unknown> = Promise.resolve()
  private failure: Error | undefined

  private constructor(
    private readonly conn: Connection,
    private readonly hb: HeartbeatApi,
    readonly groupId: string,
  ) {}

  /** Joins on the group's coordinator (tries each broker until one does not answer NOT_COORDINATOR), then heartbeats every second. */
  static async join(bootstrap: string, groupId: string, names: string[], regex: string | null): Promise<RawMember> {
    const {Connection} = await lib<{Connection: new (clientId: string) => Connection}>('./network/connection.js')
    const {api} = await lib<{api: HeartbeatApi}>('./apis/consumer/consumer-group-heartbeat-v1.js')
    const errors: string[] = []
    for (const hostPort of bootstrap.split(',')) {
      const [host, port] = hostPort.split(':')
      const conn = new Connection('rd-it-raw-member')
      await conn.connect(host, Number(port))
      const m = new RawMember(conn, api, groupId)
      try {
        m.epoch = (await api.async(conn, groupId, m.memberId, 0, null, null, 30_000, names, regex, null, [])).memberEpoch
      } catch (e) {
        errors.push(`${hostPort}: ${(e as Error).message}`)
        await conn.close()
        continue
      }
      m.timer = setInterval(() => void m.beat(null, null), 1000)
      return m
    }
    throw new Error(`no broker took the join of ${groupId}: ${errors.join('; ')}`)
  }

  /** One heartbeat; null names or regex = unchanged, '' regex = none. Owned partitions are reported as unchanged. */
  beat(names: string[] | null, regex: string | null): Promise<number> {
    const p = this.chain.then(async () => {
      if (this.failure) throw this.failure
      try {
        this.epoch = (await this.hb.async(this.conn, this.groupId, this.memberId, this.epoch, null, null, 30_000, names, regex, null, null)).memberEpoch
      } catch (e) {
        this.failure = e as Error
        throw e
      }
      return this.epoch
    })
    this.chain = p.catch(() => undefined)
    return p
  }

  /** Leaves the group (member epoch -1) and closes the connection. */
  async leave(): Promise<void> {
    clearInterval(this.timer)
    await this.chain
    try {
      await this.hb.async(this.conn, this.groupId, this.memberId, -1, null, null, 30_000, null, null, null, null)
    } finally {
      await this.conn.close()
    }
  }
}
