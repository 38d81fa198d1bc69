import {describe, expect, it} from 'vitest'
import {decodeListPartitionReassignmentsV0, encodeListPartitionReassignmentsV0} from '../../../src/kafka/protocol.js'
import {ByteReader, ByteWriter} from '../../../src/kafka/wire.js'

describe('ListPartitionReassignments v0', () => {
  it('asks for every reassignment (Topics null) with a timeout', () => {
    const r = new ByteReader(encodeListPartitionReassignmentsV0(30_000))
    expect(r.int32()).toBe(30_000)
    expect(r.uvarint()).toBe(0) // null compact array
    expect(r.uvarint()).toBe(0) // no tagged fields
  })

  it('decodes topics, partitions and the three replica lists (tagged fields skipped)', () => {
    const ints = (w: ByteWriter, xs: number[]) => w.compactArray(xs, (w, x) => w.int32(x))
    const body = new ByteWriter()
      .int32(0).int16(0).compactNullableString(null)
      .compactArray([['orders', [[0, [1, 2, 3], [3], [1]], [4, [2, 3], [], []]]]] as const, (w, [name, parts]) => {
        w.compactString(name).compactArray(parts, (w, [p, rs, add, rem]) => {
          w.int32(p)
          ints(w, [...rs])
          ints(w, [...add])
          ints(w, [...rem])
          w.tags()
        })
        w.tags()
      })
      .tags()
      .toBuffer()
    expect(decodeListPartitionReassignmentsV0(body)).toEqual({
      errorCode: 0, errorMessage: null,
      reassignments: [
        {topic: 'orders', partition: 0, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [1]},
        {topic: 'orders', partition: 4, replicas: [2, 3], addingReplicas: [], removingReplicas: []},
      ],
    })
  })
})
