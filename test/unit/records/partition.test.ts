import {describe, expect, it} from 'vitest'
import {javaStringHashCode, kafkaAbs, partitionForGroup} from '../../../src/core/records/index.js'

// Expected values printed by Java 17 (jshell): s.hashCode() and Utils.abs(h) % 50.
const JAVA: [string, number, number][] = [
  ['', 0, 0],
  ['a', 97, 47],
  ['my-group', -1906497762, 12],
  ['test-group', 627841412, 12],
  ['console-consumer-12345', 158455506, 6],
  ['group-ü中', 506337983, 33], // non-ASCII: UTF-16 code units
  ['😀emoji', -1233692477, 27], // a surrogate pair counts as two code units
  ['polygenelubricants', -2147483648, 0], // hashCode == Integer.MIN_VALUE: Utils.abs gives 0
  ['GydZG_', -2147483648, 0],
]

describe('partitionForGroup', () => {
  for (const [s, hash, p50] of JAVA) {
    it(`"${s}" → hash ${hash}, partition ${p50} of 50`, () => {
      expect(javaStringHashCode(s)).toBe(hash)
      expect(partitionForGroup(s, 50)).toBe(p50)
    })
  }

  it('uses the real partition count', () => {
    expect(partitionForGroup('my-group', 7)).toBe(1906497762 % 7)
    expect(partitionForGroup('my-group', 1)).toBe(0)
  })

  it('Utils.abs maps MIN_VALUE to 0', () => {
    expect(kafkaAbs(-2147483648)).toBe(0)
    expect(kafkaAbs(-5)).toBe(5)
  })

  it('rejects a non-positive partition count', () => {
    expect(() => partitionForGroup('g', 0)).toThrow(RangeError)
    expect(() => partitionForGroup('g', 1.5)).toThrow(RangeError)
  })
})
