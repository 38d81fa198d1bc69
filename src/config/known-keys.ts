/**
 * The keys Kafka's Java clients know (admin, consumer and producer: one client.properties is often shared by all of
 * Kafka's tools), so that a key this tool does not use is told apart from a misspelled one. Kafka's clients warn
 * "The configuration 'X' was supplied but isn't a known config." for the second kind; so do we, naming the nearest
 * known key, and a misspelled security key is an error: ignoring `security.protocl=SASL_SSL` would connect in
 * plain text.
 */
import {nearestOf} from '../core/nearest.js'
import {SUPPORTED_KEYS} from './connection-settings.js'

const COMMON = [
  'bootstrap.controllers',
  'client.dns.lookup',
  'client.rack',
  'config.providers',
  'connections.max.idle.ms',
  'default.api.timeout.ms',
  'enable.metrics.push',
  'metadata.max.age.ms',
  'metadata.recovery.rebootstrap.trigger.ms',
  'metadata.recovery.strategy',
  'metric.reporters',
  'metrics.num.samples',
  'metrics.recording.level',
  'metrics.sample.window.ms',
  'receive.buffer.bytes',
  'reconnect.backoff.max.ms',
  'reconnect.backoff.ms',
  'request.timeout.ms',
  'retries',
  'retry.backoff.max.ms',
  'retry.backoff.ms',
  'security.providers',
  'send.buffer.bytes',
  'socket.connection.setup.timeout.max.ms',
  'socket.connection.setup.timeout.ms',
]

const SSL = [
  'ssl.cipher.suites',
  'ssl.enabled.protocols',
  'ssl.engine.factory.class',
  'ssl.keymanager.algorithm',
  'ssl.protocol',
  'ssl.provider',
  'ssl.secure.random.implementation',
  'ssl.trustmanager.algorithm',
]

const SASL = [
  'sasl.client.callback.handler.class',
  'sasl.kerberos.kinit.cmd',
  'sasl.kerberos.min.time.before.relogin',
  'sasl.kerberos.service.name',
  'sasl.kerberos.ticket.renew.jitter',
  'sasl.kerberos.ticket.renew.window.factor',
  'sasl.login.callback.handler.class',
  'sasl.login.class',
  'sasl.login.connect.timeout.ms',
  'sasl.login.read.timeout.ms',
  'sasl.login.refresh.buffer.seconds',
  'sasl.login.refresh.min.period.seconds',
  'sasl.login.refresh.window.factor',
  'sasl.login.refresh.window.jitter',
  'sasl.login.retry.backoff.max.ms',
  'sasl.login.retry.backoff.ms',
  'sasl.oauthbearer.assertion.algorithm',
  'sasl.oauthbearer.assertion.claim.aud',
  'sasl.oauthbearer.assertion.claim.exp.seconds',
  'sasl.oauthbearer.assertion.claim.iss',
  'sasl.oauthbearer.assertion.claim.jti.include',
  'sasl.oauthbearer.assertion.claim.nbf.seconds',
  'sasl.oauthbearer.assertion.claim.sub',
  'sasl.oauthbearer.assertion.file',
  'sasl.oauthbearer.assertion.private.key.file',
  'sasl.oauthbearer.assertion.private.key.passphrase',
  'sasl.oauthbearer.assertion.template.file',
  'sasl.oauthbearer.clock.skew.seconds',
  'sasl.oauthbearer.client.credentials.client.id',
  'sasl.oauthbearer.client.credentials.client.secret',
  'sasl.oauthbearer.expected.audience',
  'sasl.oauthbearer.expected.issuer',
  'sasl.oauthbearer.header.urlencode',
  'sasl.oauthbearer.jwks.endpoint.refresh.ms',
  'sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms',
  'sasl.oauthbearer.jwks.endpoint.retry.backoff.ms',
  'sasl.oauthbearer.jwks.endpoint.url',
  'sasl.oauthbearer.jwt.retriever.class',
  'sasl.oauthbearer.jwt.validator.class',
  'sasl.oauthbearer.scope',
  'sasl.oauthbearer.scope.claim.name',
  'sasl.oauthbearer.sub.claim.name',
]

const CONSUMER = [
  'allow.auto.create.topics',
  'auto.commit.interval.ms',
  'auto.offset.reset',
  'check.crcs',
  'client.rack',
  'enable.auto.commit',
  'exclude.internal.topics',
  'fetch.max.bytes',
  'fetch.max.wait.ms',
  'fetch.min.bytes',
  'group.id',
  'group.instance.id',
  'group.protocol',
  'group.remote.assignor',
  'heartbeat.interval.ms',
  'interceptor.classes',
  'isolation.level',
  'key.deserializer',
  'max.partition.fetch.bytes',
  'max.poll.interval.ms',
  'max.poll.records',
  'partition.assignment.strategy',
  'session.timeout.ms',
  'share.acknowledgement.mode',
  'value.deserializer',
]

const PRODUCER = [
  'acks',
  'batch.size',
  'buffer.memory',
  'compression.gzip.level',
  'compression.lz4.level',
  'compression.type',
  'compression.zstd.level',
  'delivery.timeout.ms',
  'enable.idempotence',
  'key.serializer',
  'linger.ms',
  'max.block.ms',
  'max.in.flight.requests.per.connection',
  'max.request.size',
  'metadata.max.idle.ms',
  'partitioner.adaptive.partitioning.enable',
  'partitioner.availability.timeout.ms',
  'partitioner.class',
  'partitioner.ignore.keys',
  'transaction.timeout.ms',
  'transactional.id',
  'value.serializer',
]

/** Every key a Kafka client knows, ours first (the nearest key prefers ours on a tie). */
export const KNOWN_KEYS: readonly string[] = [...new Set([...SUPPORTED_KEYS, ...COMMON, ...SSL, ...SASL, ...CONSUMER, ...PRODUCER])]
const KNOWN = new Set(KNOWN_KEYS)

/** Keys that decide how the tool connects: a misspelling of one would connect differently, so it is an error. */
export function isSecurityKey(key: string): boolean {
  return /^(security|sasl|ssl)\./.test(key)
}

export function isKnownKey(key: string): boolean {
  return KNOWN.has(key)
}

/** The known key nearest to `key` (edit distance, a transposition counting one), when it is near enough to be meant. */
export function nearestKnownKey(key: string): string | undefined {
  return nearestOf(key, KNOWN_KEYS)
}
