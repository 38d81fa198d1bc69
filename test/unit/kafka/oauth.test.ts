/**
 * OAUTHBEARER tokens from an OAuth token endpoint (src/kafka/oauth.ts), against a token endpoint on loopback:
 * - the request is Kafka's ClientSecretRequestFormatter's: POST, form body grant_type=client_credentials[&scope],
 *   HTTP Basic with the client id and secret (URL-encoded only with sasl.oauthbearer.header.urlencode=true);
 * - the token is kept until Kafka's refresh time (ExpiringCredentialRefreshingLogin's rule), then fetched anew;
 * - every failure (HTTP 401, a body that is not JSON, no access_token, a token that is not a JWT, nothing
 *   listening, no answer in time) is one OAUTH_TOKEN error naming the endpoint without its query, and never the
 *   client secret or the token.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {afterEach, describe, expect, it} from 'vitest'
import type {OAuthTokenEndpoint} from '../../../src/config/connection-settings.js'
import {Secret} from '../../../src/config/secret.js'
import {RdError} from '../../../src/core/errors.js'
import {fetchToken, OAuthTokens, refreshAtMs} from '../../../src/kafka/oauth.js'

const SECRET = 'cl1ent:s3cret pw'
const KAFKA_REFRESH = {windowFactor: 0.8, windowJitter: 0.05, minPeriodSeconds: 60, bufferSeconds: 300}

function jwt(claims: object): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  return `${b64({alg: 'RS256', kid: 'k'})}.${b64(claims)}.c2lnbmF0dXJl`
}

interface Seen {
  method?: string
  authorization?: string
  contentType?: string
  body: string
}

let server: Server | undefined
afterEach(() => new Promise<void>(r => (server ? server.close(() => r()) : r())))

/** A token endpoint on loopback answering each request with `answer`; `seen` collects what was posted. */
async function tokenEndpoint(answer: (res: ServerResponse, n: number) => void): Promise<{port: number; seen: Seen[]}> {
  const seen: Seen[] = []
  server = createServer((req: IncomingMessage, res) => {
    let body = ''
    req.on('data', c => (body += c))
    req.on('end', () => {
      seen.push({method: req.method, authorization: req.headers.authorization, contentType: req.headers['content-type'], body})
      answer(res, seen.length)
    })
  })
  await new Promise<void>(r => server!.listen(0, '127.0.0.1', r))
  return {port: (server!.address() as {port: number}).port, seen}
}

function endpoint(port: number, o: Partial<OAuthTokenEndpoint> = {}): OAuthTokenEndpoint {
  return {
    url: new Secret(`http://127.0.0.1:${port}/oauth2/token?api-key=q-s3cret`),
    shown: `http://127.0.0.1:${port}/oauth2/token`,
    clientId: 'rd client',
    clientSecret: new Secret(SECRET),
    subClaimName: 'sub',
    urlencodeHeader: false,
    refresh: KAFKA_REFRESH,
    ...o,
  }
}

const json = (status: number, o: unknown) => (res: ServerResponse) => {
  res.writeHead(status, {'content-type': 'application/json'})
  res.end(typeof o === 'string' ? o : JSON.stringify(o))
}

async function failure(p: Promise<unknown>): Promise<RdError> {
  const e = await p.then(
    () => undefined,
    x => x as unknown,
  )
  expect(e).toBeInstanceOf(RdError)
  const err = e as RdError
  expect(err.code).toBe('OAUTH_TOKEN')
  for (const text of [err.message, err.hint ?? '']) {
    expect(text).not.toContain('s3cret')
    expect(text).not.toContain('api-key')
  }
  return err
}

describe('the token request', () => {
  it("is Kafka's: POST, a form body, HTTP Basic with the id and secret as given (header.urlencode=false)", async () => {
    const now = Math.floor(Date.now() / 1000)
    const {port, seen} = await tokenEndpoint(json(200, {access_token: jwt({sub: 'rd-app', iat: now, exp: now + 3600}), token_type: 'Bearer'}))
    const t = await fetchToken(endpoint(port, {scope: 'kafka read'}), Date.now() + 5000)
    expect(seen).toEqual([
      {
        method: 'POST',
        authorization: `Basic ${Buffer.from(`rd client:${SECRET}`).toString('base64')}`,
        contentType: 'application/x-www-form-urlencoded',
        body: 'grant_type=client_credentials&scope=kafka+read',
      },
    ])
    expect(t.subject).toBe('rd-app')
    expect(t.expiresAtMs).toBe((now + 3600) * 1000)
    expect(`${t.token}`).toBe('[redacted]')
  })

  it('with sasl.oauthbearer.header.urlencode=true the id and secret are URL-encoded (as Java URLEncoder); no scope, no scope parameter', async () => {
    const now = Math.floor(Date.now() / 1000)
    const {port, seen} = await tokenEndpoint(json(200, {id_token: jwt({azp: 'app', exp: now + 60})}))
    const t = await fetchToken(endpoint(port, {urlencodeHeader: true, subClaimName: 'azp'}), Date.now() + 5000)
    expect(Buffer.from(seen[0].authorization!.slice('Basic '.length), 'base64').toString()).toBe('rd+client:cl1ent%3As3cret+pw')
    expect(seen[0].body).toBe('grant_type=client_credentials')
    expect(t.subject).toBe('app')
  })
})

