/**
 * OAUTHBEARER tokens from an OAuth/OIDC token endpoint, as Kafka's OAuthBearerLoginCallbackHandler gets them with the
 * client-credentials grant (ClientSecretRequestFormatter, HttpJwtRetriever, ClientJwtValidator): a POST of
 * `grant_type=client_credentials[&scope=…]` with HTTP Basic auth (the client id and secret, URL-encoded only with
 * sasl.oauthbearer.header.urlencode=true, Kafka's default being false), `access_token` (or `id_token`) read from the
 * JSON answer, and the token taken only as a JWT with a numeric `exp` and a string subject claim.
 *
 * A token is kept for the process (a --watch opens a session each cycle) and replaced when Kafka's
 * ExpiringCredentialRefreshingLogin would refresh it (sasl.login.refresh.*: ~80 % of its lifetime); the next new
 * connection then authenticates with the new one. Errors name the endpoint as scheme://host/path, never the client
 * secret, the token, user info or a query.
 */
import {createRequire} from 'node:module'
import type {ClientRequest, IncomingMessage, RequestOptions} from 'node:http'
import type {OAuthTokenEndpoint} from '../config/connection-settings.js'
import {Secret, shownPlain} from '../config/secret.js'
import {RuntimeError} from '../core/errors.js'

export interface AccessToken {
  readonly token: Secret
  readonly subject: string
  readonly expiresAtMs: number
  /** When a new token is fetched instead of this one. */
  readonly refreshAtMs: number
}

type Refresh = OAuthTokenEndpoint['refresh']

/** The refresh time of a credential valid from `startMs` to `expireMs`, as Kafka's ExpiringCredentialRefreshingLogin.refreshMs computes it. */
export function refreshAtMs(nowMs: number, startMs: number, expireMs: number, r: Refresh, random: number): number {
  const pct = r.windowFactor + r.windowJitter * random
  // a lifetime shorter than the minimum period plus the buffer: refresh at the window factor of what is left
  if (nowMs + 1000 * (r.minPeriodSeconds + r.bufferSeconds) > expireMs) return nowMs + Math.floor((expireMs - nowMs) * pct)
  const proposed = Math.max(startMs + Math.floor((expireMs - startMs) * pct), nowMs + 1000 * r.minPeriodSeconds)
  return Math.min(proposed, expireMs - 1000 * r.bufferSeconds)
}

/** What an error says about the endpoint's answer: an RFC 6749 error code when it is a plain word, nothing else of the body. */
function errorCodeOf(body: string): string | undefined {
  try {
    const error = (JSON.parse(body) as {error?: unknown}).error
    return typeof error === 'string' && /^[\w.-]{1,64}$/.test(error) ? error : undefined
  } catch {
    return undefined
  }
}

function tokenError(message: string, hint: string): RuntimeError {
  return new RuntimeError(message, hint, 'OAUTH_TOKEN')
}

const CREDENTIALS_HINT =
  'Check the client id and secret (sasl.oauthbearer.client.credentials.client.id / .client.secret, or clientId / clientSecret in sasl.jaas.config), the scope, and sasl.oauthbearer.header.urlencode.'

