/**
 * PKCS12 key and trust stores as Kafka's Java clients take them (ssl.keystore.type=PKCS12 with ssl.keystore.location,
 * ssl.keystore.password, ssl.key.password; the same for the truststore), read from stores keytool (Java 17) and
 * OpenSSL 3 made (test/fixtures/pkcs12/make.sh): the certificates and key they hold, and one clear error naming the
 * key for each way they fail; passwords never in an error.
 */
import {X509Certificate, createPrivateKey, createPublicKey} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import forge from 'node-forge'
import {describe, expect, it} from 'vitest'
import {resolveConnectionSettings} from '../../../src/config/client-config.js'
import {Pkcs12Error, readPkcs12} from '../../../src/config/pkcs12.js'
import {InputError} from '../../../src/core/errors.js'
import {ROOT} from '../helpers.js'

const DIR = join(ROOT, 'test/fixtures/pkcs12')
const fixture = (name: string) => readFileSync(join(DIR, name))
const CA = new X509Certificate(fixture('ca.pem'))
const CLIENT = new X509Certificate(fixture('client.pem'))
const PASSWORDS = ['trust-pw', 'store-pw', 'wrong-s3cret']

function settings(lines: string[]) {
  return resolveConnectionSettings({
    bootstrapServer: 'k1:9093',
    commandConfig: 'client.properties',
    env: {},
    fileMode: () => 0o600,
    readFile: p => (p === 'client.properties' ? ['security.protocol=SSL', ...lines].join('\n') : readFileSync(p, 'utf8')),
    readBytes: p => readFileSync(p),
  })
}

function inputError(lines: string[]): InputError {
  try {
    settings(lines)
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    const e = error as InputError
    for (const pw of PASSWORDS) expect(`${e.message} ${e.hint}`).not.toContain(pw)
    return e
  }
  throw new Error('expected an InputError')
}

const trust = (file: string, ...more: string[]) => ['ssl.truststore.type=PKCS12', `ssl.truststore.location=${join(DIR, file)}`, ...more]
const keys = (file: string, ...more: string[]) => ['ssl.keystore.type=PKCS12', `ssl.keystore.location=${join(DIR, file)}`, ...more]
const pems = (text: string | undefined) => (text ?? '').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? []

describe('PKCS12 truststores', () => {
  it('a keytool truststore (certificates only, AES-256, HmacSHA256 MAC) gives its CA as the trusted certificates', () => {
    const s = settings(trust('truststore.p12', 'ssl.truststore.password=trust-pw'))
    expect(pems(s.tls?.ca).map(p => new X509Certificate(p).fingerprint256)).toEqual([CA.fingerprint256])
  })

  it('a store without encryption or MAC needs no password; an encrypted one names ssl.truststore.password', () => {
    expect(pems(settings(trust('truststore-plain.p12')).tls?.ca)).toHaveLength(1)
    const e = inputError(trust('truststore.p12'))
    expect(e.message).toBe('the PKCS12 truststore ssl.truststore.location (client.properties:3): its certificates are encrypted and no password is given')
    expect(e.hint).toBe('Set ssl.truststore.password.')
  })

  it('a wrong password is one error naming ssl.truststore.password and where it was set', () => {
    const e = inputError(trust('truststore.p12', 'ssl.truststore.password=wrong-s3cret'))
    expect(e.code).toBe('BAD_SETTING')
    expect(e.message).toBe(
      'ssl.truststore.password (client.properties:4) does not open the PKCS12 truststore ssl.truststore.location (client.properties:3): ' +
        'the integrity check (MAC) failed: a wrong password, or the file was changed',
    )
  })
})

describe('PKCS12 keystores', () => {
  it('a keytool keystore gives the client certificate first, the CA after it, and the key of that certificate', () => {
    const tls = settings(keys('keystore.p12', 'ssl.keystore.password=store-pw')).tls
    expect(pems(tls?.cert).map(p => new X509Certificate(p).fingerprint256)).toEqual([CLIENT.fingerprint256, CA.fingerprint256])
    const publicKey = createPublicKey(tls?.key?.reveal() ?? '')
    expect(publicKey.equals(CLIENT.publicKey)).toBe(true)
    // the key is decrypted here: no passphrase goes to the connection
    expect(tls?.keyPassword).toBeUndefined()
    expect(`${tls?.key}`).toBe('[redacted]')
  })

  it('ssl.key.password opens the key when given; a wrong one names it, a wrong store password names that', () => {
    expect(settings(keys('keystore.p12', 'ssl.keystore.password=store-pw', 'ssl.key.password=store-pw')).tls?.key).toBeDefined()
    const key = inputError(keys('keystore.p12', 'ssl.keystore.password=store-pw', 'ssl.key.password=wrong-s3cret'))
    expect(key.message).toBe('ssl.key.password (client.properties:5) does not decrypt the private key in the PKCS12 keystore')
    const store = inputError(keys('keystore.p12', 'ssl.keystore.password=wrong-s3cret'))
    expect(store.message).toMatch(/^ssl\.keystore\.password \(client\.properties:4\) does not open the PKCS12 keystore .*MAC\) failed/)
  })

  it('ssl.keystore.password is required, as Kafka requires it for a keystore that is not PEM', () => {
    expect(inputError(keys('keystore.p12')).message).toBe('ssl.keystore.password is not set: a PKCS12 keystore needs it')
  })

  it('3DES with a SHA-1 MAC (older keytool and OpenSSL) and RC2 (OpenSSL 1.x) are read', () => {
    const tls = settings(keys('keystore-3des.p12', 'ssl.keystore.password=store-pw')).tls
    expect(pems(tls?.cert).map(p => new X509Certificate(p).fingerprint256)).toEqual([CLIENT.fingerprint256])
    expect(createPublicKey(tls?.key?.reveal() ?? '').equals(CLIENT.publicKey)).toBe(true)
    const ca = settings(trust('truststore-rc2.p12', 'ssl.truststore.password=trust-pw')).tls?.ca
    expect(pems(ca).map(p => new X509Certificate(p).fingerprint256)).toEqual([CA.fingerprint256])
  })

  it('a keystore without a key (a truststore given as keystore) says so', () => {
    const e = inputError(keys('truststore.p12', 'ssl.keystore.password=trust-pw'))
    expect(e.message).toBe('ssl.keystore.location (client.properties:3) holds 0 private keys; one is needed')
  })
})

