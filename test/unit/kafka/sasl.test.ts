/**
 * Our own connection layer (src/kafka/broker-connection.ts) and SASL (src/kafka/sasl.ts), which replaced
 * @platformatic/kafka's Connection:
 * - the SaslHandshake v1 / SaslAuthenticate v2 bodies are byte-identical to the library's encoders, and the
 *   library's decoders read our response bytes as we do;
 * - SCRAM-SHA-256 computes RFC 7677's example exchange exactly, and refuses a wrong server signature, a nonce
 *   that does not extend ours and iteration counts outside Kafka's bounds;
 * - over a fake broker: PLAIN and OAUTHBEARER send what RFC 4616 / RFC 7628 say, failures name the user and
 *   mechanism and never the secret, a disabled mechanism names what the listener offers;
 * - framing: responses arriving a byte at a time, several in one chunk, with tagged fields in the header.
 * Real brokers (SCRAM-SHA-256/512, PLAIN, OAUTHBEARER, TLS, mTLS) are in test/it/security.it.test.ts.
 */
import {createServer, type Server, type Socket} from 'node:net'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'
import {RdError} from '../../../src/core/errors.js'
import type {ConnectionSettings} from '../../../src/config/client-config.js'
import {Secret} from '../../../src/config/secret.js'
import {BrokerConnection} from '../../../src/kafka/broker-connection.js'
import * as Req from '../../../src/kafka/messages/requests.js'
import * as Res from '../../../src/kafka/messages/responses.js'
import * as P from '../../../src/kafka/protocol.js'
import {KafkaSession} from '../../../src/kafka/connection.js'
import {authenticate, scram} from '../../../src/kafka/sasl.js'
import {onRequestFrames} from '../../lib/hostile-broker.js'

const lib = (rel: string) => import(new URL(rel, pathToFileURL(createRequire(import.meta.url).resolve('@platformatic/kafka'))).href)
const bytesOf = (w: {buffer: Buffer}) => Buffer.from(w.buffer)

describe('SASL bodies equal @platformatic/kafka 1.35 (the code they replace)', () => {
  it('SaslHandshake v1 request and response', async () => {
    const hs = await lib('./apis/security/sasl-handshake-v1.js')
    const {Reader} = await lib('./protocol/reader.js')
    for (const m of ['PLAIN', 'SCRAM-SHA-512', 'OAUTHBEARER'])
      expect(P.encodeSaslHandshakeV1(m).toString('hex')).toBe(bytesOf(hs.createRequest(m)).toString('hex'))
    const response = P.encodeBody(Res.SaslHandshakeResponse, 1, {ErrorCode: 0, Mechanisms: ['SCRAM-SHA-256', 'PLAIN']})
    expect(hs.parseResponse(0, 17, 1, Reader.from(response))).toEqual({errorCode: 0, mechanisms: ['SCRAM-SHA-256', 'PLAIN']})
    expect(P.decodeSaslHandshakeV1(response)).toEqual({errorCode: 0, mechanisms: ['SCRAM-SHA-256', 'PLAIN']})
  })

  it('SaslAuthenticate v2 request and response', async () => {
    const au = await lib('./apis/security/sasl-authenticate-v2.js')
    const {Reader} = await lib('./protocol/reader.js')
    for (const b of [Buffer.alloc(0), Buffer.from('\0alice\0pw'), Buffer.alloc(300, 7)]) {
      expect(P.encodeSaslAuthenticateV2(b).toString('hex')).toBe(bytesOf(au.createRequest(b)).toString('hex'))
    }
    const response = P.encodeBody(Res.SaslAuthenticateResponse, 2, {
      ErrorCode: 0,
      ErrorMessage: null,
      AuthBytes: Buffer.from('r=abc,s=c2FsdA==,i=4096'),
      SessionLifetimeMs: 3_600_000n,
    })
    const theirs = au.parseResponse(0, 36, 2, Reader.from(response))
    const ours = P.decodeSaslAuthenticateV2(response)
    expect({...ours, authBytes: ours.authBytes.toString()}).toEqual({
      errorCode: theirs.errorCode,
      errorMessage: theirs.errorMessage,
      authBytes: Buffer.from(theirs.authBytes).toString(),
      sessionLifetimeMs: Number(theirs.sessionLifetimeMs),
    })
    expect(Buffer.from(P.decodeBody(Req.SaslAuthenticateRequest, 2, P.encodeSaslAuthenticateV2(Buffer.from('x'))).AuthBytes as Uint8Array).toString()).toBe('x')
  })
})

