/** ssl.* settings of a client.properties file: PEM and PKCS12 trust and key stores (moved out of ./client-config.ts). */
import {type KeyObject, X509Certificate, createPrivateKey} from 'node:crypto'
import {InputError} from '../core/errors.js'
import type {TlsSettings} from './connection-settings.js'
import {type Pkcs12Contents, Pkcs12Error, readPkcs12} from './pkcs12.js'
import {Secret, shown} from './secret.js'

export type Getter = (k: string) => string | undefined

export function tlsSettings(get: Getter, where: (k: string) => string, readBytes: (p: string) => Buffer): TlsSettings {
  const endpointAlg = get('ssl.endpoint.identification.algorithm')
  const verifyHostname = endpointAlg === undefined ? true : endpointAlg.trim() !== ''
  if (verifyHostname && endpointAlg !== undefined && endpointAlg.trim().toLowerCase() !== 'https') {
    throw new InputError(
      `ssl.endpoint.identification.algorithm ${shown(endpointAlg)} (${where('ssl.endpoint.identification.algorithm')}) is not supported`,
      'Use https (check the host name, the default) or an empty value (no host name check).',
      'BAD_SETTING',
    )
  }
  const ca = truststore(get, where, readBytes)
  const client = keystore(get, where, readBytes)
  return {verifyHostname, ...(ca ? {ca} : {}), ...client}
}

function truststore(get: Getter, where: (k: string) => string, readBytes: (p: string) => Buffer): string | undefined {
  const type = get('ssl.truststore.type')?.trim().toUpperCase()
  const location = get('ssl.truststore.location')
  const inline = get('ssl.truststore.certificates')
  if (inline) {
    if (type && type !== 'PEM') throw storeTypeError('truststore', type, where('ssl.truststore.type'))
    return requirePem(inline, 'CERTIFICATE', 'ssl.truststore.certificates', where('ssl.truststore.certificates'))
  }
  if (!location) return undefined
  const bytes = readSettingFile(readBytes, location, 'ssl.truststore.location')
  if (storeKind('truststore', type, bytes, where) === 'PEM') return requirePem(bytes.toString('utf8'), 'CERTIFICATE', 'ssl.truststore.location', location)
  const {certs} = openStore('truststore', bytes, get('ssl.truststore.password'), where)
  if (certs.length === 0) throw new InputError(`ssl.truststore.location (${where('ssl.truststore.location')}) holds no certificate`, undefined, 'BAD_SETTING')
  return certs.map(c => pem(c, 'ssl.truststore.location', where)).join('')
}

function pem(der: Buffer, key: string, where: (k: string) => string): string {
  try {
    return new X509Certificate(der).toString()
  } catch {
    throw new InputError(`${key} (${where(key)}) holds a certificate that cannot be read (a damaged file?)`, undefined, 'BAD_SETTING')
  }
}

type ClientKey = Pick<TlsSettings, 'cert' | 'key' | 'keyPassword'>

function keystore(get: Getter, where: (k: string) => string, readBytes: (p: string) => Buffer): ClientKey {
  const type = get('ssl.keystore.type')?.trim().toUpperCase()
  const location = get('ssl.keystore.location')
  const chain = get('ssl.keystore.certificate.chain')
  const inlineKey = get('ssl.keystore.key')
  if (chain || inlineKey) {
    if (type && type !== 'PEM') throw storeTypeError('keystore', type, where('ssl.keystore.type'))
    if (!chain || !inlineKey) {
      throw new InputError(
        'ssl.keystore.certificate.chain and ssl.keystore.key must be given together',
        'Give both (PEM text), or put key and chain in one PEM file named by ssl.keystore.location.',
        'BAD_SETTING',
      )
    }
    const cert = requirePem(chain, 'CERTIFICATE', 'ssl.keystore.certificate.chain', where('ssl.keystore.certificate.chain'))
    return pemKey(cert, requireKey(inlineKey, 'ssl.keystore.key', where('ssl.keystore.key')), get)
  }
  if (!location) return {}
  const bytes = readSettingFile(readBytes, location, 'ssl.keystore.location')
  if (storeKind('keystore', type, bytes, where) === 'PEM') {
    const text = bytes.toString('utf8')
    return pemKey(requirePem(text, 'CERTIFICATE', 'ssl.keystore.location', location), requireKey(text, 'ssl.keystore.location', location), get)
  }
  return pkcs12Key(bytes, get, where)
}