describe('store types', () => {
  it('a PKCS12 file without a type, or typed JKS, is read as PKCS12 (Java 9+ reads it so: keystore.type.compat)', () => {
    const loc = `ssl.truststore.location=${join(DIR, 'truststore.p12')}`
    for (const type of [[], ['ssl.truststore.type=JKS']]) {
      expect(pems(settings([...type, loc, 'ssl.truststore.password=trust-pw']).tls?.ca)).toHaveLength(1)
    }
  })

  it.each([
    [['ssl.truststore.type=PKCS12', 'ssl.truststore.location=JKS'], 'JKS truststores are not supported (client.properties:3); only PKCS12 and PEM'],
    [['ssl.truststore.location=JKS'], 'JKS truststores are not supported (client.properties:2); only PKCS12 and PEM'],
    [['ssl.truststore.type=BCFKS', 'ssl.truststore.location=PEM'], 'BCFKS truststores are not supported (client.properties:2); only PKCS12 and PEM'],
  ])('a JKS store (by its magic number) or another type is refused with the keytool conversion (%j)', (lines, message) => {
    const files: Record<string, string> = {JKS: join(DIR, 'truststore.jks'), PEM: join(DIR, 'ca.pem')}
    const e = inputError(lines.map(l => l.replace(/=(JKS|PEM)$/, (m, f) => (l.includes('location') ? `=${files[f]}` : m))))
    expect(e.message).toBe(message)
    expect(e.hint).toBe(
      'Convert it to PKCS12: keytool -importkeystore -srckeystore truststore.jks -destkeystore truststore.p12 -deststoretype PKCS12, ' +
        'then set ssl.truststore.type=PKCS12 and ssl.truststore.location=truststore.p12.',
    )
  })

  it('a PEM file declared PKCS12 is named as not PKCS12', () => {
    const e = inputError(trust('ca.pem', 'ssl.truststore.password=trust-pw'))
    expect(e.message).toBe(
      'the PKCS12 truststore ssl.truststore.location (client.properties:3) cannot be read: not a PKCS#12 file (the file is not a SEQUENCE)',
    )
  })
})

/** DER: a tag and its body (lengths up to 64 KiB). */
function der(tag: number, ...body: Buffer[]): Buffer {
  const b = Buffer.concat(body)
  const length = b.length < 128 ? Buffer.from([b.length]) : Buffer.from([0x82, b.length >> 8, b.length & 0xff])
  return Buffer.concat([Buffer.from([tag]), length, b])
}

describe('readPkcs12', () => {
  it.each([
    ['truststore.p12', 'trust-pw', [CA], 0],
    ['truststore-rc2.p12', 'trust-pw', [CA], 0],
    ['truststore-plain.p12', undefined, [CA], 0],
    ['truststore-utf8.p12', 'pässwörd', [CA], 0],
    ['keystore.p12', 'store-pw', [CLIENT, CA], 1],
    ['keystore-3des.p12', 'store-pw', [CLIENT], 1],
  ])('%s gives its certificates byte for byte, in file order, and its key decrypted', (file, password, certs, encryptedKeys) => {
    const read = readPkcs12(fixture(file), password)
    expect(read.certs.map(c => c.toString('hex'))).toEqual(certs.map(c => c.raw.toString('hex')))
    expect(read.keys.map(k => k.encrypted)).toEqual(Array(encryptedKeys).fill(true))
    for (const k of read.keys) expect(createPublicKey(createPrivateKey({key: k.der, format: 'der', type: 'pkcs8'})).equals(CLIENT.publicKey)).toBe(true)
  })

  it('without a password: encrypted certificates or keys need one; a wrong one fails the MAC', () => {
    for (const file of ['truststore.p12', 'keystore.p12', 'truststore-rc2.p12']) {
      expect(() => readPkcs12(fixture(file), undefined), file).toThrow(expect.objectContaining({kind: 'NEEDS_PASSWORD'}))
    }
    expect(() => readPkcs12(fixture('keystore-3des.p12'), 'wrong-s3cret')).toThrow(expect.objectContaining({kind: 'BAD_PASSWORD'}))
  })
})

