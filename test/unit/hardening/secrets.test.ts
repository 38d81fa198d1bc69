/**
 * No error echoes a JAAS option value or a secret-bearing property. A corpus of malformed JAAS
 * strings and properties files carries a marker secret; the marker never reaches stdout or stderr in any mode.
 */
import {describe, expect, it} from 'vitest'
import {run, tempFile} from '../helpers.js'

const MARK = 'Zq9MarkerSecret'
const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule'
const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule'

export const JAAS_CORPUS: string[] = [
  `${SCRAM} required username="alice" password:${MARK};`,
  `${SCRAM} required username="alice" password:"${MARK}";`,
  `${SCRAM} required username="alice" password ${MARK};`,
  `${SCRAM} required username="alice" password="${MARK}`,
  `${SCRAM} required username="alice" password="${MARK}"`,
  `${SCRAM} required username="alice" password=${MARK}`,
  `${SCRAM} required username="alice" password="${MARK}"; ${MARK}`,
  `${SCRAM} required username="alice" password=${MARK}"x";`,
  `${SCRAM} required username="alice" password="a\\"${MARK};`,
  `${SCRAM} required username="alice" ${MARK};`,
  `${SCRAM} required username="alice" "${MARK}";`,
  `${SCRAM} required password=${MARK}=x;`,
  `${SCRAM} ${MARK} username="alice" password="x";`,
  `${MARK} required username="alice" password="x";`,
  `${MARK};`,
  `"${MARK}"`,
  `${PLAIN} required username="alice" password="${MARK}";`, // valid, but PLAIN vs SCRAM-SHA-512
  `${SCRAM} required username="alice" password="${MARK}"; ${SCRAM} required;`,
  `${SCRAM} required username="alice" pass\u001bword="${MARK}";`,
  `${SCRAM} required username="alice" password=${MARK}\\;`,
  `com.sun.security.auth.module.Krb5LoginModule required password="${MARK}";`,
]

const base = (jaas: string) => `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=${jaas}\n`
export const PROPERTIES_CORPUS: string[] = [
  ...JAAS_CORPUS.map(base),
  `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=${SCRAM} required \\\n  username="alice" \\\n  password:${MARK};\n`,
  `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=${SCRAM} required username="alice"\n  password="${MARK}";\n`,
  `security.protocol=SSL\nssl.key.password=${MARK}\\u12\n`,
  `security.protocol=SSL\nssl.key.password\\u00=${MARK}\n`,
  `security.protocol=SSL\nssl.keystore.key=${MARK}\n`,
  `security.protocol=SSL\nssl.keystore.type=JKS\nssl.keystore.location=/nonexistent\nssl.keystore.password=${MARK}\n`,
  `security.protocol=SSL\nssl.truststore.certificates=${MARK}\n`,
  `security.protocol=SSL\nssl.keystore.certificate.chain=-----BEGIN CERTIFICATE-----\nssl.keystore.key=${MARK}\n`,
  `sasl.jaas.config=${SCRAM} required username="alice" \\\n${MARK}\n`,
  `${MARK}\n`,
  `password=${MARK}\n${MARK}.x=1\n`,
  `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\nsasl.oauthbearer.token.endpoint.url=file://${MARK}:99999/x\n`,
  `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\nsasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub:${MARK};\n`,
  `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=${SCRAM} required username="alice" password="${MARK}";\n`,
  // found by the full fuzz run: a lost newline joins a secret line onto a harmless value
  `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\nsasl.oauthbearer.token.endpoint.url=file:/nonexistent/token ssl.key.password ${MARK}\n`,
  `client.id=me ssl.key.password=${MARK}\nsasl.mechanism=SCRAM-SHA-512ssl.key.password:${MARK}\n`,
  `client.id=messl.truststore.password:${MARK}\n`,
  `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=${SCRAM} required username=alicepassword:${MARK};\n`,
]

const MODES = [[], ['--json'], ['--debug']]
const BOOT = ['-b', '127.0.0.1:19599', '--timeout', '2000']

function assertNoMarker(r: {stdout: string; stderr: string; error?: Error}, what: string) {
  const all = `${r.stdout}\n${r.stderr}\n${r.error?.message ?? ''}\n${r.error?.stack ?? ''}`
  expect(all, what).not.toContain(MARK)
  expect(all.toLowerCase(), what).not.toContain(MARK.toLowerCase())
}

describe('no secret echoed: JAAS corpus in the properties file', () => {
  PROPERTIES_CORPUS.forEach((text, i) => {
    it(`properties #${i}`, async () => {
      const file = tempFile('client.properties', text)
      for (const mode of MODES) {
        const r = await run(['topic-hash:compute', 'orders', ...BOOT, '--command-config', file, ...mode])
        expect(r.exitCode, `#${i} ${mode}`).not.toBe(0)
        assertNoMarker(r, `properties #${i} ${mode.join(' ')}: ${JSON.stringify(text)}`)
      }
    })
  })
})

describe('no secret echoed: JAAS corpus in $REBALANCE_DOCTOR_SASL_JAAS_CONFIG', () => {
  JAAS_CORPUS.forEach((jaas, i) => {
    it(`jaas #${i}`, async () => {
      const file = tempFile('client.properties', 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n')
      const saved = process.env.REBALANCE_DOCTOR_SASL_JAAS_CONFIG
      process.env.REBALANCE_DOCTOR_SASL_JAAS_CONFIG = jaas
      try {
        for (const mode of MODES) {
          const r = await run(['topic-hash:compute', 'orders', ...BOOT, '--command-config', file, ...mode])
          assertNoMarker(r, `jaas #${i} ${mode.join(' ')}: ${JSON.stringify(jaas)}`)
        }
      } finally {
        if (saved === undefined) delete process.env.REBALANCE_DOCTOR_SASL_JAAS_CONFIG
        else process.env.REBALANCE_DOCTOR_SASL_JAAS_CONFIG = saved
      }
    })
  })
})

describe('a malformed file: token URL', () => {
  for (const url of ['file://host:99999/x', 'file:%zz', 'file://[::1/x']) {
    it(`${url} is a usage error with a message (exit 2)`, async () => {
      const file = tempFile('client.properties', `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\nsasl.oauthbearer.token.endpoint.url=${url}\n`)
      const r = await run(['topic-hash:compute', 'orders', ...BOOT, '--command-config', file])
      expect(r.exitCode).toBe(2)
      expect(r.error?.message).toMatch(/sasl\.oauthbearer\.token\.endpoint\.url .*is not a valid file: URL/)
    })
  }
})
