/**
 * Connection settings from what Kafka operators already have: `--bootstrap-server`, a client.properties file
 * (`--command-config`, the same keys as the Java clients) and environment variables.
 *
 * Precedence: `--bootstrap-server` / `$KAFKA_BOOTSTRAP_SERVERS` over `bootstrap.servers` in the file; a key in
 * the file over the same key from the environment (`REBALANCE_DOCTOR_<KEY>`, e.g. REBALANCE_DOCTOR_SASL_MECHANISM),
 * so a shared file can leave secrets out and take them from the environment.
 *
 * Pure except for reading the files the settings name (passed in as `readFile`).
 */
import {readFileSync, statSync} from 'node:fs'
import {InputError} from '../core/errors.js'
import {LOGIN_MODULES, parseJaasConfig} from './jaas.js'
import {type PropertyEntry, parseProperties} from './properties.js'
import {isSecretKey, Secret} from './secret.js'

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

/** Settings that change how we connect but that this tool cannot honor: refuse rather than connect differently. */
const REFUSED: Record<string, string> = {
  'sasl.login.callback.handler.class':
    'custom Java login callback handlers cannot run here; give the token with sasl.oauthbearer.token.endpoint.url=file:/path/to/token or $' + ENV.oauthToken,
  'sasl.client.callback.handler.class': 'custom Java callback handlers cannot run here; use PLAIN, SCRAM-SHA-256/512 or OAUTHBEARER with a static token',
  'sasl.login.class': 'custom Java login classes cannot run here',
  'ssl.engine.factory.class': 'custom Java SSL engine factories cannot run here; give PEM files (ssl.truststore.type=PEM, ssl.keystore.type=PEM)',
  'sasl.kerberos.service.name':
    'GSSAPI (Kerberos) is not supported; ask for a SCRAM-SHA-512 or OAUTHBEARER user, or reach the cluster through a listener with SCRAM or mTLS',
}

export interface SettingsInput {
  /** `--bootstrap-server` (or $KAFKA_BOOTSTRAP_SERVERS, which oclif resolves into the flag). */
  readonly bootstrapServer?: string
  /** `--command-config` path (or $REBALANCE_DOCTOR_COMMAND_CONFIG). */
  readonly commandConfig?: string
  readonly timeoutMs?: number
  readonly env?: NodeJS.ProcessEnv
  /** For tests: reads a file named by a setting. */
  readonly readFile?: (path: string) => string
  /** For tests: the mode bits of the --command-config file. */
  readonly fileMode?: (path: string) => number
}

type Props = Map<string, PropertyEntry & {source: string}>

/** Reads the command config file (if any) and the environment and builds the connection settings. */
export function resolveConnectionSettings(input: SettingsInput): ConnectionSettings {
  const env = input.env ?? process.env
  const readFile = input.readFile ?? ((p: string) => readFileSync(p, 'utf8'))
  const props: Props = new Map()
  for (const key of SUPPORTED_KEYS) {
    const v = env[envNameOf(key)]
    if (v !== undefined && v !== '') props.set(key, {value: v, line: 0, source: `$${envNameOf(key)}`})
  }
  if (input.commandConfig) {
    let text: string
    try {
      text = readFile(input.commandConfig)
    } catch (error) {
      throw fileError(error, input.commandConfig, '--command-config')
    }
    const fromFile = parseProperties(text, input.commandConfig)
    for (const [k, e] of fromFile) props.set(k, {...e, source: `${input.commandConfig}:${e.line}`})
    const exposed = exposedSecret(input.commandConfig, fromFile, input.fileMode ?? (p => statSync(p).mode))
    if (exposed) return {...settingsFromProperties(props, {...input, env, readFile}), warnings: [exposed]}
  }
  return settingsFromProperties(props, {...input, env, readFile})
}

/**
 * A warning when `file` holds a secret (a password, a private key, a JAAS config) and its mode lets group or others
 * read it, as ssh and kcl warn of such a file: the secret is as good as shared. It names the file, its mode and the
 * first such key (when it is one of ours: a broken line can join a secret onto a key's name), never a value.
 */
export function exposedSecret(file: string, props: ReadonlyMap<string, PropertyEntry>, modeOf: (path: string) => number): string | undefined {
  const key = [...props].find(([k, e]) => isSecretKey(k) && e.value.trim() !== '')?.[0]
  if (key === undefined) return undefined
  let mode: number
  try {
    mode = modeOf(file)
  } catch {
    return undefined
  }
  if ((mode & 0o044) === 0) return undefined
  const named = (SUPPORTED_KEYS as readonly string[]).includes(key) ? key : 'a secret'
  const who = [mode & 0o040 ? 'its group' : '', mode & 0o004 ? 'all users' : ''].filter(Boolean).join(' and ')
  return `${file} holds ${named} and is readable by ${who} (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): restrict it with chmod 600 ${file}`
}

