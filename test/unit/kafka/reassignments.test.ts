import {describe, expect, it} from 'vitest'
import {ListPartitionReassignmentsRequest} from '../../../src/kafka/messages/requests.js'
import {decodeBody, decodeListPartitionReassignmentsV0, encodeListPartitionReassignmentsV0} from '../../../src/kafka/protocol.js'
import {ByteWriter} from './byte-writer.js'

describe('ListPartitionReassignments v0', () => {
  it('asks for every reassignment (Topics null) with a timeout', () => {
    const bytes = encodeListPartitionReassignmentsV0(30_000)
    expect([...bytes]).toEqual([0, 0, 0x75, 0x30, 0, 0]) // TimeoutMs, Topics null (compact 0), no tagged fields
    expect(decodeBody(ListPartitionReassignmentsRequest, 0, bytes)).toEqual({TimeoutMs: 30_000, Topics: null})
  })

  it('decodes topics, partitions and the three replica lists (tagged fields skipped)', () => {
    const ints = (w: ByteWriter, xs: number[]) => w.compactArray(xs, (w, x) => w.int32(x))
    const body = new ByteWriter()
      .int32(0)
      .int16(0)
      .compactNullableString(null)
      .compactArray(
        [
          [
            'orders',
            [
              [0, [1, 2, 3], [3], [1]],
              [4, [2, 3], [], []],
            ],
          ],
        ] as const,
        (w, [name, parts]) => {
          w.compactString(name).compactArray(parts, (w, [p, rs, add, rem]) => {
            w.int32(p)
            ints(w, [...rs])
            ints(w, [...add])
            ints(w, [...rem])
            w.tags()
          })
          w.tags()
        },
      )
      .tags()
      .toBuffer()
    expect(decodeListPartitionReassignmentsV0(body)).toEqual({
      errorCode: 0,
      errorMessage: null,
      reassignments: [
        {topic: 'orders', partition: 0, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [1]},
        {topic: 'orders', partition: 4, replicas: [2, 3], addingReplicas: [], removingReplicas: []},
      ],
    })
  })
})
