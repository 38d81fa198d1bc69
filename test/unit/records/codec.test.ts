import {describe, expect, it} from 'vitest'
import {
  RECORD_TYPE,
  RECORD_TYPES,
  GROUP_METADATA_TYPES,
  RecordDecodeError,
  decodeRecord,
  encodeKey,
  encodeRecord,
  encodeValue,
  planFor,
  parseVersions,
  ConsumerProtocolAssignment,
  ConsumerProtocolSubscription,
  encodeEmbeddedMessage,
  decodeEmbeddedMessage,
  groupIdOfKey,
  type KnownRecord,
} from '../../../src/core/records/index.js'
import {arbitraryStruct, rng} from './arbitrary.js'

const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('hex'))
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/[\s|]/g, ''), 'hex'))
const known = (r: ReturnType<typeof decodeRecord>) => {
  expect(r.kind).toBe('record')
  return r as KnownRecord
}
function decodeError(f: () => unknown): RecordDecodeError {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(RecordDecodeError)
    return e as RecordDecodeError
  }
  throw new Error('expected a RecordDecodeError')
}

describe('schema table', () => {
  it('has every record type 0–23 once, in order', () => {
    expect(RECORD_TYPES.map(r => r.type)).toEqual(Array.from({length: 24}, (_, i) => i))
  })

  it('RECORD_TYPE names every type of the table by its Kafka name, and only those', () => {
    expect(Object.entries(RECORD_TYPE)).toEqual(RECORD_TYPES.map(r => [r.name, r.type]))
    expect(RECORD_TYPE.ConsumerGroupMetadata).toBe(3)
    expect(GROUP_METADATA_TYPES).toEqual({consumer: 3, share: 11, streams: 17, classic: 2})
  })

  it('marks exactly types 0, 9 and 18 as legacy', () => {
    expect(RECORD_TYPES.filter(r => r.legacy).map(r => r.type)).toEqual([0, 9, 18])
  })

  it('uses Kafka names: <Name>Key / <Name>Value', () => {
    for (const r of RECORD_TYPES) {
      expect(r.key.name).toBe(`${r.name}Key`)
      expect(r.value.name).toBe(`${r.name}Value`)
      expect(r.key.flexibleVersions).toBe('none')
    }
  })

  it('compiles every value version', () => {
    for (const r of RECORD_TYPES) {
      const {min, max} = parseVersions(r.value.validVersions)
      for (let v = min; v <= max; v++) expect(() => planFor(r.value, v)).not.toThrow()
    }
  })
})

describe('round trips', () => {
  for (const r of RECORD_TYPES) {
    const {min, max} = parseVersions(r.value.validVersions)
    for (let v = min; v <= max; v++) {
      it(`${r.type} ${r.name} v${v}`, () => {
        const rand = rng(r.type * 100 + v)
        for (let i = 0; i < 50; i++) {
          const key = arbitraryStruct(planFor(r.key, 0), rand)
          const value = arbitraryStruct(planFor(r.value, v), rand)
          const enc = encodeRecord({type: r.type, key, value, version: v})
          const dec = known(decodeRecord(enc.key, enc.value, BigInt(i)))
          expect(dec.type).toBe(r.type)
          expect(dec.version).toBe(v)
          expect(dec.offset).toBe(BigInt(i))
          expect(dec.key).toEqual(key)
          expect(stripDecoded(dec.value)).toEqual(value)
          // Bytes → value → bytes is the identity.
          expect(hex(encodeValue(r.type, dec.value!, v))).toBe(hex(enc.value))
          expect(hex(encodeKey(r.type, dec.key))).toBe(hex(enc.key))
        }
      })
    }
  }

  it("a key's group id is what groupIdOfKey reads from its first field (the audit's scan files a record by it before decoding it)", () => {
    for (const r of RECORD_TYPES) {
      const rand = rng(1000 + r.type)
      for (let i = 0; i < 20; i++) {
        const key = encodeKey(r.type, arbitraryStruct(planFor(r.key, 0), rand))
        expect(groupIdOfKey(key), r.name).toBe(known(decodeRecord(key, null)).groupId)
      }
    }
  })

  it('tombstones: null value, key decoded', () => {
    for (const r of RECORD_TYPES) {
      const key = arbitraryStruct(planFor(r.key, 0), rng(r.type))
      const dec = known(decodeRecord(encodeKey(r.type, key), null, 5n))
      expect(dec.value).toBeNull()
      expect(dec.version).toBeUndefined()
      expect(dec.groupId).toBe(key.GroupId ?? key.group)
    }
  })
})