export function settingsFromProperties(props: Props, input: SettingsInput & {env: NodeJS.ProcessEnv; readFile: (path: string) => string}): ConnectionSettings {
  const get = (k: string) => props.get(k)?.value
  const where = (k: string) => props.get(k)?.source ?? k
  const {env, readFile} = input

  for (const [key, why] of Object.entries(REFUSED)) {
    if (props.has(key)) throw new InputError(`${key} (${where(key)}) is not supported: ${why}`, undefined, 'UNSUPPORTED_SETTING')
  }
  const ignoredKeys = [...props.keys()].filter(k => !(SUPPORTED_KEYS as readonly string[]).includes(k)).sort()

  // Bootstrap servers
  const bootstrapText = input.bootstrapServer ?? get('bootstrap.servers')
  if (!bootstrapText) {
    throw new InputError(
      'no bootstrap server given',
      `Pass --bootstrap-server HOST:PORT (or set $${ENV.bootstrap}, or bootstrap.servers in the --command-config file).`,
      'NO_BOOTSTRAP',
    )
  }
  const bootstrap = parseBootstrap(bootstrapText, input.bootstrapServer ? '--bootstrap-server' : where('bootstrap.servers'))

  // Security protocol
  const protoText = (get('security.protocol') ?? 'PLAINTEXT').trim().toUpperCase()
  if (!['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'].includes(protoText)) {
    throw new InputError(
      `security.protocol ${shown(get('security.protocol'))} (${where('security.protocol')}) is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL`,
      undefined,
      'BAD_SETTING',
    )
  }
  const securityProtocol = protoText as SecurityProtocol
  const usesTls = securityProtocol === 'SSL' || securityProtocol === 'SASL_SSL'
  const usesSasl = securityProtocol.startsWith('SASL_')

  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new InputError(`timeout ${timeoutMs} ms is not a positive integer`, undefined, 'BAD_SETTING')
  if (timeoutMs > MAX_TIMEOUT_MS)
    throw new InputError(`timeout ${timeoutMs} ms is too long: at most ${MAX_TIMEOUT_MS} ms (about 24.8 days)`, 'Give a shorter --timeout.', 'BAD_SETTING')

  const clientId = get('client.id')?.trim() || DEFAULT_CLIENT_ID

  return {
    bootstrap,
    securityProtocol,
    clientId,
    timeoutMs,
    ignoredKeys,
    ...(usesTls ? {tls: tlsSettings(get, where, readFile)} : {}),
    ...(usesSasl ? {sasl: saslSettings(get, where, env, readFile)} : {}),
  }
}

export function parseBootstrap(text: string, where = '--bootstrap-server'): BrokerAddress[] {
  const out: BrokerAddress[] = []
  for (const raw of text.split(',')) {
    const item = raw.trim()
    if (!item) continue
    const m = /^\[([0-9a-fA-F:.]+)\]:(\d+)$/.exec(item) ?? /^([^\s:[\]/]+):(\d+)$/.exec(item)
    const port = m ? Number(m[2]) : Number.NaN
    if (!m || port < 1 || port > 65_535) {
      throw new InputError(
        `bootstrap server ${shown(item, BOOTSTRAP_SHOWN)} (${where}) is not HOST:PORT`,
        'Give a comma-separated list like kafka-1:9092,kafka-2:9092 (IPv6 as [::1]:9092).',
        'BAD_BOOTSTRAP',
      )
    }
    out.push({host: m[1], port})
  }
  if (out.length === 0) throw new InputError(`no bootstrap server in ${where}`, 'Give HOST:PORT[,HOST:PORT...].', 'BAD_BOOTSTRAP')
  return out
}

type Getter = (k: string) => string | undefined