const settings = (sasl: ConnectionSettings['sasl']): ConnectionSettings =>
  ({
    bootstrap: [{host: '127.0.0.1', port: 1}],
    securityProtocol: 'SASL_PLAINTEXT',
    clientId: 'rd-test',
    timeoutMs: 5000,
    sasl,
    ignoredKeys: [],
  }) as ConnectionSettings
const ctx = (sasl: ConnectionSettings['sasl']) => ({host: '127.0.0.1', port: 9093, settings: settings(sasl)})

describe('SCRAM', () => {
  // RFC 7677 §3: user "user", password "pencil"
  const nonce = 'rOprNGfwEbeRWgbNEkqO'
  const serverFirst = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096'
  const clientFinal = 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='
  const serverFinal = 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='
  const c = ctx({mechanism: 'SCRAM-SHA-256', username: 'user', password: new Secret('pencil')})

  function replay(answers: string[]) {
    const sent: string[] = []
    return {sent, step: async (b: Buffer) => (sent.push(b.toString()), Buffer.from(answers.shift() ?? ''))}
  }

  it('SHA-256: RFC 7677 example, message for message', async () => {
    const r = replay([serverFirst, serverFinal])
    await scram(r.step, 'sha256', 'user', 'pencil', c, nonce)
    expect(r.sent).toEqual([`n,,n=user,r=${nonce}`, clientFinal])
  })

  it('refuses a server signature that does not match, a nonce that does not extend ours, iteration counts out of bounds', async () => {
    const fails = async (answers: string[], message: RegExp) => {
      const e = await scram(replay(answers).step, 'sha256', 'user', 'pencil', c, nonce).then(
        () => undefined,
        error => error,
      )
      expect(e).toBeInstanceOf(RdError)
      expect((e as RdError).code).toBe('SASL_AUTH_FAILED')
      expect((e as Error).message).toMatch(message)
      expect((e as Error).message).not.toContain('pencil')
    }
    await fails(
      [serverFirst, 'v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
      /^SASL authentication failed for user "user" \(SCRAM-SHA-256\) at 127\.0\.0\.1:9093: the broker's SCRAM server signature does not match/,
    )
    await fails([serverFirst.replace('r=rOpr', 'r=XOpr')], /nonce does not extend ours/)
    await fails([serverFirst.replace('i=4096', 'i=100')], /iteration count 100 is below 4096/)
    await fails([serverFirst.replace('i=4096', 'i=99999999')], /iteration count 99999999 is above 16384/)
    await fails([serverFirst, 'e=invalid-proof'], /SCRAM error "invalid-proof"/)
  })

  it('user names with , and = are escaped (RFC 5802 §5.1)', async () => {
    const r = replay([])
    await scram(r.step, 'sha512', 'a,b=c', 'pw', c, nonce).catch(() => {})
    expect(r.sent[0]).toBe(`n,,n=a=2Cb=3Dc,r=${nonce}`)
  })
})

/** A fake broker for SaslHandshake v1 / SaslAuthenticate v2: answers each request with `answer(apiKey, body)`. */
let server: Server | undefined
afterEach(() => new Promise<void>(r => (server ? server.close(() => r()) : r())))

async function fakeBroker(answer: (apiKey: number, body: Buffer) => Buffer | undefined): Promise<number> {
  server = createServer((s: Socket) => {
    onRequestFrames(s, frame => {
      const apiKey = frame.readInt16BE(0)
      const correlationId = frame.readInt32BE(4)
      const clientIdLength = frame.readInt16BE(8)
      const flexible = apiKey !== P.API.SaslHandshake
      const body = frame.subarray(10 + clientIdLength + (flexible ? 1 : 0))
      const out = answer(apiKey, body)
      if (!out) return
      // (ApiVersions' response header never has a tag section)
      const head = Buffer.alloc(8 + (flexible && apiKey !== P.API.ApiVersions ? 1 : 0))
      head.writeInt32BE(head.length - 4 + out.length, 0)
      head.writeInt32BE(correlationId, 4)
      s.write(Buffer.concat([head, out]))
    })
  })
  await new Promise<void>(r => server!.listen(0, '127.0.0.1', r))
  return (server!.address() as {port: number}).port
}

async function authenticateAt(port: number, sasl: ConnectionSettings['sasl']): Promise<void> {
  const conn = new BrokerConnection('127.0.0.1', port, {clientId: 'rd-test', maxResponseBytes: 1 << 20})
  try {
    await conn.ready()
    await authenticate((k, v, b, f) => conn.request(k, v, b, f), sasl!, ctx(sasl))
  } finally {
    conn.socket.destroy()
  }
}

const handshakeOk = () => P.encodeBody(Res.SaslHandshakeResponse, 1, {ErrorCode: 0, Mechanisms: ['PLAIN', 'OAUTHBEARER']})
const authResponse = (code: number, message: string | null, bytes = '') =>
  P.encodeBody(Res.SaslAuthenticateResponse, 2, {ErrorCode: code, ErrorMessage: message, AuthBytes: Buffer.from(bytes), SessionLifetimeMs: 0n})

describe('SASL over a fake broker', () => {
  it('PLAIN: handshake names the mechanism, then NUL user NUL password', async () => {
    const seen: string[] = []
    const port = await fakeBroker((k, body) => {
      if (k === P.API.SaslHandshake) {
        seen.push(P.decodeBody(Req.SaslHandshakeRequest, 1, body).Mechanism as string)
        return handshakeOk()
      }
      seen.push(Buffer.from(P.decodeBody(Req.SaslAuthenticateRequest, 2, body).AuthBytes as Uint8Array).toString())
      return authResponse(0, null)
    })
    await authenticateAt(port, {mechanism: 'PLAIN', username: 'carol', password: new Secret('s3cret')})
    expect(seen).toEqual(['PLAIN', '\0carol\0s3cret'])
  })

  it('PLAIN refused: one line naming user, mechanism and broker, with the broker text, not the password', async () => {
    const port = await fakeBroker(k => (k === P.API.SaslHandshake ? handshakeOk() : authResponse(58, 'Authentication failed: Invalid username or password')))
    const e = await authenticateAt(port, {mechanism: 'PLAIN', username: 'carol', password: new Secret('s3cret')}).then(
      () => undefined,
      x => x as RdError,
    )
    expect(e?.code).toBe('SASL_AUTH_FAILED')
    expect(e?.message).toBe('SASL authentication failed for user "carol" (PLAIN) at 127.0.0.1:9093: Authentication failed: Invalid username or password')
    expect(e?.message).not.toContain('s3cret')
  })

  it('a mechanism the listener does not enable: named, with what it offers', async () => {
    const port = await fakeBroker(() => P.encodeBody(Res.SaslHandshakeResponse, 1, {ErrorCode: 33, Mechanisms: ['SCRAM-SHA-512']}))
    const e = await authenticateAt(port, {mechanism: 'PLAIN', username: 'carol', password: new Secret('s3cret')}).then(
      () => undefined,
      x => x as RdError,
    )
    expect(e?.code).toBe('SASL_MECHANISM')
    expect(e?.message).toBe('127.0.0.1:9093 does not accept SASL mechanism PLAIN (it offers SCRAM-SHA-512)')
  })

  it('OAUTHBEARER: RFC 7628 initial response; an error challenge is a refusal naming its status', async () => {
    const seen: string[] = []
    let refuse = false
    const port = await fakeBroker((k, body) => {
      if (k === P.API.SaslHandshake) return handshakeOk()
      seen.push(Buffer.from(P.decodeBody(Req.SaslAuthenticateRequest, 2, body).AuthBytes as Uint8Array).toString())
      return authResponse(0, null, refuse ? '{"status":"invalid_token"}' : '')
    })
    const sasl = {mechanism: 'OAUTHBEARER', token: new Secret('eyJ.tok.')} as const
    await authenticateAt(port, sasl)
    expect(seen).toEqual(['n,,\x01auth=Bearer eyJ.tok.\x01\x01'])
    refuse = true
    const e = await authenticateAt(port, sasl).then(
      () => undefined,
      x => x as RdError,
    )
    expect(e?.message).toBe('SASL authentication failed (OAUTHBEARER) at 127.0.0.1:9093: token refused (status "invalid_token")')
    expect(e?.message).not.toContain('eyJ')
  })
})

describe('a SASL session with a lifetime (KIP-368, connections.max.reauth.ms)', () => {
  it('the connection is used until 85-95 % of the lifetime the broker gave, then a new one authenticates', async () => {
    let authentications = 0
    const port = await fakeBroker(k => {
      if (k === P.API.SaslHandshake) return handshakeOk()
      if (k === P.API.ApiVersions)
        return P.encodeBody(Res.ApiVersionsResponse, 3, {ErrorCode: 0, ApiKeys: [{ApiKey: 18, MinVersion: 0, MaxVersion: 3}], ThrottleTimeMs: 0})
      authentications++
      return P.encodeBody(Res.SaslAuthenticateResponse, 2, {ErrorCode: 0, ErrorMessage: null, AuthBytes: Buffer.alloc(0), SessionLifetimeMs: 400n})
    })
    const s = {...settings({mechanism: 'OAUTHBEARER', token: new Secret('eyJ.tok.')}), bootstrap: [{host: '127.0.0.1', port}]}
    const session = await KafkaSession.open(s)
    try {
      const first = await session.connect('127.0.0.1', port)
      expect(await session.connect('127.0.0.1', port)).toBe(first)
      expect(authentications).toBe(1)
      vi.useFakeTimers({toFake: ['Date']})
      vi.setSystemTime(Date.now() + 400) // the whole lifetime: past any reauthentication point
      const second = await session.connect('127.0.0.1', port)
      expect(second).not.toBe(first)
      expect(authentications).toBe(2)
    } finally {
      vi.useRealTimers()
      await session.close()
    }
  })
})

describe('framing', () => {
  it('responses a byte at a time and several in one chunk, header tags skipped, each to its request', async () => {
    const bodies = [Buffer.from('first'), Buffer.from('second body'), Buffer.alloc(70_000, 1)]
    server = createServer(s => {
      let got = Buffer.alloc(0)
      s.on('data', async chunk => {
        got = Buffer.concat([got, chunk])
        const ids: number[] = []
        for (let at = 0; at + 4 <= got.length && at + 4 + got.readInt32BE(at) <= got.length; at += 4 + got.readInt32BE(at)) ids.push(got.readInt32BE(at + 8))
        if (ids.length < 3) return
        // response header v1 with one tagged field (tag 5, 2 bytes) before each body
        const frames = Buffer.concat(
          ids.map((id, i) => {
            const head = Buffer.alloc(8)
            head.writeInt32BE(4 + 5 + bodies[i].length, 0)
            head.writeInt32BE(id, 4)
            return Buffer.concat([head, Buffer.from([1, 5, 2, 0xaa, 0xbb]), bodies[i]])
          }),
        )
        // the first 30 bytes one at a time, then the rest at once
        for (let i = 0; i < 30; i++) {
          s.write(frames.subarray(i, i + 1))
          await new Promise(r => setImmediate(r))
        }
        s.write(frames.subarray(30))
      })
    })
    await new Promise<void>(r => server!.listen(0, '127.0.0.1', r))
    const conn = new BrokerConnection('127.0.0.1', (server.address() as {port: number}).port, {clientId: 'rd-test', maxResponseBytes: 1 << 20})
    await conn.ready()
    const out = await Promise.all(bodies.map(() => conn.request(P.API.Metadata, 12, Buffer.alloc(0))))
    expect(out.map((b, i) => b.equals(bodies[i]))).toEqual([true, true, true])
    conn.socket.destroy()
  })
})