describe('readPkcs12 on damaged files', () => {
  it("an iteration count above Java's 5,000,000 is refused before any key derivation, not run for hours", () => {
    const sha1 = der(0x06, Buffer.from([0x2b, 0x0e, 0x03, 0x02, 0x1a]))
    const data = der(0x06, Buffer.from('2a864886f70d010701', 'hex'))
    const authSafe = der(0x30, data, der(0xa0, der(0x04, der(0x30))))
    const pfx = (iterations: string) =>
      der(
        0x30,
        der(0x02, Buffer.from([3])),
        authSafe,
        der(0x30, der(0x30, der(0x30, sha1), der(0x04, Buffer.alloc(20))), der(0x04, Buffer.alloc(8)), der(0x02, Buffer.from(iterations, 'hex'))),
      )
    const started = Date.now()
    expect(() => readPkcs12(pfx('7fffffff'), 'pw')).toThrow('not a usable PKCS#12 file (an iteration count of 2147483647; at most 5000000)')
    expect(Date.now() - started).toBeLessThan(1000)
    // the same file with Java's count of 10000 is derived and checked: its (zero) MAC is wrong
    expect(() => readPkcs12(pfx('2710'), 'pw')).toThrow('the integrity check (MAC) failed')
  })

  it("keytool's three iteration counts (the MAC's, the certificates' PBKDF2, the key's PBKDF2), each raised above 5,000,000, are refused before decrypting", () => {
    const counts = keytoolCounts(fixture('keystore.p12'))
    expect(counts).toBe(3)
    for (let n = 0; n < counts; n++) {
      const started = Date.now()
      expect(() => readPkcs12(withCount(fixture('keystore.p12'), n, 0x7fffffff), 'store-pw')).toThrow(
        new Pkcs12Error('NOT_PKCS12', 'not a usable PKCS#12 file (an iteration count of 2147483647; at most 5000000)'),
      )
      expect(Date.now() - started).toBeLessThan(1000)
    }
    // re-encoded with the count it had, the store still reads (its MAC matches): the refusals are the counts'
    expect(readPkcs12(withCount(fixture('keystore.p12'), 2, 10_000), 'store-pw').keys).toHaveLength(1)
  })

  it('truncations and flipped bytes throughout the file are Pkcs12Errors (the MAC catches changes), never another error', () => {
    const good = fixture('keystore.p12')
    const kinds = new Set<string>()
    // 40 places over the whole file: each flip costs a MAC check (10000 iterations of the PKCS12 key derivation)
    for (let i = 0; i < good.length; i += Math.ceil(good.length / 40)) {
      for (const bad of [good.subarray(0, i), Buffer.from(good).fill(good[i] ^ 0x5a, i, i + 1)]) {
        try {
          readPkcs12(bad, 'store-pw')
          kinds.add('read')
        } catch (error) {
          expect(error).toBeInstanceOf(Pkcs12Error)
          kinds.add((error as Pkcs12Error).kind)
        }
      }
    }
    expect(kinds).toContain('NOT_PKCS12')
    expect(kinds).toContain('BAD_PASSWORD')
  })
})

/** keytool's iteration count, 10000: an INTEGER 0x2710. */
const isKeytoolCount = (node: forge.asn1.Asn1) => node.type === forge.asn1.Type.INTEGER && node.value === '\x27\x10'

/** The DER inside an OCTET STRING, where it is DER (the Data contents; encrypted contents are not). */
function innerDer(node: forge.asn1.Asn1): forge.asn1.Asn1 | undefined {
  if (node.type !== forge.asn1.Type.OCTETSTRING || typeof node.value !== 'string') return undefined
  try {
    return forge.asn1.fromDer(node.value)
  } catch {
    return undefined
  }
}

/** Visits every node, inside DER-holding OCTET STRINGs too; `change` may replace a node's value, re-encoded on the way out. */
function visit(node: forge.asn1.Asn1, change: (n: forge.asn1.Asn1) => void): void {
  change(node)
  const inner = innerDer(node)
  if (inner) {
    visit(inner, change)
    node.value = forge.asn1.toDer(inner).getBytes()
  } else if (Array.isArray(node.value)) for (const child of node.value) visit(child, change)
}

function keytoolCounts(p12: Buffer): number {
  let n = 0
  visit(forge.asn1.fromDer(p12.toString('binary')), node => void (isKeytoolCount(node) && n++))
  return n
}

/** The store with its n-th keytool iteration count set to `count` (the MAC then no longer matches, if it is reached). */
function withCount(p12: Buffer, n: number, count: number): Buffer {
  const pfx = forge.asn1.fromDer(p12.toString('binary'))
  let seen = 0
  visit(pfx, node => {
    if (isKeytoolCount(node) && seen++ === n) node.value = forge.asn1.integerToDer(count).getBytes()
  })
  return Buffer.from(forge.asn1.toDer(pfx).getBytes(), 'binary')
}
