/**
 * A reader of PKCS#12 key and trust stores (RFC 7292), the default store type of Kafka's Java tooling since Java 9:
 * their certificates and private keys, the integrity MAC checked. Node's TLS takes a PKCS#12 file as `pfx` only when it
 * holds a private key, and then trusts every certificate in it; a truststore holds certificates only, and a keystore's
 * chain must not become trusted CAs (Java's clients trust the truststore alone), so both are read here instead.
 *
 * Encryption: PBES2 (PBKDF2 with AES-CBC or 3DES; keytool since Java 12 and OpenSSL 3 write it) and
 * pbeWithSHAAnd3-KeyTripleDES-CBC (older keytool and OpenSSL); RC2 (OpenSSL 1.x's default for certificates) is refused
 * with how to re-export, as OpenSSL 3 keeps it in its legacy provider, which Node does not load.
 */
import {createDecipheriv, createHash, createHmac, pbkdf2Sync, timingSafeEqual} from 'node:crypto'

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
  /** DER private keys: PKCS#8 PrivateKeyInfo, or EncryptedPrivateKeyInfo (decrypt with createPrivateKey). */
  readonly keys: readonly {readonly der: Buffer; readonly encrypted: boolean}[]
}

interface Tlv {
  readonly tag: number
  readonly body: Buffer
}

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  keyBag: '1.2.840.113549.1.12.10.1.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
  sha3Des: '1.2.840.113549.1.12.1.3',
}

const HASHES: Record<string, {name: string; block: number}> = {
  '1.3.14.3.2.26': {name: 'sha1', block: 64},
  '2.16.840.1.101.3.4.2.4': {name: 'sha224', block: 64},
  '2.16.840.1.101.3.4.2.1': {name: 'sha256', block: 64},
  '2.16.840.1.101.3.4.2.2': {name: 'sha384', block: 128},
  '2.16.840.1.101.3.4.2.3': {name: 'sha512', block: 128},
}

const PRFS: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.8': 'sha224',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
}

const CIPHERS: Record<string, {name: string; keyLength: number}> = {
  '2.16.840.1.101.3.4.1.2': {name: 'aes-128-cbc', keyLength: 16},
  '2.16.840.1.101.3.4.1.22': {name: 'aes-192-cbc', keyLength: 24},
  '2.16.840.1.101.3.4.1.42': {name: 'aes-256-cbc', keyLength: 32},
  '1.2.840.113549.3.7': {name: 'des-ede3-cbc', keyLength: 24},
}

/** Names of algorithms we refuse, for the message. */
const REFUSED_ALGORITHMS: Record<string, string> = {
  '1.2.840.113549.1.12.1.5': 'pbeWithSHAAnd128BitRC2-CBC',
  '1.2.840.113549.1.12.1.6': 'pbeWithSHAAnd40BitRC2-CBC',
  '1.2.840.113549.1.5.14': 'PBMAC1',
}

/**
 * The certificates and keys of a PKCS#12 file. `password` undefined: the MAC is not checked and encrypted parts
 * cannot be read (Java's KeyStore.load with a null password does the same).
 */
export function readPkcs12(der: Buffer, password: string | undefined): Pkcs12Contents {
  try {
    return contents(der, password)
  } catch (error) {
    if (error instanceof Pkcs12Error) throw error
    // a field missing where the structure needs it (a damaged file): named as such, not as a TypeError
    throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (malformed)')
  }
}

function contents(der: Buffer, password: string | undefined): Pkcs12Contents {
  const pfx = items(der, 'the file')
  if (pfx.length < 2 || pfx[0].tag !== 0x02) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file')
  const authSafe = sequenceOf(pfx[1]?.body ?? Buffer.alloc(0))
  if (oid(authSafe[0]) !== OID.data) throw new Pkcs12Error('UNSUPPORTED', 'a public-key protected PKCS#12 file is not supported')
  const content = octets(explicit(authSafe[1]))
  if (pfx[2] && password !== undefined) checkMac(pfx[2], content, password)
  const certs: Buffer[] = []
  const keys: {der: Buffer; encrypted: boolean}[] = []
  for (const info of items(content, 'the authenticated safe')) {
    for (const bag of safeBags(info, password)) {
      if (bag.id === OID.certBag) certs.push(certOf(bag.value))
      else if (bag.id === OID.keyBag || bag.id === OID.shroudedKeyBag) keys.push({der: bag.value, encrypted: bag.id === OID.shroudedKeyBag})
    }
  }
  return {certs, keys}
}

