/**
 * Every code an error can carry (the `error.code` of a --json error document, oclif's `code`): one list, so a
 * script can rely on them and a typo does not compile. Usage errors exit 2, runtime and Kafka errors exit 1.
 */
export type ErrorCode =
  // usage (exit 2): flags, arguments and files given
  | 'BAD_INPUT'
  | 'BAD_BOOTSTRAP'
  | 'BAD_CHANGE'
  | 'BAD_FAIL_ON'
  | 'BAD_PROMETHEUS_LABEL'
  | 'BAD_GROUP_PATTERN'
  | 'BAD_GROUP_TYPE'
  | 'BAD_JAAS'
  | 'BAD_METADATA'
  | 'BAD_OUTPUT'
  | 'BAD_PROFILE'
  | 'BAD_PROPERTIES'
  | 'BAD_REASSIGNMENT'
  | 'BAD_RETENTION'
  | 'BAD_SEGMENT'
  | 'BAD_SETTING'
  | 'BAD_TIMEOUT'
  | 'BAD_WATCH_INTERVAL'
  | 'NO_BOOTSTRAP'
  | 'NO_CHANGE'
  | 'NO_SOURCE'
  | 'UNKNOWN_PROFILE'
  | 'UNSUPPORTED_SETTING'
  | 'UNKNOWN_SETTING'
  | 'UNKNOWN_FLAG'
  | 'UNEXPECTED_ARGUMENT'
  | 'MISSING_ARGUMENT'
  | 'FLAG_CONFLICT'
  | 'BAD_FLAG_VALUE'
  | 'TOO_MANY_BYTES_TO_SHOW'
  | 'TOPIC_EXISTS'
  | 'UNKNOWN_BROKER'
  | 'UNKNOWN_PARTITION'
  | 'UNKNOWN_TOPIC'
  | 'METADATA_TOO_LARGE'
  // metadata log directories
  | 'NO_METADATA_LOG'
  | 'METADATA_LOG_COMPRESSION'
  | 'METADATA_LOG_CORRUPT'
  | 'METADATA_LOG_INCOMPLETE'
  | 'METADATA_LOG_TOO_SHORT'
  // connection, TLS, SASL
  | 'CLOSED'
  | 'CONNECTION_CLOSED'
  | 'CONNECTION_FAILED'
  | 'CONNECTION_REFUSED'
  | 'HOST_UNREACHABLE'
  | 'UNKNOWN_HOST'
  | 'TIMEOUT'
  | 'TLS_CERT_DATE'
  | 'TLS_CLIENT_KEY'
  | 'TLS_HANDSHAKE'
  | 'TLS_HOSTNAME'
  | 'TLS_REJECTED'
  | 'TLS_UNTRUSTED'
  | 'SASL_AUTH_FAILED'
  | 'SASL_MECHANISM'
  | 'NOT_AUTHORIZED'
  // the cluster's answers
  | 'INCOMPLETE_READ'
  | 'KAFKA_ERROR'
  | 'PROTOCOL_ERROR'
  | 'UNSUPPORTED_VERSION'
  | 'DECODE_ERROR'
  | 'RECORD_DECODE'
  | 'NO_BROKER'
  | 'NO_LEADER'
  | 'NO_OFFSETS_TOPIC'
  | 'NO_PARTITION'
  | 'NO_TOPIC'
  // runtime (exit 1)
  | 'OUTPUT_WRITE'
  | 'RUNTIME'
  | 'UNEXPECTED'

/**
 * Errors the user can act on. Each carries a stable code, the exit code the CLI uses, and a hint
 * ("what to try"). Anything else reaching the command layer is a bug or a runtime failure (exit 1).
 */
export class RdError extends Error {
  constructor(
    message: string,
    readonly code: ErrorCode,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message)
    this.name = new.target.name
  }
}

/** Bad input given by the user: flags, arguments, files. Exit 2. */
export class InputError extends RdError {
  constructor(message: string, hint?: string, code: ErrorCode = 'BAD_INPUT') {
    super(message, code, 2, hint)
  }
}

/** What was asked for is not there (a topic that is not in the metadata): nothing matched. Exit 4. */
export class NotFoundError extends RdError {
  constructor(message: string, hint?: string, code: ErrorCode = 'UNKNOWN_TOPIC') {
    super(message, code, 4, hint)
  }
}

/** Runs a parser that throws plain errors naming the value; a failure becomes a usage error with what to give. */
export function asUsage<T>(parse: () => T, hint: string, code: ErrorCode): T {
  try {
    return parse()
  } catch (error) {
    throw new InputError((error as Error).message, hint, code)
  }
}

/** A failure while running: the cluster, the network, the file system. Exit 1. */
export class RuntimeError extends RdError {
  constructor(message: string, hint?: string, code: ErrorCode = 'RUNTIME') {
    super(message, code, 1, hint)
  }
}