describe('failures are one OAUTH_TOKEN error naming the endpoint, never the secret, the token or the query', () => {
  it('HTTP 401 with an RFC 6749 error code: the status, the code, what to check', async () => {
    const {port} = await tokenEndpoint(json(401, {error: 'invalid_client', error_description: `bad secret ${SECRET}`}))
    const e = await failure(fetchToken(endpoint(port), Date.now() + 5000))
    expect(e.message).toBe(`the OAuth token endpoint http://127.0.0.1:${port}/oauth2/token answered HTTP 401 (invalid_client)`)
    expect(e.hint).toContain('client id and secret')
  })

  it.each([
    ['a body that is not JSON', json(200, '<html>login</html>'), /answered HTTP 200 with a body that is not JSON$/],
    ['no access_token', json(200, {token_type: 'Bearer'}), /answered HTTP 200 without an access_token$/],
    ['an opaque token', json(200, {access_token: 'opaque-t0ken-value'}), /is not a JWT with a numeric exp claim and a string "sub" claim/],
    ['a JWT without exp', json(200, {access_token: jwt({sub: 'x'})}), /is not a JWT with a numeric exp claim/],
    ['an expired JWT', json(200, {access_token: jwt({sub: 'x', exp: 1000})}), /expired at 1970-01-01T00:16:40.000Z, before it was used$/],
    ['HTTP 503', json(503, 'down'), /answered HTTP 503$/],
  ])('%s', async (_what, answer, message) => {
    const {port} = await tokenEndpoint(answer)
    const e = await failure(fetchToken(endpoint(port), Date.now() + 5000))
    expect(e.message).toMatch(message)
    expect(e.message).not.toContain('opaque-t0ken')
  })

  it('nothing listening: cannot be reached, with the error code', async () => {
    const {port} = await tokenEndpoint(json(200, {}))
    await new Promise<void>(r => server!.close(() => r()))
    server = undefined
    const e = await failure(fetchToken(endpoint(port), Date.now() + 5000))
    expect(e.message).toBe(`the OAuth token endpoint http://127.0.0.1:${port}/oauth2/token cannot be reached: ECONNREFUSED`)
  })

  it('no answer within sasl.login.read.timeout.ms, or within the operation deadline', async () => {
    const {port} = await tokenEndpoint(() => {})
    const t0 = Date.now()
    const read = await failure(fetchToken(endpoint(port, {readTimeoutMs: 300}), Date.now() + 5000))
    expect(read.message).toMatch(/did not answer within 300 ms \(sasl\.login\.read\.timeout\.ms\)$/)
    const deadline = await failure(fetchToken(endpoint(port), Date.now() + 300))
    expect(deadline.message).toMatch(/did not answer within \d+ ms \(the operation's --timeout\)$/)
    expect(Date.now() - t0).toBeLessThan(3000)
  })
})

describe('refresh', () => {
  it("Kafka's rule: the window factor (+ jitter) of the lifetime, kept between the minimum period and the buffer before expiry", () => {
    const h = 3_600_000
    expect(refreshAtMs(0, 0, h, KAFKA_REFRESH, 0)).toBe(0.8 * h)
    expect(refreshAtMs(0, 0, h, KAFKA_REFRESH, 1)).toBe(0.85 * h)
    expect(refreshAtMs(0, 0, h, {...KAFKA_REFRESH, windowFactor: 1}, 0)).toBe(h - 300_000) // not within the 300 s buffer
    expect(refreshAtMs(0, 0, 400_000, {...KAFKA_REFRESH, windowFactor: 0.5}, 0)).toBe(100_000) // 200 s would be within the buffer
    expect(refreshAtMs(0, 0, 500_000, {...KAFKA_REFRESH, windowFactor: 0.1 + 0.4, minPeriodSeconds: 300, bufferSeconds: 0}, 0)).toBe(300_000) // not before the minimum period
    expect(refreshAtMs(0, 0, 10 * h, {...KAFKA_REFRESH, windowJitter: 0}, 0)).toBe(8 * h)
    // a token shorter than min period + buffer (60 + 300 s): the factor of what is left
    expect(refreshAtMs(1000, 1000, 11_000, KAFKA_REFRESH, 0)).toBe(9000)
  })

  it('a token is kept until its refresh time, then fetched anew; concurrent connections share one fetch', async () => {
    const now = Math.floor(Date.now() / 1000)
    const {port, seen} = await tokenEndpoint(json(200, {access_token: jwt({sub: 'rd-app', exp: now + 3600})}))
    const tokens = new OAuthTokens()
    const e = endpoint(port)
    const [a, b] = await Promise.all([tokens.token(e, Date.now() + 5000), tokens.token(e, Date.now() + 5000)])
    expect(a).toBe(b)
    expect(await tokens.token(e, Date.now() + 5000)).toBe(a)
    expect(seen).toHaveLength(1)
    const short = endpoint(port, {refresh: {...KAFKA_REFRESH, windowFactor: 0.5, windowJitter: 0}})
    const lines: string[] = []
    const c = await new OAuthTokens(async (x, d) => ({...(await fetchToken(x, d)), refreshAtMs: Date.now() - 1})).token(short, Date.now() + 5000, l =>
      lines.push(l),
    )
    expect(c.subject).toBe('rd-app')
    expect(seen).toHaveLength(2)
    expect(lines.join('\n')).toMatch(/^OAuth token from http:\/\/127\.0\.0\.1:\d+\/oauth2\/token for sub rd-app: expires in \d+ s, replaced in -?\d+ s$/)
  })
})
