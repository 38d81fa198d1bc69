/**
 * JSON-safe form of decoded records, replay state and timelines, following the CLI's `--json`
 * convention: 64-bit integers as decimal strings, bytes as base64, Maps as objects, Sets as arrays.
 */
export function toJsonSafe<T>(value: T): JsonSafe<T> {
  return jsonSafe(value) as JsonSafe<T>
}

/** The type toJsonSafe makes of T (a field that is undefined is left out of the object). */
export type JsonSafe<T> = T extends bigint
  ? string
  : T extends Uint8Array
    ? string
    : T extends ReadonlyMap<unknown, infer V>
      ? Record<string, JsonSafe<V>>
      : T extends ReadonlySet<infer V>
        ? Array<JsonSafe<V>>
        : T extends ReadonlyArray<infer V>
          ? Array<JsonSafe<V>>
          : T extends object
            ? {-readonly [K in keyof T]: JsonSafe<T[K]>}
            : T

function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), jsonSafe(v)]))
  if (value instanceof Set) return [...value].map(jsonSafe)
  if (Array.isArray(value)) return value.map(jsonSafe)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = jsonSafe(v)
    return out
  }
  return value
}
