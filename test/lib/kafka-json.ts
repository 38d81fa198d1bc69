/**
 * Compares a record we decoded with what Kafka's own decoder (DumpLogSegments --offsets-decoder) printed for it:
 * Kafka prints camelCase field names, int64 as bare numbers, and leaves out tagged fields at their default, which
 * we read as the default. Used by the fixture unit tests and the integration tests alike.
 */
import {expect} from 'vitest'
import {RECORD_TYPE_BY_ID, planFor, toJsonSafe, type KnownRecord} from '../../src/core/records/index.js'

export interface KafkaDecoded {
  type: number
  key: Record<string, unknown>
  /** null for a tombstone. */
  version: number | null
  value: Record<string, unknown> | null
}

export const camel = (k: string) => k[0].toLowerCase() + k.slice(1)

/** Ours (JSON-safe, Kafka field names) in Kafka's JSON shape: camelCase names, `*Decoded` side fields dropped. */
export function kafkaShape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(kafkaShape)
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !k.endsWith('Decoded'))
        .map(([k, x]) => [camel(k), kafkaShape(x)]),
    )
  }
  return v
}

/** Kafka's JSON with numbers as strings where ours are (int64). */
export function normalize(theirs: unknown, ours: unknown): unknown {
  if (Array.isArray(theirs)) return theirs.map((x, i) => normalize(x, (ours as unknown[] | undefined)?.[i]))
  if (theirs && typeof theirs === 'object') {
    return Object.fromEntries(Object.entries(theirs).map(([k, x]) => [k, normalize(x, (ours as Record<string, unknown> | undefined)?.[k])]))
  }
  return typeof theirs === 'number' && typeof ours === 'string' ? String(theirs) : theirs
}

/** Nested struct fields Kafka omitted (tagged at default inside arrays) are dropped from ours too. */
function stripDefaultsKafkaOmits(mine: unknown, theirs: unknown): unknown {
  if (Array.isArray(mine) && Array.isArray(theirs)) return mine.map((x, i) => stripDefaultsKafkaOmits(x, theirs[i]))
  if (mine && typeof mine === 'object' && theirs && typeof theirs === 'object' && !Array.isArray(mine)) {
    return Object.fromEntries(
      Object.entries(mine)
        .filter(([k]) => k in theirs)
        .map(([k, v]) => [k, stripDefaultsKafkaOmits(v, (theirs as Record<string, unknown>)[k])]),
    )
  }
  return mine
}

/** Field by field: type, key, version, value (absent tagged fields must be at their defaults). */
export function expectSameAsKafka(ours: KnownRecord, theirs: KafkaDecoded, where: string): void {
  expect(ours.kind, where).toBe('record')
  expect(ours.type, where).toBe(theirs.type)
  expect(kafkaShape(ours.key), where).toEqual(theirs.key)
  if (theirs.value === null) {
    expect(ours.value, where).toBeNull()
    return
  }
  expect(ours.version, where).toBe(theirs.version)
  const mine = kafkaShape(toJsonSafe(ours.value)) as Record<string, unknown>
  const plan = planFor(RECORD_TYPE_BY_ID.get(ours.type)!.value, ours.version!)
  for (const f of plan.fields) {
    if (camel(f.name) in theirs.value) continue
    // Only tagged fields, or fields not in this version, may be absent.
    expect(f.regular, `${where}: ${ours.name}.${f.name} omitted by Kafka but a regular field`).toBe(false)
    expect(mine[camel(f.name)], where).toEqual(kafkaShape(toJsonSafe(f.defaultValue())))
    delete mine[camel(f.name)]
  }
  expect(stripDefaultsKafkaOmits(mine, theirs.value), `${where}: ${ours.name}`).toEqual(normalize(theirs.value, mine))
}
