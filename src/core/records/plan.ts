/**
 * The generic codec's plans (moved out of ./codec.ts, which re-exports them): a MessageSpec compiled for one
 * version into the fields to read or write in wire order, with their defaults; cached per spec and version.
 */
import {inRange, parseVersions, type DefaultSpec, type FieldSpec, type MessageSpec, type PrimitiveType, type StructSpec} from './spec.js'

export type FieldValue = number | bigint | boolean | string | Uint8Array | null | StructValue | FieldValue[]

/** A decoded struct: Kafka's field names as keys. int64 is bigint, uuid the 22-char base64url form. */
export interface StructValue {
  [field: string]: unknown
}

export interface UnknownTaggedField {
  readonly tag: number
  readonly data: Uint8Array
}

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA'

const PRIMITIVES = new Set<string>(['int8', 'int16', 'int32', 'int64', 'uint16', 'bool', 'string', 'bytes', 'records', 'uuid'])
const FIXED_SIZE: Record<string, number> = {int8: 1, int16: 2, int32: 4, int64: 8, uint16: 2, bool: 1, uuid: 16}

export interface FieldPlan {
  readonly name: string
  readonly kind: PrimitiveType | 'struct'
  readonly array: boolean
  readonly nullable: boolean
  /** Present in this version as a regular (positional) field. */
  readonly regular: boolean
  readonly tag: number | undefined
  readonly struct: StructPlan | undefined
  readonly defaultValue: () => unknown
  /** Smallest encoding of one value (one element for arrays); guards counts against garbage. */
  readonly minSize: number
  readonly embedded: FieldSpec['embedded']
  readonly spec: FieldSpec
}

export interface StructPlan {
  readonly name: string
  readonly version: number
  readonly flexible: boolean
  /** All fields in schema order (absent ones get their defaults). */
  readonly fields: readonly FieldPlan[]
  readonly tagged: ReadonlyMap<number, FieldPlan>
  readonly minSize: number
}

const planCache = new WeakMap<MessageSpec, Map<number, StructPlan>>()

/** The compiled plan of `spec` at `version`; throws for versions outside validVersions. */
export function planFor(spec: MessageSpec, version: number): StructPlan {
  let byVersion = planCache.get(spec)
  if (!byVersion) planCache.set(spec, (byVersion = new Map()))
  let plan = byVersion.get(version)
  if (!plan) {
    if (!inRange(parseVersions(spec.validVersions), version)) throw new RangeError(`${spec.name} has no version ${version}`)
    const flexible = inRange(parseVersions(spec.flexibleVersions), version)
    const common = new Map((spec.commonStructs ?? []).map(s => [s.name, s]))
    plan = compileStruct(spec.name, spec.fields, version, flexible, common)
    byVersion.set(version, plan)
  }
  return plan
}

export function maxVersion(spec: MessageSpec): number {
  return parseVersions(spec.validVersions).max
}

export function minVersion(spec: MessageSpec): number {
  return parseVersions(spec.validVersions).min
}

function compileStruct(name: string, specs: readonly FieldSpec[], version: number, flexible: boolean, common: Map<string, StructSpec>): StructPlan {
  const fields: FieldPlan[] = []
  const tagged = new Map<number, FieldPlan>()
  let minSize = flexible ? 1 : 0
  for (const f of specs) {
    const array = f.type.startsWith('[]')
    const base = array ? f.type.slice(2) : f.type
    const primitive = PRIMITIVES.has(base)
    let struct: StructPlan | undefined
    if (!primitive) {
      const fieldsOf = f.fields ?? common.get(base)?.fields
      if (!fieldsOf) throw new Error(`${name}.${f.name}: unknown type ${f.type}`)
      struct = compileStruct(base, fieldsOf, version, flexible, common)
    }
    // Like Kafka's FieldSpec: a field without "versions" exists in its taggedVersions.
    const present = inRange(parseVersions(f.versions ?? f.taggedVersions), version)
    const isTagged = present && f.taggedVersions !== undefined && flexible && inRange(parseVersions(f.taggedVersions), version)
    const nullable = present && f.nullableVersions !== undefined && inRange(parseVersions(f.nullableVersions), version)
    const kind = (primitive ? base : 'struct') as FieldPlan['kind']
    const elementMin = primitive ? (FIXED_SIZE[base] ?? (flexible ? 1 : base === 'string' ? 2 : 4)) : struct!.minSize + (nullable && !array ? 1 : 0)
    const plan: FieldPlan = {
      name: f.name,
      kind,
      array,
      nullable,
      regular: present && !isTagged,
      tag: isTagged ? f.tag : undefined,
      struct,
      defaultValue: defaultFactory(f, kind, array, struct),
      minSize: Math.max(1, elementMin),
      embedded: f.embedded,
      spec: f,
    }
    fields.push(plan)
    if (isTagged) {
      if (f.tag === undefined) throw new Error(`${name}.${f.name}: tagged field without tag`)
      tagged.set(f.tag, plan)
    } else if (plan.regular) {
      minSize += array ? (flexible ? 1 : 4) : kind === 'struct' ? (nullable ? 1 : struct!.minSize) : elementMin
    }
  }
  return {name, version, flexible, fields, tagged, minSize}
}

function defaultFactory(f: FieldSpec, kind: FieldPlan['kind'], array: boolean, struct: StructPlan | undefined): () => unknown {
  const d: DefaultSpec | undefined = f.default ?? undefined
  if (d === 'null') return () => null
  if (array) return () => []
  switch (kind) {
    case 'int64': {
      const v = BigInt(d ?? 0)
      return () => v
    }
    case 'int8':
    case 'int16':
    case 'int32':
    case 'uint16': {
      const v = Number(d ?? 0)
      return () => v
    }
    case 'bool': {
      const v = d === true || d === 'true'
      return () => v
    }
    case 'string': {
      const v = typeof d === 'string' ? d : ''
      return () => v
    }
    case 'bytes':
    case 'records':
      return () => new Uint8Array(0)
    case 'uuid':
      return () => ZERO_UUID
    case 'struct':
      return () => defaultsOf(struct!)
  }
}

/** A struct holding every field's default. */
export function defaultsOf(plan: StructPlan): StructValue {
  const out: StructValue = {}
  for (const f of plan.fields) out[f.name] = f.defaultValue()
  return out
}
