/**
 * `__consumer_offsets` records: key = int16 type + key fields (never flexible); value = int16
 * version + value fields; a null value is a tombstone. Unknown types and newer value versions come
 * back as UnknownRecord (the coordinator's loader skips them too); malformed bytes throw
 * RecordDecodeError naming the log offset, the byte position and the field.
 */
import {ByteReader, ByteWriter, decodeUtf8} from './bytes.js'
import {planFor, maxVersion, minVersion, readStruct, writeStruct, type StructPlan, type StructValue} from './codec.js'
import {EMBEDDED_SPECS} from './consumer-protocol.js'
import {decoderFor} from './compile.js'
import {DecodeFault, RecordDecodeError} from './errors.js'
import {RECORD_TYPE_BY_ID} from './schemas.js'
import type {FieldSpec, MessageSpec, RecordTypeSpec} from './spec.js'

export interface KnownRecord {
  readonly kind: 'record'
  readonly offset: bigint | undefined
  readonly type: number
  /** Kafka's name without Key/Value, e.g. "ConsumerGroupMetadata". */
  readonly name: string
  readonly group: RecordTypeSpec['group']
  /** The group id from the key (`group` or `GroupId`). */
  readonly groupId: string
  readonly key: StructValue
  /** Value version; undefined for a tombstone. */
  readonly version: number | undefined
  /** null = tombstone. */
  readonly value: StructValue | null
  /**
   * Why a legacy type (0, 9, 18) can be in the log. Replay counts type 0 offsets, applies 9 (a Kafka 4.0 share
   * group's subscription metadata: the 4.0 coordinator reads it, 4.1+ skips it on load) and skips 18.
   */
  readonly legacy?: string
  /** Set when the value matched an older incompatible layout (e.g. "4.0" share records). */
  readonly layout?: string
}

export interface UnknownRecord {
  readonly kind: 'unknown'
  readonly offset: bigint | undefined
  readonly type: number
  /** The value's version prefix, when there is a value of at least two bytes. */
  readonly version: number | undefined
  readonly reason: 'unknown-type' | 'unknown-version'
  readonly name?: string
  /** Decoded key (known type with a newer value version) or best-effort group id. */
  readonly key?: StructValue
  readonly groupId?: string
}

export type DecodedRecord = KnownRecord | UnknownRecord

/** The result of decoding embedded consumer-protocol bytes; failures stay on the field. */
export type EmbeddedDecode =
  | {readonly ok: true; readonly message: string; readonly version: number; readonly value: StructValue}
  | {readonly ok: false; readonly message: string; readonly error: string; readonly position: number}

function fail(offset: bigint | undefined, part: 'key' | 'value' | 'record', e: unknown, spec?: RecordTypeSpec, version?: number): never {
  if (e instanceof DecodeFault) {
    throw new RecordDecodeError({
      offset,
      part,
      recordType: spec?.type,
      recordName: spec?.name,
      version,
      position: e.position,
      field: e.path.join('.').replaceAll('.[', '['),
      reason: e.reason,
    })
  }
  throw e
}

/**
 * The group id from a key without decoding the record: every type's first key field is the group
 * (int16 length + UTF-8). A reader calls this for every record of the partition, so no allocation
 * beyond the string.
 */
export function groupIdOfKey(key: Uint8Array): string | undefined {
  if (key.length < 4) return undefined
  const n = ((key[2] << 24) >> 16) | key[3]
  return n < 0 || 4 + n > key.length ? undefined : decodeUtf8(key, 4, 4 + n)
}

/** The record type of a key (its int16 prefix), or undefined when the key is shorter than 2 bytes. */
export function recordTypeOfKey(key: Uint8Array): number | undefined {
  return key.length < 2 ? undefined : ((key[0] << 24) >> 16) | key[1]
}

/** Per-type facts the decode loop needs, computed once (plans, version bounds, embedded bytes). */
interface TypeInfo {
  readonly spec: RecordTypeSpec
  readonly keyPlan: StructPlan
  readonly minVersion: number
  readonly maxVersion: number
  readonly valuePlans: StructPlan[]
  readonly embedded: boolean
}

