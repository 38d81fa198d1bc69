/**
 * The kafka side's decode error: malformed response bodies (./protocol.ts) and record batches (./record-batch.ts).
 * Both read with the one ByteReader (src/core/records/bytes.ts), whose DecodeFault they turn into this error.
 */
export class ProtocolDecodeError extends Error {
  override name = 'ProtocolDecodeError'
}
