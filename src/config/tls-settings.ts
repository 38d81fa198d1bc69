/** ssl.* settings of a client.properties file: PEM trust and key stores only (moved out of ./client-config.ts). */
import {InputError} from '../core/errors.js'
import type {TlsSettings} from './connection-settings.js'
import {Secret, shown} from './secret.js'

export type Getter = (k: string) => string | undefined

export function tlsSettings(get: Getter, where: (k: string) => string, readFile: (p: string) => string): TlsSettings {
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

export function readSettingFile(readFile: (p: string) => string, path: string, key: string): string {
  try {
    return readFile(path)
  } catch (error) {
    throw fileError(error, path, key)
  }
}

export function fileError(error: unknown, path: string, what: string): InputError {
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