function stripDecoded(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDecoded)
  if (v && typeof v === 'object' && !(v instanceof Uint8Array)) {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !k.endsWith('Decoded'))
        .map(([k, x]) => [k, stripDecoded(x)]),
    )
  }
  return v
}

describe('known byte vectors (built by hand from the Kafka JSON specs)', () => {
  const cgmKey = bytes('0003 | 0001 67') // type 3, GroupId "g" (int16 length)

  it('ConsumerGroupMetadataValue v0 without the MetadataHash tag (4.0, or hash 0) reads hash 0', () => {
    const dec = known(decodeRecord(cgmKey, bytes('0000 | 0000002a | 00'), 10n))
    expect(dec).toMatchObject({name: 'ConsumerGroupMetadata', groupId: 'g', version: 0, value: {Epoch: 42, MetadataHash: 0n}})
    expect(hex(encodeValue(3, {Epoch: 42, MetadataHash: 0n}))).toBe('00000000002a00')
  })

  it('ConsumerGroupMetadataValue v0 with tag 0 MetadataHash', () => {
    const v = bytes('0000 | 0000002a | 01 | 00 08 b3cd3890376830ea')
    const dec = known(decodeRecord(cgmKey, v))
    expect(dec.value).toEqual({Epoch: 42, MetadataHash: -5490670178638745366n})
    expect(hex(encodeValue(3, dec.value!))).toBe(hex(v))
  })

  it('int64 edges round-trip (StreamsGroupMetadataValue.MetadataHash is a regular int64)', () => {
    for (const h of [-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n, 1n, 4294967295n, 4294967296n, -4294967296n, -4294967297n]) {
      const v = encodeValue(17, {Epoch: 1, MetadataHash: h})
      expect(known(decodeRecord(encodeKey(17, {GroupId: 'g'}), v)).value!.MetadataHash).toBe(h)
      expect(Buffer.from(v).readBigInt64BE(6)).toBe(h)
    }
  })

  it('skips an unknown tag (e.g. a future CreationTimeMs tag 1) and keeps it for re-encoding', () => {
    const v = bytes('0000 | 00000007 | 02 | 00 08 0000000000000001 | 01 08 0000019a2b3c4d5e')
    const dec = known(decodeRecord(cgmKey, v))
    expect(dec.value).toMatchObject({Epoch: 7, MetadataHash: 1n, _unknownTaggedFields: [{tag: 1, data: bytes('0000019a2b3c4d5e')}]})
    expect(hex(encodeValue(3, dec.value!))).toBe(hex(v))
  })

  it('OffsetCommitKey: group, topic, partition (non-flexible)', () => {
    const k = bytes('0001 | 0002 6731 | 0006 6f7264657273 | 00000003')
    expect(known(decodeRecord(k, null)).key).toEqual({group: 'g1', topic: 'orders', partition: 3})
    expect(groupIdOfKey(k)).toBe('g1')
    expect(groupIdOfKey(bytes('0001 0005 6731'))).toBeUndefined() // length beyond the key
    expect(groupIdOfKey(bytes('0001 ffff'))).toBeUndefined() // null
    expect(groupIdOfKey(bytes('0001 00'))).toBeUndefined()
    expect(groupIdOfKey(bytes('0001 0000'))).toBe('')
    expect(hex(encodeKey(1, {group: 'g1', topic: 'orders', partition: 3}))).toBe(hex(k))
  })

  it('OffsetCommitValue v4 (4.1+) with tag 0 topicId', () => {
    const topicId = '0123456789abcdeffedcba9876543210'
    const v = bytes(`0004 | 000000000000007b | 00000005 | 03 6d64 | 0000019a00000000 | 01 00 10 ${topicId}`)
    const dec = known(decodeRecord(bytes('0001 0001 67 0001 74 00000000'), v))
    expect(dec.value).toEqual({
      offset: 123n,
      leaderEpoch: 5,
      metadata: 'md',
      commitTimestamp: 0x19a00000000n,
      expireTimestamp: -1n,
      topicId: Buffer.from(topicId, 'hex').toString('base64url'),
    })
    expect(hex(encodeValue(1, dec.value!, 4))).toBe(hex(v))
  })

  it('OffsetCommitValue v4 without topicId reads the zero uuid', () => {
    const dec = known(decodeRecord(bytes('0001 0001 67 0001 74 00000000'), bytes('0004 | 0000000000000001 | ffffffff | 01 | 0000000000000002 | 00')))
    expect(dec.value).toMatchObject({offset: 1n, leaderEpoch: -1, metadata: '', commitTimestamp: 2n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA'})
  })

  it('OffsetCommitValue v3 (4.0 writer) and v1 (expireTimestamp)', () => {
    const k = bytes('0001 0001 67 0001 74 00000000')
    expect(known(decodeRecord(k, bytes('0003 | 0000000000000009 | 00000002 | 0000 | 0000000000000064'))).value).toEqual({
      offset: 9n,
      leaderEpoch: 2,
      metadata: '',
      commitTimestamp: 100n,
      expireTimestamp: -1n,
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
    })
    expect(known(decodeRecord(k, bytes('0001 | 0000000000000009 | 0001 78 | 0000000000000064 | 00000000000000c8'))).value).toMatchObject({
      offset: 9n,
      leaderEpoch: -1,
      metadata: 'x',
      commitTimestamp: 100n,
      expireTimestamp: 200n,
    })
  })

  it('LegacyOffsetCommit (type 0) decodes and is marked legacy', () => {
    const dec = known(decodeRecord(bytes('0000 0001 67 0001 74 00000001'), bytes('0000 | 0000000000000005 | 0000 | 0000000000000006')))
    expect(dec).toMatchObject({type: 0, name: 'LegacyOffsetCommit', value: {offset: 5n, metadata: '', commitTimestamp: 6n}})
    expect(dec.legacy).toMatch(/0\.10/)
  })

  it('GroupMetadataValue v3 with a consumer member: subscription and assignment decoded on the side', () => {
    const sub = '0001 | 00000001 0001 74 | ffffffff | 00000001 0001 74 00000001 00000000' // v1: Topics [t], UserData null, Owned t:[0]
    const asg = '0000 | 00000001 0001 74 00000002 00000000 00000001 | ffffffff' // v0: t:[0,1], UserData null
    const v = bytes(`0003 | 0008 636f6e73756d6572 | 00000004 | 0005 72616e6765 | 0002 6d31 | 0000019a00000000 |
      00000001 | 0002 6d31 | ffff | 0001 63 | 0001 68 | 0000ea60 | 00002710 | ${(sub.replace(/[ |]/g, '').length / 2).toString(16).padStart(8, '0')} ${sub} | ${(asg.replace(/[ |]/g, '').length / 2).toString(16).padStart(8, '0')} ${asg}`)
    const dec = known(decodeRecord(bytes('0002 0001 67'), v))
    const m = (dec.value!.members as Record<string, unknown>[])[0]
    expect(dec.value).toMatchObject({protocolType: 'consumer', generation: 4, protocol: 'range', leader: 'm1', currentStateTimestamp: 0x19a00000000n})
    expect(m).toMatchObject({memberId: 'm1', groupInstanceId: null, clientId: 'c', clientHost: 'h', rebalanceTimeout: 60000, sessionTimeout: 10000})
    expect(m.subscriptionDecoded).toEqual({
      ok: true,
      message: 'ConsumerProtocolSubscription',
      version: 1,
      value: {
        Topics: ['t'],
        UserData: null,
        OwnedPartitions: [{Topic: 't', Partitions: [0]}],
        GenerationId: -1,
        RackId: null,
      },
    })
    expect(m.assignmentDecoded).toEqual({
      ok: true,
      message: 'ConsumerProtocolAssignment',
      version: 0,
      value: {
        AssignedPartitions: [{Topic: 't', Partitions: [0, 1]}],
        UserData: null,
      },
    })
    expect(hex(encodeValue(2, dec.value!, 3))).toBe(hex(v))
  })

  it('embedded consumer-protocol failures stay on the field, the record still decodes', () => {
    const value = {
      protocolType: 'consumer',
      generation: 1,
      protocol: 'range',
      leader: 'm',
      currentStateTimestamp: -1n,
      members: [
        {
          memberId: 'm',
          groupInstanceId: null,
          clientId: 'c',
          clientHost: 'h',
          rebalanceTimeout: 1,
          sessionTimeout: 1,
          subscription: bytes('0001 0000'),
          assignment: bytes('00'),
        },
      ],
    }
    const dec = known(decodeRecord(encodeKey(2, {group: 'g'}), encodeValue(2, value, 3)))
    const m = (dec.value!.members as Record<string, unknown>[])[0]
    expect(m.subscriptionDecoded).toMatchObject({ok: false, message: 'ConsumerProtocolSubscription', position: 2})
    expect(m.assignmentDecoded).toMatchObject({ok: false, error: expect.stringMatching(/2 bytes/)})
  })

  it('non-consumer classic groups (e.g. connect) keep raw bytes only', () => {
    const value = {
      protocolType: 'connect',
      generation: 1,
      protocol: 'sessioned',
      leader: null,
      members: [{memberId: 'm', clientId: 'c', clientHost: 'h', sessionTimeout: 1, subscription: bytes('0001'), assignment: bytes('')}],
    }
    const dec = known(decodeRecord(encodeKey(2, {group: 'g'}), encodeValue(2, value, 3)))
    expect((dec.value!.members as Record<string, unknown>[])[0].subscriptionDecoded).toBeUndefined()
  })

  it('a consumer-protocol version above 3 is read with the v3 layout, as Kafka does', () => {
    const b = encodeEmbeddedMessage(ConsumerProtocolSubscription, {Topics: ['a'], RackId: 'r'}, 3)
    b[1] = 9
    expect(decodeEmbeddedMessage(ConsumerProtocolSubscription, b)).toMatchObject({ok: true, version: 9, value: {Topics: ['a'], RackId: 'r'}})
    expect(decodeEmbeddedMessage(ConsumerProtocolAssignment, bytes('ffff'))).toMatchObject({ok: false, error: 'unknown version -1'})
  })

  it('ConsumerGroupMemberMetadataValue with tag 0 ClassicMemberMetadata (a classic member in a consumer group)', () => {
    const proto = encodeEmbeddedMessage(ConsumerProtocolSubscription, {Topics: ['t'], UserData: null, OwnedPartitions: [], GenerationId: 3, RackId: 'r1'}, 3)
    const value = {
      InstanceId: null,
      RackId: 'r1',
      ClientId: 'c',
      ClientHost: '/10.0.0.1',
      SubscribedTopicNames: ['t'],
      SubscribedTopicRegex: null,
      RebalanceTimeoutMs: 300000,
      ServerAssignor: null,
      ClassicMemberMetadata: {SessionTimeoutMs: 45000, SupportedProtocols: [{Name: 'range', Metadata: proto}]},
    }
    const enc = encodeValue(5, value)
    // InstanceId null, RackId "r1", ... ServerAssignor null, 1 tag: tag 0, size 0x28, marker 01 (a varint when tagged), SessionTimeoutMs.
    expect(hex(enc)).toMatch(new RegExp(/^000000037231.*0493e0 00 01 00 28 01 0000afc8 02 06 72616e6765/.source.replaceAll(' ', '')))
    const dec = known(decodeRecord(encodeKey(5, {GroupId: 'g', MemberId: 'm'}), enc))
    const cmm = dec.value!.ClassicMemberMetadata as {SupportedProtocols: Record<string, unknown>[]}
    expect(cmm.SupportedProtocols[0].MetadataDecoded).toMatchObject({ok: true, version: 3, value: {Topics: ['t'], GenerationId: 3, RackId: 'r1'}})
  })

  it('JSON-null defaults: an explicit null marker reads null, an absent tag reads the empty value (as Kafka)', () => {
    const k = encodeKey(5, {GroupId: 'g', MemberId: 'm'})
    // InstanceId null, RackId null, ClientId "c", ClientHost "h", [] names, regex null, timeout -1, assignor null.
    const head = '0000 | 00 | 00 | 02 63 | 02 68 | 01 | 00 | ffffffff | 00'
    // A 4.4.0 broker writes ClassicMemberMetadata = null as tag 0, size 1, varint 0.
    const explicitNull = known(decodeRecord(k, bytes(`${head} | 01 00 01 00`)))
    expect(explicitNull.value!.ClassicMemberMetadata).toBeNull()
    expect(hex(encodeValue(5, explicitNull.value!))).toBe(hex(bytes(`${head} | 01 00 01 00`)))
    const absent = known(decodeRecord(k, bytes(`${head} | 00`)))
    expect(absent.value!.ClassicMemberMetadata).toEqual({SessionTimeoutMs: 0, SupportedProtocols: []})
    expect(hex(encodeValue(5, absent.value!))).toBe(hex(bytes(`${head} | 00`)))
    // AssignmentEpochs (4.3+): absent (4.1/4.2 records) = [], explicit null = null.
    const k8 = encodeKey(8, {GroupId: 'g', MemberId: 'm'})
    const tp = (tags: string) => `0000 | 00000001 | 00000000 | 00 | 02 ${'11'.repeat(16)} 02 00000000 ${tags} | 01 | 00`
    expect((known(decodeRecord(k8, bytes(tp('00')))).value!.AssignedPartitions as {AssignmentEpochs: unknown}[])[0].AssignmentEpochs).toEqual([])
    expect((known(decodeRecord(k8, bytes(tp('01 00 01 00')))).value!.AssignedPartitions as {AssignmentEpochs: unknown}[])[0].AssignmentEpochs).toBeNull()
    expect((known(decodeRecord(k8, bytes(tp('01 00 05 02 00000003')))).value!.AssignedPartitions as {AssignmentEpochs: unknown}[])[0].AssignmentEpochs).toEqual(
      [3],
    )
  })

  it('4.0 share records decode with their old layout and say so', () => {
    // ShareGroupMetadataValue 4.0: Epoch only.
    const dec = known(decodeRecord(encodeKey(11, {GroupId: 's'}), bytes('0000 | 00000003 | 00')))
    expect(dec).toMatchObject({layout: '4.0', value: {Epoch: 3}})
    // ShareGroupStatePartitionMetadataValue 4.0: no InitializingTopics.
    const old = encodeValue(15, {InitializedTopics: [{TopicId: 'AAAAAAAAAAAAAAAAAAAAAQ', TopicName: 't', Partitions: [0, 1]}], DeletingTopics: []}, 0, '4.0')
    expect(known(decodeRecord(encodeKey(15, {GroupId: 's'}), old))).toMatchObject({
      layout: '4.0',
      value: {InitializedTopics: [{TopicName: 't', Partitions: [0, 1]}]},
    })
    // The 4.1 layout is preferred when it fits.
    const cur = encodeValue(15, {InitializingTopics: [], InitializedTopics: [], DeletingTopics: []})
    expect(known(decodeRecord(encodeKey(15, {GroupId: 's'}), cur)).layout).toBeUndefined()
  })

  it('legacy type 9 (4.0 ShareGroupPartitionMetadata) and 18 (never released) decode and are marked', () => {
    for (const type of [9, 18]) {
      const dec = known(
        decodeRecord(encodeKey(type, {GroupId: 'g'}), encodeValue(type, {Topics: [{TopicId: 'AAAAAAAAAAAAAAAAAAAAAQ', TopicName: 't', NumPartitions: 3}]})),
      )
      expect(dec.legacy).toBeTruthy()
      expect(dec.value).toMatchObject({Topics: [{TopicName: 't', NumPartitions: 3}]})
    }
  })
})

describe('unknown records are results, not errors', () => {
  it('unknown type', () => {
    expect(decodeRecord(bytes('0063 0001 67'), bytes('0002 ff'), 77n)).toEqual({
      kind: 'unknown',
      offset: 77n,
      type: 99,
      version: 2,
      reason: 'unknown-type',
      groupId: 'g',
    })
    expect(decodeRecord(bytes('7fff'), null, 1n)).toMatchObject({kind: 'unknown', type: 32767, version: undefined})
  })

  it('value version newer than known', () => {
    expect(decodeRecord(bytes('0003 0001 67'), bytes('0001 00000001 00'), 8n)).toEqual({
      kind: 'unknown',
      offset: 8n,
      type: 3,
      version: 1,
      reason: 'unknown-version',
      name: 'ConsumerGroupMetadata',
      key: {GroupId: 'g'},
      groupId: 'g',
    })
    expect(decodeRecord(bytes('0001 0001 67 0001 74 00000000'), bytes('0005 00'), 9n)).toMatchObject({kind: 'unknown', reason: 'unknown-version', version: 5})
  })
})

describe('malformed bytes throw RecordDecodeError with offset, position and field', () => {
  const key = bytes('0003 0001 67')

  it('truncated tagged field', () => {
    const e = decodeError(() => decodeRecord(key, bytes('0000 0000002a 01 00 08 b3cd'), 12n))
    expect(e.details).toMatchObject({offset: 12n, part: 'value', recordType: 3, version: 0, position: 9})
    expect(e.message).toMatch(/offset 12.*MetadataHash/)
    expect(e.code).toBe('RECORD_DECODE')
  })

  it('array longer than the bytes left (no allocation)', () => {
    const e = decodeError(() => decodeRecord(encodeKey(7, {GroupId: 'g', MemberId: 'm'}), bytes('0000 ffffff7f'), 3n))
    expect(e.details.field).toBe('TopicPartitions')
    expect(e.details.reason).toMatch(/cannot fit/)
  })

  it('nested field paths', () => {
    const tp = {TopicId: 'AAAAAAAAAAAAAAAAAAAAAQ', Partitions: [1, 2]}
    const good = encodeValue(8, {MemberEpoch: 1, PreviousMemberEpoch: 0, State: 0, AssignedPartitions: [tp, tp], PartitionsPendingRevocation: []})
    const k = encodeKey(8, {GroupId: 'g', MemberId: 'm'})
    // 2 + 4 + 4 + 1 header, count at byte 11, element 0 at 12..37, element 1's TopicId at 38.
    expect(decodeError(() => decodeRecord(k, good.subarray(0, 50), 4n)).details).toMatchObject({field: 'AssignedPartitions[1].TopicId', position: 38})
    expect(decodeError(() => decodeRecord(k, good.subarray(0, 31), 4n)).details).toMatchObject({field: 'AssignedPartitions', position: 11})
  })

  it('trailing bytes, short keys, null keys, bad versions, non-nullable nulls', () => {
    expect(decodeError(() => decodeRecord(key, bytes('0000 00000001 00 00'))).details.reason).toMatch(/1 unread byte/)
    expect(decodeError(() => decodeRecord(bytes('0003 0001'), null)).details.part).toBe('key')
    expect(decodeError(() => decodeRecord(bytes('00'), null)).details.part).toBe('key')
    expect(decodeError(() => decodeRecord(null, null)).details.part).toBe('key')
    expect(decodeError(() => decodeRecord(key, bytes('ffff 00'))).details.reason).toMatch(/below/)
    expect(decodeError(() => decodeRecord(key, bytes('00'))).details.reason).toMatch(/2 bytes/)
    expect(decodeError(() => decodeRecord(bytes('0003 ffff'), null)).details.reason).toMatch(/non-nullable string/)
    expect(decodeError(() => decodeRecord(key, bytes('0000 00000001 ffffffffff'))).details.reason).toMatch(/varint/)
  })
})

describe('inputs that are Node Buffers (views into a fetch buffer)', () => {
  it('bytes fields are copies, not views of the input', () => {
    const enc = encodeRecord({type: 1, key: {group: 'g', topic: 't', partition: 0}, value: {offset: 1n, metadata: 'x', commitTimestamp: 2n}, version: 3})
    const m = encodeValue(5, {
      ClientId: 'c',
      ClientHost: 'h',
      SubscribedTopicNames: [],
      ClassicMemberMetadata: {SessionTimeoutMs: 1, SupportedProtocols: [{Name: 'range', Metadata: bytes('0001000000')}]},
    })
    const fetch = Buffer.concat([Buffer.from('ffff', 'hex'), Buffer.from(m), Buffer.from('ffff', 'hex')])
    const value = fetch.subarray(2, 2 + m.length)
    const r = known(decodeRecord(Buffer.from(encodeKey(5, {GroupId: 'g', MemberId: 'm'})), value))
    const md = (r.value!.ClassicMemberMetadata as {SupportedProtocols: {Metadata: Uint8Array}[]}).SupportedProtocols[0].Metadata
    fetch.fill(0)
    expect(hex(md)).toBe('0001000000')
    expect(known(decodeRecord(Buffer.from(enc.key), Buffer.from(enc.value!))).value).toMatchObject({offset: 1n, metadata: 'x'})
  })
})

describe('uuid and JSON forms', () => {
  it('uuids decode to the same 22-char string as uuidToString', async () => {
    const {uuidFromHex, uuidToString} = await import('../../../src/core/uuid.js')
    for (const h of [
      '00000000000000000000000000000000',
      'ffffffffffffffffffffffffffffffff',
      '0123456789abcdeffedcba9876543210',
      'fbfffefdfcfbfaf9f8f7f6f5f4f3f2f1',
    ]) {
      const dec = known(decodeRecord(encodeKey(7, {GroupId: 'g', MemberId: 'm'}), bytes(`0000 02 ${h} 01 00 00`)))
      expect((dec.value!.TopicPartitions as {TopicId: string}[])[0].TopicId).toBe(uuidToString(uuidFromHex(h)))
    }
  })

  it('toJsonSafe: bigint as decimal strings, bytes as base64, Maps as objects', async () => {
    const {toJsonSafe} = await import('../../../src/core/records/index.js')
    const dec = decodeRecord(bytes('0003 0001 67'), bytes('0000 0000002a 01 00 08 b3cd3890376830ea'), 9n)
    expect(JSON.parse(JSON.stringify(toJsonSafe(dec)))).toEqual({
      kind: 'record',
      offset: '9',
      type: 3,
      name: 'ConsumerGroupMetadata',
      group: 'consumer',
      groupId: 'g',
      key: {GroupId: 'g'},
      version: 0,
      value: {Epoch: 42, MetadataHash: '-5490670178638745366'},
    })
    expect(toJsonSafe({m: new Map([['a', new Uint8Array([1, 2])]]), s: new Set([1n])})).toEqual({m: {a: 'AQI='}, s: ['1']})
  })
})
