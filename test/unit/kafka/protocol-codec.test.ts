/**
 * The request/response bodies are message specs read and written by the one generic codec. The fixtures were
 * captured from the hand-written encoders and decoders this codec replaced (test/unit/kafka/fixtures/
 * protocol-wire.json): requests must be byte-identical, and response bytes must decode to what the old code read.
 */
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import type {MessageSpec} from '../../../src/core/records/spec.js'
import * as Req from '../../../src/kafka/messages/requests.js'
import * as Res from '../../../src/kafka/messages/responses.js'
import {decodeOffsetFetch, encodeOffsetFetch} from '../../../src/kafka/offset-fetch.js'
import * as P from '../../../src/kafka/protocol.js'
import {ProtocolDecodeError} from '../../../src/kafka/wire.js'

const fixtures = JSON.parse(readFileSync(new URL('fixtures/protocol-wire.json', import.meta.url), 'utf8')) as {
  requests: Record<string, string>
  responses: Record<string, {message: string; version: number; hex: string; decodedByOldCode: unknown}>
}

/** JSON form of a decoded value, as the fixtures store it (bigint, bytes and maps tagged). */
function ser(x: unknown): unknown {
  if (typeof x === 'bigint') return {$bigint: x.toString()}
  if (x instanceof Uint8Array) return {$bytes: Buffer.from(x).toString('hex')}
  if (x instanceof Map) return {$map: [...x].map(([k, v]) => [ser(k), ser(v)])}
  if (Array.isArray(x)) return x.map(ser)
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, ser(v)]))
  return x
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

const requests: Record<string, () => Buffer> = {
  apiVersions: () => P.encodeApiVersionsV3('rebalance-doctor', '0'),
  metadataAll: () => P.encodeMetadataV12(null),
  metadataNamed: () => P.encodeMetadataV12(['orders', 'é-t']),
  dtpFirst: () => P.encodeDescribeTopicPartitionsV0(['a', 'b'], 2000, null),
  dtpCursor: () => P.encodeDescribeTopicPartitionsV0([], 10, {topicName: 'b', partitionIndex: 7}),
  describeCluster2: () => P.encodeDescribeCluster(2, true),
  describeCluster1: () => P.encodeDescribeCluster(1, true),
  describeCluster0: () => P.encodeDescribeCluster(0, true),
  reassignments: () => P.encodeListPartitionReassignmentsV0(30000),
  findCoordinator: () => P.encodeFindCoordinator(['g1', 'g2']),
  listGroups: () => P.encodeListGroupsV5(['Stable'], ['consumer', 'share']),
  listGroupsAll: () => P.encodeListGroupsV5(),
  cgDescribe1: () => P.encodeGroupDescribe(['g1', 'g2'], 1, P.API.ConsumerGroupDescribe),
  sgDescribe1: () => P.encodeGroupDescribe(['g1'], 1, P.API.ShareGroupDescribe),
  stDescribe0: () => P.encodeGroupDescribe(['s'], 0, P.API.StreamsGroupDescribe),
  stDescribe1: () => P.encodeGroupDescribe(['s'], 1, P.API.StreamsGroupDescribe),
  listOffsets: () => P.encodeListOffsetsV7('__consumer_offsets', 3, P.EARLIEST_TIMESTAMP, 1),
  listOffsetsMany: () =>
    P.encodeListOffsetsV7Many(
      new Map([
        ['a', [0, 2]],
        ['b', [1]],
      ]),
      P.LATEST_TIMESTAMP,
      0,
    ),
  fetch: () => P.encodeFetchV12('__consumer_offsets', 3, 123456789012n, 1048576, 1),
  fetchWait: () => P.encodeFetchV12('t', 0, 0n, 500, 0, 250),
}

const decoders: Record<string, (b: Buffer, version: number) => unknown> = {
  apiv: b => P.decodeApiVersionsV3(b),
  md: b => P.decodeMetadataV12(b),
  dtp: b => P.decodeDescribeTopicPartitionsV0(b),
  'dtp-end': b => P.decodeDescribeTopicPartitionsV0(b),
  dc0: P.decodeDescribeCluster,
  dc1: P.decodeDescribeCluster,
  dc2: P.decodeDescribeCluster,
  lpr: b => P.decodeListPartitionReassignmentsV0(b),
  fc: P.decodeFindCoordinator,
  lg: b => P.decodeListGroupsV5(b),
  cg0: P.decodeConsumerGroupDescribe,
  cg1: P.decodeConsumerGroupDescribe,
  sg: b => P.decodeShareGroupDescribe(b),
  st0: P.decodeStreamsGroupDescribe,
  st1: P.decodeStreamsGroupDescribe,
  lo: b => P.decodeListOffsetsV7Many(b),
  lo1: b => P.decodeListOffsetsV7(b),
  fetch: b => P.decodeFetchV12(b),
  'fetch-null': b => P.decodeFetchV12(b),
}

