#!/usr/bin/env node
/**
 * Fuzzes the two parsers that read files a user (or an attacker) hands us (issue 10): the metadata file
 * (bytes → strict UTF-8 → JSON → validation → hashing) and the client properties / sasl.jaas.config parser.
 * Each generated input must end in a result or an input error (RdError); anything else is a crash. Every secret
 * the properties inputs carry is a marker that must never appear in an error, a hint, or the --debug settings
 * line. Memory is sampled (peak RSS reported; the run fails above --max-rss-mb).
 *
 *   npm run build && node scripts/fuzz-parsers.js [--cases 1000000] [--seed 1] [--max-rss-mb 1024] [--only metadata|properties]
 *
 * The unit suite runs a small subset of the same generators (test/unit/hardening/parser-fuzz.test.ts).
 */
import {parseArgs} from 'node:util'
import {pathToFileURL} from 'node:url'
import {RdError} from '../dist/core/errors.js'
import {TopicHasher} from '../dist/core/hash.js'
import {parseJaasConfig} from '../dist/config/jaas.js'
import {describeSettings, resolveConnectionSettings} from '../dist/config/client-config.js'
import {parseMetadataBytes} from '../dist/sources/metadata-file.js'

export const MARKERS = ['Zq9MarkerSecret', 'q7-marker-secret']

/** mulberry32: small, fast, seeded. */
export function rng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = n => Math.floor(next() * n)
  const pick = arr => arr[int(arr.length)]
  return {next, int, pick, chance: p => next() < p}
}

const NASTY_STRINGS = [
  '',
  ' ',
  'a',
  '\u0000',
  '\x1b[2J',
  '\u202e',
  '\ud800',
  '\uffff',
  '💥',
  'x'.repeat(300),
  '\\',
  '"',
  '\n',
  '-',
  '0',
  'null',
  '__proto__',
  'constructor',
]
const NASTY_NUMBERS = [0, -1, 1, 2, 2147483647, 2147483648, -2147483648, -2147483649, 1e308, -1e308, 0.5, 1e21, Number.MAX_SAFE_INTEGER, 100000000, 3]

function randomValue(r, depth = 0) {
  switch (r.int(depth > 3 ? 4 : 7)) {
    case 0:
      return r.pick(NASTY_NUMBERS)
    case 1:
      return r.pick(NASTY_STRINGS)
    case 2:
      return r.pick([null, true, false])
    case 3:
      return r.int(8)
    case 4:
      return Array.from({length: r.int(4)}, () => randomValue(r, depth + 1))
    case 5:
      return Object.fromEntries(
        Array.from({length: r.int(4)}, () => [
          r.pick(['id', 'rack', 'name', 'topicId', 'partitions', 'partition', 'replicas', 'brokers', 'topics', 'format', 'fenced', 'internal', 'x']),
          randomValue(r, depth + 1),
        ]),
      )
    default:
      return r.pick(['AAECAwQFBgcICQoLDA0ODw', 'AAAAAAAAAAAAAAAAAAAAAA', 'rebalance-doctor/metadata-v1', 'rack-a'])
  }
}

function validDoc(r) {
  const brokers = Array.from({length: 1 + r.int(5)}, (_, i) => ({
    id: i + r.int(3) * 10,
    rack: r.chance(0.2) ? null : r.pick(['rack-a', 'rack-b', '', 'r\u00e9', r.pick(NASTY_STRINGS)]),
    ...(r.chance(0.2) ? {fenced: r.chance(0.5)} : {}),
  }))
  const ids = brokers.map(b => b.id)
  const topics = Array.from({length: r.int(4)}, (_, t) => {
    const id = Buffer.alloc(16)
    for (let k = 0; k < 16; k++) id[k] = r.int(256)
    id[0] |= 1
    return {
      name: `t${t}${r.chance(0.2) ? r.pick(NASTY_STRINGS) : ''}`,
      topicId: id.toString('base64url'),
      partitions: Array.from({length: r.int(6)}, (_, p) => ({partition: p, replicas: [...new Set(Array.from({length: 1 + r.int(3)}, () => r.pick(ids)))]})),
    }
  })
  return {format: 'rebalance-doctor/metadata-v1', clusterId: 'c', brokers, topics}
}

