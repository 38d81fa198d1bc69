/** sasl.* settings of a client.properties file and the JAAS line (moved out of ./client-config.ts). */
import {InputError} from '../core/errors.js'
import {ENV, type SaslMechanism, type SaslSettings} from './connection-settings.js'
import {type JaasEntry, LOGIN_MODULES, parseJaasConfig} from './jaas.js'
import {tokenEndpointSettings} from './oauth-settings.js'
import {Secret, shown} from './secret.js'
import {type Getter, readSettingFile} from './tls-settings.js'

export function saslSettings(get: Getter, where: (k: string) => string, env: NodeJS.ProcessEnv, readFile: (p: string) => string): SaslSettings {
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
      mechText === 'AWS_MSK_IAM'
        ? "Amazon MSK's IAM authentication needs AWS's Java library; use an MSK listener with SASL/SCRAM (SCRAM-SHA-512) or mutual TLS (security.protocol=SSL), or OAUTHBEARER where the cluster offers it."
        : 'Use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER.',
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
    const endpoint = get('sasl.oauthbearer.token.endpoint.url')?.trim()
    if (endpoint) return oauthEndpoint(endpoint, get, where, jaas, readFile)
    if (get('sasl.login.callback.handler.class')) {
      throw new InputError(
        'sasl.login.callback.handler.class names OAuthBearerLoginCallbackHandler but sasl.oauthbearer.token.endpoint.url is not set',
        'Set sasl.oauthbearer.token.endpoint.url to the OAuth token endpoint (https://…) or to a token file (file:/path/to/token).',
        'BAD_SETTING',
      )
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

/** OAUTHBEARER with sasl.oauthbearer.token.endpoint.url: a token file (file:) or an OAuth token endpoint (http, https). */
function oauthEndpoint(
  endpoint: string,
  get: Getter,
  where: (k: string) => string,
  jaas: JaasEntry | undefined,
  readFile: (p: string) => string,
): SaslSettings {
  const at = `sasl.oauthbearer.token.endpoint.url (${where('sasl.oauthbearer.token.endpoint.url')})`
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    // (a file: URL's own wording: one that starts as one is a token file written wrongly)
    const what = /^file:/i.test(endpoint) ? 'a valid file: URL' : 'a URL'
    throw new InputError(`${at} is not ${what}`, 'Write it as https://idp.example.com/oauth2/token, or file:/path/to/token for a token file.', 'BAD_SETTING')
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return {mechanism: 'OAUTHBEARER', tokenEndpoint: tokenEndpointSettings(url, get, where, jaas)}
  if (url.protocol !== 'file:' || (url.host !== '' && url.host !== 'localhost')) {
    throw new InputError(
      `${at} is neither an http(s) token endpoint nor a local file: URL`,
      'Write it as https://idp.example.com/oauth2/token, or file:/path/to/token (file:///path/to/token) for a token file.',
      'BAD_SETTING',
    )
  }
  let path: string
  try {
    path = decodeURIComponent(url.pathname)
  } catch {
    throw new InputError(`${at} is not a valid file: URL`, 'Percent-encode special characters (file:/path/to/token).', 'BAD_SETTING')
  }
  return {mechanism: 'OAUTHBEARER', token: new Secret(readSettingFile(readFile, path, 'sasl.oauthbearer.token.endpoint.url').trim())}
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
