import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {inspect} from 'node:util'
import {describe, expect, it} from 'vitest'
import {InputError} from '../../../src/core/errors.js'
import {describeSettings, envNameOf, parseBootstrap, resolveConnectionSettings} from '../../../src/config/client-config.js'
import {parseJaasConfig} from '../../../src/config/jaas.js'
import {ROOT} from '../helpers.js'

const CA = '-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----'
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----'
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIkey-secret-bytes\n-----END PRIVATE KEY-----'
const ENC_KEY = '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIenc\n-----END ENCRYPTED PRIVATE KEY-----'
const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule'
const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule'

const OAUTH = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule'

function settings(props: string, opts: {env?: NodeJS.ProcessEnv; files?: Record<string, string>; bootstrap?: string} = {}) {
  const files: Record<string, string> = {'client.properties': props, ...opts.files}
  return resolveConnectionSettings({
    bootstrapServer: opts.bootstrap ?? 'k1:9092',
    commandConfig: 'client.properties',
    env: opts.env ?? {},
    readFile(p) {
      if (!(p in files)) throw Object.assign(new Error('nope'), {code: 'ENOENT'})
      return files[p]
    },
  })
}

function inputError(f: () => unknown): InputError {
  try {
    f()
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return error as InputError
  }
  throw new Error('expected an InputError')
}

describe('bootstrap servers', () => {
  it('parses host:port lists, IPv6 in brackets, and ignores empty items', () => {
    expect(parseBootstrap('a:1, b.example.com:9092,,[::1]:9093')).toEqual([
      {host: 'a', port: 1},
      {host: 'b.example.com', port: 9092},
      {host: '::1', port: 9093},
    ])
  })
  it.each(['kafka', 'kafka:', 'kafka:0', 'kafka:70000', 'PLAINTEXT://kafka:9092', ''])('rejects %j with the bad value quoted', bad => {
    const e = inputError(() => parseBootstrap(bad))
    if (bad) expect(e.message).toContain(`"${bad.split(',')[0].trim()}"`)
  })
  it('--bootstrap-server wins over bootstrap.servers in the file, which is used otherwise', () => {
    expect(settings('bootstrap.servers=f:1').bootstrap).toEqual([{host: 'k1', port: 9092}])
    const s = resolveConnectionSettings({commandConfig: 'c', env: {}, readFile: () => 'bootstrap.servers=f:1,g:2'})
    expect(s.bootstrap).toEqual([
      {host: 'f', port: 1},
      {host: 'g', port: 2},
    ])
  })
  it('no bootstrap at all is an InputError naming the flag and the variable', () => {
    const e = inputError(() => resolveConnectionSettings({env: {}}))
    expect(e.hint).toContain('--bootstrap-server')
    expect(e.hint).toContain('KAFKA_BOOTSTRAP_SERVERS')
  })
})

