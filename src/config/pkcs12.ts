/**
 * PKCS#12 key and trust stores (RFC 7292), the default store type of Kafka's Java tooling since Java 9, read with
 * node-forge: their certificates and private keys, the integrity MAC checked. Node's TLS takes a PKCS#12 file as `pfx`
 * only when it holds a private key, and then trusts every certificate in it; a truststore holds certificates only, and a
 * keystore's chain must not become trusted CAs (Java's clients trust the truststore alone), so both are read here.
 *
 * forge reads PBES2 (PBKDF2 with AES or 3DES: keytool since Java 12, OpenSSL 3), PKCS#12's SHA-1 3DES (older keytool
 * and OpenSSL) and RC2 (OpenSSL 1.x's default for certificates). It decrypts the whole store with one password, so a
 * private key must be encrypted with the store password (keytool and `openssl pkcs12` always do so).
 */
import {createRequire} from 'node:module'
import type * as Forge from 'node-forge'

type forge = typeof Forge
type Asn1 = Forge.asn1.Asn1

export class Pkcs12Error extends Error {
  constructor(
    readonly kind: 'NOT_PKCS12' | 'BAD_PASSWORD' | 'NEEDS_PASSWORD' | 'UNSUPPORTED',
    message: string,
  ) {
    super(message)
  }
}

export interface Pkcs12Contents {
  /** DER certificates in file order. */
  readonly certs: readonly Buffer[]
  /** DER PKCS#8 PrivateKeyInfo, decrypted; `encrypted`: the store held it encrypted (with the store password). */
  readonly keys: readonly {readonly der: Buffer; readonly encrypted: boolean}[]
}

// loaded with the first PKCS#12 store: commands that read none do not pay for it (start-up)
let loaded: forge | undefined
const nodeForge = (): forge => (loaded ??= createRequire(import.meta.url)('node-forge') as forge)

/**
 * The certificates and keys of a PKCS#12 file. `password` undefined: the MAC is not checked and encrypted parts
 * cannot be read (Java's KeyStore.load with a null password does the same).
 */
export function readPkcs12(der: Buffer, password: string | undefined): Pkcs12Contents {
  if (der[0] !== 0x30) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (the file is not a SEQUENCE)')
  const forge = nodeForge()
  try {
    const pfx = forge.asn1.fromDer(der.toString('binary'))
    const encrypted = checkIterations(forge, pfx)
    if (password === undefined) {
      if (encrypted) throw new Pkcs12Error('NEEDS_PASSWORD', 'its certificates are encrypted and no password is given')
      pfx.value = children(pfx).slice(0, 2) // the MacData: unchecked without a password, as Java does
    }
    return contents(forge, opened(forge, pfx, password))
  } catch (error) {
    throw error instanceof Pkcs12Error ? error : named(error)
  }
}

/**
 * forge derives every key from one string: PKCS#12's own derivation (the MAC, 3DES, RC2) takes its characters, PBKDF2
 * its bytes, where Java and OpenSSL take the password's UTF-8 bytes. A password beyond ASCII that passes the MAC but does
 * not decrypt is tried again as UTF-8 bytes, the MAC (already checked) left out.
 */
function opened(forge: forge, pfx: Asn1, password: string | undefined): Forge.pkcs12.Pkcs12Pfx {
  try {
    return forge.pkcs12.pkcs12FromAsn1(pfx, true, password)
  } catch (error) {
    const utf8 = password === undefined ? password : forge.util.encodeUtf8(password)
    if (utf8 === password || !/Failed to decrypt PKCS#12 SafeContents|ShroudedKeyBag/.test((error as Error).message)) throw error
    pfx.value = children(pfx).slice(0, 2)
    return forge.pkcs12.pkcs12FromAsn1(pfx, true, utf8)
  }
}

function contents(forge: forge, p12: Forge.pkcs12.Pkcs12Pfx): Pkcs12Contents {
  const {oids} = forge.pki
  const bags = (type: string) => p12.getBags({bagType: type})[type] ?? []
  const bytes = (asn1: Asn1) => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary')
  // forge parses RSA certificates and keys; others (EC) it leaves as their ASN.1
  const certs = bags(oids.certBag).map(b => bytes(b.cert ? forge.pki.certificateToAsn1(b.cert) : b.asn1))
  const key = (b: Forge.pkcs12.Bag, encrypted: boolean) => ({
    der: bytes(b.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(b.key)) : b.asn1),
    encrypted,
  })
  return {certs, keys: [...bags(oids.pkcs8ShroudedKeyBag).map(b => key(b, true)), ...bags(oids.keyBag).map(b => key(b, false))]}
}

