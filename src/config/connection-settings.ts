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
  /** OAUTHBEARER: fetch the token from this OAuth token endpoint (client credentials), for each new connection as it expires. */
  readonly tokenEndpoint?: OAuthTokenEndpoint
}

/** An OAuth token endpoint and the client credentials to post to it (src/config/oauth-settings.ts reads them). */
export interface OAuthTokenEndpoint {
  /** The whole URL, kept secret (user info or a query may hold one): messages show `shown`. */
  readonly url: Secret
  /** scheme://host:port/path */
  readonly shown: string
  readonly clientId: string
  readonly clientSecret: Secret
  readonly scope?: string
  /** sasl.oauthbearer.sub.claim.name: the claim naming the principal (default "sub"). */
  readonly subClaimName: string
  /** sasl.oauthbearer.header.urlencode: URL-encode the client id and secret in the Basic header (Kafka's default: false). */
  readonly urlencodeHeader: boolean
  readonly connectTimeoutMs?: number
  readonly readTimeoutMs?: number
  /** sasl.login.refresh.*: when a token is replaced, as Kafka's ExpiringCredentialRefreshingLogin decides. */
  readonly refresh: {readonly windowFactor: number; readonly windowJitter: number; readonly minPeriodSeconds: number; readonly bufferSeconds: number}
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
  'sasl.login.callback.handler.class',
  'sasl.oauthbearer.client.credentials.client.id',
  'sasl.oauthbearer.client.credentials.client.secret',
  'sasl.oauthbearer.scope',
  'sasl.oauthbearer.sub.claim.name',
  'sasl.oauthbearer.header.urlencode',
  'sasl.login.connect.timeout.ms',
  'sasl.login.read.timeout.ms',
  'sasl.login.refresh.window.factor',
  'sasl.login.refresh.window.jitter',
  'sasl.login.refresh.min.period.seconds',
  'sasl.login.refresh.buffer.seconds',
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
