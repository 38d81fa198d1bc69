import {describe, expect, it} from 'vitest'
import {decodeRecord, decodeRecordIn, RecordDecodeError} from '../../../src/core/records/index.js'
import {rng} from './arbitrary.js'
import {mutate, seeds} from './fuzz.js'

/** decodeRecord's result, or its error's message. */
function outcome(decode: () => unknown): unknown {
  try {
    return {ok: decode()}
  } catch (e) {
    if (!(e instanceof RecordDecodeError)) throw e
    return {error: e.message}
  }
}

/** `key` and `value` placed in one buffer between random bytes (as a window holds many records' bytes). */
function placed(key: Uint8Array, value: Uint8Array | null, rand: () => number) {
  const before = Math.floor(rand() * 9)
  const between = Math.floor(rand() * 5)
  const after = Math.floor(rand() * 9)
  const buf = Uint8Array.from({length: before + key.length + between + (value?.length ?? 0) + after}, () => Math.floor(rand() * 256))
  buf.set(key, before)
  const valueStart = value === null ? -1 : before + key.length + between
  if (value !== null) buf.set(value, valueStart)
  return {buf, keyStart: before, keyEnd: before + key.length, valueStart, valueEnd: value === null ? -1 : valueStart + value.length}
}

describe('decodeRecordIn: decodeRecord of a key and a value held in a larger buffer', () => {
  it('gives what decodeRecord gives of the same bytes (record, unknown record or the same error), over fuzzed records', () => {
    const rand = rng(11)
    const pool = seeds(100, 11)
    const seen = {ok: 0, error: 0, tombstone: 0}
    for (let i = 0; i < 20_000; i++) {
      const s = pool[Math.floor(rand() * pool.length)]
      const which = rand()
      const key = which < 0.2 ? mutate(s.key, rand) : s.key
      const value = which > 0.95 ? null : which > 0.4 && s.value ? mutate(s.value, rand) : s.value
      const at = placed(key, value, rand)
      const offset = BigInt(i)
      const expected = outcome(() => decodeRecord(key, value, offset))
      expect(outcome(() => decodeRecordIn(at.buf, at.keyStart, at.keyEnd, at.valueStart, at.valueEnd, offset))).toEqual(expected)
      if (value === null) seen.tombstone++
      else if ('ok' in (expected as object)) seen.ok++
      else seen.error++
    }
    // every outcome is reached in quantity (or the comparison proves little)
    expect(seen.ok).toBeGreaterThan(5_000)
    expect(seen.error).toBeGreaterThan(2_000)
    expect(seen.tombstone).toBeGreaterThan(500)
  })

  it('reads only its own bytes: a key shorter than its type, an empty value', () => {
    const buf = Uint8Array.from([0, 3, 0, 3, 0, 1, 0x61, 9, 9])
    for (const [ks, ke, vs, ve] of [
      [0, 1, -1, -1],
      [2, 7, 7, 7],
      [2, 7, 7, 8],
    ])
      expect(outcome(() => decodeRecordIn(buf, ks, ke, vs, ve, 5n))).toEqual(
        outcome(() => decodeRecord(buf.subarray(ks, ke), vs < 0 ? null : buf.subarray(vs, ve), 5n)),
      )
  })
})
