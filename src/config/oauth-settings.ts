/**
 * OAUTHBEARER with an OAuth/OIDC token endpoint (the client-credentials grant), as Kafka's
 * OAuthBearerLoginCallbackHandler is configured: sasl.oauthbearer.token.endpoint.url (http or https), the client id,
 * secret and scope from sasl.oauthbearer.client.credentials.* / sasl.oauthbearer.scope (Kafka 4.1+) or, as before,
 * from clientId / clientSecret / scope in sasl.jaas.config (the config keys win, as in Kafka's ConfigOrJaas), and
 * the sasl.login.* timeouts and refresh window. The token itself is fetched by src/kafka/oauth.ts.
 */
import {InputError} from '../core/errors.js'
import type {OAuthTokenEndpoint} from './connection-settings.js'
import type {JaasEntry} from './jaas.js'
import {Secret} from './secret.js'
import type {Getter} from './tls-settings.js'

/** sasl.login.callback.handler.class values that mean Kafka's HTTP token retrieval (4.x name, then the older one). */
export const LOGIN_CALLBACK_HANDLERS = [
  'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
  'org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler',
] as const

/** A host or path that reads like it holds a secret (a lost "?" or "@" moves a query or user info into them). */
const SECRET_LOOKING = /secret|passw|credential|[?&=@]/i

/** The endpoint URL as messages show it: scheme, host, port and path; never user info or a query (they may hold secrets). */
export function shownEndpoint(url: URL): string {
  const safe = (part: string) => (SECRET_LOOKING.test(decodeURIComponentSafe(part)) ? '(not shown)' : part)
  return `${url.protocol}//${safe(url.host)}${url.pathname === '/' ? '/' : `/${safe(url.pathname.slice(1))}`}`
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Kafka's SaslConfigs defaults and ranges for the refresh of an expiring login credential. */
const REFRESH = {
  'sasl.login.refresh.window.factor': {fallback: 0.8, min: 0.5, max: 1},
  'sasl.login.refresh.window.jitter': {fallback: 0.05, min: 0, max: 0.25},
  'sasl.login.refresh.min.period.seconds': {fallback: 60, min: 0, max: 900},
  'sasl.login.refresh.buffer.seconds': {fallback: 300, min: 0, max: 3600},
} as const

export function tokenEndpointSettings(url: URL, get: Getter, where: (k: string) => string, jaas: JaasEntry | undefined): OAuthTokenEndpoint {
  const shown = shownEndpoint(url)
  const pick = (key: string, option: string) => get(key)?.trim() || jaas?.options.get(option)?.trim() || undefined
  const clientId = pick('sasl.oauthbearer.client.credentials.client.id', 'clientId')
  const clientSecret = pick('sasl.oauthbearer.client.credentials.client.secret', 'clientSecret')
  if (!clientId || !clientSecret) {
    throw new InputError(
      `the OAuth token endpoint ${shown} needs a client id and a client secret`,
      'Set sasl.oauthbearer.client.credentials.client.id and .client.secret (Kafka 4.1+), or clientId="…" clientSecret="…" in sasl.jaas.config.',
      'BAD_SETTING',
    )
  }
  const scope = pick('sasl.oauthbearer.scope', 'scope')
  const urlencode = (get('sasl.oauthbearer.header.urlencode') ?? 'false').trim().toLowerCase()
  if (urlencode !== 'true' && urlencode !== 'false') {
    throw new InputError(`sasl.oauthbearer.header.urlencode (${where('sasl.oauthbearer.header.urlencode')}) is not true or false`, undefined, 'BAD_SETTING')
  }
  const number = (key: keyof typeof REFRESH) => numberSetting(get, where, key, REFRESH[key])
  return {
    url: new Secret(url.href),
    shown,
    clientId,
    clientSecret: new Secret(clientSecret),
    ...(scope ? {scope} : {}),
    subClaimName: get('sasl.oauthbearer.sub.claim.name')?.trim() || 'sub',
    urlencodeHeader: urlencode === 'true',
    connectTimeoutMs: optionalMs(get, where, 'sasl.login.connect.timeout.ms'),
    readTimeoutMs: optionalMs(get, where, 'sasl.login.read.timeout.ms'),
    refresh: {
      windowFactor: number('sasl.login.refresh.window.factor'),
      windowJitter: number('sasl.login.refresh.window.jitter'),
      minPeriodSeconds: number('sasl.login.refresh.min.period.seconds'),
      bufferSeconds: number('sasl.login.refresh.buffer.seconds'),
    },
  }
}

function numberSetting(get: Getter, where: (k: string) => string, key: string, r: {fallback: number; min: number; max: number}): number {
  const text = get(key)?.trim()
  if (text === undefined || text === '') return r.fallback
  const n = Number(text)
  if (!Number.isFinite(n) || n < r.min || n > r.max) {
    throw new InputError(`${key} (${where(key)}) must be a number from ${r.min} to ${r.max}`, `Kafka's default is ${r.fallback}.`, 'BAD_SETTING')
  }
  return n
}

function optionalMs(get: Getter, where: (k: string) => string, key: string): number | undefined {
  const text = get(key)?.trim()
  if (text === undefined || text === '') return undefined
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n <= 0) throw new InputError(`${key} (${where(key)}) must be a positive number of milliseconds`, undefined, 'BAD_SETTING')
  return n
}
