/**
 * Kafka topic ids (org.apache.kafka.common.Uuid): 16 bytes, most-significant half first, shown by Kafka's
 * tools as 22-character unpadded base64url.
 */
export interface Uuid {
  /** The 16 bytes, msb‖lsb big-endian, as on the wire. */
  readonly bytes: Uint8Array
  readonly msb: bigint
  readonly lsb: bigint
}

const BASE64URL_22 = /^[A-Za-z0-9_-]{22}$/
const DASHED_HEX = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

export function uuidFromBytes(bytes: Uint8Array): Uuid {
  if (bytes.length !== 16) throw new RangeError(`a Kafka Uuid has 16 bytes, got ${bytes.length}`)
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16)
  return {bytes, msb: view.getBigUint64(0, false), lsb: view.getBigUint64(8, false)}
}

/** Why `text` is not a canonical Kafka Uuid string, or undefined when it is one. */
export function uuidProblem(text: string): string | undefined {
  if (DASHED_HEX.test(text)) {
    return `looks like a dashed hex UUID; Kafka writes topic ids as 22-character base64url (this one is "${uuidToString(uuidFromHex(text))}")`
  }
  if (!BASE64URL_22.test(text)) return 'expected 22 base64url characters (A-Z a-z 0-9 _ -), as kafka-topics --describe prints'
  const bytes = Buffer.from(text, 'base64url')
  if (bytes.length !== 16) return `decodes to ${bytes.length} bytes, not 16`
  if (bytes.toString('base64url') !== text)
    return `is not canonical base64url (the last character carries stray bits; canonical form "${bytes.toString('base64url')}")`
  return undefined
}

/** Parses Kafka's 22-character base64url form. Throws RangeError with the reason. */
export function uuidFromString(text: string): Uuid {
  const problem = uuidProblem(text)
  if (problem) throw new RangeError(`"${text}" ${problem}`)
  return uuidFromBytes(new Uint8Array(Buffer.from(text, 'base64url')))
}

export function uuidFromHex(hex: string): Uuid {
  const clean = hex.replaceAll('-', '')
  if (!/^[0-9a-fA-F]{32}$/.test(clean)) throw new RangeError(`"${hex}" is not 32 hex digits`)
  return uuidFromBytes(new Uint8Array(Buffer.from(clean, 'hex')))
}

/** Each Uuid's text, made once: explain turns every live topic id into text per drifted group (an audit: thousands). */
const texts = new WeakMap<Uuid, string>()

export function uuidToString(id: Uuid): string {
  let text = texts.get(id)
  if (text === undefined) texts.set(id, (text = Buffer.from(id.bytes.buffer, id.bytes.byteOffset, 16).toString('base64url')))
  return text
}

export function uuidIsZero(id: Uuid): boolean {
  return id.msb === 0n && id.lsb === 0n
}
