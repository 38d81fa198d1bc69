/** DescribeGroups v5 (classic groups in `group list`): bytes laid out by hand from Kafka's message JSON (flexible v5). */
import {describe, expect, it} from 'vitest'
import {decodeDescribeGroups, encodeDescribeGroups} from '../../../src/kafka/describe-groups.js'
import {ProtocolDecodeError} from '../../../src/kafka/wire.js'

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const str = (s: string) => (s.length + 1).toString(16).padStart(2, '0') + Buffer.from(s).toString('hex')

describe('DescribeGroups v5', () => {
  it('request: the group ids as a compact array, no authorized operations, no tagged fields', () => {
    expect(encodeDescribeGroups(['g1', 'orders']).toString('hex')).toBe(`03${str('g1')}${str('orders')}0000`)
  })

  it('response: state, protocol type and assignor, members with instance id (null), client id and host; errors per group', () => {
    const member = `${str('m-1')}00${str('client-1')}${str('/10.0.0.9')}0101 00`
    const body = hex(
      `00000000 03` +
        `0000 ${str('billing')} ${str('Stable')} ${str('consumer')} ${str('range')} 02 ${member} 80000000 00` +
        `0010 ${str('gone')} ${str('Dead')} 01 01 01 80000000 00` +
        `00`,
    )
    expect(decodeDescribeGroups(body)).toEqual([
      {
        groupId: 'billing',
        errorCode: 0,
        errorMessage: null,
        state: 'Stable',
        protocolType: 'consumer',
        protocol: 'range',
        members: [{memberId: 'm-1', instanceId: null, clientId: 'client-1', clientHost: '/10.0.0.9'}],
      },
      {groupId: 'gone', errorCode: 16, errorMessage: null, state: 'Dead', protocolType: '', protocol: '', members: []},
    ])
    expect(() => decodeDescribeGroups(body.subarray(0, body.length - 3))).toThrow(ProtocolDecodeError)
  })
})
