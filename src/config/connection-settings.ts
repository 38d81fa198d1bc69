/** The connection settings' shape, defaults and the keys and variables they are read from (./client-config.ts builds them). */
import type {Secret} from './secret.js'

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL'
export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER'

export interface BrokerAddress {
  readonly host: string
  readonly port: number
}

export interface TlsSettings {
  /** PEM CA certificates to trust; undefined = Node's default CA store (as Java's default truststore). */
  readonly ca?: string
  /** PEM client certificate chain (mTLS). */
  readonly cert?: string
  /** PEM client private key (mTLS). */
  readonly key?: Secret
  /** Passphrase of an encrypted private key (`ssl.key.password`). */
  readonly keyPassword?: Secret
  /** `ssl.endpoint.identification.algorithm`: "https" (default) checks the host name; empty turns it off. */
  readonly verifyHostname: boolean
}

export interface SaslSettings {
  readonly mechanism: SaslMechanism
  readonly username?: string
  readonly password?: Secret
  /** OAUTHBEARER token (compact JWS). */
  readonly token?: Secret
}

export interface ConnectionSettings {
  readonly bootstrap: readonly BrokerAddress[]
  readonly securityProtocol: SecurityProtocol
  readonly tls?: TlsSettings
  readonly sasl?: SaslSettings
  readonly clientId: string
  /** Deadline for a whole live operation, in ms. */
  readonly timeoutMs: number
  /** Keys read but not used (no effect on this read-only tool); for --debug. */
  readonly ignoredKeys: readonly string[]
  /** What to warn about on stderr (a --command-config file with a secret that others can read); never a secret. */
  readonly warnings?: readonly string[]
}

export const DEFAULT_CLIENT_ID = 'rebalance-doctor'
export const DEFAULT_TIMEOUT_MS = 30_000
/** The longest delay a Node timer takes (2^31-1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1
export const ENV_PREFIX = 'REBALANCE_DOCTOR_'

/** The client.properties keys we read. Each can also come from `REBALANCE_DOCTOR_<KEY>` (see envNameOf). */
export const SUPPORTED_KEYS = [
  'bootstrap.servers',
  'security.protocol',
  'client.id',
  'sasl.mechanism',
  'sasl.jaas.config',
  'sasl.oauthbearer.token.endpoint.url',
  'ssl.truststore.type',
  'ssl.truststore.location',
  'ssl.truststore.certificates',
  'ssl.truststore.password',
  'ssl.keystore.type',
  'ssl.keystore.location',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.key',
  'ssl.keystore.password',
  'ssl.key.password',
  'ssl.endpoint.identification.algorithm',
] as const

/** Extra variables without a client.properties key. */
export const ENV = {
  bootstrap: 'KAFKA_BOOTSTRAP_SERVERS',
  commandConfig: 'REBALANCE_DOCTOR_COMMAND_CONFIG',
  timeout: 'REBALANCE_DOCTOR_TIMEOUT',
  /** audit's own: a cron audit of every group must not inherit the interactive commands' 30 s */
  auditTimeout: 'REBALANCE_DOCTOR_AUDIT_TIMEOUT',
  /** SASL user and password when no sasl.jaas.config is given (PLAIN, SCRAM). */
  saslUsername: 'REBALANCE_DOCTOR_SASL_USERNAME',
  saslPassword: 'REBALANCE_DOCTOR_SASL_PASSWORD',
  /** A static OAUTHBEARER token (compact JWS). */
  oauthToken: 'REBALANCE_DOCTOR_SASL_OAUTHBEARER_TOKEN',
} as const

export function envNameOf(key: string): string {
  return ENV_PREFIX + key.toUpperCase().replaceAll('.', '_')
}
