/**
 * ApiVersions v3 of each live broker, asked at that broker (read-only): which release each runs
 * (src/core/broker-release.ts). A broker that cannot be reached is an entry with its error.
 */
import type {KafkaSession} from './connection.js'
import {liveBrokers} from './metadata.js'
import * as P from './protocol.js'

export interface BrokerApiVersions {
  readonly nodeId: number
  readonly host: string
  readonly port: number
  readonly apis: ReadonlyMap<number, P.ApiVersionRange> | null
  /** The cluster's finalized feature levels as this broker knows them (null: none sent). */
  readonly features: ReadonlyMap<string, number> | null
  readonly error: string | null
}

export async function brokerApiVersions(s: KafkaSession): Promise<BrokerApiVersions[]> {
  const nodes = await liveBrokers(s)
  const out = await Promise.all(
    nodes.map(async (n): Promise<BrokerApiVersions> => {
      const base = {nodeId: n.id, host: n.host, port: n.port}
      try {
        const conn = await s.connect(n.host, n.port)
        s.step = `waiting for ApiVersions from broker ${n.id} (${n.host}:${n.port})`
        // (response header v0, as on every connection's first ApiVersions)
        const av = await s.send(conn, P.API.ApiVersions, 3, P.encodeApiVersionsV3('rebalance-doctor', '0'), P.decodeApiVersionsV3, false)
        if (av.errorCode !== 0) return {...base, apis: null, features: null, error: s.errorName(av.errorCode)}
        return {...base, apis: av.apis, features: av.features, error: null}
      } catch (error) {
        if (s.closed) throw error
        return {...base, apis: null, features: null, error: (error as Error).message}
      }
    }),
  )
  return out.sort((a, b) => a.nodeId - b.nodeId)
}
