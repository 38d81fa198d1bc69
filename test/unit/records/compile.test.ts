/**
 * The compiled decoders (compile.ts) against the interpreter (readStruct): on valid records of every type and
 * version and on mutated ones, both read the same struct (same fields, same order, same end) or both refuse.
 */
import {describe, expect, it} from 'vitest'
import {ByteReader} from '../../../src/core/records/bytes.js'
import {readStruct} from '../../../src/core/records/codec.js'
import {decoderFor} from '../../../src/core/records/compile.js'
import {DecodeFault} from '../../../src/core/records/errors.js'
import {RECORD_TYPES, parseVersions, planFor, toJsonSafe, type StructValue} from '../../../src/core/records/index.js'
import type {StructPlan} from '../../../src/core/records/plan.js'
import {mutate, seeds} from './fuzz.js'
import {rng} from './arbitrary.js'

type Outcome = {ok: true; json: string; end: number} | {ok: false}

function outcome(read: (r: ByteReader) => StructValue, bytes: Uint8Array): Outcome {
  const r = new ByteReader(bytes, 2)
  try {
    const v = read(r)
    return {ok: true, json: JSON.stringify(toJsonSafe(v)), end: r.pos}
  } catch (e) {
    if (!(e instanceof DecodeFault)) throw e
    return {ok: false}
  }
}

function plansOf(key: Uint8Array, value: Uint8Array | null): Array<[StructPlan, Uint8Array]> {
  const spec = RECORD_TYPES[(key[0] << 8) | key[1]]
  const out: Array<[StructPlan, Uint8Array]> = [[planFor(spec.key, 0), key]]
  if (value) out.push([planFor(spec.value, (value[0] << 8) | value[1]), value])
  return out
}

describe('compiled decoders', () => {
  it('read what readStruct reads, and refuse what it refuses', () => {
    const rand = rng(7)
    let compared = 0
    let refused = 0
    for (const s of seeds(60, 3)) {
      for (const [plan, bytes] of plansOf(s.key, s.value)) {
        for (let i = 0; i < 40; i++) {
          const input = i === 0 ? bytes : mutate(bytes, rand)
          const interpreted = outcome(r => readStruct(r, plan), input)
          expect(outcome(decoderFor(plan), input)).toEqual(interpreted)
          compared++
          if (!interpreted.ok) refused++
        }
      }
    }
    // both kinds of input were compared
    expect(refused).toBeGreaterThan(compared / 10)
    expect(compared - refused).toBeGreaterThan(compared / 10)
  })

  it('cover every version of every record type', () => {
    for (const t of RECORD_TYPES) {
      const {min, max} = parseVersions(t.value.validVersions)
      for (let v = min; v <= max; v++) expect(typeof decoderFor(planFor(t.value, v))).toBe('function')
    }
  })
})
