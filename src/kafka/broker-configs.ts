/**
 * DescribeConfigs v4 (read-only) of each live broker's own configs (resource type BROKER, named by its id: a
 * broker answers its static configs only for itself), asked at that broker. A broker that cannot be reached or
 * refuses (e.g. no DESCRIBE_CONFIGS on the cluster) is an entry with its error, never the answer of the others.
 */
import {type Denial, denialNeeds} from '../core/errors.js'
import type {KafkaSession} from './connection.js'
import * as Req from './messages/requests.js'
import * as Res from './messages/responses.js'
import {liveBrokers} from './metadata.js'
import {API, decodeAs, encodeBody} from './protocol.js'

export const DESCRIBE_CONFIGS_VERSION = 4
const BROKER_RESOURCE = 4

export interface BrokerConfigs {
  readonly nodeId: number
  readonly host: string
  readonly port: number
  /** Name → value (null: unset or sensitive) of the keys asked for that the broker knows. */
  readonly configs: ReadonlyMap<string, string | null>
  /** Why the broker's configs could not be read (an error name or message), else null. */
  readonly error: string | null
  /** The error is an authorization failure: what DescribeConfigs needs. */
  readonly denied?: Denial
}

interface WireResult {
  ErrorCode: number
  ErrorMessage: string | null
  ResourceName: string
  Configs: Array<{Name: string; Value: string | null; IsSensitive: boolean}>
}

export function encodeDescribeBrokerConfigs(nodeId: number, keys: readonly string[]): Buffer {
  return encodeBody(Req.DescribeConfigsRequest, DESCRIBE_CONFIGS_VERSION, {
    Resources: [{ResourceType: BROKER_RESOURCE, ResourceName: String(nodeId), ConfigurationKeys: [...keys]}],
    IncludeSynonyms: false,
    IncludeDocumentation: false,
  })
}

export function decodeDescribeConfigs(buf: Buffer): WireResult[] {
  return decodeAs<{Results: WireResult[]}>(Res.DescribeConfigsResponse, DESCRIBE_CONFIGS_VERSION, buf).Results
}

export async function describeBrokerConfigs(s: KafkaSession, keys: readonly string[]): Promise<BrokerConfigs[]> {
  s.requireVersion(API.DescribeConfigs, DESCRIBE_CONFIGS_VERSION, DESCRIBE_CONFIGS_VERSION, 'broker configs')
  const nodes = await liveBrokers(s)
  const out = await Promise.all(
    nodes.map(async (n): Promise<BrokerConfigs> => {
      const base = {nodeId: n.id, host: n.host, port: n.port}
      try {
        const conn = await s.connect(n.host, n.port)
        s.step = `waiting for DescribeConfigs v${DESCRIBE_CONFIGS_VERSION} from broker ${n.id} (${n.host}:${n.port})`
        const results = await s.send(conn, API.DescribeConfigs, DESCRIBE_CONFIGS_VERSION, encodeDescribeBrokerConfigs(n.id, keys), decodeDescribeConfigs)
        const r = results.find(x => x.ResourceName === String(n.id))
        if (!r) return {...base, configs: new Map(), error: `broker ${n.id} answered DescribeConfigs without its own resource`}
        const denied = s.denial(r.ErrorCode, {request: 'DescribeConfigs', resourceName: String(n.id)})
        // a refusal says what to grant, not Kafka's "Cluster authorization failed."
        if (denied) return {...base, configs: new Map(), error: `${denied.errorName}: DescribeConfigs needs ${denialNeeds(denied)}`, denied}
        if (r.ErrorCode !== 0) return {...base, configs: new Map(), error: `${s.errorName(r.ErrorCode)}${r.ErrorMessage ? `: ${r.ErrorMessage}` : ''}`}
        return {...base, configs: new Map(r.Configs.map(c => [c.Name, c.IsSensitive ? null : c.Value])), error: null}
      } catch (error) {
        if (s.closed) throw error
        return {...base, configs: new Map(), error: (error as Error).message}
      }
    }),
  )
  return out.sort((a, b) => a.nodeId - b.nodeId)
}
