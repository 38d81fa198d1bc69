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
  | 'METADATA_LOG_CHANGING'
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
  | 'OAUTH_TOKEN'
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

  /** Fields of the --json error document beside code, message, hint and exitCode (none by default). */
  get fields(): Readonly<Record<string, unknown>> | undefined {
    return undefined
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

/** The resource types Kafka's authorizer checks (AclResourceType), as kafka-acls names them. */
export type AclResourceType = 'topic' | 'group' | 'cluster' | 'transactional-id'
/** The operations it checks (AclOperation), in Kafka's words. */
export type AclOperation = 'READ' | 'DESCRIBE' | 'DESCRIBE_CONFIGS'

/**
 * What a broker refused, as data (JSON-safe: the error document's `authorization`, a describe's `denied`): the
 * request, the resource and the operation Kafka's authorizer checks for it, and the grant that would allow it.
 */
export interface Denial {
  /** The request refused, by Kafka's API name (Fetch, OffsetFetch, ConsumerGroupDescribe, …). */
  readonly request: string
  readonly resourceType: AclResourceType
  /** The topic, group or transactional id; null for the cluster, or when the broker does not say which. */
  readonly resourceName: string | null
  readonly operation: AclOperation
  /** Kafka's error name (TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED, …). */
  readonly errorName: string
  /** `User:<name>` for a SASL PLAIN/SCRAM user (Kafka's default principal for it), else null: not known here. */
  readonly principal: string | null
  /** The kafka-acls line that grants it. */
  readonly grant: string
}

/** A listed group whose describe (or FindCoordinator) was refused: the refusal, for the group; the others are answered. */
export type GroupRefusal = Denial & {readonly group: string}

/** kafka-acls' --operation spelling: READ → Read, DESCRIBE_CONFIGS → DescribeConfigs. */
function aclsOperation(op: AclOperation): string {
  return op
    .toLowerCase()
    .split('_')
    .map(w => w[0].toUpperCase() + w.slice(1))
    .join('')
}

/** The kafka-acls command that grants `operation` on the resource (a placeholder where the name is not known). */
export function grantCommand(
  d: Pick<Denial, 'resourceType' | 'resourceName' | 'operation' | 'principal'>,
  bootstrap = '<bootstrap-server>',
  unnamed = 'NAME',
): string {
  const resource = d.resourceType === 'cluster' ? '--cluster' : `--${d.resourceType} ${d.resourceName === null ? unnamed : quoteForShell(d.resourceName)}`
  const principal = d.principal === null ? 'User:<you>' : quoteForShell(d.principal)
  return `kafka-acls --bootstrap-server ${bootstrap} --add --allow-principal ${principal} --operation ${aclsOperation(d.operation)} ${resource}`
}

/** A name from the cluster or the settings as one shell word: as it is when plain, else single-quoted. */
function quoteForShell(s: string): string {
  return /^[\w.:@/=+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`
}

/**
 * The broker's authorizer refused a request: names the request, the resource and the operation it needs, and the
 * grant. `doing` says what the tool was doing ("reading __consumer_offsets"). An operation may catch it and carry
 * on with less (e.g. without READ on `__consumer_offsets`).
 */
export class AuthorizationDenied extends RuntimeError {
  readonly request: string
  readonly resourceType: AclResourceType
  readonly resourceName: string | null
  readonly operation: AclOperation
  readonly errorName: string
  readonly principal: string | null
  readonly grant: string

  constructor(
    readonly denial: Denial,
    doing: string,
  ) {
    super(
      `${doing} needs ${denialNeeds(denial)} (${denial.request} refused: ${denial.errorName})`,
      `Grant it (as a Kafka admin): ${denial.grant}`,
      'NOT_AUTHORIZED',
    )
    this.request = denial.request
    this.resourceType = denial.resourceType
    this.resourceName = denial.resourceName
    this.operation = denial.operation
    this.errorName = denial.errorName
    this.principal = denial.principal
    this.grant = denial.grant
  }

  override get fields(): {authorization: Denial} {
    return {authorization: this.denial}
  }
}

/** "READ on topic __consumer_offsets", "DESCRIBE on the cluster", "DESCRIBE on the topics the answer does not name". */
export function denialNeeds(d: Pick<Denial, 'resourceType' | 'resourceName' | 'operation'>): string {
  if (d.resourceType === 'cluster') return `${d.operation} on the cluster`
  const type = d.resourceType === 'transactional-id' ? 'transactional id' : d.resourceType
  return `${d.operation} on ${d.resourceName === null ? `the ${type}s the answer does not name` : `${type} ${d.resourceName}`}`
}

/**
 * Refusals met per group or per partition (the answer went on without them), one line per request and operation:
 * which resources, and the grant of the first ("and likewise" for the others). Empty when nothing was refused.
 */
export function denialWarnings(denials: Iterable<Denial | undefined>, shown = 5): string[] {
  const byKind = new Map<string, Denial[]>()
  for (const d of denials) {
    if (!d) continue
    const key = `${d.request}\u0000${d.resourceType}\u0000${d.operation}`
    const list = byKind.get(key)
    if (list) list.push(d)
    else byKind.set(key, [d])
  }
  return [...byKind.values()].map(list => {
    const [d] = list
    const names = [...new Set(list.map(x => x.resourceName).filter((n): n is string => n !== null))]
    const type = d.resourceType === 'transactional-id' ? 'transactional id' : d.resourceType
    const on =
      d.resourceType === 'cluster'
        ? 'the cluster'
        : names.length === 0
          ? `the ${type}s the answer does not name`
          : `${type}${names.length > 1 ? 's' : ''} ${names.slice(0, shown).join(', ')}${names.length > shown ? ` and ${names.length - shown} more` : ''}`
    return `${d.request} refused (${d.errorName}): it needs ${d.operation} on ${on}; grant: ${d.grant}${names.length > 1 ? ' (likewise for each)' : ''}`
  })
}
