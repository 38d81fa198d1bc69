/** ListGroups' answers from every broker joined: one entry per group, in group id order. */
import {describe, expect, it} from 'vitest'
import {lastOfEach} from '../../../src/kafka/groups.js'

const g = (groupId: string, state: string) => ({groupId, protocolType: 'consumer', state, type: 'consumer'})

describe('lastOfEach', () => {
  it('a group two brokers listed (it moved between their answers) is kept once: the later answer', () => {
    const sorted = [g('a', 'Stable'), g('b', 'Empty'), g('b', 'Stable'), g('c', 'Dead')]
    expect(lastOfEach(sorted)).toEqual([g('a', 'Stable'), g('b', 'Stable'), g('c', 'Dead')])
  })

  it('groups listed once each are all kept, in order', () => {
    expect(lastOfEach([g('a', 'Empty'), g('b', 'Empty')]).map(x => x.groupId)).toEqual(['a', 'b'])
    expect(lastOfEach([])).toEqual([])
  })
})
