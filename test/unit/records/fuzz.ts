/**
 * Fuzzing driver: seeds are valid encoded records of every type and version; each case is the
 * seed unchanged, truncated, bit-flipped, byte-replaced, with a random length prefix or random
 * bytes. Every case must end in a decode result or a RecordDecodeError naming the offset.
 */
import {RECORD_TYPES, RecordDecodeError, decodeRecord, encodeRecord, parseVersions, planFor} from '../../../src/core/records/index.js'
import {arbitraryStruct, rng} from './arbitrary.js'

export interface FuzzStats {
  cases: number
  decoded: number
  unknown: number
  errors: number
  ms: number
}

export function seeds(count: number, seed = 1): {key: Uint8Array; value: Uint8Array | null}[] {
  const rand = rng(seed)
  const out: {key: Uint8Array; value: Uint8Array | null}[] = []
  while (out.length < count) {
    for (const r of RECORD_TYPES) {
      const {min, max} = parseVersions(r.value.validVersions)
      for (let v = min; v <= max; v++) {
        out.push(encodeRecord({type: r.type, version: v, key: arbitraryStruct(planFor(r.key, 0), rand), value: arbitraryStruct(planFor(r.value, v), rand)}))
      }
    }
  }
  return out
}

export function mutate(b: Uint8Array, rand: () => number): Uint8Array {
  const out = b.slice()
  if (out.length === 0) return out
  const mode = Math.floor(rand() * 6)
  switch (mode) {
    case 0:
      return out.subarray(0, Math.floor(rand() * out.length)) // truncated
    case 1: {
      // 1–4 bit flips
      for (let i = 0, n = 1 + Math.floor(rand() * 4); i < n; i++) out[Math.floor(rand() * out.length)] ^= 1 << Math.floor(rand() * 8)
      return out
    }
    case 2: {
      // random bytes replaced
      for (let i = 0, n = 1 + Math.floor(rand() * 3); i < n; i++) out[Math.floor(rand() * out.length)] = Math.floor(rand() * 256)
      return out
    }
    case 3: {
      // a huge length/count where lengths live (after the prefix)
      const at = 2 + Math.floor(rand() * Math.max(1, out.length - 2))
      for (let i = at; i < Math.min(out.length, at + 4); i++) out[i] = 0xff
      return out
    }
    case 4: {
      // appended garbage
      const tail = Uint8Array.from({length: 1 + Math.floor(rand() * 8)}, () => Math.floor(rand() * 256))
      const joined = new Uint8Array(out.length + tail.length)
      joined.set(out)
      joined.set(tail, out.length)
      return joined
    }
    default: // random bytes of the same length, keeping the 2-byte prefix
      for (let i = 2; i < out.length; i++) out[i] = Math.floor(rand() * 256)
      return out
  }
}

export function fuzz(cases: number, seed = 42): FuzzStats {
  const rand = rng(seed)
  const pool = seeds(200, seed)
  const stats: FuzzStats = {cases: 0, decoded: 0, unknown: 0, errors: 0, ms: 0}
  const t0 = performance.now()
  for (let i = 0; i < cases; i++) {
    const s = pool[Math.floor(rand() * pool.length)]
    const which = rand()
    // Mutate the value mostly (it has the structure); sometimes the key, sometimes both.
    const key = which < 0.2 ? mutate(s.key, rand) : s.key
    const value = which > 0.1 && s.value ? mutate(s.value, rand) : s.value
    const offset = BigInt(i)
    try {
      const r = decodeRecord(key, value, offset)
      if (r.offset !== offset) throw new Error(`case ${i}: result lost the offset`)
      if (r.kind === 'record') {
        stats.decoded++
        // Whatever decodes must encode again (not necessarily to the same bytes: varints and
        // bools have non-canonical forms, tags get sorted, invalid UTF-8 is replaced). Sampled:
        // encoding costs more than the decode under test.
        if ((i & 7) === 0) encodeRecord({type: r.type, key: r.key, value: r.value, version: r.version, layout: r.layout})
      } else {
        stats.unknown++
      }
    } catch (e) {
      if (!(e instanceof RecordDecodeError) || e.offset !== offset || !e.message.includes(`offset ${offset}`)) {
        throw new Error(
          `case ${i} (seed ${seed}): ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}; key ${Buffer.from(key).toString('hex')} value ${value && Buffer.from(value).toString('hex')}`,
        )
      }
      stats.errors++
    }
    stats.cases++
  }
  stats.ms = performance.now() - t0
  return stats
}