/** Replace, delete or add one node somewhere in the document. */
function mutateDoc(r, doc) {
  const paths = []
  const walk = (v, path, depth) => {
    paths.push(path)
    if (depth > 6 || v === null || typeof v !== 'object') return
    for (const k of Object.keys(v)) walk(v[k], [...path, k], depth + 1)
  }
  walk(doc, [], 0)
  for (let n = 1 + r.int(3); n > 0; n--) {
    const path = r.pick(paths)
    if (path.length === 0) return randomValue(r)
    let parent = doc
    for (const k of path.slice(0, -1)) parent = parent?.[k]
    if (parent === null || typeof parent !== 'object') continue
    const key = path.at(-1)
    const op = r.int(4)
    if (op === 0) delete parent[key]
    else if (op === 1 && Array.isArray(parent)) parent.push(structuredClone(parent[key] ?? null))
    else parent[key] = randomValue(r)
  }
  return doc
}

function mutateBytes(r, buf) {
  const b = Buffer.from(buf)
  const out = [...b]
  for (let n = 1 + r.int(4); n > 0; n--) {
    const at = r.int(out.length + 1)
    switch (r.int(6)) {
      case 0:
        out[at] = r.int(256)
        break
      case 1:
        out.splice(at, 1)
        break
      case 2:
        out.splice(at, 0, r.pick([0xff, 0xc0, 0xe2, 0x82, 0xed, 0xa0, 0xf4, 0x90, 0x00, 0x22, 0x5c, 0x7b, 0x5b]))
        break
      case 3:
        out.length = at
        break
      case 4:
        out.splice(at, 0, ...Buffer.from(r.pick(['\ufeff', '[', '{', '"', ',', '1e999', '-0', 'null'])))
        break
      default:
        out.unshift(0xef, 0xbb, 0xbf)
    }
  }
  return Buffer.from(out.filter(x => x !== undefined))
}

/** One metadata case: returns 'ok' | 'rejected'; throws on anything but an RdError. */
export function metadataCase(r) {
  let bytes
  const kind = r.int(10)
  if (kind === 0) bytes = Buffer.from(Array.from({length: r.int(64)}, () => r.int(256)))
  else if (kind <= 4) bytes = Buffer.from(JSON.stringify(mutateDoc(r, validDoc(r))) ?? 'undefined')
  else if (kind <= 8) bytes = mutateBytes(r, Buffer.from(JSON.stringify(validDoc(r))))
  else bytes = Buffer.from(JSON.stringify(validDoc(r)))
  try {
    const md = parseMetadataBytes(bytes, 'fuzz')
    const hasher = new TopicHasher(md)
    hasher.groupHash(md.topics.map(t => t.name))
    for (const t of md.topics.slice(0, 2)) hasher.annotate(t.name)
    return 'ok'
  } catch (error) {
    if (error instanceof RdError) return 'rejected'
    error.input = bytes.toString('latin1').slice(0, 500)
    throw error
  }
}

const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule'
const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule'
const OAUTH = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule'
const SECRET_KEYS = [
  'ssl.key.password',
  'ssl.keystore.password',
  'ssl.truststore.password',
  'ssl.keystore.key',
  'ssl.keystore.certificate.chain',
  'ssl.truststore.certificates',
  'sasl.jaas.config',
]

function jaasText(r, secret) {
  const quoted = r.chance(0.7)
  const parts = [r.pick([SCRAM, PLAIN, OAUTH, SCRAM, 'com.sun.security.auth.module.Krb5LoginModule']), r.pick(['required', 'required', 'optional', 'Required'])]
  parts.push(`username=${r.chance(0.5) ? '"alice"' : 'alice'}`)
  parts.push(`password${r.pick(['=', '=', '=', ':', ' ', '= ', ' = '])}${quoted ? `"${secret}"` : secret}`)
  if (r.chance(0.2)) parts.push(`unsecuredLoginStringClaim_sub=${quoted ? '"sub-user"' : 'sub-user'}`) // a subject, shown as the user name
  if (r.chance(0.2)) parts.push(`clientId=${quoted ? '"rd-app"' : 'rd-app'}`, `clientSecret=${quoted ? `"${secret}"` : secret}`)
  return parts.join(' ') + r.pick([';', ';', ';', '', ' ;', `; ${secret}`, '";'])
}