function pemKey(cert: string, keyText: string, get: Getter): ClientKey {
  const key = new Secret(keyText)
  const keyPasswordText = get('ssl.key.password')
  const keyPassword = keyPasswordText ? new Secret(keyPasswordText) : undefined
  if (/ENCRYPTED/.test(keyText) && !keyPassword) {
    throw new InputError(
      'the client private key is encrypted but ssl.key.password is not set',
      'Set ssl.key.password (or $REBALANCE_DOCTOR_SSL_KEY_PASSWORD).',
      'BAD_SETTING',
    )
  }
  return {cert, key, ...(keyPassword ? {keyPassword} : {})}
}

/**
 * The client certificate and key of a PKCS12 keystore, as Kafka's clients read it: ssl.keystore.password opens the
 * store, ssl.key.password (the store password when unset) the key; the certificate whose public key is the key's
 * comes first, the rest of the store's certificates follow as its chain.
 */
function pkcs12Key(bytes: Buffer, get: Getter, where: (k: string) => string): ClientKey {
  const password = get('ssl.keystore.password')
  if (password === undefined) {
    // Kafka's DefaultSslEngineFactory: "SSL key store is specified, but key store password is not specified."
    throw new InputError(
      'ssl.keystore.password is not set: a PKCS12 keystore needs it',
      'Set ssl.keystore.password (or $REBALANCE_DOCTOR_SSL_KEYSTORE_PASSWORD).',
      'BAD_SETTING',
    )
  }
  const {certs, keys} = openStore('keystore', bytes, password, where)
  const location = where('ssl.keystore.location')
  if (keys.length !== 1) {
    throw new InputError(
      `ssl.keystore.location (${location}) holds ${keys.length} private keys; one is needed`,
      keys.length === 0
        ? 'A keystore holds the client key and certificate (keytool -genkeypair or openssl pkcs12 -export -inkey).'
        : 'Keep one key entry: keytool -importkeystore -srcalias ALIAS into a new store.',
      'BAD_SETTING',
    )
  }
  const keyPasswordKey = get('ssl.key.password') === undefined ? 'ssl.keystore.password' : 'ssl.key.password'
  const privateKey = openKey(keys[0], get(keyPasswordKey) === password, `${keyPasswordKey} (${where(keyPasswordKey)})`)
  const texts = certs.map(c => pem(c, 'ssl.keystore.location', where))
  const leaf = texts.find(c => new X509Certificate(c).checkPrivateKey(privateKey))
  if (!leaf) throw new InputError(`ssl.keystore.location (${location}) holds no certificate for its private key`, undefined, 'BAD_SETTING')
  const cert = [leaf, ...texts.filter(c => c !== leaf)].join('')
  return {cert, key: new Secret(privateKey.export({type: 'pkcs8', format: 'pem'}) as string)}
}

/**
 * The store's key, decrypted with the store password by the reader (keytool and openssl encrypt it so). Kafka decrypts
 * it with ssl.key.password: a different one does not open an encrypted key.
 */
function openKey(key: {der: Buffer; encrypted: boolean}, storePasswordOpens: boolean, named: string): KeyObject {
  try {
    if (key.encrypted && !storePasswordOpens) throw new Error('another password')
    return createPrivateKey({key: key.der, format: 'der', type: 'pkcs8'})
  } catch {
    throw new InputError(
      `${named} does not decrypt the private key in the PKCS12 keystore`,
      'Give the key password keytool was given (-keypass; keytool makes it the store password for PKCS12).',
      'BAD_SETTING',
    )
  }
}

