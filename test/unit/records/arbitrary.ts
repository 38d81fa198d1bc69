/** Seeded random values for any record schema (round trips, fuzz seeds). */
import {planFor, ZERO_UUID, type StructValue} from '../../../src/core/records/codec.js'
import type {FieldPlan, StructPlan} from '../../../src/core/records/codec.js'
import {ConsumerProtocolAssignment, ConsumerProtocolSubscription} from '../../../src/core/records/consumer-protocol.js'
import {encodeEmbeddedMessage} from '../../../src/core/records/record.js'

/** mulberry32: small, fast, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = ['orders', 'payments', 'topic-a', 'consumer-1-7d3f', 'range', 'uniform', 'rack-a', 'zürich', '中文', '', 'x'.repeat(70)]

export function arbitraryStruct(plan: StructPlan, rand: () => number, depth = 0): StructValue {
  const out: StructValue = {}
  for (const f of plan.fields) out[f.name] = f.regular || f.tag !== undefined ? arbitraryField(f, rand, depth) : f.defaultValue()
  return out
}

function int(rand: () => number, bits: number, signed = true): number {
  const v = Math.floor(rand() * 2 ** bits)
  return signed ? v - 2 ** (bits - 1) : v
}

function arbitraryField(f: FieldPlan, rand: () => number, depth: number): unknown {
  if (f.tag !== undefined && rand() < 0.3) return f.defaultValue()
  if (f.nullable && rand() < 0.2) return null
  if (f.array) {
    const n = depth > 2 ? 0 : Math.floor(rand() * 4)
    return Array.from({length: n}, () => one(f, rand, depth + 1, true))
  }
  return one(f, rand, depth, false)
}

function one(f: FieldPlan, rand: () => number, depth: number, element: boolean): unknown {
  switch (f.kind) {
    case 'int8':
      return int(rand, 8)
    case 'int16':
      return int(rand, 16)
    case 'int32':
      return rand() < 0.3 ? Math.floor(rand() * 100) : int(rand, 32)
    case 'uint16':
      return int(rand, 16, false)
    case 'int64':
      return rand() < 0.5 ? BigInt(Math.floor(rand() * 1e6)) : BigInt.asIntN(64, (BigInt(int(rand, 32, false)) << 32n) | BigInt(int(rand, 32, false)))
    case 'bool':
      return rand() < 0.5
    case 'uuid':
      return rand() < 0.1 ? ZERO_UUID : Buffer.from(Array.from({length: 16}, () => int(rand, 8, false))).toString('base64url')
    case 'string':
      return WORDS[Math.floor(rand() * WORDS.length)]
    case 'bytes': {
      if (f.embedded && rand() < 0.8) {
        const spec = f.embedded === 'ConsumerProtocolSubscription' ? ConsumerProtocolSubscription : ConsumerProtocolAssignment
        const version = Math.floor(rand() * 4)
        return encodeEmbeddedMessage(spec, arbitraryStruct(planFor(spec, version), rand, depth + 1), version)
      }
      return Uint8Array.from({length: Math.floor(rand() * 6)}, () => int(rand, 8, false))
    }
    case 'struct':
      return arbitraryStruct(f.struct!, rand, depth + 1)
  }
  void element
}
