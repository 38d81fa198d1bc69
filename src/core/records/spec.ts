/**
 * The shape of a record schema or a request/response body, written the way Kafka's message JSON files are
 * (`group-coordinator/.../common/message/*.json`, `clients/.../common/message/*.json`): field names, Kafka type strings,
 * version ranges as strings ("0+", "3+", "1", "0-3", "none"), tags and defaults. One generic codec
 * (codec.ts) reads and writes every record from these descriptions; there is no per-record code.
 */

/**
 * Kafka's primitive field types that coordinator records and the request/response bodies we use need.
 * `records` (Fetch's record set) is read as bytes and handed to the record-batch reader.
 */
export type PrimitiveType = 'int8' | 'int16' | 'int32' | 'int64' | 'uint16' | 'bool' | 'string' | 'bytes' | 'records' | 'uuid'

/**
 * A default as written in Kafka's JSON (int64 defaults are given as numbers and read as bigint).
 * As in Kafka's FieldSpec, the *string* "null" makes the default null, while a JSON null means "no
 * default": the type's empty value (0, "", [], an empty struct). The difference is visible on the
 * wire: a tagged field whose default is not "null" is written with an explicit null marker when
 * null, and reads as the empty value when absent (e.g. ClassicMemberMetadata, AssignmentEpochs).
 */
export type DefaultSpec = number | string | boolean | null

export interface FieldSpec {
  readonly name: string
  /** Kafka's type string: a primitive, `[]primitive`, `[]StructName` or `StructName`. */
  readonly type: string
  /** Versions in which the field exists; Kafka's JSON omits it on some tagged fields, meaning "0+". */
  readonly versions?: string
  readonly nullableVersions?: string
  readonly taggedVersions?: string
  readonly tag?: number
  readonly default?: DefaultSpec
  /** Inline struct fields (for `StructName` / `[]StructName` types not listed in commonStructs). */
  readonly fields?: readonly FieldSpec[]
  /** The Kafka release that added this field, where it matters for reading old logs. */
  readonly since?: string
  /** The bytes hold an embedded message (classic consumer protocol), decoded on the side. */
  readonly embedded?: 'ConsumerProtocolSubscription' | 'ConsumerProtocolAssignment'
}

export interface StructSpec {
  readonly name: string
  readonly fields: readonly FieldSpec[]
}

export interface MessageSpec {
  readonly name: string
  readonly validVersions: string
  readonly flexibleVersions: string
  readonly fields: readonly FieldSpec[]
  readonly commonStructs?: readonly StructSpec[]
}

export type GroupKind = 'offsets' | 'classic' | 'consumer' | 'share' | 'streams'

export interface RecordTypeSpec {
  /** The int16 key prefix (Kafka's `apiKey` of the coordinator-key/value JSON). */
  readonly type: number
  /** Kafka's record name without Key/Value, e.g. "ConsumerGroupMetadata". */
  readonly name: string
  readonly group: GroupKind
  readonly key: MessageSpec
  readonly value: MessageSpec
  /** Set for records no current broker writes or reads (types 0, 9, 18): why they may appear. */
  readonly legacy?: string
  /**
   * Older incompatible layouts of the same type id and value version (4.0 early-access share
   * records). Tried only when the current layout does not consume the bytes exactly.
   */
  readonly olderLayouts?: readonly {readonly release: string; readonly value: MessageSpec}[]
}

/** A parsed version range; `max` is Infinity for "N+", and `none` is {min: 1, max: 0}. */
export interface VersionRange {
  readonly min: number
  readonly max: number
}

export function parseVersions(text: string | undefined, fallback = '0+'): VersionRange {
  const t = (text ?? fallback).trim()
  if (t === 'none') return {min: 1, max: 0}
  let m = /^(\d+)\+$/.exec(t)
  if (m) return {min: Number(m[1]), max: Infinity}
  m = /^(\d+)-(\d+)$/.exec(t)
  if (m) return {min: Number(m[1]), max: Number(m[2])}
  m = /^(\d+)$/.exec(t)
  if (m) return {min: Number(m[1]), max: Number(m[1])}
  throw new Error(`bad version range "${text}"`)
}

export function inRange(r: VersionRange, v: number): boolean {
  return v >= r.min && v <= r.max
}