/** The access token in a 2xx answer of the token endpoint (Kafka's JwtResponseParser: access_token, else id_token). */
export function accessTokenOf(status: number, body: string, shown: string): string {
  if (status < 200 || status > 299) {
    const code = errorCodeOf(body)
    throw tokenError(
      `the OAuth token endpoint ${shown} answered HTTP ${status}${code ? ` (${code})` : ''}`,
      status === 400 || status === 401 || status === 403
        ? CREDENTIALS_HINT
        : 'Check sasl.oauthbearer.token.endpoint.url (the token endpoint, …/token) and that the identity provider is up; try again.',
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    parsed = undefined
  }
  const o = (parsed ?? {}) as {access_token?: unknown; id_token?: unknown}
  const token = [o.access_token, o.id_token].find(t => typeof t === 'string' && t.trim() !== '') as string | undefined
  if (!token) {
    throw tokenError(
      `the OAuth token endpoint ${shown} answered HTTP ${status} ${parsed === undefined ? 'with a body that is not JSON' : 'without an access_token'}`,
      'Check that sasl.oauthbearer.token.endpoint.url is the token endpoint (…/token), not the issuer or a login page.',
    )
  }
  return token.trim()
}

/** The claims Kafka's ClientJwtValidator requires of the token: a numeric exp, the subject claim as a string; iat if given. */
export function tokenClaims(jwt: string, subClaimName: string, shown: string): {expMs: number; iatMs?: number; subject: string} {
  const parts = jwt.split('.')
  let claims: Record<string, unknown> | undefined
  try {
    if (parts.length === 3) claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>
  } catch {
    claims = undefined
  }
  const exp = claims?.exp
  const sub = claims?.[subClaimName]
  if (typeof exp !== 'number' || !Number.isFinite(exp) || typeof sub !== 'string' || sub.trim() === '') {
    throw tokenError(
      `the access token from ${shown} is not a JWT with a numeric exp claim and a string ${JSON.stringify(shownPlain(subClaimName))} claim, which Kafka's clients require`,
      'Have the identity provider issue JWT access tokens for this client; sasl.oauthbearer.sub.claim.name names the claim that holds the principal.',
    )
  }
  const iat = claims?.iat
  return {expMs: exp * 1000, ...(typeof iat === 'number' && Number.isFinite(iat) ? {iatMs: iat * 1000} : {}), subject: sub}
}

/** application/x-www-form-urlencoded, as Java's URLEncoder writes it. */
function formEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()~]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%20', '+')
}

/** The request Kafka's ClientSecretRequestFormatter makes: its headers and body. */
export function tokenRequest(e: OAuthTokenEndpoint): {headers: Record<string, string>; body: string} {
  const encode = (s: string) => (e.urlencodeHeader ? formEncode(s) : s)
  const basic = Buffer.from(`${encode(e.clientId)}:${encode(e.clientSecret.reveal())}`, 'utf8').toString('base64')
  // (Kafka puts the scope into the body as given unless header.urlencode; a form body needs it encoded, and a plain scope reads the same)
  const body = `grant_type=client_credentials${e.scope ? `&scope=${formEncode(e.scope)}` : ''}`
  return {
    headers: {
      Accept: 'application/json',
      Authorization: `Basic ${basic}`,
      'Cache-Control': 'no-cache',
      'Content-Type': 'application/x-www-form-urlencoded',
      'Content-Length': String(Buffer.byteLength(body)),
    },
    body,
  }
}

/** The largest token endpoint answer read (a token is a few KB). */
const MAX_BODY = 1 << 20

/** POSTs the token request; resolves with the status and body. `deadlineMs` bounds it whatever the sasl.login timeouts say. */
export function postTokenRequest(e: OAuthTokenEndpoint, deadlineMs: number): Promise<{status: number; body: string}> {
  const url = new URL(e.url.reveal())
  const mod = createRequire(import.meta.url)(url.protocol === 'https:' ? 'node:https' : 'node:http') as {
    request(url: URL, o: RequestOptions, cb: (res: IncomingMessage) => void): ClientRequest
  }
  const {headers, body} = tokenRequest(e)
  return new Promise((resolve, reject) => {
    const fail = (what: string, hint: string) => {
      req.destroy()
      reject(tokenError(`the OAuth token endpoint ${e.shown} ${what}`, hint))
    }
    const req = mod.request(url, {method: 'POST', headers}, res => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (size > MAX_BODY) fail(`answered with more than ${MAX_BODY} bytes`, 'Check sasl.oauthbearer.token.endpoint.url.')
        else chunks.push(c)
      })
      res.on('end', () => resolve({status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8')}))
      res.on('error', error => req.destroy(error))
    })
    armTimeouts(req, e, deadlineMs, fail)
    req.on('error', (error: NodeJS.ErrnoException) =>
      fail(
        `cannot be reached: ${error.code ?? 'network error'}`,
        "Check sasl.oauthbearer.token.endpoint.url and the network path to it; for https, that its certificate is trusted (Node's CA store; NODE_EXTRA_CA_CERTS adds a CA).",
      ),
    )
    req.end(body)
  })
}

