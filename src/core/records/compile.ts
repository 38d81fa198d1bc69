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
import type {FieldPlan, StructPlan, StructValue, UnknownTaggedField} from './plan.js'

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
  if (n >= 0) return r.utf8(n)
  if (!nullable) throw r.fault('non-nullable string is null')
  return null
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

/** A tagged field's value (its size already bounds the reader; a nullable struct's null is an unsigned varint 0). */
function taggedFieldReader(f: FieldPlan): (r: ByteReader) => unknown {
  if (f.array) {
    const one = elementReader(f, true)
    return r => array(r, true, f.nullable, f.minSize, one)
  }
  switch (f.kind) {
    case 'string':
      return r => str(r, true, f.nullable)
    case 'bytes':
    case 'records':
      return r => bytes(r, true, f.nullable)
    case 'struct': {
      const d = decoderFor(f.struct!)
      return f.nullable ? r => (r.uvarint() === 0 ? null : d(r)) : d
    }
    default:
      return ONE[f.kind]
  }
}

/** The tagged-field section of a flexible struct, as readTaggedFields reads it (unknown tags kept as bytes). */
function taggedReader(plan: StructPlan): (r: ByteReader, out: StructValue) => void {
  const fields = new Map([...plan.tagged].map(([tag, f]) => [tag, {name: f.name, read: taggedFieldReader(f)}]))
  return (r, out) => {
    const count = r.uvarint()
    if (count === 0) return
    if (count * 2 > r.remaining) throw r.fault(`${count} tagged fields cannot fit`)
    let unknown: UnknownTaggedField[] | undefined
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint()
      const size = r.uvarint()
      const f = fields.get(tag)
      if (f === undefined) {
        ;(unknown ??= []).push({tag, data: r.raw(size, 'tagged field')})
        continue
      }
      r.need(size, 'tagged field')
      const end = r.end
      r.end = r.pos + size
      try {
        out[f.name] = f.read(r)
        if (r.pos !== r.end) throw r.fault(`tagged field ${tag} not read whole`)
      } finally {
        r.end = end
      }
    }
    if (unknown) out._unknownTaggedFields = unknown
  }
}

function compile(plan: StructPlan): StructDecoder {
  const refs: unknown[] = []
  const props = plan.fields.map(f => {
    const value = f.regular ? fieldExpr(f, plan.flexible, refs) : `R[${refs.push(f.defaultValue) - 1}]()`
    return `${JSON.stringify(f.name)}: ${value}`
  })
  const source = `"use strict"\nreturn function decode(r) {\nconst o = {${props.join(',\n')}}\n${plan.flexible ? 'T(r, o)\n' : ''}return o\n}`
  const tagged = plan.flexible ? taggedReader(plan) : undefined
  return new Function('R', 'S', 'B', 'A', 'T', source)(refs, str, bytes, array, tagged) as StructDecoder
}