const typeInfo: (TypeInfo | undefined)[] = []
for (const spec of RECORD_TYPE_BY_ID.values()) {
  const min = minVersion(spec.value)
  const max = maxVersion(spec.value)
  const valuePlans: StructPlan[] = []
  for (let v = min; v <= max; v++) valuePlans[v] = planFor(spec.value, v)
  typeInfo[spec.type] = {spec, keyPlan: planFor(spec.key, 0), minVersion: min, maxVersion: max, valuePlans, embedded: hasEmbedded(spec.value)}
}

/** One reader for every key and value decoded (decoding is synchronous and never re-entered). */
const reader = new ByteReader(new Uint8Array(0))

/**
 * The struct `bytes` hold after their int16 prefix, every byte read: with the plan's compiled decoder, and when that
 * throws, again with readStruct, whose DecodeFault names the field.
 */
function readExactlyWith(bytes: Uint8Array, plan: StructPlan, name: string): StructValue {
  const r = reader.reset(bytes, 2)
  try {
    const value = decoderFor(plan)(r)
    if (r.pos === r.end) return value
  } catch (e) {
    if (!(e instanceof DecodeFault)) throw e
  }
  return readExactlyExplained(bytes, plan, name)
}

function readExactlyExplained(bytes: Uint8Array, plan: StructPlan, name: string): StructValue {
  const r = new ByteReader(bytes, 2)
  const value = readStruct(r, plan)
  if (r.pos !== r.end) throw r.fault(`${r.end - r.pos} unread bytes after ${name}`)
  return value
}

export function decodeRecord(key: Uint8Array | null, value: Uint8Array | null, offset?: bigint): DecodedRecord {
  if (key === null) throw new RecordDecodeError({offset, part: 'key', position: 0, field: '', reason: 'record has no key'})
  if (key.length < 2) fail(offset, 'key', new DecodeFault(0, `key needs 2 bytes for its type, has ${key.length}`))
  const type = ((key[0] << 24) >> 16) | key[1]
  const version = value !== null && value.length >= 2 ? ((value[0] << 24) >> 16) | value[1] : undefined
  const info = type >= 0 ? typeInfo[type] : undefined
  if (info === undefined) return {kind: 'unknown', offset, type, version, reason: 'unknown-type', groupId: groupIdOfKey(key)}
  const spec = info.spec

  let keyValue: StructValue
  try {
    keyValue = readExactlyWith(key, info.keyPlan, spec.key.name)
  } catch (e) {
    fail(offset, 'key', e, spec)
  }
  const groupId = (keyValue.GroupId ?? keyValue.group) as string
  if (value === null) return known(offset, spec, groupId, keyValue, undefined, null, undefined)
  if (version === undefined) fail(offset, 'value', new DecodeFault(0, `value needs 2 bytes for its version, has ${value.length}`), spec)
  if (version > info.maxVersion) {
    return {kind: 'unknown', offset, type, version, reason: 'unknown-version', name: spec.name, key: keyValue, groupId}
  }
  if (version < info.minVersion)
    fail(offset, 'value', new DecodeFault(0, `version ${version} is below ${spec.value.name}'s first version ${info.minVersion}`), spec, version)

  let decoded: StructValue
  let layout: string | undefined
  try {
    decoded = readExactlyWith(value, info.valuePlans[version], spec.value.name)
  } catch (e) {
    const older = tryOlderLayouts(spec, value, version)
    if (!older) fail(offset, 'value', e, spec, version)
    ;({value: decoded, release: layout} = older)
  }
  if (info.embedded && (type !== 2 || decoded.protocolType === 'consumer')) decodeEmbedded(spec.value, decoded)
  return known(offset, spec, groupId, keyValue, version, decoded, layout)
}

