/**
 * The one generic codec: compiles a MessageSpec for one version into a field plan (cached) and
 * reads or writes any struct from it. Flexible versions use compact lengths (unsigned varint,
 * length+1, 0 = null) and a tagged-field section after each struct; unknown tags are kept in
 * `_unknownTaggedFields` (Kafka's name) so they round-trip and can be reported.
 */
import {type ByteReader, ByteWriter} from './bytes.js'
import {DecodeFault} from './errors.js'
import type {FieldPlan, StructPlan, StructValue, UnknownTaggedField} from './plan.js'

// Compiling specs into plans moved to ./plan.ts; importers keep these names from here.
export {
  defaultsOf,
  type FieldPlan,
  type FieldValue,
  maxVersion,
  minVersion,
  planFor,
  type StructPlan,
  type StructValue,
  type UnknownTaggedField,
  ZERO_UUID,
} from './plan.js'

// ---------------------------------------------------------------- decoding

function withPath<T>(e: unknown, step: string): T {
  if (e instanceof DecodeFault) e.path.unshift(step)
  throw e
}

/**
 * Array fields of a struct whose elements go to a function as each is read instead of into the struct, which holds
 * their count there: a response of a million groups never has its million decoded elements alive at once.
 */
export type ElementSinks = Readonly<Record<string, (element: unknown) => void>>

/** `sinks`: this struct's array fields read element by element (not its nested structs'). */
export function readStruct(r: ByteReader, plan: StructPlan, sinks?: ElementSinks): StructValue {
  const out: StructValue = {}
  const fields = plan.fields
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]
    if (f.regular) {
      try {
        out[f.name] = readField(r, f, plan.flexible, sinks?.[f.name])
      } catch (e) {
        withPath(e, f.name)
      }
    } else {
      out[f.name] = f.defaultValue()
    }
  }
  if (plan.flexible) readTaggedFields(r, plan, out)
  return out
}

/** The tagged-field section of a flexible struct into `out` (unknown tags kept in `_unknownTaggedFields`). */
export function readTaggedFields(r: ByteReader, plan: StructPlan, out: StructValue): void {
  const count = r.uvarint()
  // Each tagged field takes at least two bytes (tag and size).
  if (count * 2 > r.remaining) throw r.fault(`${count} tagged fields cannot fit in ${r.remaining} bytes`)
  let unknown: UnknownTaggedField[] | undefined
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint()
    const size = r.uvarint()
    const f = plan.tagged.get(tag)
    r.need(size, f ? `tagged field ${tag} (${f.name})` : `tagged field ${tag}`)
    if (f === undefined) {
      ;(unknown ??= []).push({tag, data: r.raw(size, `tagged field ${tag}`)})
      continue
    }
    const end = r.end
    r.end = r.pos + size
    try {
      out[f.name] = readField(r, f, true)
      if (r.pos !== r.end) throw r.fault(`tagged field ${tag} declared ${size} bytes but its value used ${size - r.remaining}`)
    } catch (e) {
      withPath(e, f.name)
    } finally {
      r.end = end
    }
  }
  if (unknown) out._unknownTaggedFields = unknown
}

function readLength(r: ByteReader, flexible: boolean, what: string, wide: boolean): number {
  if (flexible) return r.uvarint() - 1
  const n = wide ? r.int32() : r.int16()
  if (n < -1) throw r.fault(`negative ${what} length ${n}`, r.pos - (wide ? 4 : 2))
  return n
}

/** A field's value; an array's elements handed to `sink` when given (the value is then their count). */
function readField(r: ByteReader, f: FieldPlan, flexible: boolean, sink?: (element: unknown) => void): unknown {
  if (!f.array) return readOne(r, f, flexible)
  const at = r.pos
  const n = readLength(r, flexible, 'array', true)
  if (n < 0) {
    if (!f.nullable) throw r.fault('non-nullable array is null', at)
    return null
  }
  if (n * f.minSize > r.remaining) throw r.fault(`array of ${n} cannot fit in ${r.remaining} bytes`, at)
  const out = sink ? undefined : new Array<unknown>(n)
  for (let i = 0; i < n; i++) {
    try {
      const v = readOne(r, f, flexible)
      if (out) out[i] = v
      else sink!(v)
    } catch (e) {
      withPath(e, `[${i}]`)
    }
  }
  return out ?? n
}

function readOne(r: ByteReader, f: FieldPlan, flexible: boolean): unknown {
  switch (f.kind) {
    case 'int8':
      return r.int8()
    case 'int16':
      return r.int16()
    case 'int32':
      return r.int32()
    case 'int64':
      return r.int64()
    case 'uint16':
      return r.uint16()
    case 'bool':
      return r.bool()
    case 'uuid':
      return r.uuid()
    case 'string': {
      const at = r.pos
      const n = readLength(r, flexible, 'string', false)
      if (n < 0) {
        if (!f.nullable || f.array) throw r.fault('non-nullable string is null', at)
        return null
      }
      return r.utf8(n)
    }
    case 'bytes':
    case 'records': {
      const at = r.pos
      const n = readLength(r, flexible, 'bytes', true)
      if (n < 0) {
        if (!f.nullable || f.array) throw r.fault('non-nullable bytes are null', at)
        return null
      }
      return r.raw(n, 'bytes')
    }
    case 'struct': {
      if (f.nullable && !f.array) {
        // Kafka marks a nullable struct with int8 -1/1, but with an unsigned varint (0 = null) when tagged.
        if (f.tag !== undefined ? r.uvarint() === 0 : r.int8() < 0) return null
      }
      return readStruct(r, f.struct!)
    }
  }
}

