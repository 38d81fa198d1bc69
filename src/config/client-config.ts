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
import {
  type BrokerAddress,
  type ConnectionSettings,
  ENV,
  SUPPORTED_KEYS,
  envNameOf,
  DEFAULT_CLIENT_ID,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  type SecurityProtocol,
} from './connection-settings.js'
import {KNOWN_KEYS, isKnownKey, isSecurityKey, nearestKnownKey} from './known-keys.js'
import {type PropertyEntry, parseProperties} from './properties.js'
import {LOGIN_CALLBACK_HANDLERS} from './oauth-settings.js'
import {saslSettings} from './sasl-settings.js'
import {BOOTSTRAP_SHOWN, isSecretKey, shown, shownPlain} from './secret.js'
import {fileError, tlsSettings} from './tls-settings.js'
import {compare} from '../core/order.js'

// The settings' types and constants moved to ./connection-settings.ts; importers keep them from here.
export * from './connection-settings.js'

/** Settings that change how we connect but that this tool cannot honor: refuse rather than connect differently. */
const REFUSED: Record<string, string> = {
  'sasl.oauthbearer.assertion.file':
    'a client assertion (the jwt-bearer grant) is not supported; use a client id and secret (sasl.oauthbearer.client.credentials.client.id / .client.secret)',
  'sasl.oauthbearer.assertion.private.key.file':
    'a client assertion (the jwt-bearer grant) is not supported; use a client id and secret (sasl.oauthbearer.client.credentials.client.id / .client.secret)',
  'sasl.client.callback.handler.class': 'custom Java callback handlers cannot run here; use PLAIN, SCRAM-SHA-256/512 or OAUTHBEARER with a static token',
  'sasl.login.class': 'custom Java login classes cannot run here',
  'ssl.engine.factory.class': 'custom Java SSL engine factories cannot run here; give PKCS12 or PEM stores (ssl.truststore.type, ssl.keystore.type)',
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
  /** For tests: reads a key or trust store (PEM or PKCS12); by default the bytes readFile gives. */
  readonly readBytes?: (path: string) => Buffer
  /** For tests: the mode bits of the --command-config file. */
  readonly fileMode?: (path: string) => number
}

type Props = Map<string, PropertyEntry & {source: string}>

/** Reads the command config file (if any) and the environment and builds the connection settings. */
export function resolveConnectionSettings(input: SettingsInput): ConnectionSettings {
  const env = input.env ?? process.env
  const readFile = input.readFile ?? ((p: string) => readFileSync(p, 'utf8'))
  const testRead = input.readFile
  const readBytes = input.readBytes ?? (testRead ? (p: string) => Buffer.from(testRead(p)) : undefined)
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
    const warnings = [...unknownKeyWarnings(props), ...(exposed ? [exposed] : [])]
    const settings = settingsFromProperties(props, {...input, env, readFile, ...(readBytes ? {readBytes} : {})})
    return warnings.length > 0 ? {...settings, warnings} : settings
  }
  return settingsFromProperties(props, {...input, env, readFile, ...(readBytes ? {readBytes} : {})})
}

/**
 * One warning per key no Kafka client knows, in Kafka's words, with the nearest known key; a misspelled security
 * key (security.*, sasl.*, ssl.*) is an InputError instead: the connection would silently fall back to a default
 * (`security.protocl=SASL_SSL` connects PLAINTEXT).
 */
