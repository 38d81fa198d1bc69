/**
 * SASL authentication of a new connection, as Kafka's clients do it (KIP-152): SaslHandshake v1 names the
 * mechanism, then SaslAuthenticate v2 carries the mechanism's messages.
 *   PLAIN (RFC 4616): one message, `authzid NUL user NUL password`.
 *   SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802, RFC 7677): client-first, server-first, client-final with the proof,
 *     server-final, whose signature is checked (a server that does not know the password cannot fake it).
 *   OAUTHBEARER (RFC 7628): one message with the bearer token; a refusal comes back as a JSON error challenge.
 * Failures are RuntimeErrors from ./errors.ts (SASL_AUTH_FAILED, SASL_MECHANISM) that never hold a secret.
 */
import {createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual} from 'node:crypto'
import type {ConnectionSettings} from '../config/client-config.js'
import {saslFailedError, saslMechanismError, type ErrorContext} from './errors.js'
import * as P from './protocol.js'

/** Sends one request on the connection being authenticated; resolves with the response body. */
export type Exchange = (apiKey: number, version: number, body: Buffer, flexible: boolean) => Promise<Buffer>

type Sasl = NonNullable<ConnectionSettings['sasl']>

/**
 * Authenticates; resolves with the session lifetime the broker gave in its last SaslAuthenticate response (KIP-368:
 * with connections.max.reauth.ms set, the broker closes the connection on the first request after it), 0 for none.
 */
export async function authenticate(exchange: Exchange, sasl: Sasl, ctx: ErrorContext): Promise<number> {
  const hs = P.decodeSaslHandshakeV1(await exchange(P.API.SaslHandshake, 1, P.encodeSaslHandshakeV1(sasl.mechanism), false))
  if (hs.errorCode !== 0) throw saslMechanismError(ctx, hs.mechanisms)
  let sessionLifetimeMs = 0
  // One SaslAuthenticate round trip: our bytes out, the server's back; an error code ends the authentication.
  const step = async (bytes: Buffer): Promise<Buffer> => {
    const r = P.decodeSaslAuthenticateV2(await exchange(P.API.SaslAuthenticate, 2, P.encodeSaslAuthenticateV2(bytes), true))
    if (r.errorCode !== 0) throw saslFailedError(ctx, r.errorMessage)
    sessionLifetimeMs = r.sessionLifetimeMs
    return r.authBytes
  }
  switch (sasl.mechanism) {
    case 'PLAIN':
      await step(Buffer.from(`\0${sasl.username ?? ''}\0${sasl.password?.reveal() ?? ''}`, 'utf8'))
      break
    case 'SCRAM-SHA-256':
    case 'SCRAM-SHA-512':
      await scram(step, sasl.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512', sasl.username ?? '', sasl.password?.reveal() ?? '', ctx)
      break
    case 'OAUTHBEARER': {
      const challenge = await step(Buffer.from(`n,,\x01auth=Bearer ${sasl.token?.reveal() ?? ''}\x01\x01`, 'utf8'))
      // A refused token is answered with a JSON error (RFC 7628 §3.2.2), not an error code; the status is safe to show.
      if (challenge.length > 0) throw saslFailedError(ctx, `token refused (${oauthStatus(challenge)})`)
      break
    }
  }
  return sessionLifetimeMs
}

function oauthStatus(challenge: Buffer): string {
  try {
    const status = (JSON.parse(challenge.toString('utf8')) as {status?: unknown}).status
    return typeof status === 'string' ? `status ${JSON.stringify(status.slice(0, 64))}` : 'an error challenge'
  } catch {
    return 'an error challenge'
  }
}

/**
 * Kafka's SCRAM iteration bounds (ScramMechanism): fewer is a broker we should not trust, more one that would keep
 * us hashing (Kafka refuses to store such credentials).
 */
const MIN_ITERATIONS = 4096
const MAX_ITERATIONS = 16384

export async function scram(
  step: (bytes: Buffer) => Promise<Buffer>,
  hash: 'sha256' | 'sha512',
  user: string,
  password: string,
  ctx: ErrorContext,
  nonce = randomBytes(24).toString('base64'),
): Promise<void> {
  const bad = (what: string) => saslFailedError(ctx, `the broker's SCRAM ${what}`)
  const clientFirstBare = `n=${saslName(user)},r=${nonce}`
  const serverFirst = (await step(Buffer.from(`n,,${clientFirstBare}`, 'utf8'))).toString('utf8')
  const attrs = scramAttributes(serverFirst)
  const serverNonce = attrs.get('r')
  const salt = attrs.get('s')
  const iterations = Number(attrs.get('i'))
  if (!serverNonce?.startsWith(nonce) || serverNonce.length === nonce.length) throw bad('nonce does not extend ours')
  if (!salt || !Number.isSafeInteger(iterations)) throw bad('first message lacks a salt or an iteration count')
  if (iterations < MIN_ITERATIONS) throw bad(`iteration count ${iterations} is below ${MIN_ITERATIONS}`)
  if (iterations > MAX_ITERATIONS) throw bad(`iteration count ${iterations} is above ${MAX_ITERATIONS}`)
  // (the password as UTF-8, not SASLprep-normalised: Kafka's ScramFormatter does the same)
  const keyLength = hash === 'sha256' ? 32 : 64
  const salted = pbkdf2Sync(Buffer.from(password, 'utf8'), Buffer.from(salt, 'base64'), iterations, keyLength, hash)
  const hmac = (key: Buffer, text: string) => createHmac(hash, key).update(text, 'utf8').digest()
  const clientKey = hmac(salted, 'Client Key')
  const storedKey = createHash(hash).update(clientKey).digest()
  const clientFinalBare = `c=biws,r=${serverNonce}` // biws = base64("n,,"): no channel binding
  const authMessage = `${clientFirstBare},${serverFirst},${clientFinalBare}`
  const signature = hmac(storedKey, authMessage)
  const proof = Buffer.alloc(keyLength)
  for (let i = 0; i < keyLength; i++) proof[i] = clientKey[i] ^ signature[i]
  const serverFinal = scramAttributes((await step(Buffer.from(`${clientFinalBare},p=${proof.toString('base64')}`, 'utf8'))).toString('utf8'))
  if (serverFinal.has('e')) throw saslFailedError(ctx, `SCRAM error ${JSON.stringify((serverFinal.get('e') ?? '').slice(0, 64))}`)
  const expected = hmac(hmac(salted, 'Server Key'), authMessage)
  const got = Buffer.from(serverFinal.get('v') ?? '', 'base64')
  if (got.length !== expected.length || !timingSafeEqual(got, expected))
    throw bad('server signature does not match (the broker did not prove it knows the password)')
}

/** `a=x,b=y` → {a: x, b: y} (values may hold '='). */
function scramAttributes(text: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of text.split(',')) {
    const eq = part.indexOf('=')
    if (eq === 1) out.set(part[0], part.slice(2))
  }
  return out
}

/** RFC 5802 §5.1: ',' and '=' in a user name are written =2C and =3D. */
function saslName(user: string): string {
  return user.replaceAll('=', '=3D').replaceAll(',', '=2C')
}