function safeBags(info: Tlv, password: string | undefined): {id: string; value: Buffer}[] {
  const [type, content] = sequenceOf(info.body)
  const kind = oid(type)
  let safe: Buffer
  if (kind === OID.data) safe = octets(explicit(content))
  else if (kind === OID.encryptedData) safe = decryptContent(explicit(content), password)
  else throw new Pkcs12Error('UNSUPPORTED', `content type ${kind} is not supported`)
  return items(safe, 'a safe').map(bag => {
    const [id, value] = sequenceOf(bag.body)
    return {id: oid(id), value: explicit(value)}
  })
}

function certOf(bag: Buffer): Buffer {
  const [id, value] = items(bag, 'a certificate bag')
  if (oid(id) !== OID.x509Certificate) throw new Pkcs12Error('UNSUPPORTED', `certificate type ${oid(id)} is not supported (only X.509)`)
  return octets(explicit(value))
}

/** EncryptedData ::= SEQUENCE { version, EncryptedContentInfo { contentType, algorithm, [0] IMPLICIT encryptedContent } } */
function decryptContent(encryptedData: Buffer, password: string | undefined): Buffer {
  const [, contentInfo] = items(encryptedData, 'encrypted data')
  const [, algorithm, encrypted] = sequenceOf(contentInfo.body)
  if (password === undefined) throw new Pkcs12Error('NEEDS_PASSWORD', 'its certificates are encrypted and no password is given')
  // [0] IMPLICIT OCTET STRING: primitive (DER) or constructed of OCTET STRING pieces (BER)
  const data = encrypted.tag === 0x80 ? encrypted.body : Buffer.concat(sequenceOf(encrypted.body).map(t => t.body))
  return decrypt(algorithm.body, data, password)
}

function decrypt(algorithm: Buffer, data: Buffer, password: string): Buffer {
  const [id, params] = sequenceOf(algorithm)
  const alg = oid(id)
  let decipher: ReturnType<typeof createDecipheriv>
  if (alg === OID.pbes2) decipher = pbes2(params.body, password)
  else if (alg === OID.sha3Des) {
    const [salt, iterations] = sequenceOf(params.body)
    const bmp = bmpPassword(password)
    const key = pkcs12Kdf('sha1', 64, bmp, salt.body, 1, iterationCount(iterations), 24)
    decipher = createDecipheriv('des-ede3-cbc', key, pkcs12Kdf('sha1', 64, bmp, salt.body, 2, iterationCount(iterations), 8))
  } else throw unsupported(alg)
  try {
    return Buffer.concat([decipher.update(data), decipher.final()])
  } catch {
    throw new Pkcs12Error('BAD_PASSWORD', 'the password does not decrypt it')
  }
}

function pbes2(params: Buffer, password: string): ReturnType<typeof createDecipheriv> {
  const [kdf, scheme] = sequenceOf(params)
  const [kdfId, kdfParams] = sequenceOf(kdf.body)
  if (oid(kdfId) !== OID.pbkdf2) throw unsupported(oid(kdfId))
  const [salt, iterations, ...rest] = sequenceOf(kdfParams.body)
  const prfTlv = rest.find(t => t.tag === 0x30)
  const prf = prfTlv ? PRFS[oid(sequenceOf(prfTlv.body)[0])] : 'sha1'
  const [cipherId, iv] = sequenceOf(scheme.body)
  const cipher = CIPHERS[oid(cipherId)]
  if (!prf || !cipher) throw unsupported(prf ? oid(cipherId) : 'a PBKDF2 PRF')
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt.body, iterationCount(iterations), cipher.keyLength, prf)
  return createDecipheriv(cipher.name, key, iv.body)
}

/** MacData ::= SEQUENCE { DigestInfo { algorithm, digest }, macSalt, iterations DEFAULT 1 } */
function checkMac(macData: Tlv, content: Buffer, password: string): void {
  const [digestInfo, salt, iterations] = sequenceOf(macData.body)
  const [algorithm, digest] = sequenceOf(digestInfo.body)
  const hashId = oid(sequenceOf(algorithm.body)[0])
  const hash = HASHES[hashId]
  if (!hash) throw unsupported(hashId)
  const length = createHash(hash.name).digest().length
  const key = pkcs12Kdf(hash.name, hash.block, bmpPassword(password), salt.body, 3, iterations ? iterationCount(iterations) : 1, length)
  const mac = createHmac(hash.name, key).update(content).digest()
  if (mac.length !== digest.body.length || !timingSafeEqual(mac, digest.body)) {
    throw new Pkcs12Error('BAD_PASSWORD', 'the integrity check (MAC) failed: a wrong password, or the file was changed')
  }
}

/** The password as PKCS#12 key derivation takes it: UTF-16BE (BMPString) with a two-byte terminator. */
function bmpPassword(password: string): Buffer {
  const le = Buffer.from(`${password}\0`, 'utf16le')
  return le.swap16()
}

