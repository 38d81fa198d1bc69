/**
 * JSON-safe form of decoded records, replay state and timelines, following the CLI's `--json`
 * convention: 64-bit integers as decimal strings, bytes as base64, Maps as objects, Sets as arrays.
 */
export function toJsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJsonSafe(v)]))
  if (value instanceof Set) return [...value].map(toJsonSafe)
  if (Array.isArray(value)) return value.map(toJsonSafe)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toJsonSafe(v)
    return out
  }
  return value
}
