/**
 * Turns network, TLS and SASL errors into one-line RuntimeErrors that name the cause, the broker and
 * what to try. Never includes secrets: messages are built from codes, host names, user names and the broker's
 * own error text (which Kafka writes without credentials).
 */
import type {ConnectionSettings} from '../config/client-config.js'
import {RdError, RuntimeError} from '../core/errors.js'

export interface ErrorContext {
  readonly host: string
  readonly port: number
  readonly settings: ConnectionSettings
}

interface ErrorLike {
  message?: string
  code?: string
  cause?: unknown
  errors?: unknown[]
}

/** Every error in the cause chain (and aggregated errors), outermost first. */
function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = []
  const seen = new Set<unknown>()
  const visit = (e: unknown) => {
    if (!e || typeof e !== 'object' || seen.has(e) || out.length > 20) return
    seen.add(e)
    out.push(e as ErrorLike)
    const el = e as ErrorLike
    if (Array.isArray(el.errors)) for (const x of el.errors) visit(x)
    visit(el.cause)
  }
  visit(err)
  return out
}

const TLS_TRUST = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
])

export function connectionError(err: unknown, ctx: ErrorContext): RdError {
  if (err instanceof RdError) return err
  const errors = chain(err)
  const codes = errors.map(e => e.code).filter((c): c is string => typeof c === 'string')
  const at = `${ctx.host}:${ctx.port}`
  const proto = ctx.settings.securityProtocol
  const has = (c: string) => codes.includes(c)

  if (has('ENOTFOUND') || has('EAI_AGAIN') || has('EAI_FAIL')) {
    return new RuntimeError(`cannot resolve host "${ctx.host}" (broker ${at})`, 'Check the host name in --bootstrap-server and your DNS.', 'UNKNOWN_HOST')
  }
  if (has('ECONNREFUSED')) {
    return new RuntimeError(
      `connection refused by ${at}: nothing listens on that port`,
      'Check the port in --bootstrap-server and that the broker is up.',
      'CONNECTION_REFUSED',
    )
  }
  if (has('EHOSTUNREACH') || has('ENETUNREACH')) {
    return new RuntimeError(`host ${at} is unreachable`, 'Check the network path (VPN, firewall, bastion).', 'HOST_UNREACHABLE')
  }
  const tlsCode = codes.find(c => TLS_TRUST.has(c))
  if (tlsCode) {
    return new RuntimeError(
      `TLS: the certificate of ${at} is not trusted (${tlsCode})`,
      ctx.settings.tls?.ca
        ? 'The CA in ssl.truststore.* did not sign the broker certificate; give the right CA (PEM).'
        : 'Give the CA that signed the broker certificate: ssl.truststore.type=PEM and ssl.truststore.location=ca.pem (or a PKCS12 truststore).',
      'TLS_UNTRUSTED',
    )
  }
  if (has('ERR_TLS_CERT_ALTNAME_INVALID')) {
    return new RuntimeError(
      `TLS: the certificate of ${at} is not valid for host "${ctx.host}"`,
      'Connect by a name the certificate lists, or turn the host name check off with ssl.endpoint.identification.algorithm= (empty).',
      'TLS_HOSTNAME',
    )
  }
  if (has('CERT_HAS_EXPIRED') || has('CERT_NOT_YET_VALID')) {
    return new RuntimeError(`TLS: the certificate of ${at} has expired or is not yet valid`, undefined, 'TLS_CERT_DATE')
  }
  if (
    has('ERR_SSL_WRONG_VERSION_NUMBER') ||
    has('ERR_SSL_PACKET_LENGTH_TOO_LONG') ||
    errors.some(e => /wrong version number|packet length too long/i.test(e.message ?? ''))
  ) {
    return new RuntimeError(
      `TLS handshake with ${at} failed: the listener does not speak TLS`,
      `security.protocol is ${proto}; use the port of the broker's ${proto} listener, or PLAINTEXT/SASL_PLAINTEXT for this one.`,
      'TLS_HANDSHAKE',
    )
  }
  const bad = errors.find(e => /bad decrypt|bad password|PEM_read|no start line|key values mismatch/i.test(e.message ?? ''))
  if (bad) {
    return new RuntimeError(
      'TLS: the client key or certificate cannot be used (wrong ssl.key.password, or key and certificate do not match)',
      undefined,
      'TLS_CLIENT_KEY',
    )
  }
  const alert = errors.find(e => /alert (certificate required|bad certificate|unknown ca|handshake failure)|sslv3 alert/i.test(e.message ?? ''))
  if (alert) {
    // OpenSSL: "...:sslv3 alert bad certificate:...:SSL alert number 42", "...tlsv13 alert certificate required..."
    const name = /alert ((?:[a-z]+ )*?(?:certificate required|bad certificate|unknown ca|handshake failure|[a-z]+))\b/i.exec(alert.message ?? '')?.[1]
    const noClientCert = ctx.settings.tls && !ctx.settings.tls.cert
    return new RuntimeError(
      `TLS: ${at} rejected the handshake (alert${name ? ` "${name}"` : ''})${noClientCert ? ': no client certificate was sent' : ''}`,
      'The listener may require a client certificate: set ssl.keystore.type (PKCS12 or PEM) and ssl.keystore.location (key and chain).',
      'TLS_REJECTED',
    )
  }
  if (has('ECONNRESET') || has('EPIPE') || errors.some(e => /Connection closed|socket hang up/i.test(e.message ?? ''))) {
    const noClientCert = ctx.settings.tls && !ctx.settings.tls.cert
    return new RuntimeError(
      `${at} closed the connection during the ${proto} handshake${noClientCert ? ' (no client certificate was sent)' : ''}`,
      noClientCert
        ? 'If the listener requires a client certificate (mTLS), set ssl.keystore.type (PKCS12 or PEM) and ssl.keystore.location (key and chain); also check that security.protocol matches the listener.'
        : `Check that ${at} is a ${proto} listener (security.protocol must match the listener).`,
      'CONNECTION_CLOSED',
    )
  }
  if (errors.some(e => /timed out/i.test(e.message ?? '') || e.code === 'ETIMEDOUT')) {
    return timeoutError(ctx.settings.timeoutMs, `connecting to ${at} (${proto})`)
  }
  const first = errors.find(e => e.code) ?? errors.at(-1)
  return new RuntimeError(
    `cannot connect to ${at}: ${oneLine(first?.message ?? String(err))}${first?.code ? ` (${first.code})` : ''}`,
    undefined,
    'CONNECTION_FAILED',
  )
}