function tlsSettings(get: Getter, where: (k: string) => string, readFile: (p: string) => string): TlsSettings {
  const endpointAlg = get('ssl.endpoint.identification.algorithm')
  const verifyHostname = endpointAlg === undefined ? true : endpointAlg.trim() !== ''
  if (verifyHostname && endpointAlg !== undefined && endpointAlg.trim().toLowerCase() !== 'https') {
    throw new InputError(
      `ssl.endpoint.identification.algorithm ${shown(endpointAlg)} (${where('ssl.endpoint.identification.algorithm')}) is not supported`,
      'Use https (check the host name, the default) or an empty value (no host name check).',
      'BAD_SETTING',
    )
  }

  // Truststore
  let ca: string | undefined
  const tsType = get('ssl.truststore.type')?.trim().toUpperCase()
  const tsLocation = get('ssl.truststore.location')
  const tsInline = get('ssl.truststore.certificates')
  if (tsType && tsType !== 'PEM' && (tsLocation || tsInline)) throw storeTypeError('truststore', tsType, where('ssl.truststore.type'))
  if (tsInline) {
    ca = requirePem(tsInline, 'CERTIFICATE', 'ssl.truststore.certificates', where('ssl.truststore.certificates'))
  } else if (tsLocation) {
    const text = readSettingFile(readFile, tsLocation, 'ssl.truststore.location')
    // Kafka's default store type is JKS; a PEM file given without the type is accepted when it is PEM.
    if (!tsType && !text.includes('-----BEGIN')) throw storeTypeError('truststore', 'JKS', where('ssl.truststore.location'))
    ca = requirePem(text, 'CERTIFICATE', 'ssl.truststore.location', tsLocation)
  }

  // Keystore (client certificate for mTLS)
  let cert: string | undefined
  let key: Secret | undefined
  const ksType = get('ssl.keystore.type')?.trim().toUpperCase()
  const ksLocation = get('ssl.keystore.location')
  const ksChain = get('ssl.keystore.certificate.chain')
  const ksKey = get('ssl.keystore.key')
  if (ksType && ksType !== 'PEM' && (ksLocation || ksChain || ksKey)) throw storeTypeError('keystore', ksType, where('ssl.keystore.type'))
  if (ksChain || ksKey) {
    if (!ksChain || !ksKey) {
      throw new InputError(
        'ssl.keystore.certificate.chain and ssl.keystore.key must be given together',
        'Give both (PEM text), or put key and chain in one PEM file named by ssl.keystore.location.',
        'BAD_SETTING',
      )
    }
    cert = requirePem(ksChain, 'CERTIFICATE', 'ssl.keystore.certificate.chain', where('ssl.keystore.certificate.chain'))
    key = new Secret(requireKey(ksKey, 'ssl.keystore.key', where('ssl.keystore.key')))
  } else if (ksLocation) {
    const text = readSettingFile(readFile, ksLocation, 'ssl.keystore.location')
    if (!ksType && !text.includes('-----BEGIN')) throw storeTypeError('keystore', 'JKS', where('ssl.keystore.location'))
    cert = requirePem(text, 'CERTIFICATE', 'ssl.keystore.location', ksLocation)
    key = new Secret(requireKey(text, 'ssl.keystore.location', ksLocation))
  }
  const keyPasswordText = get('ssl.key.password')
  const keyPassword = keyPasswordText ? new Secret(keyPasswordText) : undefined
  if (key && /ENCRYPTED/.test(key.reveal()) && !keyPassword) {
    throw new InputError(
      'the client private key is encrypted but ssl.key.password is not set',
      'Set ssl.key.password (or $REBALANCE_DOCTOR_SSL_KEY_PASSWORD).',
      'BAD_SETTING',
    )
  }
  return {
    verifyHostname,
    ...(ca ? {ca} : {}),
    ...(cert ? {cert} : {}),
    ...(key ? {key} : {}),
    ...(key && keyPassword ? {keyPassword} : {}),
  }
}

function storeTypeError(store: 'truststore' | 'keystore', type: string, where: string): InputError {
  const how =
    store === 'truststore'
      ? 'convert it to PEM: keytool -exportcert -rfc -keystore truststore.jks -alias CARoot -file ca.pem (or openssl pkcs12 -in truststore.p12 -nokeys -out ca.pem), then set ssl.truststore.type=PEM and ssl.truststore.location=ca.pem'
      : 'convert it to PEM: keytool -importkeystore -srckeystore keystore.jks -destkeystore keystore.p12 -deststoretype PKCS12, then openssl pkcs12 -in keystore.p12 -out keystore.pem (key and chain in one file), and set ssl.keystore.type=PEM and ssl.keystore.location=keystore.pem'
  return new InputError(`${type} ${store}s are not supported (${where}); only PEM`, how.charAt(0).toUpperCase() + how.slice(1) + '.', 'UNSUPPORTED_SETTING')
}

function readSettingFile(readFile: (p: string) => string, path: string, key: string): string {
  try {
    return readFile(path)
  } catch (error) {
    throw fileError(error, path, key)
  }
}

