import {describe, expect, it} from 'vitest'
import {ListOffsetsRequest} from '../../../src/kafka/messages/requests.js'
import * as P from '../../../src/kafka/protocol.js'
import {ByteReader} from '../../../src/core/records/bytes.js'
import {DecodeFault} from '../../../src/core/records/errors.js'
import {ByteWriter} from './byte-writer.js'

/** A tagged-field section with real content: the case @platformatic/kafka 1.35's Reader.readTaggedFields misreads. */
function tags(w: ByteWriter, fields: Array<[number, Buffer]>): ByteWriter {
  w.uvarint(fields.length)
  for (const [tag, data] of fields) {
    w.uvarint(tag).uvarint(data.length)
    ;(w as unknown as {chunks: Buffer[]}).chunks.push(data)
  }
  return w
}

const ID = Uint8Array.from({length: 16}, (_, i) => i)

describe('ByteReader (record-batch primitives)', () => {
  it('round-trips the primitives', () => {
    const b = new ByteWriter()
      .int8(-2)
      .int16(-300)
      .int32(-70_000)
      .int64(-(2n ** 62n))
      .uvarint(300)
      .uvarint(2 ** 31)
      .compactString('é')
      .toBuffer()
    const r = new ByteReader(b)
    expect([r.int8(), r.int16(), r.int32(), r.int64(), r.uvarint(), r.uvarint()]).toEqual([-2, -300, -70_000, -(2n ** 62n), 300, 2 ** 31])
    expect(r.utf8(r.uvarint() - 1)).toBe('é')
    expect(r.remaining).toBe(0)
  })

  it('reads zig-zag varints and varlongs (record fields)', () => {
    const r = new ByteReader(Buffer.from([0x01, 0x02, 0x03, 0xfe, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))
    expect([r.varint(), r.varint(), r.varint(), r.varint()]).toEqual([-1, 1, -2, 127])
    expect(r.varlong()).toBe(-(2n ** 63n))
  })

  it('a truncated input is a DecodeFault, not a silent misread', () => {
    expect(() => new ByteReader(Buffer.from([0, 0, 1])).int32()).toThrow(DecodeFault)
    expect(() => new ByteReader(Buffer.from([0x05, 0x61])).view(4, 'bytes')).toThrow(DecodeFault)
  })
})

describe('response decoders with tagged fields present', () => {
  it('ApiVersions v3 with SupportedFeatures / FinalizedFeatures tags (brokers always send them)', () => {
    const w = new ByteWriter().int16(0).uvarint(3)
    w.int16(3).int16(0).int16(13).tags()
    w.int16(60).int16(0).int16(2)
    tags(w, [[9, Buffer.from('future')]])
    w.int32(0)
    tags(w, [
      [0, Buffer.from([0x02, 0x0e, ...Buffer.from('kraft.version'), 0, 0, 0, 1, 0])],
      [1, Buffer.from([0, 0, 0, 0, 0, 0, 0, 7])],
      // FinalizedFeatures: group.version at level 1 (max), 1 (min)
      [2, Buffer.from([0x02, 0x0e, ...Buffer.from('group.version'), 0, 1, 0, 1, 0])],
    ])
    const {errorCode, apis, features} = P.decodeApiVersionsV3(w.toBuffer())
    expect(errorCode).toBe(0)
    expect(features).toEqual(new Map([['group.version', 1]]))
    expect([...apis]).toEqual([
      [3, {min: 0, max: 13}],
      [60, {min: 0, max: 2}],
    ])
  })

  it('DescribeCluster v2: fenced flag, racks, and unknown tags per broker', () => {
    const w = new ByteWriter().int32(0).int16(0).compactNullableString(null).int8(1).compactString('cid').int32(100).uvarint(3)
    w.int32(1).compactString('h1').int32(9092).compactString('rack-a').bool(false)
    tags(w, [[7, Buffer.from('x')]])
    w.int32(3).compactString('h3').int32(9092).compactNullableString(null).bool(true).tags()
    w.int32(-2147483648).tags()
    expect(P.decodeDescribeCluster(w.toBuffer(), 2)).toEqual({
      errorCode: 0,
      errorMessage: null,
      clusterId: 'cid',
      controllerId: 100,
      brokers: [
        {id: 1, host: 'h1', port: 9092, rack: 'rack-a', fenced: false},
        {id: 3, host: 'h3', port: 9092, rack: null, fenced: true},
      ],
    })
  })

  it('DescribeCluster requests: v2 asks for fenced brokers, v0 has no such field', () => {
    expect([...P.encodeDescribeCluster(2, true)]).toEqual([0, 1, 1, 0])
    expect([...P.encodeDescribeCluster(1, true)]).toEqual([0, 1, 0])
    expect([...P.encodeDescribeCluster(0, true)]).toEqual([0, 0])
  })

  it('ConsumerGroupDescribe v1: subscribed names, regex, assignments and member type survive tags after every struct', () => {
    const w = new ByteWriter().int32(0).uvarint(3)
    w.int16(0).compactNullableString(null).compactString('g').compactString('Stable').int32(5).int32(5).compactString('uniform').uvarint(2)
    w.compactString('m1').compactNullableString('inst').compactNullableString('rack-a').int32(5).compactString('c1').compactString('/1.2.3.4')
    w.compactArray(['t1', 't2'], (w, s) => w.compactString(s)).compactNullableString('t.*')
    const assignment = (w: ByteWriter) => {
      w.uvarint(2)
        .uuid(ID)
        .compactString('t1')
        .compactArray([0, 1], (w, p) => w.int32(p))
      tags(w, [[1, Buffer.from('zz')]])
      tags(w, [[5, Buffer.from([1, 2, 3])]])
    }
    assignment(w)
    assignment(w)
    w.int8(1)
    tags(w, [[2, Buffer.from('member-tag')]])
    w.int32(-2147483648)
    tags(w, [[0, Buffer.from('group-tag')]])
    w.int16(69)
      .compactNullableString('Group g2 not found.')
      .compactString('g2')
      .compactString('Dead')
      .int32(-1)
      .int32(-1)
      .compactString('')
      .uvarint(1)
      .int32(0)
      .tags()
    w.tags()
    const [g, missing] = P.decodeConsumerGroupDescribe(w.toBuffer(), 1)
    expect(g).toMatchObject({groupId: 'g', state: 'Stable', groupEpoch: 5, assignmentEpoch: 5, assignorName: 'uniform'})
    expect(g.members).toHaveLength(1)
    expect(g.members[0]).toMatchObject({
      memberId: 'm1',
      instanceId: 'inst',
      rackId: 'rack-a',
      memberEpoch: 5,
      clientHost: '/1.2.3.4',
      subscribedTopicNames: ['t1', 't2'],
      subscribedTopicRegex: 't.*',
      memberType: 1,
    })
    expect(g.members[0].assignment).toEqual([{topicId: ID, topicName: 't1', partitions: [0, 1]}])
    expect(g.members[0].targetAssignment).toEqual(g.members[0].assignment)
    expect(missing).toMatchObject({groupId: 'g2', errorCode: 69, errorMessage: 'Group g2 not found.', members: []})
  })

  it('an empty regex ("" from the broker) reads as null', () => {
    const w = new ByteWriter().int32(0).uvarint(2)
    w.int16(0).compactNullableString(null).compactString('g').compactString('Stable').int32(1).int32(1).compactString('uniform').uvarint(2)
    w.compactString('m').compactNullableString(null).compactNullableString(null).int32(1).compactString('c').compactString('h')
    w.compactArray(['t'], (w, s) => w.compactString(s))
      .compactString('')
      .uvarint(1)
      .tags()
      .uvarint(1)
      .tags()
      .tags()
    w.int32(0).tags().tags()
    expect(P.decodeConsumerGroupDescribe(w.toBuffer(), 0)[0].members[0]).toMatchObject({subscribedTopicRegex: null, memberType: -1})
  })

  it('DescribeTopicPartitions v0: pages with a next cursor, nullable ELR arrays', () => {
    const w = new ByteWriter().int32(0).uvarint(2)
    w.int16(0).compactString('t').uuid(ID).bool(false).uvarint(2)
    w.int16(0)
      .int32(0)
      .int32(1)
      .int32(0)
      .compactArray([1, 2], (w, x) => w.int32(x))
      .compactArray([1], (w, x) => w.int32(x))
      .uvarint(0)
      .compactArray([], () => {})
      .compactArray([], () => {})
      .tags()
    w.int32(-2147483648).tags()
    w.int8(1).compactString('t').int32(1).tags()
    w.tags()
    const r = P.decodeDescribeTopicPartitionsV0(w.toBuffer())
    expect(r.topics[0]).toMatchObject({name: 't', partitions: [{partition: 0, replicas: [1, 2], isr: [1]}]})
    expect(r.nextCursor).toEqual({topicName: 't', partitionIndex: 1})
  })

  it('Metadata v12 request: never auto-creates, null topics = all', () => {
    expect([...P.encodeMetadataV12(null)]).toEqual([0, 0, 0, 0])
    const named = P.encodeMetadataV12(['a'])
    expect(named.subarray(-3)).toEqual(Buffer.from([0, 0, 0]))
  })
})

describe('ListOffsets v7 for many partitions', () => {
  it('one request lists every topic and partition with the timestamp; the answer is read per partition', () => {
    const req = P.decodeBody(
      ListOffsetsRequest,
      7,
      P.encodeListOffsetsV7Many(
        new Map([
          ['a', [0, 2]],
          ['b', [1]],
        ]),
        P.LATEST_TIMESTAMP,
        0,
      ),
    )
    expect([req.ReplicaId, req.IsolationLevel]).toEqual([-1, 0])
    const asked = (req.Topics as Array<{Name: string; Partitions: Array<{PartitionIndex: number; CurrentLeaderEpoch: number; Timestamp: bigint}>}>).flatMap(t =>
      t.Partitions.map(p => `${t.Name}-${p.PartitionIndex}@${p.Timestamp} epoch ${p.CurrentLeaderEpoch}`),
    )
    expect(asked).toEqual(['a-0@-1 epoch -1', 'a-2@-1 epoch -1', 'b-1@-1 epoch -1'])
    const res = new ByteWriter()
      .int32(0)
      .compactArray(
        [
          [
            'a',
            [
              [0, 0, 12n],
              [2, 6, -1n],
            ],
          ],
          ['b', [[1, 0, 9007199254740993n]]],
        ] as Array<[string, Array<[number, number, bigint]>]>,
        (w, [t, ps]) =>
          w
            .compactString(t)
            .compactArray(ps, (w, [p, e, o]) => w.int32(p).int16(e).int64(-1n).int64(o).int32(0).tags())
            .tags(),
      )
      .tags()
      .toBuffer()
    expect(P.decodeListOffsetsV7Many(res)).toEqual([
      {topic: 'a', partition: 0, errorCode: 0, offset: 12n},
      {topic: 'a', partition: 2, errorCode: 6, offset: -1n},
      {topic: 'b', partition: 1, errorCode: 0, offset: 9007199254740993n},
    ])
  })
})
