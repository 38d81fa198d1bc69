/**
 * PKCS12 key and trust stores as Kafka's Java clients take them (ssl.keystore.type=PKCS12 with ssl.keystore.location,
 * ssl.keystore.password, ssl.key.password; the same for the truststore), read from stores keytool (Java 17) and
 * OpenSSL 3 made (test/fixtures/pkcs12/make.sh): the certificates and key they hold, and one clear error naming the
 * key for each way they fail; passwords never in an error.
 */
import {X509Certificate, createPublicKey} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
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

  it('3DES with a SHA-1 MAC (older keytool and OpenSSL) is read; RC2 (OpenSSL 1.x) is refused with how to re-export', () => {
    const tls = settings(keys('keystore-3des.p12', 'ssl.keystore.password=store-pw')).tls
    expect(new X509Certificate(pems(tls?.cert)[0] ?? '').fingerprint256).toBe(CLIENT.fingerprint256)
    const e = inputError(trust('truststore-rc2.p12', 'ssl.truststore.password=trust-pw'))
    expect(e.message).toMatch(/cannot be read: it uses pbeWithSHAAnd40BitRC2-CBC, which is not supported$/)
    expect(e.code).toBe('UNSUPPORTED_SETTING')
    expect(e.hint).toContain('keytool -importkeystore')
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
