import {RuntimeError} from '../errors.js'

export interface RecordDecodeErrorDetails {
  /** The record's log offset, as given by the caller. */
  readonly offset?: bigint
  readonly part: 'key' | 'value' | 'record'
  readonly recordType?: number
  readonly recordName?: string
  readonly version?: number
  /** Byte position within the key or value where reading failed. */
  readonly position: number
  /** Dotted path of the field being read, e.g. `members[2].clientId`; '' for the prefix. */
  readonly field: string
  readonly reason: string
}

/**
 * Malformed bytes in a coordinator record. Unknown types and newer versions are not errors (the
 * codec returns them as unknown records); this is for bytes that do not match their own schema.
 */
export class RecordDecodeError extends RuntimeError {
  readonly details: RecordDecodeErrorDetails

  constructor(details: RecordDecodeErrorDetails) {
    // The message names the offset, byte and field; a JS stack adds nothing for malformed input
    // and capturing it was most of the cost of rejecting one (fuzzing, corrupt segments).
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    try {
      super(
        describe(details),
        'The record may be corrupt, or written by a Kafka release this tool does not know; report it with `group records --json`.',
        'RECORD_DECODE',
      )
    } finally {
      Error.stackTraceLimit = limit
    }
    this.details = details
  }

  get offset(): bigint | undefined {
    return this.details.offset
  }
}

function describe(d: RecordDecodeErrorDetails): string {
  const at = d.offset === undefined ? 'record' : `record at offset ${d.offset}`
  const what =
    d.recordType === undefined
      ? ''
      : ` (type ${d.recordType}${d.recordName ? ` ${d.recordName}` : ''}${d.version === undefined ? '' : `, version ${d.version}`})`
  const field = d.field ? ` reading ${d.field}` : ''
  return `${at}: cannot decode ${d.part}${what} at byte ${d.position}${field}: ${d.reason}`
}

/**
 * Internal: a failure at a byte position, enriched with the field path on its way up and turned
 * into a RecordDecodeError at the record boundary. Not an Error subclass: capturing a stack trace
 * for every malformed input would dominate the cost of rejecting it.
 */
export class DecodeFault {
  readonly path: string[] = []
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {}
}