function mutateText(r, text) {
  let s = text
  for (let n = r.int(4); n > 0; n--) {
    const at = r.int(s.length + 1)
    const op = r.int(5)
    if (op === 0) s = s.slice(0, at) + s.slice(at + 1)
    else if (op === 1)
      s = s.slice(0, at) + r.pick(['"', '\\', ';', '=', ':', ' ', '\n', '\\\n', '\\u', '\\u12', '#', '!', '\t', '\r', '\u0000', 'x']) + s.slice(at)
    else if (op === 2) s = s.slice(0, at)
    else if (op === 3) s = s.slice(0, at) + s.slice(at, at + r.int(8)).toUpperCase() + s.slice(at + 8)
    else s = s.replace(/"/, '')
  }
  return s
}

function propertiesText(r, secret) {
  const lines = []
  lines.push(`security.protocol=${r.pick(['SASL_PLAINTEXT', 'SASL_SSL', 'SSL', 'PLAINTEXT', 'sasl_plaintext', 'bogus'])}`)
  lines.push(`sasl.mechanism=${r.pick(['SCRAM-SHA-512', 'SCRAM-SHA-256', 'PLAIN', 'OAUTHBEARER', 'GSSAPI', ''])}`)
  if (r.chance(0.8)) lines.push(`sasl.jaas.config${r.pick(['=', ':', ' '])}${jaasText(r, secret)}`)
  for (let n = r.int(3); n > 0; n--)
    lines.push(`${r.pick(SECRET_KEYS.slice(0, 6))}${r.pick(['=', ':', ' '])}${r.chance(0.3) ? `-----BEGIN PRIVATE KEY-----${secret}` : secret}`)
  if (r.chance(0.3))
    lines.push(
      `sasl.oauthbearer.token.endpoint.url=${r.pick(['file:', 'file://', 'http://x/', 'file:%zz', 'file://h:99999/', 'file:/nonexistent/', 'https://idp.example/oauth2/', `https://rd:${secret}@idp.example/`, `https://idp.example/token?key=${secret}&`])}${r.chance(0.5) ? 'token-file' : ''}`,
    )
  if (r.chance(0.2)) lines.push(`sasl.oauthbearer.client.credentials.client.secret${r.pick(['=', ':', ' '])}${secret}`)
  if (r.chance(0.1)) lines.push(`sasl.oauthbearer.client.credentials.client.id=rd-app`, `sasl.oauthbearer.scope=${r.pick(['kafka', 'a b', ''])}`)
  if (r.chance(0.1))
    lines.push(`sasl.login.${r.pick(['connect.timeout.ms', 'read.timeout.ms', 'refresh.window.factor'])}=${r.pick(['1000', '0.9', '-1', 'x'])}`)
  if (r.chance(0.2)) lines.push(`ssl.keystore.type=${r.pick(['JKS', 'PKCS12', 'PEM'])}`)
  if (r.chance(0.3)) lines.push(r.pick(['# comment', '! comment', '', '  ', 'client.id=me', 'bootstrap.servers=h:1', 'unknown.key=1', '\\']))
  for (let i = lines.length - 1; i > 0; i--) {
    const j = r.int(i + 1)
    ;[lines[i], lines[j]] = [lines[j], lines[i]]
  }
  return mutateText(r, lines.join(r.pick(['\n', '\r\n', '\n', '\r'])))
}

function assertNoSecret(text, secret, what, input) {
  if (text.includes(secret)) {
    const e = new Error(`secret echoed in ${what}: ${JSON.stringify(text.slice(0, 300))}`)
    e.input = input
    e.leak = true
    throw e
  }
}

/** One properties/JAAS case: 'ok' | 'rejected'; throws on a crash or on a secret echoed. */
export function propertiesCase(r) {
  const secret = r.pick(MARKERS)
  const viaEnv = r.chance(0.25)
  const env = {}
  let text
  if (viaEnv) {
    env.REBALANCE_DOCTOR_SASL_JAAS_CONFIG = mutateText(r, jaasText(r, secret))
    text = 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n'
  } else text = propertiesText(r, secret)
  if (r.chance(0.1)) env.REBALANCE_DOCTOR_SASL_PASSWORD = secret
  const input = JSON.stringify({text, env})
  try {
    if (r.chance(0.3)) {
      // the JAAS parser alone, as the env variable or file value reaches it
      parseJaasConfig(env.REBALANCE_DOCTOR_SASL_JAAS_CONFIG ?? mutateText(r, jaasText(r, secret)))
      return 'ok'
    }
    const settings = resolveConnectionSettings({
      bootstrapServer: 'h:1',
      commandConfig: 'client.properties',
      env,
      readFile: p => {
        if (p === 'client.properties') return text
        throw Object.assign(new Error(`ENOENT: no such file, open '${p}'`), {code: 'ENOENT'})
      },
    })
    assertNoSecret(describeSettings(settings), secret, 'the --debug settings line', input)
    return 'ok'
  } catch (error) {
    if (error.leak) throw error
    if (error instanceof RdError) {
      assertNoSecret(`${error.message}\n${error.hint ?? ''}\n${error.stack ?? ''}`, secret, 'an error', input)
      return 'rejected'
    }
    error.input = input
    throw error
  }
}

/** Inputs no random generator reaches: huge counts and depths within the file bound. */
export function edgeCases(only) {
  const many = n => Array.from({length: n}, (_, i) => i)
  const docs = {
    'deep nesting 100000': () => Buffer.from('['.repeat(100_000) + ']'.repeat(100_000)),
    '200000 brokers': () => Buffer.from(JSON.stringify({brokers: many(200_000).map(id => ({id, rack: `r${id % 7}`})), topics: []})),
    '1 partition with 200000 replicas': () =>
      Buffer.from(
        JSON.stringify({
          brokers: [{id: 1, rack: 'a'}],
          topics: [{name: 't', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: [{partition: 0, replicas: many(200_000)}]}],
        }),
      ),
    'partition id 2147483647': () =>
      Buffer.from(
        JSON.stringify({brokers: [], topics: [{name: 't', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: [{partition: 2147483647, replicas: [1]}]}]}),
      ),
    'a 5 MB rack name': () =>
      Buffer.from(
        JSON.stringify({
          brokers: [{id: 1, rack: 'r'.repeat(5_000_000)}],
          topics: [{name: 't', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: [{partition: 0, replicas: [1]}]}],
        }),
      ),
    '100000 topics': () =>
      Buffer.from(
        JSON.stringify({
          brokers: [{id: 1, rack: 'a'}],
          topics: many(100_000).map(i => ({
            name: `t${i}`,
            topicId: Buffer.from(many(16).map(k => (k === 0 ? 1 : (i >> ((k % 3) * 8)) & 255))).toString('base64url'),
            partitions: [],
          })),
        }),
      ),
  }
  const out = {}
  for (const [name, make] of Object.entries(docs)) {
    if (only && !only.includes(name)) continue
    const bytes = make()
    try {
      const md = parseMetadataBytes(bytes, name)
      new TopicHasher(md).groupHash(md.topics.map(t => t.name))
      out[name] = 'ok'
    } catch (error) {
      if (!(error instanceof RdError)) {
        error.input = name
        throw error
      }
      out[name] = 'rejected'
    }
  }
  return out
}

export function run({cases, seed, onProgress, only}) {
  const stats = {}
  let peakRss = process.memoryUsage().rss
  for (const [name, one] of [
    ['metadata', metadataCase],
    ['properties', propertiesCase],
  ]) {
    if (only && name !== only) continue
    const r = rng(seed)
    const s = {cases: 0, ok: 0, rejected: 0, crashes: 0, ms: 0}
    const t0 = performance.now()
    for (let i = 0; i < cases; i++) {
      const outcome = one(r)
      s.cases++
      s[outcome]++
      if ((i & 0x3fff) === 0) {
        peakRss = Math.max(peakRss, process.memoryUsage().rss)
        onProgress?.(name, i)
      }
    }
    s.ms = Math.round(performance.now() - t0)
    stats[name] = s
  }
  return {stats, peakRssMb: Math.round(Math.max(peakRss, process.memoryUsage().rss) / 1048576)}
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {values} = parseArgs({
    options: {
      cases: {type: 'string', default: '1000000'},
      seed: {type: 'string', default: '1'},
      only: {type: 'string'},
      'max-rss-mb': {type: 'string', default: '1024'},
    },
  })
  const cases = Number(values.cases)
  const t0 = performance.now()
  try {
    const edges = values.only ? {} : edgeCases()
    console.log(`edge cases: ${JSON.stringify(edges)}`)
    const result = run({
      cases,
      seed: Number(values.seed),
      only: values.only,
      onProgress: (name, i) => i % 262_144 === 0 && process.stderr.write(`${name}: ${i}\n`),
    })
    const maxRssKb = process.resourceUsage().maxRSS
    const out = {...result, seconds: Math.round((performance.now() - t0) / 100) / 10, maxRssMb: Math.round(maxRssKb / 1024), crashes: 0, secretsEchoed: 0}
    console.log(JSON.stringify(out, null, 2))
    if (out.maxRssMb > Number(values['max-rss-mb'])) {
      console.error(`peak RSS ${out.maxRssMb} MB is above --max-rss-mb ${values['max-rss-mb']}`)
      process.exit(1)
    }
  } catch (error) {
    console.error(`FUZZ FAILURE (${error.leak ? 'secret echoed' : 'uncaught exception'}): ${error.stack}\ninput: ${JSON.stringify(error.input)}`)
    process.exit(1)
  }
}