const specs = Res as Record<string, MessageSpec>

describe('request bodies from message specs', () => {
  it('cover every fixture', () => expect(Object.keys(requests).sort()).toEqual(Object.keys(fixtures.requests).sort()))
  for (const [name, encode] of Object.entries(requests)) {
    it(`${name}: the bytes the hand-written encoder produced`, () => expect(hex(encode())).toBe(fixtures.requests[name]))
  }
})

describe('response bodies from message specs', () => {
  it('cover every fixture and every response spec', () => {
    expect(Object.keys(decoders).sort()).toEqual(Object.keys(fixtures.responses).sort())
    // (SaslHandshake and SaslAuthenticate came later: sasl.test.ts compares them with the library's own codec;
    // OffsetFetch too: below, and compared with kafka-consumer-groups on a real broker in classic-groups.it;
    // DescribeConfigs: metadata-log-location.it against the brokers' own server.properties; DescribeGroups:
    // describe-groups.test.ts byte by byte, and group list's member count on a real broker in classic-causes.it)
    expect(new Set(Object.values(fixtures.responses).map(f => f.message))).toEqual(
      new Set(
        Object.keys(specs).filter(
          s => !s.startsWith('Sasl') && s !== 'OffsetFetchResponse' && s !== 'DescribeConfigsResponse' && s !== 'DescribeGroupsResponse',
        ),
      ),
    )
  })
  for (const [name, f] of Object.entries(fixtures.responses)) {
    it(`${name}: ${f.message} v${f.version} decodes as the hand-written decoder did`, () => {
      const decoded = decoders[name](Buffer.from(f.hex, 'hex'), f.version) as Record<string, unknown>
      if (f.message === 'FetchResponse') {
        // added since: the throttle time, which the old decoder dropped
        expect(decoded.throttleTimeMs).toBe(P.decodeBody(specs[f.message], f.version, Buffer.from(f.hex, 'hex')).ThrottleTimeMs)
        delete decoded.throttleTimeMs
      }
      if (f.message === 'ApiVersionsResponse') {
        // added since: the finalized feature levels, which the old decoder dropped
        const body = P.decodeBody(specs[f.message], f.version, Buffer.from(f.hex, 'hex'))
        const expected =
          (body.FinalizedFeaturesEpoch as bigint) >= 0n
            ? new Map((body.FinalizedFeatures as Array<{Name: string; MaxVersionLevel: number}>).map(x => [x.Name, x.MaxVersionLevel]))
            : null
        expect(decoded.features).toEqual(expected)
        delete decoded.features
      }
      expect(ser(decoded)).toEqual(f.decodedByOldCode)
    })
    it(`${name}: ${f.message} v${f.version} round-trips through the generic codec byte for byte`, () => {
      const bytes = Buffer.from(f.hex, 'hex')
      const spec = specs[f.message]
      expect(hex(P.encodeBody(spec, f.version, P.decodeBody(spec, f.version, bytes)))).toBe(f.hex)
    })
  }
})

describe('OffsetFetch v8', () => {
  it('asks for every partition (Topics null) of each group, not requiring stable offsets; the answer per group and partition', () => {
    expect(P.decodeBody(Req.OffsetFetchRequest, 8, encodeOffsetFetch(['g1', 'g2']))).toEqual({
      Groups: [
        {GroupId: 'g1', Topics: null},
        {GroupId: 'g2', Topics: null},
      ],
      RequireStable: false,
    })
    const body = P.encodeBody(Res.OffsetFetchResponse, 8, {
      ThrottleTimeMs: 0,
      Groups: [
        {
          GroupId: 'g1',
          Topics: [{Name: 'orders', Partitions: [{PartitionIndex: 2, CommittedOffset: 2n ** 60n, CommittedLeaderEpoch: 4, Metadata: '', ErrorCode: 0}]}],
          ErrorCode: 0,
        },
        {GroupId: 'g2', Topics: [], ErrorCode: 30},
      ],
    })
    expect(decodeOffsetFetch(body)).toEqual([
      {groupId: 'g1', errorCode: 0, errorMessage: null, offsets: [{topic: 'orders', partition: 2, offset: 2n ** 60n, errorCode: 0}]},
      {groupId: 'g2', errorCode: 30, errorMessage: null, offsets: []},
    ])
    expect(() => decodeOffsetFetch(body.subarray(0, body.length - 4))).toThrow(ProtocolDecodeError)
  })
})