export function unknownKeyWarnings(props: Props): string[] {
  const warnings: string[] = []
  for (const [key, entry] of [...props].sort(([a], [b]) => compare(a, b))) {
    if (isKnownKey(key)) continue
    const joined = joinedOnto(key)
    // a line with no value may be a key and its value with the separator lost: not shown, whatever it looks like
    const plain = entry.value === '' ? undefined : shownKey(key)
    const named = joined
      ? `'${joined}' with more characters joined on (a lost "="?)`
      : plain
        ? `'${plain}'`
        : entry.value === ''
          ? 'a key with no value (not shown: a lost "=" may have joined a value onto it)'
          : 'a key that does not look like a config name (not shown: a broken line?)'
    const nearest = joined ?? (key.length <= 100 ? nearestKnownKey(key) : undefined)
    const message = `the configuration ${named} (${entry.source}) was supplied but isn't a known config`
    if (isSecurityKey(key)) {
      throw new InputError(
        `${message}: a misspelled security setting would connect without it`,
        `${nearest ? `Did you mean ${nearest}? ` : ''}Spell security.*, sasl.* and ssl.* keys as Kafka's clients do.`,
        'UNKNOWN_SETTING',
      )
    }
    warnings.push(nearest ? `${message}; did you mean ${nearest}?` : message)
  }
  return warnings
}

/**
 * A known key that `key` starts with: a lost separator joined a value onto it (and perhaps a lost newline the next
 * line, `ssl.keystore.certificate.chain<PEM>ssl.keystore.password=...`). Any key's value may be sensitive (a
 * certificate chain, a location), so the joined characters are never shown, even where they are only a typo.
 */
function joinedOnto(key: string): string | undefined {
  return KNOWN_KEYS.filter(k => key.startsWith(k) && key.length > k.length).sort((a, b) => b.length - a.length)[0]
}

/**
 * A key as a message may show it: only when it looks like a Kafka config name (lower case, dotted) and is near a
 * known key or starts as one does. A broken line (a lost newline, a stray continuation) can make a secret a key.
 */
function shownKey(key: string): string | undefined {
  if (!/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/.test(key) || key.length > 100) return undefined
  return KNOWN_FIRST_WORDS.has(key.slice(0, key.indexOf('.'))) || nearestKnownKey(key) !== undefined ? key : undefined
}

const KNOWN_FIRST_WORDS = new Set(KNOWN_KEYS.map(k => k.slice(0, k.indexOf('.'))))

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
  refuseLoginHandler(get('sasl.login.callback.handler.class'), where)
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
    ...(usesTls ? {tls: tlsSettings(get, where, input.readBytes ?? (p => readFileSync(p)))} : {}),
    ...(usesSasl ? {sasl: saslSettings(get, where, env, readFile)} : {}),
  }
}

/** Kafka's own OAuthBearerLoginCallbackHandler (the token endpoint) is what we do; any other Java handler cannot run here. */
function refuseLoginHandler(value: string | undefined, where: (k: string) => string): void {
  if (value === undefined || (LOGIN_CALLBACK_HANDLERS as readonly string[]).includes(value.trim())) return
  throw new InputError(
    `sasl.login.callback.handler.class (${where('sasl.login.callback.handler.class')}) is not supported: custom Java login callback handlers cannot run here`,
    `Use ${LOGIN_CALLBACK_HANDLERS[0]} with sasl.oauthbearer.token.endpoint.url (https://… or file:/path/to/token), or give a token in $${ENV.oauthToken}.`,
    'UNSUPPORTED_SETTING',
  )
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
    if (s.sasl.tokenEndpoint)
      parts.push(`sasl.oauthbearer.token.endpoint=${s.sasl.tokenEndpoint.shown}`, `sasl.oauthbearer.client.id=${shownPlain(s.sasl.tokenEndpoint.clientId)}`)
  }
  if (s.tls) {
    parts.push(`ssl.ca=${s.tls.ca ? 'PEM' : 'system'}`, `ssl.client-cert=${s.tls.cert ? 'PEM' : 'none'}`, `ssl.hostname-check=${s.tls.verifyHostname}`)
  }
  // a count, not the names: a broken line (lost newline or separator) makes a secret part of a key
  if (s.ignoredKeys.length > 0) parts.push(`${s.ignoredKeys.length} key(s) not used by this tool`)
  return parts.join(' ')
}
