/**
 * An OAuth token endpoint on loopback for the test cluster's OIDC listener: the client-credentials grant with HTTP
 * Basic auth, answered with an RS256 JWT signed by the key cluster.sh made (OIDC_PRIVATE_KEY_PEM; the brokers check it
 * against the JWKS file), with the audience and issuer the brokers expect. A wrong client secret gets HTTP 401
 * {"error":"invalid_client"}, as identity providers answer.
 */
import {createPrivateKey, createSign} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'

export interface TokenEndpoint {
  readonly url: string
  /** Tokens issued so far. */
  readonly issued: string[]
  /** Requests refused (wrong client id or secret). */
  readonly refused: number
  close(): Promise<void>
}

export interface TokenEndpointOptions {
  readonly env: Record<string, string>
  readonly clientId: string
  readonly clientSecret: string
  readonly sub: string
  /** The lifetime of each token, in seconds. */
  readonly lifetimeS: number
}

function b64url(o: object): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url')
}

export async function startTokenEndpoint(o: TokenEndpointOptions): Promise<TokenEndpoint> {
  const key = createPrivateKey(readFileSync(o.env.OIDC_PRIVATE_KEY_PEM))
  const expected = `Basic ${Buffer.from(`${o.clientId}:${o.clientSecret}`).toString('base64')}`
  const issued: string[] = []
  let refused = 0
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      if (req.method !== 'POST' || req.headers.authorization !== expected) {
        refused++
        res.writeHead(401, {'content-type': 'application/json'})
        res.end('{"error":"invalid_client","error_description":"client authentication failed"}')
        return
      }
      const now = Math.floor(Date.now() / 1000)
      const claims = {sub: o.sub, aud: o.env.OIDC_AUDIENCE, iss: o.env.OIDC_ISSUER, iat: now, exp: now + o.lifetimeS, scope: 'kafka'}
      const signed = `${b64url({alg: 'RS256', typ: 'JWT', kid: o.env.OIDC_KEY_ID})}.${b64url(claims)}`
      const token = `${signed}.${createSign('RSA-SHA256').update(signed).sign(key).toString('base64url')}`
      issued.push(token)
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({access_token: token, token_type: 'Bearer', expires_in: o.lifetimeS}))
    })
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  const {port} = server.address() as {port: number}
  return {
    url: `http://127.0.0.1:${port}/oauth2/token`,
    issued,
    get refused() {
      return refused
    },
    close: () => new Promise<void>(r => server.close(() => r())),
  }
}