function fileError(error: unknown, path: string, what: string): InputError {
  const code = (error as NodeJS.ErrnoException).code
  const why =
    code === 'ENOENT'
      ? 'does not exist'
      : code === 'EACCES'
        ? 'cannot be read (permission denied)'
        : code === 'EISDIR'
          ? 'is a directory'
          : `cannot be read (${code ?? (error as Error).message})`
  // a path from the file itself: a lost newline can join the next line (key, separator, secret) onto it
  const shownPath =
    what !== '--command-config' && /[\s=:]/.test(path)
      ? '(path not shown: it holds a space, "=" or ":", and a broken line may have joined a secret onto it)'
      : path
  return new InputError(`${what}: file ${shownPath} ${why}`, undefined, 'BAD_SETTING')
}

function requirePem(text: string, label: 'CERTIFICATE', key: string, where: string): string {
  const blocks = text.match(new RegExp(`-----BEGIN ${label}-----[\\s\\S]+?-----END ${label}-----`, 'g'))
  if (!blocks) throw new InputError(`${key} (${where}) holds no PEM ${label} block`, 'Give PEM text ("-----BEGIN CERTIFICATE-----" …).', 'BAD_SETTING')
  return blocks.join('\n') + '\n'
}

function requireKey(text: string, key: string, where: string): string {
  const m = /-----BEGIN ((?:RSA |EC |DSA |ENCRYPTED )?PRIVATE KEY)-----[\s\S]+?-----END \1-----/.exec(text)
  if (!m) throw new InputError(`${key} (${where}) holds no PEM private key block`, 'Give the key as PEM ("-----BEGIN PRIVATE KEY-----" …).', 'BAD_SETTING')
  return m[0] + '\n'
}

function saslSettings(get: Getter, where: (k: string) => string, env: NodeJS.ProcessEnv, readFile: (p: string) => string): SaslSettings {
  const mechText = get('sasl.mechanism')?.trim().toUpperCase()
  if (!mechText || mechText === 'GSSAPI') {
    throw new InputError(
      mechText
        ? `sasl.mechanism GSSAPI (Kerberos) (${where('sasl.mechanism')}) is not supported`
        : 'sasl.mechanism is not set; Kafka then uses GSSAPI (Kerberos), which is not supported',
      'Set sasl.mechanism to PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER (ask for a SCRAM user if the cluster only offers Kerberos).',
      'UNSUPPORTED_SETTING',
    )
  }
  if (!['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'].includes(mechText)) {
    throw new InputError(
      `sasl.mechanism ${shown(get('sasl.mechanism'))} (${where('sasl.mechanism')}) is not supported`,
      'Use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER.',
      'UNSUPPORTED_SETTING',
    )
  }
  const mechanism = mechText as SaslMechanism
  const jaasText = get('sasl.jaas.config')
  const jaas = jaasText ? parseJaasConfig(jaasText, `sasl.jaas.config (${where('sasl.jaas.config')})`) : undefined
  if (jaas?.loginModule === LOGIN_MODULES.kerberos) {
    throw new InputError(
      'sasl.jaas.config names Krb5LoginModule: GSSAPI (Kerberos) is not supported',
      'Use a SCRAM or PLAIN user (ScramLoginModule / PlainLoginModule).',
      'UNSUPPORTED_SETTING',
    )
  }

  if (mechanism === 'OAUTHBEARER') {
    if (jaas && jaas.loginModule !== LOGIN_MODULES.oauthbearer) {
      throw new InputError(
        `sasl.mechanism OAUTHBEARER needs ${LOGIN_MODULES.oauthbearer} in sasl.jaas.config, not ${moduleName(jaas.loginModule)}`,
        undefined,
        'BAD_SETTING',
      )
    }
    const fromEnv = env[ENV.oauthToken]
    if (fromEnv) return {mechanism, token: new Secret(fromEnv.trim())}
    const endpoint = get('sasl.oauthbearer.token.endpoint.url')
    if (endpoint) {
      if (!endpoint.startsWith('file:')) {
        throw new InputError(
          `sasl.oauthbearer.token.endpoint.url (${where('sasl.oauthbearer.token.endpoint.url')}) is an HTTP token endpoint, which is not supported`,
          `Fetch a token yourself and give it as a file (sasl.oauthbearer.token.endpoint.url=file:/path/to/token) or in $${ENV.oauthToken}.`,
          'UNSUPPORTED_SETTING',
        )
      }
      let path: string
      try {
        const url = new URL(endpoint)
        if (url.host !== '' && url.host !== 'localhost') throw new Error('remote host')
        path = decodeURIComponent(url.pathname)
      } catch {
        throw new InputError(
          `sasl.oauthbearer.token.endpoint.url (${where('sasl.oauthbearer.token.endpoint.url')}) is not a valid file: URL`,
          'Write it as file:/path/to/token or file:///path/to/token (percent-encode special characters).',
          'BAD_SETTING',
        )
      }
      return {mechanism, token: new Secret(readSettingFile(readFile, path, 'sasl.oauthbearer.token.endpoint.url').trim())}
    }
    const sub = jaas?.options.get('unsecuredLoginStringClaim_sub')
    if (sub) return {mechanism, token: new Secret(unsecuredJwt(sub)), username: sub}
    throw new InputError(
      'sasl.mechanism OAUTHBEARER needs a token',
      `Give it in $${ENV.oauthToken}, or as a file with sasl.oauthbearer.token.endpoint.url=file:/path/to/token (unsecured test clusters: unsecuredLoginStringClaim_sub in sasl.jaas.config).`,
      'BAD_SETTING',
    )
  }

  const expected = mechanism === 'PLAIN' ? LOGIN_MODULES.plain : LOGIN_MODULES.scram
  let username: string | undefined
  let password: string | undefined
  if (jaas) {
    if (jaas.loginModule !== expected) {
      throw new InputError(`sasl.mechanism ${mechanism} needs ${expected} in sasl.jaas.config, not ${moduleName(jaas.loginModule)}`, undefined, 'BAD_SETTING')
    }
    username = jaas.options.get('username')
    password = jaas.options.get('password')
  } else {
    username = env[ENV.saslUsername]
    password = env[ENV.saslPassword]
  }
  if (!username || password === undefined) {
    throw new InputError(
      `sasl.mechanism ${mechanism} needs a username and a password`,
      `Set sasl.jaas.config=${expected} required username="…" password="…"; (or $${ENV.saslUsername} and $${ENV.saslPassword}).`,
      'BAD_SETTING',
    )
  }
  return {mechanism, username, password: new Secret(password)}
}

