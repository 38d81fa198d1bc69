/**
 * Read-only by construction: the adapter can only send the requests protocol.ts encodes, and those are all
 * describe/list/fetch APIs. A new API key must be added here on purpose (and must not write).
 */
import {readdirSync, readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {ZERO_UUID} from '../../../src/core/records/codec.js'
import {MetadataRequest} from '../../../src/kafka/messages/requests.js'
import {API, decodeBody, encodeMetadataV12} from '../../../src/kafka/protocol.js'

const READ_ONLY = new Map([
  [1, 'Fetch'],
  [2, 'ListOffsets'],
  [3, 'Metadata'],
  // a broker's own configs (metadata.log.dir for `cluster metadata-log`)
  [32, 'DescribeConfigs'],
  // committed offsets, as an admin reads them: no member id or epoch (v8), so no member is checked or fenced
  [9, 'OffsetFetch'],
  [10, 'FindCoordinator'],
  // classic groups' state and members, as an admin reads them: joins nothing
  [15, 'DescribeGroups'],
  [16, 'ListGroups'],
  [46, 'ListPartitionReassignments'],
  [18, 'ApiVersions'],
  [60, 'DescribeCluster'],
  [69, 'ConsumerGroupDescribe'],
  [75, 'DescribeTopicPartitions'],
  [77, 'ShareGroupDescribe'],
  [89, 'StreamsGroupDescribe'],
  // authentication of our own connection (SASL): changes nothing in the cluster
  [17, 'SaslHandshake'],
  [36, 'SaslAuthenticate'],
])

describe('the Kafka adapter is read-only', () => {
  it('knows only read-only API keys', () => {
    for (const [name, key] of Object.entries(API)) expect(READ_ONLY.get(key), `${name} (${key})`).toBe(name)
  })

  it('sends only API.* keys, and never through the library clients (Admin, Consumer, Producer)', () => {
    // every file of the network module, so a new one that sends is checked too
    const dir = new URL('../../../src/kafka/', import.meta.url)
    const senders = readdirSync(dir)
      .filter(f => f.endsWith('.ts'))
      .map(f => readFileSync(new URL(f, dir), 'utf8'))
      .join('\n')
    const sends = [...senders.matchAll(/\.send\([^,]+,\s*([^,]+),/g)]
    expect(sends.length).toBeGreaterThanOrEqual(10)
    for (const m of sends) expect(m[1].trim()).toMatch(/^((P\.)?API\.\w+|apiKey)$/)
    const all = [senders, ...['codecs.ts', 'session.ts'].map(f => readFileSync(new URL(`../../../src/kafka/${f}`, import.meta.url), 'utf8'))].join('\n')
    expect(all).not.toMatch(/\b(Admin|Consumer|Producer)\b\s*\(|new (Admin|Consumer|Producer)\b|joinGroup|offsetCommit|createTopics|alterConfigs/)
  })

  it('Metadata never asks the broker to auto-create topics', () => {
    for (const topics of [null, [], ['a', 'b']]) {
      const body = decodeBody(MetadataRequest, 12, encodeMetadataV12(topics))
      expect(body.AllowAutoTopicCreation).toBe(false)
      expect(body.Topics).toEqual(topics && topics.map(Name => ({TopicId: ZERO_UUID, Name})))
    }
  })
})

describe('offline commands do not load the Kafka client', () => {
  it('no static import of @platformatic/kafka or the adapter from commands, flags or config', () => {
    const files = ['commands/topic-hash/compute.ts', 'commands/cluster/snapshot.ts', 'cli/connection-flags.ts', 'kafka/session.ts', 'config/client-config.ts']
    for (const f of files) {
      const text = readFileSync(new URL(`../../../src/${f}`, import.meta.url), 'utf8')
      expect(text, f).not.toMatch(/^import (?!type)[^\n]*['"]@platformatic\/kafka/m)
      expect(text, f).not.toMatch(/^import (?!type)[^\n]*['"][./]*kafka\/(client|codecs)\.js['"]/m)
      expect(text, f).not.toMatch(/^import (?!type)[^\n]*['"]\.\/(client|codecs)\.js['"]/m)
    }
  })
})