/**
 * decodeRecord of the key at [keyStart, keyEnd) and the value at [valueStart, valueEnd) of `buf` (valueStart < 0: a
 * tombstone) without a view made of either (a reader of many records held in one buffer makes two per record
 * otherwise): a known type with a value version its plans read whole is decoded here; anything else, and any
 * fault, by decodeRecord on views of them, so the result (or the error) is decodeRecord's.
 */
export function decodeRecordIn(buf: Uint8Array, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offset?: bigint): DecodedRecord {
  const type = keyEnd - keyStart >= 2 ? ((buf[keyStart] << 24) >> 16) | buf[keyStart + 1] : -1
  const info = type >= 0 ? typeInfo[type] : undefined
  const key = info && readWhole(buf, keyStart, keyEnd, info.keyPlan)
  if (info && key) {
    const groupId = (key.GroupId ?? key.group) as string
    if (valueStart < 0) return known(offset, info.spec, groupId, key, undefined, null, undefined)
    const version = valueEnd - valueStart >= 2 ? ((buf[valueStart] << 24) >> 16) | buf[valueStart + 1] : -1
    const decoded = version >= info.minVersion && version <= info.maxVersion ? readWhole(buf, valueStart, valueEnd, info.valuePlans[version]) : undefined
    if (decoded) {
      if (info.embedded && (type !== 2 || decoded.protocolType === 'consumer')) decodeEmbedded(info.spec.value, decoded)
      return known(offset, info.spec, groupId, key, version, decoded, undefined)
    }
  }
  return decodeRecord(buf.subarray(keyStart, keyEnd), valueStart < 0 ? null : buf.subarray(valueStart, valueEnd), offset)
}

/** The struct at [start, end) of `buf` after its int16 prefix with the plan's compiled decoder, every byte read; undefined on a fault. */
function readWhole(buf: Uint8Array, start: number, end: number, plan: StructPlan): StructValue | undefined {
  const r = reader.reset(buf, start + 2, end)
  try {
    const value = decoderFor(plan)(r)
    if (r.pos === r.end) return value
  } catch (e) {
    if (!(e instanceof DecodeFault)) throw e
  }
  return undefined
}

function known(
  offset: bigint | undefined,
  spec: RecordTypeSpec,
  groupId: string,
  key: StructValue,
  version: number | undefined,
  value: StructValue | null,
  layout: string | undefined,
): KnownRecord {
  const r: {-readonly [K in keyof KnownRecord]: KnownRecord[K]} = {
    kind: 'record',
    offset,
    type: spec.type,
    name: spec.name,
    group: spec.group,
    groupId,
    key,
    version,
    value,
  }
  if (spec.legacy) r.legacy = spec.legacy
  if (layout) r.layout = layout
  return r
}

function tryOlderLayouts(spec: RecordTypeSpec, value: Uint8Array, version: number): {value: StructValue; release: string} | undefined {
  for (const old of spec.olderLayouts ?? []) {
    try {
      return {value: readExactlyWith(value, planFor(old.value, version), old.value.name), release: old.release}
    } catch (e) {
      if (!(e instanceof DecodeFault)) throw e
    }
  }
  return undefined
}

/** Decodes int16-version-prefixed consumer-protocol bytes; never throws. */
export function decodeEmbeddedMessage(spec: MessageSpec, bytes: Uint8Array): EmbeddedDecode {
  if (bytes.length < 2) return {ok: false, message: spec.name, error: `needs 2 bytes for its version, has ${bytes.length}`, position: 0}
  const raw = ((bytes[0] << 24) >> 16) | bytes[1]
  if (raw < minVersion(spec)) return {ok: false, message: spec.name, error: `unknown version ${raw}`, position: 0}
  // Newer versions only append fields, so Kafka reads them with its newest layout; so do we.
  const version = Math.min(raw, maxVersion(spec))
  try {
    const r = new ByteReader(bytes, 2)
    const value = readStruct(r, planFor(spec, version))
    return {ok: true, message: spec.name, version: raw, value}
  } catch (e) {
    if (!(e instanceof DecodeFault)) throw e
    return {
      ok: false,
      message: spec.name,
      error: `${e.path.length ? `reading ${e.path.join('.').replaceAll('.[', '[')}: ` : ''}${e.reason}`,
      position: e.position,
    }
  }
}