function armTimeouts(req: ClientRequest, e: OAuthTokenEndpoint, deadlineMs: number, fail: (what: string, hint: string) => void): void {
  const left = Math.max(1, deadlineMs - Date.now())
  const overall = setTimeout(
    () => fail(`did not answer within ${left} ms (the operation's --timeout)`, 'Check that the identity provider is up; try again.'),
    left,
  )
  overall.unref()
  req.on('close', () => clearTimeout(overall))
  if (e.connectTimeoutMs !== undefined) {
    const ms = e.connectTimeoutMs
    const t = setTimeout(() => fail(`did not accept a connection within ${ms} ms (sasl.login.connect.timeout.ms)`, 'Check the network path to it.'), ms)
    t.unref()
    req.on('socket', s => s.once(s.connecting ? 'connect' : 'ready', () => clearTimeout(t)))
    req.on('close', () => clearTimeout(t))
  }
  if (e.readTimeoutMs !== undefined) {
    const ms = e.readTimeoutMs
    req.setTimeout(ms, () => fail(`did not answer within ${ms} ms (sasl.login.read.timeout.ms)`, 'Check that the identity provider is up; try again.'))
  }
}

/** Fetches a token and decides its refresh time. */
export async function fetchToken(e: OAuthTokenEndpoint, deadlineMs: number, now = Date.now, random = Math.random): Promise<AccessToken> {
  const {status, body} = await postTokenRequest(e, deadlineMs)
  const jwt = accessTokenOf(status, body, e.shown)
  const claims = tokenClaims(jwt, e.subClaimName, e.shown)
  const at = now()
  if (claims.expMs <= at) {
    throw tokenError(
      `the access token from ${e.shown} expired at ${new Date(claims.expMs).toISOString()}, before it was used`,
      'Check the clocks of this machine and of the identity provider.',
    )
  }
  return {
    token: new Secret(jwt),
    subject: claims.subject,
    expiresAtMs: claims.expMs,
    refreshAtMs: refreshAtMs(at, claims.iatMs ?? at, claims.expMs, e.refresh, random()),
  }
}

/** Tokens by endpoint and client, kept until their refresh time; one fetch at a time for each. */
export class OAuthTokens {
  readonly #tokens = new Map<string, AccessToken>()
  readonly #fetching = new Map<string, Promise<AccessToken>>()
  readonly #fetch: typeof fetchToken

  constructor(fetch: typeof fetchToken = fetchToken) {
    this.#fetch = fetch
  }

  /** A token to authenticate a new connection with: the one kept, or a new one once its refresh time has come. */
  async token(e: OAuthTokenEndpoint, deadlineMs: number, debug?: (line: string) => void): Promise<AccessToken> {
    const key = `${e.url.reveal()}\0${e.clientId}\0${e.scope ?? ''}`
    const kept = this.#tokens.get(key)
    if (kept && Date.now() < kept.refreshAtMs) return kept
    let fetching = this.#fetching.get(key)
    if (!fetching) {
      fetching = this.#fetch(e, deadlineMs).finally(() => this.#fetching.delete(key))
      this.#fetching.set(key, fetching)
    }
    const fresh = await fetching
    this.#tokens.set(key, fresh)
    const inS = (t: number) => `${Math.round((t - Date.now()) / 1000)} s`
    debug?.(`OAuth token from ${e.shown} for sub ${shownPlain(fresh.subject)}: expires in ${inS(fresh.expiresAtMs)}, replaced in ${inS(fresh.refreshAtMs)}`)
    return fresh
  }
}

/** The process's tokens: a --watch opens a new session each cycle and keeps its token until the refresh time. */
export const OAUTH_TOKENS = new OAuthTokens()
