/**
 * The generic codec's fast path: a StructPlan compiled once into a decoder function (cached per plan), which reads
 * the same fields in the same order with the same ByteReader checks as readStruct, builds the struct as one object
 * literal (every field in schema order, as readStruct sets them: a fixed shape, no property added one at a time)
 * and keeps no field path. A decoder that throws is not the answer: the caller decodes the same bytes again with
 * readStruct, whose DecodeFault names the field (malformed records are rare; the path costs nothing then).
 *
 * The source compiled is made from the plan alone (field names quoted with JSON.stringify, never from input):
 * one compiler for every schema, no code per record type.
 */
import type {ByteReader} from './bytes.js'
import {readTaggedFields} from './codec.js'
import type {FieldPlan, StructPlan, StructValue} from './plan.js'

export type StructDecoder = (r: ByteReader) => StructValue

const compiled = new WeakMap<StructPlan, StructDecoder>()

/** The decoder of `plan` (compiled on first use). */
export function decoderFor(plan: StructPlan): StructDecoder {
  let d = compiled.get(plan)
  if (!d) compiled.set(plan, (d = compile(plan)))
  return d
}

function readLength(r: ByteReader, flexible: boolean, wide: boolean): number {
  if (flexible) return r.uvarint() - 1
  const n = wide ? r.int32() : r.int16()
  if (n < -1) throw r.fault(`negative length ${n}`)
  return n
}

function str(r: ByteReader, flexible: boolean, nullable: boolean): string | null {
  const n = readLength(r, flexible, false)
  if (n >= 0) return n <= INTERN_MAX_BYTES ? interned(r, n) : r.utf8(n)
  if (!nullable) throw r.fault('non-nullable string is null')
  return null
}

/**
 * Short strings read before, by a hash of their bytes (direct-mapped: a slot holds the last string that hashed to
 * it). Records repeat a few strings (group, member and client ids, hosts, topic names, racks): one string each, so
 * the maps keyed by them compare pointers and hash each once, and the state holds no copies.
 */
const INTERN_SLOTS = 4096
const INTERN_MAX_BYTES = 96
const internBytes: (Uint8Array | undefined)[] = new Array(INTERN_SLOTS).fill(undefined)
const internText: string[] = new Array(INTERN_SLOTS).fill('')

function interned(r: ByteReader, n: number): string {
  r.need(n, 'string')
  const b = r.buf
  const start = r.pos
  let h = n
  for (let i = start; i < start + n; i++) h = Math.imul(h ^ b[i], 0x01000193)
  const slot = (h ^ (h >>> 15)) & (INTERN_SLOTS - 1)
  const seen = internBytes[slot]
  if (seen !== undefined && seen.length === n && sameBytes(seen, b, start)) {
    r.pos = start + n
    return internText[slot]
  }
  const text = r.utf8(n)
  internBytes[slot] = Uint8Array.prototype.slice.call(b, start, start + n)
  internText[slot] = text
  return text
}

function sameBytes(a: Uint8Array, b: Uint8Array, start: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[start + i]) return false
  return true
}

function bytes(r: ByteReader, flexible: boolean, nullable: boolean): Uint8Array | null {
  const n = readLength(r, flexible, true)
  if (n >= 0) return r.raw(n, 'bytes')
  if (!nullable) throw r.fault('non-nullable bytes are null')
  return null
}

function array(r: ByteReader, flexible: boolean, nullable: boolean, minSize: number, one: (r: ByteReader) => unknown): unknown[] | null {
  const n = readLength(r, flexible, true)
  if (n < 0) {
    if (!nullable) throw r.fault('non-nullable array is null')
    return null
  }
  if (n * minSize > r.remaining) throw r.fault(`array of ${n} cannot fit in ${r.remaining} bytes`)
  const out = new Array<unknown>(n)
  for (let i = 0; i < n; i++) out[i] = one(r)
  return out
}

const ONE: Record<string, (r: ByteReader) => unknown> = {
  int8: r => r.int8(),
  int16: r => r.int16(),
  int32: r => r.int32(),
  int64: r => r.int64(),
  uint16: r => r.uint16(),
  bool: r => r.bool(),
  uuid: r => r.uuid(),
}

/** One element of an array field (never null: readStruct refuses a null string or bytes inside an array). */
function elementReader(f: FieldPlan, flexible: boolean): (r: ByteReader) => unknown {
  if (f.kind === 'struct') return decoderFor(f.struct!)
  if (f.kind === 'string') return r => str(r, flexible, false)
  if (f.kind === 'bytes' || f.kind === 'records') return r => bytes(r, flexible, false)
  return ONE[f.kind]
}

/** The expression reading one regular field; `refs` collects the functions it calls (R[i]). */
function fieldExpr(f: FieldPlan, flexible: boolean, refs: unknown[]): string {
  const ref = (fn: unknown) => `R[${refs.push(fn) - 1}]`
  if (f.array) return `A(r, ${flexible}, ${f.nullable}, ${f.minSize}, ${ref(elementReader(f, flexible))})`
  switch (f.kind) {
    case 'string':
      return `S(r, ${flexible}, ${f.nullable})`
    case 'bytes':
    case 'records':
      return `B(r, ${flexible}, ${f.nullable})`
    case 'struct':
      // a nullable struct outside a tagged field: int8 -1 = null
      return f.nullable ? `(r.int8() < 0 ? null : ${ref(decoderFor(f.struct!))}(r))` : `${ref(decoderFor(f.struct!))}(r)`
    default:
      return `r.${f.kind}()`
  }
}

function compile(plan: StructPlan): StructDecoder {
  const refs: unknown[] = []
  const props = plan.fields.map(f => {
    const value = f.regular ? fieldExpr(f, plan.flexible, refs) : `R[${refs.push(f.defaultValue) - 1}]()`
    return `${JSON.stringify(f.name)}: ${value}`
  })
  const tagged = plan.flexible ? `T(r, P, o)\n` : ''
  const source = `"use strict"\nreturn function decode(r) {\nconst o = {${props.join(',\n')}}\n${tagged}return o\n}`
  return new Function('R', 'S', 'B', 'A', 'T', 'P', source)(refs, str, bytes, array, readTaggedFields, plan) as StructDecoder
}