type Walk = (v: StructValue) => void

const embeddedWalks = new WeakMap<MessageSpec, Walk>()

/** Adds `<field>Decoded` next to every bytes field that holds an embedded consumer-protocol message. */
function decodeEmbedded(spec: MessageSpec, value: StructValue): void {
  let walk = embeddedWalks.get(spec)
  if (!walk) embeddedWalks.set(spec, (walk = walkOf(spec, spec.fields) ?? (() => {})))
  walk(value)
}

/** The steps to the embedded fields of `fields` and of their structs, made once per spec (none: undefined). */
function walkOf(spec: MessageSpec, fields: readonly FieldSpec[]): Walk | undefined {
  const steps: Walk[] = []
  for (const f of fields) {
    const name = f.name
    const embedded = f.embedded && EMBEDDED_SPECS[f.embedded]
    if (embedded) steps.push(v => v[name] instanceof Uint8Array && (v[`${name}Decoded`] = decodeEmbeddedMessage(embedded, v[name] as Uint8Array)))
    const sub = f.fields ?? spec.commonStructs?.find(s => `[]${s.name}` === f.type || s.name === f.type)?.fields
    const inner = sub && walkOf(spec, sub)
    if (inner) steps.push(v => walkInto(v[name], inner))
  }
  if (steps.length === 0) return undefined
  return v => {
    for (const step of steps) step(v)
  }
}

function walkInto(x: unknown, walk: Walk): void {
  if (Array.isArray(x)) {
    for (const item of x) if (item) walk(item as StructValue)
  } else if (x && typeof x === 'object' && !(x instanceof Uint8Array)) walk(x as StructValue)
}

function hasEmbedded(spec: MessageSpec): boolean {
  const any = (fields: readonly FieldSpec[]): boolean => fields.some(f => f.embedded !== undefined || (f.fields !== undefined && any(f.fields)))
  return any(spec.fields) || (spec.commonStructs ?? []).some(s => any(s.fields))
}

// ---------------------------------------------------------------- encoding

function specOf(type: number): RecordTypeSpec {
  const spec = RECORD_TYPE_BY_ID.get(type)
  if (!spec) throw new RangeError(`unknown coordinator record type ${type}`)
  return spec
}

export function encodeKey(type: number, key: StructValue): Uint8Array {
  const w = new ByteWriter()
  w.int16(type)
  writeStruct(w, planFor(specOf(type).key, 0), key)
  return w.finish()
}

/** Encodes a value at `version` (default: the newest). `layout` picks an older layout, e.g. "4.0". */
export function encodeValue(type: number, value: StructValue, version?: number, layout?: string): Uint8Array {
  const spec = specOf(type)
  const message = layout ? spec.olderLayouts?.find(l => l.release === layout)?.value : spec.value
  if (!message) throw new RangeError(`${spec.name} has no ${layout} layout`)
  const v = version ?? maxVersion(message)
  const w = new ByteWriter()
  w.int16(v)
  writeStruct(w, planFor(message, v), value)
  return w.finish()
}

/** Encodes consumer-protocol bytes (int16 version prefix), e.g. for GroupMetadataValue members. */
export function encodeEmbeddedMessage(spec: MessageSpec, value: StructValue, version = maxVersion(spec)): Uint8Array {
  const w = new ByteWriter()
  w.int16(version)
  writeStruct(w, planFor(spec, version), value)
  return w.finish()
}

export interface RecordToEncode {
  readonly type: number
  readonly key: StructValue
  /** null = tombstone. */
  readonly value: StructValue | null
  readonly version?: number
  readonly layout?: string
}

export function encodeRecord(r: RecordToEncode): {key: Uint8Array; value: Uint8Array | null} {
  return {key: encodeKey(r.type, r.key), value: r.value === null ? null : encodeValue(r.type, r.value, r.version, r.layout)}
}
