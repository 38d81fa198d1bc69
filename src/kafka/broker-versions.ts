/**
 * ApiVersions v3 of each live broker, asked at that broker (read-only): which release each runs
 * (src/core/broker-release.ts). A broker that cannot be reached is an entry with its error.
 */
import type {KafkaSession, Node} from './connection.js'
import {askEachLiveBroker} from './metadata.js'
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
  const base = (n: Node) => ({nodeId: n.id, host: n.host, port: n.port})
  return askEachLiveBroker(
    s,
    'ApiVersions',
    async (n, conn): Promise<BrokerApiVersions> => {
      // (response header v0, as on every connection's first ApiVersions)
      const av = await s.send(conn, P.API.ApiVersions, 3, P.encodeApiVersionsV3('rebalance-doctor', '0'), P.decodeApiVersionsV3, false)
      if (av.errorCode !== 0) return {...base(n), apis: null, features: null, error: s.errorName(av.errorCode)}
      return {...base(n), apis: av.apis, features: av.features, error: null}
    },
    (n, error) => ({...base(n), apis: null, features: null, error}),
  )
}