describe('security settings', () => {
  it('defaults: PLAINTEXT, client id rebalance-doctor, 30 s', () => {
    const s = settings('')
    expect(s).toMatchObject({securityProtocol: 'PLAINTEXT', clientId: 'rebalance-doctor', timeoutMs: 30_000})
    expect(s.tls).toBeUndefined()
    expect(s.sasl).toBeUndefined()
  })

  it('SASL_SSL with SCRAM, a PEM truststore file and no host name check', () => {
    const s = settings(
      [
        'security.protocol=sasl_ssl',
        'sasl.mechanism=SCRAM-SHA-512',
        `sasl.jaas.config=${SCRAM} required \\`,
        '   username="alice" password="alice-\\\\"secret";',
        'ssl.truststore.type=PEM',
        'ssl.truststore.location=/tls/ca.pem',
        'ssl.endpoint.identification.algorithm=',
        'client.id=ops',
        'linger.ms=5',
      ].join('\n'),
      {files: {'/tls/ca.pem': `junk\n${CA}\n`}},
    )
    expect(s.securityProtocol).toBe('SASL_SSL')
    expect(s.clientId).toBe('ops')
    expect(s.sasl?.mechanism).toBe('SCRAM-SHA-512')
    expect(s.sasl?.username).toBe('alice')
    expect(s.sasl?.password?.reveal()).toBe('alice-"secret')
    expect(s.tls).toMatchObject({ca: `${CA}\n`, verifyHostname: false})
    expect(s.ignoredKeys).toEqual(['linger.ms'])
  })

  it('SSL with a PEM keystore file (key and chain) and an encrypted key with ssl.key.password', () => {
    const s = settings('security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location=/ks.pem\nssl.key.password=kp', {
      files: {'/ks.pem': `${ENC_KEY}\n${CERT}\n${CA}\n`},
    })
    expect(s.tls?.cert).toBe(`${CERT}\n${CA}\n`)
    expect(s.tls?.key?.reveal()).toBe(`${ENC_KEY}\n`)
    expect(s.tls?.keyPassword?.reveal()).toBe('kp')
    expect(s.tls?.verifyHostname).toBe(true)
    expect(s.tls?.ca).toBeUndefined()
  })

  it('inline PEM: ssl.truststore.certificates, ssl.keystore.certificate.chain and ssl.keystore.key', () => {
    const esc = (t: string) => t.replaceAll('\n', '\\n')
    const s = settings(
      `security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.certificates=${esc(CA)}\nssl.keystore.type=PEM\nssl.keystore.certificate.chain=${esc(CERT)}\nssl.keystore.key=${esc(KEY)}`,
    )
    expect(s.tls).toMatchObject({ca: `${CA}\n`, cert: `${CERT}\n`})
    expect(s.tls?.key?.reveal()).toBe(`${KEY}\n`)
  })

  it('an encrypted key without ssl.key.password is an InputError', () => {
    inputError(() => settings('security.protocol=SSL\nssl.keystore.location=/ks.pem', {files: {'/ks.pem': `${ENC_KEY}\n${CERT}`}}))
  })

  it.each([
    ['ssl.truststore.type=JKS\nssl.truststore.location=/t.jks', 'JKS truststores', 'ssl.truststore.type=PKCS12'],
    ['ssl.truststore.location=/t.jks', 'JKS truststores', 'ssl.truststore.type=PKCS12'],
    ['ssl.keystore.type=JKS\nssl.keystore.location=/t.jks', 'JKS keystores', 'ssl.keystore.type=PKCS12'],
    ['ssl.keystore.location=/t.jks', 'JKS keystores', 'ssl.keystore.type=PKCS12'],
    ['ssl.keystore.type=BKS\nssl.keystore.location=/t.jks', 'BKS keystores', 'ssl.keystore.type=PKCS12'],
  ])('a JKS (or other) store (%j) is refused with the keytool conversion to PKCS12', (props, what, how) => {
    const e = inputError(() => settings(`security.protocol=SSL\n${props}`, {files: {'/t.jks': '\u00fe\u00ed\u00fe\u00ed binary'}}))
    expect(e.message).toMatch(new RegExp(`^${what} are not supported \\(client\\.properties:\\d\\); only PKCS12 and PEM$`))
    expect(e.hint).toContain('keytool -importkeystore')
    expect(e.hint).toContain(how)
  })

  it.each([
    ['security.protocol=SASL_SSL', 'GSSAPI'],
    ['security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI', 'GSSAPI'],
    [
      'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;',
      'Kerberos',
    ],
    ['sasl.kerberos.service.name=kafka', 'GSSAPI'],
    ['security.protocol=SASL_SSL\nsasl.mechanism=AWS_MSK_IAM', 'not supported'],
    ['security.protocol=TLS', 'not one of'],
  ])('unsupported SASL/protocol settings (%j) give a clear InputError', (props, text) => {
    const e = inputError(() => settings(props))
    expect(`${e.message} ${e.hint ?? ''}`).toContain(text)
  })

  it('PLAIN needs PlainLoginModule; a mismatched module is an InputError', () => {
    const s = settings(`security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=${PLAIN} required username=bob password=pw;`)
    expect(s.sasl).toMatchObject({mechanism: 'PLAIN', username: 'bob'})
    expect(s.sasl?.password?.reveal()).toBe('pw')
    inputError(() => settings(`security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=${SCRAM} required username=bob password=pw;`))
  })

  it('environment: REBALANCE_DOCTOR_<KEY> fills keys the file lacks; the file wins; username/password variables', () => {
    expect(envNameOf('sasl.jaas.config')).toBe('REBALANCE_DOCTOR_SASL_JAAS_CONFIG')
    const env = {
      REBALANCE_DOCTOR_SECURITY_PROTOCOL: 'SASL_PLAINTEXT',
      REBALANCE_DOCTOR_SASL_MECHANISM: 'SCRAM-SHA-256',
      REBALANCE_DOCTOR_SASL_USERNAME: 'env-user',
      REBALANCE_DOCTOR_SASL_PASSWORD: 'env-pw',
      REBALANCE_DOCTOR_CLIENT_ID: 'from-env',
    }
    const s = settings('client.id=from-file', {env})
    expect(s).toMatchObject({securityProtocol: 'SASL_PLAINTEXT', clientId: 'from-file', sasl: {mechanism: 'SCRAM-SHA-256', username: 'env-user'}})
    expect(s.sasl?.password?.reveal()).toBe('env-pw')
  })

  it('OAUTHBEARER: a token from the environment, a file: endpoint, or an unsecured test JWT', () => {
    const base = 'security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n'
    expect(settings(base, {env: {REBALANCE_DOCTOR_SASL_OAUTHBEARER_TOKEN: 'tok '}}).sasl?.token?.reveal()).toBe('tok')
    expect(settings(`${base}sasl.oauthbearer.token.endpoint.url=file:///t/token`, {files: {'/t/token': 'ey.file\n'}}).sasl?.token?.reveal()).toBe('ey.file')
    const u = settings(
      `${base}sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="admin";`,
    )
    const [h, p, sig] = u.sasl!.token!.reveal().split('.')
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({alg: 'none'})
    expect(JSON.parse(Buffer.from(p, 'base64url').toString()).sub).toBe('admin')
    expect(sig).toBe('')
    inputError(() => settings(base))
  })

  describe('OAUTHBEARER with an OAuth token endpoint (client credentials)', () => {
    const base = 'security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\nsasl.oauthbearer.token.endpoint.url=https://idp.example.com/oauth2/token?tenant=t1\n'
    const handler = 'sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n'
    const jaas = (opts: string) => `sasl.jaas.config=${OAUTH} required ${opts};\n`

    it('clientId, clientSecret and scope from sasl.jaas.config; Kafka defaults for the refresh window; the endpoint shown without its query', () => {
      const s = settings(`${base}${handler}${jaas('clientId="rd" clientSecret="cl1ent-s3cret" scope="kafka"')}`)
      const e = s.sasl!.tokenEndpoint!
      expect(e).toMatchObject({shown: 'https://idp.example.com/oauth2/token', clientId: 'rd', scope: 'kafka', subClaimName: 'sub', urlencodeHeader: false})
      expect(e.refresh).toEqual({windowFactor: 0.8, windowJitter: 0.05, minPeriodSeconds: 60, bufferSeconds: 300})
      expect(e.clientSecret.reveal()).toBe('cl1ent-s3cret')
      for (const text of [describeSettings(s), JSON.stringify(s), inspect(s, {depth: 10})]) {
        expect(text).not.toContain('cl1ent-s3cret')
        expect(text).not.toContain('tenant')
      }
      expect(describeSettings(s)).toContain('sasl.oauthbearer.token.endpoint=https://idp.example.com/oauth2/token sasl.oauthbearer.client.id=rd')
    })

    it("Kafka 4.1's sasl.oauthbearer.client.credentials.* and sasl.oauthbearer.scope win over the JAAS options; the older handler class name; sasl.login.* read", () => {
      const s = settings(
        `${base}sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler\n${jaas('clientId="old" clientSecret="old-pw"')}` +
          'sasl.oauthbearer.client.credentials.client.id=new\nsasl.oauthbearer.client.credentials.client.secret=new-pw\nsasl.oauthbearer.scope=a b\n' +
          'sasl.oauthbearer.sub.claim.name=azp\nsasl.oauthbearer.header.urlencode=true\nsasl.login.connect.timeout.ms=2000\nsasl.login.read.timeout.ms=3000\n' +
          'sasl.login.refresh.window.factor=0.5\nsasl.login.refresh.window.jitter=0\nsasl.login.refresh.min.period.seconds=1\nsasl.login.refresh.buffer.seconds=2\n',
      )
      const e = s.sasl!.tokenEndpoint!
      expect(e).toMatchObject({clientId: 'new', scope: 'a b', subClaimName: 'azp', urlencodeHeader: true, connectTimeoutMs: 2000, readTimeoutMs: 3000})
      expect(e.clientSecret.reveal()).toBe('new-pw')
      expect(e.refresh).toEqual({windowFactor: 0.5, windowJitter: 0, minPeriodSeconds: 1, bufferSeconds: 2})
    })

    it.each([
      [`${base}${handler}${jaas('clientId="rd"')}`, /needs a client id and a client secret$/, 'BAD_SETTING'],
      [
        `${base}${jaas('clientId="rd" clientSecret="pw"')}sasl.login.refresh.window.factor=2\n`,
        /window.factor .* must be a number from 0.5 to 1$/,
        'BAD_SETTING',
      ],
      [
        `${base}${jaas('clientId="rd" clientSecret="pw"')}sasl.login.read.timeout.ms=-1\n`,
        /read.timeout.ms .* positive number of milliseconds$/,
        'BAD_SETTING',
      ],
      [`${base}${jaas('clientId="rd" clientSecret="pw"')}sasl.oauthbearer.header.urlencode=yes\n`, /is not true or false$/, 'BAD_SETTING'],
      [
        `${base}${jaas('clientId="rd" clientSecret="pw"')}sasl.oauthbearer.assertion.file=/a.jwt\n`,
        /jwt-bearer grant\) is not supported/,
        'UNSUPPORTED_SETTING',
      ],
      [`${base}sasl.login.callback.handler.class=com.example.MyHandler\n`, /custom Java login callback handlers cannot run here$/, 'UNSUPPORTED_SETTING'],
      [`security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n${handler}`, /token.endpoint.url is not set$/, 'BAD_SETTING'],
      [
        'security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\nsasl.oauthbearer.token.endpoint.url=ftp://idp/token\n',
        /neither an http\(s\) token endpoint nor a local file/,
        'BAD_SETTING',
      ],
    ])('%j is an InputError naming the setting', (props, message, code) => {
      const e = inputError(() => settings(props))
      expect(e.message).toMatch(message)
      expect(e.code).toBe(code)
      expect(`${e.message} ${e.hint}`).not.toContain('pw"')
    })

    it('AWS_MSK_IAM is refused with what to use instead', () => {
      const e = inputError(() => settings('security.protocol=SASL_SSL\nsasl.mechanism=AWS_MSK_IAM'))
      expect(e.message).toBe('sasl.mechanism "AWS_MSK_IAM" (client.properties:2) is not supported')
      expect(e.hint).toContain('SCRAM-SHA-512')
    })
  })

  it('a missing file named by a setting names the key and the path', () => {
    const e = inputError(() => settings('security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=/nope.pem'))
    expect(e.message).toBe('ssl.truststore.location: file /nope.pem does not exist')
  })

  it('secrets never show in describeSettings, JSON, inspect or errors', () => {
    const s = settings(
      `security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=${SCRAM} required username="alice" password="s3cr3t-pw";\nssl.keystore.type=PEM\nssl.keystore.location=/ks.pem\nssl.key.password=k3y-pw`,
      {files: {'/ks.pem': `${ENC_KEY}\n${CERT}`}},
    )
    for (const text of [describeSettings(s), JSON.stringify(s), inspect(s, {depth: 10}), `${s.sasl?.password}`]) {
      expect(text).not.toContain('s3cr3t-pw')
      expect(text).not.toContain('k3y-pw')
      expect(text).not.toContain('MIIenc')
    }
    expect(describeSettings(s)).toContain('sasl.username=alice')
    // A jaas syntax error quotes no value.
    const e = inputError(() =>
      settings(`security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=${PLAIN} required username="u" password="s3cr3t-pw`),
    )
    expect(e.message).not.toContain('s3cr3t-pw')
  })
})