// ---------------------------------------------------------------- encoding

export function writeStruct(w: ByteWriter, plan: StructPlan, value: StructValue): void {
  for (const f of plan.fields) {
    if (!f.regular) continue
    const v = value[f.name]
    writeField(w, f, v === undefined ? f.defaultValue() : v, plan.flexible)
  }
  if (!plan.flexible) return
  const tagged: {tag: number; data: Uint8Array}[] = []
  for (const f of plan.fields) {
    if (f.tag === undefined) continue
    const v = value[f.name]
    if (v === undefined || isDefault(f, v)) continue
    const sub = new ByteWriter()
    writeField(sub, f, v, true)
    tagged.push({tag: f.tag, data: sub.finish()})
  }
  const unknown = value._unknownTaggedFields as UnknownTaggedField[] | undefined
  if (unknown) for (const u of unknown) tagged.push(u)
  tagged.sort((a, b) => a.tag - b.tag)
  w.uvarint(tagged.length)
  for (const t of tagged) {
    w.uvarint(t.tag)
    w.uvarint(t.data.length)
    w.bytes(t.data)
  }
}

/** Kafka writes a tagged field only when it differs from its default (null differs from an empty default). */
function isDefault(f: FieldPlan, v: unknown): boolean {
  const d = f.defaultValue()
  if (d === null || v === null) return v === d
  if (f.array) return Array.isArray(v) && v.length === 0
  if (f.kind === 'int64') return BigInt(v as bigint) === d
  if (f.kind === 'bytes' || f.kind === 'records') return v instanceof Uint8Array && v.length === 0
  if (f.kind === 'struct') return sameValue(v, d)
  return v === d
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a === 'bigint' || typeof b === 'bigint') return typeof a === typeof b && a === b
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i])
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]))
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = (o: object) => Object.keys(o).filter(k => !k.endsWith('Decoded') && k !== '_unknownTaggedFields')
    const ka = keys(a)
    return ka.length === keys(b).length && ka.every(k => sameValue((a as StructValue)[k], (b as StructValue)[k]))
  }
  return false
}

function writeLength(w: ByteWriter, n: number, flexible: boolean, wide: boolean): void {
  if (flexible) w.uvarint(n + 1)
  else if (wide) w.int32(n)
  else w.int16(n)
}

function writeField(w: ByteWriter, f: FieldPlan, v: unknown, flexible: boolean): void {
  if (!f.array) return writeOne(w, f, v, flexible)
  if (v === null) {
    if (!f.nullable) throw new TypeError(`${f.name}: non-nullable array is null`)
    return writeLength(w, -1, flexible, true)
  }
  const items = v as unknown[]
  writeLength(w, items.length, flexible, true)
  for (const item of items) writeOne(w, f, item, flexible)
}

function writeOne(w: ByteWriter, f: FieldPlan, v: unknown, flexible: boolean): void {
  switch (f.kind) {
    case 'int8':
      return w.int8(v as number)
    case 'int16':
      return w.int16(v as number)
    case 'int32':
      return w.int32(v as number)
    case 'int64':
      return w.int64(BigInt(v as bigint))
    case 'uint16':
      return w.uint16(v as number)
    case 'bool':
      return w.bool(v as boolean)
    case 'uuid':
      return w.uuid(v as string)
    case 'string': {
      if (v === null) {
        if (!f.nullable) throw new TypeError(`${f.name}: non-nullable string is null`)
        return writeLength(w, -1, flexible, false)
      }
      const b = ByteWriter.utf8(v as string)
      writeLength(w, b.length, flexible, false)
      return w.bytes(b)
    }
    case 'bytes':
    case 'records': {
      if (v === null) {
        if (!f.nullable) throw new TypeError(`${f.name}: non-nullable bytes are null`)
        return writeLength(w, -1, flexible, true)
      }
      const b = v as Uint8Array
      writeLength(w, b.length, flexible, true)
      return w.bytes(b)
    }
    case 'struct': {
      if (f.nullable && !f.array) {
        // The null marker is an int8 (-1/1), but an unsigned varint (0/1) in a tagged field.
        if (v === null) return f.tag !== undefined ? w.uvarint(0) : w.int8(-1)
        w.int8(1)
      } else if (v === null) {
        throw new TypeError(`${f.name}: non-nullable struct is null`)
      }
      return writeStruct(w, f.struct!, v as StructValue)
    }
  }
}