/** RFC 7292 appendix B.2: the key (id 1), IV (id 2) or MAC key (id 3) from a password and salt. */
function pkcs12Kdf(hash: string, v: number, password: Buffer, salt: Buffer, id: number, iterations: number, n: number): Buffer {
  const fill = (b: Buffer) => (b.length === 0 ? b : Buffer.alloc(v * Math.ceil(b.length / v), b))
  const d = Buffer.alloc(v, id)
  const i = Buffer.concat([fill(salt), fill(password)])
  const out: Buffer[] = []
  for (let have = 0; have < n; ) {
    let a = createHash(hash).update(d).update(i).digest()
    for (let r = 1; r < iterations; r++) a = createHash(hash).update(a).digest()
    out.push(a)
    have += a.length
    const b = Buffer.alloc(v, a)
    for (let j = 0; j < i.length; j += v) addOne(i, j, v, b)
  }
  return Buffer.concat(out).subarray(0, n)
}

/** I_j = (I_j + B + 1) mod 2^(8v), big-endian, in place. */
function addOne(i: Buffer, at: number, v: number, b: Buffer): void {
  let carry = 1
  for (let k = v - 1; k >= 0; k--) {
    const sum = i[at + k] + b[k] + carry
    i[at + k] = sum & 0xff
    carry = sum >> 8
  }
}

function unsupported(alg: string): Pkcs12Error {
  const name = REFUSED_ALGORITHMS[alg] ?? alg
  return new Pkcs12Error('UNSUPPORTED', `it uses ${name}, which is not supported`)
}

// DER: the subset PKCS#12 files use (definite lengths).
function tlv(buf: Buffer, at: number): Tlv & {end: number} {
  if (at + 2 > buf.length) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (truncated)')
  const tag = buf[at]
  let length = buf[at + 1]
  let start = at + 2
  if (length & 0x80) {
    const bytes = length & 0x7f
    if (bytes === 0 || bytes > 4) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (an unsupported length encoding)')
    length = buf.subarray(start, start + bytes).reduce((acc, x) => acc * 256 + x, 0)
    start += bytes
  }
  if (start + length > buf.length) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (truncated)')
  return {tag, body: buf.subarray(start, start + length), end: start + length}
}

function sequenceOf(body: Buffer): Tlv[] {
  const out: Tlv[] = []
  for (let at = 0; at < body.length; ) {
    const t = tlv(body, at)
    out.push(t)
    at = t.end
  }
  return out
}

/** The items of the SEQUENCE that `der` is. */
function items(der: Buffer, what: string): Tlv[] {
  const t = tlv(der, 0)
  if (t.tag !== 0x30) throw new Pkcs12Error('NOT_PKCS12', `not a PKCS#12 file (${what} is not a SEQUENCE)`)
  return sequenceOf(t.body)
}

/** [0] EXPLICIT x: the body of x's wrapper, which is x itself. */
function explicit(t: Tlv | undefined): Buffer {
  if (!t || t.tag !== 0xa0) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (a [0] field is missing)')
  return t.body
}

function octets(der: Buffer): Buffer {
  const t = tlv(der, 0)
  if (t.tag === 0x04) return t.body
  // BER constructed OCTET STRING
  if (t.tag === 0x24) return Buffer.concat(sequenceOf(t.body).map(x => x.body))
  throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (an OCTET STRING expected)')
}

/** Java's PKCS12KeyStore refuses more than 5,000,000 iterations ("Iteration count too large"): a damaged or hostile
 * count would otherwise hold the command for hours before it could say anything. */
const MAX_ITERATIONS = 5_000_000

function iterationCount(t: Tlv): number {
  const n = integer(t)
  if (n < 1 || n > MAX_ITERATIONS) throw new Pkcs12Error('NOT_PKCS12', `not a usable PKCS#12 file (an iteration count of ${n}; at most ${MAX_ITERATIONS})`)
  return n
}

function integer(t: Tlv): number {
  if (t.tag !== 0x02 || t.body.length > 4) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (a bad INTEGER)')
  return t.body.reduce((acc, x) => acc * 256 + x, 0)
}

function oid(t: Tlv | undefined): string {
  if (!t || t.tag !== 0x06) throw new Pkcs12Error('NOT_PKCS12', 'not a PKCS#12 file (an OBJECT IDENTIFIER expected)')
  const parts: number[] = [Math.floor(t.body[0] / 40), t.body[0] % 40]
  let n = 0
  for (const x of t.body.subarray(1)) {
    n = n * 128 + (x & 0x7f)
    if (!(x & 0x80)) {
      parts.push(n)
      n = 0
    }
  }
  return parts.join('.')
}