describe('parseJaasConfig', () => {
  it('reads quoted and bare values with escapes', () => {
    const j = parseJaasConfig(`${SCRAM}  REQUIRED username=alice password="p\\"w;x" tokenauth=true ;`)
    expect(j.loginModule).toBe(SCRAM)
    expect(j.flag).toBe('required')
    expect(Object.fromEntries(j.options)).toEqual({username: 'alice', password: 'p"w;x', tokenauth: 'true'})
  })
  it.each([`${SCRAM} required username="a"`, `${SCRAM} username="a";`, `${SCRAM} required username;`, `${SCRAM} required; other required;`])(
    'rejects %j',
    t => {
      inputError(() => parseJaasConfig(t))
    },
  )
})

describe('a --command-config file with a secret that others can read', () => {
  const secret = 'hunter2-s3cr3t'
  const text = `bootstrap.servers=k:9092\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="${secret}";\n`
  async function file(mode: number): Promise<string> {
    const {mkdtempSync, writeFileSync, chmodSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {tmpdir} = await import('node:os')
    const f = join(mkdtempSync(join(tmpdir(), 'rd-props-')), 'client.properties')
    writeFileSync(f, text)
    chmodSync(f, mode)
    return f
  }

  it('warns, as ssh and kcl do, naming the file, its mode and the key, never the secret', async () => {
    for (const [mode, who] of [
      [0o644, 'its group and all users'],
      [0o604, 'all users'],
      [0o640, 'its group'],
    ] as const) {
      const f = await file(mode)
      const s = resolveConnectionSettings({commandConfig: f, env: {}})
      expect(s.warnings).toEqual([`${f} holds sasl.jaas.config and is readable by ${who} (mode 0${mode.toString(8)}): restrict it with chmod 600 ${f}`])
      expect(JSON.stringify(s.warnings)).not.toContain(secret)
    }
  })

  it('no warning for mode 600, or for a file without a secret', async () => {
    expect(resolveConnectionSettings({commandConfig: await file(0o600), env: {}}).warnings).toBeUndefined()
    const {writeFileSync} = await import('node:fs')
    const f = await file(0o644)
    writeFileSync(f, 'bootstrap.servers=k:9092\nsecurity.protocol=PLAINTEXT\nssl.key.password=\n')
    expect(resolveConnectionSettings({commandConfig: f, env: {}}).warnings).toBeUndefined()
  })

  it('the warning reaches the command (withKafka: stderr, or --json warnings)', async () => {
    const {withKafka} = await import('../../../src/kafka/session.js')
    const f = await file(0o644)
    const warned: string[] = []
    await withKafka(
      {'command-config': f} as never,
      {warn: m => void warned.push(m)},
      async () => 1,
      async () => ({close: async () => {}}) as never,
    )
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatch(/readable by its group and all users \(mode 0644\): restrict it with chmod 600/)
  })
})

describe('keys no Kafka client knows', () => {
  it('each is warned about in Kafka words, with its file and line and the nearest known key', () => {
    const s = settings('requst.timeout.ms=5000\nlinger.ms=5\nrequest.priority=1\ngroup.id=g\n')
    expect(s.warnings).toEqual([
      "the configuration 'request.priority' (client.properties:3) was supplied but isn't a known config",
      "the configuration 'requst.timeout.ms' (client.properties:1) was supplied but isn't a known config; did you mean request.timeout.ms?",
    ])
    // known to Kafka's clients but unused here: no warning, only the --debug count
    expect(s.ignoredKeys).toEqual(['group.id', 'linger.ms', 'request.priority', 'requst.timeout.ms'])
  })

  it('a file of known keys only gives no warning', () => {
    expect(settings('security.protocol=PLAINTEXT\nclient.id=x\nrequest.timeout.ms=1\nacks=all\n').warnings).toBeUndefined()
  })

  it.each([
    ['security.protocl=SASL_SSL', 'security.protocl', 'security.protocol'],
    ['sasl.mechansim=PLAIN', 'sasl.mechansim', 'sasl.mechanism'],
    ['ssl.truststore.locaton=/ca.pem', 'ssl.truststore.locaton', 'ssl.truststore.location'],
  ])('a misspelled security key (%s) is a usage error naming it and the nearest key, not a plain-text connection', (line, key, nearest) => {
    const e = inputError(() => settings(`${line}\n`))
    expect(e.code).toBe('UNKNOWN_SETTING')
    expect(e.exitCode).toBe(2)
    expect(e.message).toBe(
      `the configuration '${key}' (client.properties:1) was supplied but isn't a known config: a misspelled security setting would connect without it`,
    )
    expect(e.hint).toMatch(new RegExp(`^Did you mean ${nearest.replaceAll('.', '\\.')}\\? `))
  })

  it('a security key far from any known one is an error too, without a guess', () => {
    const e = inputError(() => settings('ssl.zzzzzzzz=1\n'))
    expect(e.code).toBe('UNKNOWN_SETTING')
    expect(e.hint).not.toContain('Did you mean')
  })

  it('a key with a value joined on (a lost "=") or that is no config name is never quoted: it may be a secret', () => {
    const e = inputError(() => settings('ssl.key.passwordhunter2\n'))
    expect(e.message).toContain("'ssl.key.password' with more characters joined on")
    expect(e.message + e.hint).not.toContain('hunter2')
    // a certificate chain or a location is no password, but what was joined onto it is not shown either
    const chain = inputError(() => settings('ssl.keystore.certificate.chainq7-marker\n'))
    expect(chain.message).toContain("'ssl.keystore.certificate.chain' with more characters joined on")
    expect(chain.message + chain.hint).not.toContain('q7-marker')
    // with a value too: a lost newline can join a secret and the next line's key (the value is that key's)
    const joinedLines = inputError(() => settings('ssl.keystore.certificate.chainq7-markerssl.keystore.password=pw\n'))
    expect(joinedLines.message + joinedLines.hint).not.toContain('q7-marker')
    // so a typo that extends a known key is named by that key, not quoted
    expect(settings('client.idd=x\n').warnings).toEqual([
      "the configuration 'client.id' with more characters joined on (a lost \"=\"?) (client.properties:1) was supplied but isn't a known config; did you mean client.id?",
    ])
    // a line that is only a secret (a broken continuation), or one with a dot in it: its key is not shown
    for (const line of ['s3cr3t/passw0rd+=x', 'zq9markersecret.x=1']) {
      expect(settings(`${line}\n`).warnings, line).toEqual([
        "the configuration a key that does not look like a config name (not shown: a broken line?) (client.properties:1) was supplied but isn't a known config",
      ])
    }
    // a line with no value is not shown even when it looks like a config name: its separator may be what was lost
    for (const line of ['Zq9MarkerSecret', 'sasl.login.q7marker', 'ssl.truststore.certiq7-marker']) {
      const shown = (() => {
        try {
          return settings(`${line}\n`).warnings?.join('\n') ?? ''
        } catch (error) {
          return `${(error as Error).message}\n${(error as {hint?: string}).hint}`
        }
      })()
      expect(shown, line).toContain('a key with no value (not shown: a lost "=" may have joined a value onto it) (client.properties:1)')
      expect(shown, line).not.toMatch(/q7|Zq9/)
    }
  })

  it('the warnings come before the exposed-file warning and reach withKafka', async () => {
    const {withKafka} = await import('../../../src/kafka/session.js')
    const {mkdtempSync, writeFileSync, chmodSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {tmpdir} = await import('node:os')
    const f = join(mkdtempSync(join(tmpdir(), 'rd-props-')), 'client.properties')
    writeFileSync(f, 'bootstrap.servers=k:9092\nclent.id=x\n')
    chmodSync(f, 0o600)
    const warned: string[] = []
    await withKafka(
      {'command-config': f} as never,
      {warn: m => void warned.push(m)},
      async () => 1,
      async () => ({close: async () => {}}) as never,
    )
    expect(warned).toEqual([`the configuration 'clent.id' (${f}:2) was supplied but isn't a known config; did you mean client.id?`])
  })
})

describe('nearestKnownKey and editDistance', () => {
  it('counts a transposition as one edit and finds nothing for a key far from every known one', async () => {
    const {nearestKnownKey} = await import('../../../src/config/known-keys.js')
    const {editDistance} = await import('../../../src/core/nearest.js')
    expect(editDistance('protocol', 'protocl')).toBe(1)
    expect(editDistance('mechanism', 'mechansim')).toBe(1)
    expect(editDistance('', 'abc')).toBe(3)
    expect(nearestKnownKey('bootstrap.server')).toBe('bootstrap.servers')
    expect(nearestKnownKey('foo.bar')).toBeUndefined()
  })
})

describe('start-up: the PKCS12 reader (node-forge) is loaded with the first PKCS12 store', () => {
  const forgeLoaded = () => Object.keys(createRequire(import.meta.url).cache).some(f => /node_modules[\\/]node-forge[\\/]/.test(f))

  it('not for PEM stores; then for a PKCS12 truststore', () => {
    const store = join(ROOT, 'test/fixtures/pkcs12/truststore.p12')
    const pem = settings(`security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=/ca.pem`, {files: {'/ca.pem': CA}})
    expect(pem.tls?.ca).toContain('BEGIN CERTIFICATE')
    expect(forgeLoaded()).toBe(false)
    const p12 = resolveConnectionSettings({
      bootstrapServer: 'k1:9093',
      commandConfig: 'client.properties',
      env: {},
      fileMode: () => 0o600,
      readFile: () => `security.protocol=SSL\nssl.truststore.location=${store}\nssl.truststore.password=trust-pw`,
      readBytes: p => readFileSync(p),
    })
    expect(p12.tls?.ca).toContain('BEGIN CERTIFICATE')
    expect(forgeLoaded()).toBe(true)
  })
})