/** PEM or PKCS12, from the declared type and the file (Java 9+ reads a PKCS12 file given as JKS: keystore.type.compat). */
function storeKind(store: Store, declared: string | undefined, bytes: Buffer, where: (k: string) => string): 'PEM' | 'PKCS12' {
  const typeWhere = where(`ssl.${store}.type`)
  if (declared === 'PEM') return 'PEM'
  const magic = bytes.length >= 4 ? bytes.readUInt32BE(0) : 0
  if (magic === JKS_MAGIC || magic === JCEKS_MAGIC) throw storeTypeError(store, 'JKS', where(`ssl.${store}.location`))
  if (declared === 'PKCS12') return 'PKCS12'
  if (declared !== undefined && declared !== 'JKS') throw storeTypeError(store, declared, typeWhere)
  // Kafka's default store type is JKS; a PEM file given without the type is accepted when it is PEM.
  if (declared === undefined && bytes.includes('-----BEGIN')) return 'PEM'
  if (bytes[0] === 0x30) return 'PKCS12'
  throw storeTypeError(store, 'JKS', declared ? typeWhere : where(`ssl.${store}.location`))
}

type Store = 'truststore' | 'keystore'
const JKS_MAGIC = 0xfeedfeed
const JCEKS_MAGIC = 0xcececece

function openStore(store: Store, bytes: Buffer, password: string | undefined, where: (k: string) => string): Pkcs12Contents {
  try {
    return readPkcs12(bytes, password)
  } catch (error) {
    if (!(error instanceof Pkcs12Error)) throw error
    const passwordKey = `ssl.${store}.password`
    const file = `the PKCS12 ${store} ssl.${store}.location (${where(`ssl.${store}.location`)})`
    if (error.kind === 'BAD_PASSWORD')
      throw new InputError(
        `${passwordKey} (${where(passwordKey)}) does not open ${file}: ${error.message}`,
        'Give the store password keytool was given (-storepass).',
        'BAD_SETTING',
      )
    if (error.kind === 'NEEDS_PASSWORD') throw new InputError(`${file}: ${error.message}`, `Set ${passwordKey}.`, 'BAD_SETTING')
    if (error.kind === 'NOT_PKCS12')
      throw new InputError(`${file} cannot be read: ${error.message}`, `Check ssl.${store}.type and ssl.${store}.location.`, 'BAD_SETTING')
    throw new InputError(
      `${file} cannot be read: ${error.message}`,
      `Re-export it with AES: keytool -importkeystore -srckeystore OLD.p12 -destkeystore NEW.p12 -deststoretype PKCS12 (Java 12+), or openssl pkcs12 (OpenSSL 3) without -legacy.`,
      'UNSUPPORTED_SETTING',
    )
  }
}

function storeTypeError(store: Store, type: string, where: string): InputError {
  const file = store === 'truststore' ? 'truststore' : 'keystore'
  return new InputError(
    `${type} ${store}s are not supported (${where}); only PKCS12 and PEM`,
    `Convert it to PKCS12: keytool -importkeystore -srckeystore ${file}.jks -destkeystore ${file}.p12 -deststoretype PKCS12, then set ssl.${store}.type=PKCS12 and ssl.${store}.location=${file}.p12.`,
    'UNSUPPORTED_SETTING',
  )
}

export function readSettingFile<T extends string | Buffer>(readFile: (p: string) => T, path: string, key: string): T {
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
  return new InputError(`${what}: file ${what === '--command-config' ? path : shownPath(path)} ${why}`, undefined, 'BAD_SETTING')
}

/** A path from the file itself: a lost newline can join the next line (key, separator, secret) onto it. */
function shownPath(path: string): string {
  return /[\s=:]/.test(path) ? '(path not shown: it holds a space, "=" or ":", and a broken line may have joined a secret onto it)' : path
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