/** forge's errors (plain Errors, told by their words) as the kinds a caller acts on. */
function named(error: unknown): Pkcs12Error {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '')
  if (message.includes('MAC could not be verified'))
    return new Pkcs12Error('BAD_PASSWORD', 'the integrity check (MAC) failed: a wrong password, or the file was changed')
  if (message.includes('Failed to decrypt PKCS#12 SafeContents')) return new Pkcs12Error('BAD_PASSWORD', 'the password does not decrypt it')
  if (message.includes('ShroudedKeyBag'))
    return new Pkcs12Error('BAD_PASSWORD', 'the password does not decrypt its private key (a key password other than the store password is not supported)')
  if (/unsupported|not supported/i.test(message)) {
    const oid = (error as {oid?: unknown}).oid
    return new Pkcs12Error('UNSUPPORTED', `${message}${typeof oid === 'string' ? ` (${oid})` : ''}`)
  }
  return new Pkcs12Error('NOT_PKCS12', `not a PKCS#12 file (${message})`)
}

/** Java's PKCS12KeyStore refuses more than 5,000,000 iterations ("Iteration count too large"): a damaged or hostile
 * count would otherwise hold the command for hours before it could say anything. */
const MAX_ITERATIONS = 5_000_000

/** AlgorithmIdentifiers whose parameters are SEQUENCE { salt, iterationCount, ... }: PBKDF2 (in PBES2) and PKCS#12's PBE. */
const COUNTED = /^1\.2\.840\.113549\.1\.(5\.12|12\.1\.[1-6])$/

/**
 * Refuses an iteration count above MAX_ITERATIONS before forge derives a key: the MAC's, the encrypted contents', and
 * the encrypted private keys' in plain contents (where keytool and OpenSSL put them). Not bounded: a key inside
 * encrypted contents (its count can be read only once forge has decrypted them). Returns whether anything is encrypted
 * (a password is needed).
 */
function checkIterations(forge: forge, pfx: Asn1): boolean {
  const [, authSafe, macData] = children(pfx)
  if (macData) iterationCount(forge, children(macData)[2])
  let encrypted = false
  for (const info of children(decoded(forge, explicit(children(authSafe)[1])))) {
    const [type, content] = children(info)
    const safe = forge.asn1.derToOid(type.value as string) === forge.pki.oids.data ? decoded(forge, explicit(content)) : info
    forEachNode(safe, node => {
      const [id, params] = Array.isArray(node.value) ? node.value : []
      if (id?.type !== forge.asn1.Type.OID || !COUNTED.test(forge.asn1.derToOid(id.value as string))) return
      iterationCount(forge, children(params)[1])
      encrypted = true
    })
  }
  return encrypted
}

function iterationCount(forge: forge, t: Asn1 | undefined): void {
  if (t === undefined) return // DEFAULT 1 (MacData)
  if (t.type !== forge.asn1.Type.INTEGER) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (an iteration count is not an INTEGER)')
  const n = BigInt(`0x${forge.util.bytesToHex(t.value as string) || '0'}`)
  if (n < 1n || n > BigInt(MAX_ITERATIONS))
    throw new Pkcs12Error('NOT_PKCS12', `not a usable PKCS#12 file (an iteration count of ${n}; at most ${MAX_ITERATIONS})`)
}

function forEachNode(node: Asn1, visit: (n: Asn1) => void): void {
  visit(node)
  if (Array.isArray(node.value)) for (const child of node.value) forEachNode(child, visit)
}

function children(node: Asn1 | undefined): Asn1[] {
  if (!node || !Array.isArray(node.value)) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (a SEQUENCE expected)')
  return node.value
}

/** [0] EXPLICIT x: x. */
function explicit(node: Asn1 | undefined): Asn1 {
  const [inner] = children(node)
  if (!inner) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (a [0] field is empty)')
  return inner
}

/** The DER an OCTET STRING holds, decoded; BER may split the string into pieces. */
function decoded(forge: forge, octets: Asn1): Asn1 {
  const bytes = Array.isArray(octets.value) ? octets.value.map(piece => piece.value as string).join('') : octets.value
  return forge.asn1.fromDer(bytes)
}