/** The broker refused the credentials (SaslAuthenticate's SASL_AUTHENTICATION_FAILED), or the exchange failed. */
export function saslFailedError(ctx: ErrorContext, serverMessage: string | null | undefined): RuntimeError {
  const sasl = ctx.settings.sasl
  const who = sasl?.username ? ` for user "${sasl.username}"` : ''
  return new RuntimeError(
    `SASL authentication failed${who} (${sasl?.mechanism ?? 'SASL'}) at ${ctx.host}:${ctx.port}${serverMessage ? `: ${oneLine(serverMessage)}` : ''}`,
    'Check the user name and password in sasl.jaas.config, and that sasl.mechanism matches how the user was created.',
    'SASL_AUTH_FAILED',
  )
}

/** The listener does not enable the configured mechanism (SaslHandshake's UNSUPPORTED_SASL_MECHANISM). */
export function saslMechanismError(ctx: ErrorContext, offered: readonly string[]): RuntimeError {
  const list =
    offered.length > 0
      ? ` (it offers ${offered
          .slice(0, 10)
          .map(m => oneLine(m).slice(0, 40))
          .join(', ')})`
      : ''
  return new RuntimeError(
    `${ctx.host}:${ctx.port} does not accept SASL mechanism ${ctx.settings.sasl?.mechanism ?? '?'}${list}`,
    'Set sasl.mechanism to one the listener enables (sasl.enabled.mechanisms on the broker).',
    'SASL_MECHANISM',
  )
}

export function timeoutError(timeoutMs: number, step: string): RuntimeError {
  return new RuntimeError(
    `timed out after ${timeoutMs} ms ${step}`,
    'Raise --timeout, and check that the address is a Kafka listener with the configured security.protocol.',
    'TIMEOUT',
  )
}

export function oneLine(s: string): string {
  return s.replaceAll(/\s*\n\s*/g, ' ').trim()
}