/**
 * A setting's value as an error may quote it: only a plain token. A broken file (a lost newline, a stray
 * continuation) can join a secret onto a harmless key's value, and such a value always holds a separator.
 */
const PLAIN_TOKEN = /^[\w.-]{0,64}$/
const BOOTSTRAP_SHOWN = /^[\w.\-[\]:/]{0,300}$/
function shown(value: string | undefined, ok = PLAIN_TOKEN): string {
  return value !== undefined && ok.test(value) && !isSecretKey(value) ? `"${value}"` : '(value not shown: it may hold a secret)'
}

/** A name for --debug: shown when it is a plain name (a broken line can join a secret onto it). */
function shownPlain(value: string): string {
  return /^[\w.@-]{0,128}$/.test(value) && !isSecretKey(value) ? value : '(not shown)'
}

/** A login module class as it may be shown: one of the known ones, else not named (a typo may be a secret). */
function moduleName(name: string): string {
  return (Object.values(LOGIN_MODULES) as string[]).includes(name) ? name : 'the login module given'
}

/** The unsecured JWS Kafka's OAuthBearerUnsecuredLoginCallbackHandler builds (test clusters only). */
function unsecuredJwt(sub: string): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const now = Math.floor(Date.now() / 1000)
  return `${b64({alg: 'none'})}.${b64({iat: now, exp: now + 3600, sub})}.`
}

/** A one-line description of the settings for --debug: no secrets, only whether they are set. */
export function describeSettings(s: ConnectionSettings): string {
  const parts = [
    `bootstrap=${s.bootstrap.map(b => `${b.host}:${b.port}`).join(',')}`,
    `security.protocol=${s.securityProtocol}`,
    `client.id=${shownPlain(s.clientId)}`,
    `timeout=${s.timeoutMs}ms`,
  ]
  if (s.sasl) {
    parts.push(`sasl.mechanism=${s.sasl.mechanism}`)
    if (s.sasl.username) parts.push(`sasl.username=${shownPlain(s.sasl.username)}`)
    if (s.sasl.password) parts.push('sasl.password=(set)')
    if (s.sasl.token) parts.push('sasl.token=(set)')
  }
  if (s.tls) {
    parts.push(`ssl.ca=${s.tls.ca ? 'PEM' : 'system'}`, `ssl.client-cert=${s.tls.cert ? 'PEM' : 'none'}`, `ssl.hostname-check=${s.tls.verifyHostname}`)
  }
  // a count, not the names: a broken line (lost newline or separator) makes a secret part of a key
  if (s.ignoredKeys.length > 0) parts.push(`${s.ignoredKeys.length} key(s) not used by this tool`)
  return parts.join(' ')
}