describe('untrusted responses', () => {
  it('an array claiming a huge count is refused before anything is allocated', () => {
    // ThrottleTimeMs, then Brokers claiming 2^32-2 elements in 3 bytes.
    const bytes = Buffer.from([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0])
    expect(() => P.decodeMetadataV12(bytes)).toThrow(ProtocolDecodeError)
    expect(() => P.decodeMetadataV12(bytes)).toThrow('MetadataResponse v12 at Brokers: array of 4294967294 cannot fit in 3 bytes (byte 4 of 12)')
  })

  it('a string or record set longer than the frame is refused', () => {
    const f = fixtures.responses.fetch
    const bytes = Buffer.from(f.hex, 'hex')
    expect(() => P.decodeFetchV12(bytes.subarray(0, bytes.length - 3))).toThrow(ProtocolDecodeError)
    expect(() => P.decodeListGroupsV5(Buffer.from([0, 0, 0, 0, 0, 0, 2, 0xff, 0xff, 0x03]))).toThrow(ProtocolDecodeError)
  })

  it('unknown tagged fields are skipped wherever they appear', () => {
    const f = fixtures.responses.fc
    const plain = P.decodeBody(Res.FindCoordinatorResponse, 4, Buffer.from(f.hex, 'hex'))
    const tagged = {...plain, _unknownTaggedFields: [{tag: 7, data: new Uint8Array(300).fill(0xff)}]}
    const bytes = P.encodeBody(Res.FindCoordinatorResponse, 4, tagged)
    expect(bytes.length).toBeGreaterThan(300)
    expect(P.decodeFindCoordinator(bytes, 4)).toEqual(P.decodeFindCoordinator(Buffer.from(f.hex, 'hex'), 4))
  })

  it('ApiVersions UNSUPPORTED_VERSION in the v0 layout: only the error is read', () => {
    // v0 layout: ErrorCode 35, then an int32-counted array the v3 reader would misread.
    const v0 = Buffer.from([0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 3])
    expect(P.decodeApiVersionsV3(v0)).toEqual({errorCode: 35, apis: new Map(), features: null})
  })

  it('only the versions we send are specified', () => {
    expect(() => P.encodeDescribeCluster(3, true)).toThrow(/no version 3/)
    expect(() => P.decodeMetadataV12(Buffer.alloc(0))).toThrow(ProtocolDecodeError)
  })
})

describe('a top-level array read element by element (sinks)', () => {
  const groups = ['a', 'b', 'c'].map(g => ({GroupId: g, ProtocolType: 'consumer', GroupState: 'Empty', GroupType: 'Consumer'}))
  const bytes = P.encodeBody(Res.ListGroupsResponse, 5, {ThrottleTimeMs: 7, ErrorCode: 0, Groups: groups})

  it('each element handed over as the whole decode has it, in order; the struct holds their count', () => {
    const whole = P.decodeBody(Res.ListGroupsResponse, 5, bytes)
    const seen: unknown[] = []
    const sunk = P.decodeBody(Res.ListGroupsResponse, 5, bytes, {Groups: g => seen.push(g)})
    expect(seen).toEqual(whole.Groups)
    expect(seen).toHaveLength(3)
    expect(sunk).toEqual({...whole, Groups: 3})
  })

  it('a malformed element: those before it handed over, the error names it', () => {
    const seen: unknown[] = []
    const cut = bytes.subarray(0, bytes.length - 8)
    expect(() => P.decodeBody(Res.ListGroupsResponse, 5, cut, {Groups: g => seen.push(g)})).toThrow(/^ListGroupsResponse v5 at Groups\[2\]/)
    expect(seen).toEqual((P.decodeBody(Res.ListGroupsResponse, 5, bytes).Groups as unknown[]).slice(0, 2))
  })

  it('ListGroups: every group read element by element, its type lower-cased', () => {
    expect(P.decodeListGroupsV5(bytes)).toEqual({
      errorCode: 0,
      groups: ['a', 'b', 'c'].map(groupId => ({groupId, protocolType: 'consumer', state: 'Empty', type: 'consumer'})),
    })
  })
})
