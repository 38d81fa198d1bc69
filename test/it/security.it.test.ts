/**
 * Security settings against the real brokers' SASL_SSL (SCRAM, PLAIN, OAUTHBEARER with unsecured JWTs) and SSL (mTLS,
 * PEM and keytool's PKCS12 stores) listeners, with the test CA made at cluster start: the right settings work and
 * give the same hashes as PLAINTEXT; every failure (wrong password, rejected token, unknown host, closed port, a topic
 * the principal may not describe, untrusted CA, a timeout) is one line naming the cause, a non-zero exit, within the
 * timeout; secrets (passwords, tokens) never appear in any output, --debug included. A DESCRIBE-only account (dave:
 * READ on __consumer_offsets denied) gets describe-only answers from group explain (one group and --all), audit and
 * impact, checked against the full reading and DumpLogSegments.
 */
import {createServer, type Server, type Socket} from 'node:net'
import {execFile} from 'node:child_process'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce, cli, type CliResult, errorLine, type NdjsonCli, ndjsonCli, tempDir, writeProps} from './adapter-cli.js'
import {clusterSh, waitFor} from './lib/cluster.js'
import type {GroupMetadataRecord} from './lib/offsets-log.js'
import {Probe} from './lib/probe.js'
import {startTokenEndpoint, type TokenEndpoint} from './lib/token-endpoint.js'

const run = promisify(execFile)
let probe: Probe
let dir: string
let env: Record<string, string>
const R = `rds${Date.now().toString(36)}`
const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule'
const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule'
const OAUTHBEARER = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule'
/** base64url of {"alg":"none"}: the first part of every unsecured JWT, ours or the one the CLI makes. */
const JWT_HEADER = b64url({alg: 'none'})
/** The password of the PKCS12 stores the tests make with keytool. */
const STORE_PASSWORD = 'st0re-s3cret-pw'
/** The OAUTHBEARER tokens the tests wrote: secrets too. */
const tokens: string[] = []

/** The secrets of the test cluster: none of them may ever be printed. */
const secrets = () => [
  env.SCRAM_PASSWORD,
  env.SCRAM_RESTRICTED_PASSWORD,
  env.SCRAM_DESCRIBE_ONLY_PASSWORD,
  env.PLAIN_PASSWORD,
  'wrong-s3cret-pw',
  STORE_PASSWORD,
  'BEGIN PRIVATE KEY',
  JWT_HEADER,
  ...tokens,
]

function b64url(o: object): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url')
}

/** An unsecured JWT (alg none, empty signature) as the broker's OAuthBearerUnsecuredValidatorCallbackHandler takes it. */
function unsecuredJwt(sub: string, iatS: number, expS: number): string {
  const token = `${JWT_HEADER}.${b64url({sub, iat: iatS, exp: expS})}.`
  tokens.push(token)
  return token
}

function plainProps(name: string, user: string, password: string): string {
  return writeProps(dir, name, [
    'security.protocol=SASL_SSL',
    'sasl.mechanism=PLAIN',
    `sasl.jaas.config=${PLAIN} required username="${user}" password="${password}";`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${env.CA_PEM}`,
  ])
}

function oauthProps(name: string, lines: string[]): string {
  return writeProps(dir, name, [
    'security.protocol=SASL_SSL',
    'sasl.mechanism=OAUTHBEARER',
    ...lines,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${env.CA_PEM}`,
  ])
}

/** The broker log line of OAuthBearerUnsecuredValidatorCallbackHandler (INFO) for a token with this sub. */
async function brokerValidated(sub: string): Promise<boolean> {
  const line = `Successfully validated token with principal ${sub}:`
  for (let i = 0; i < 20; i++) {
    if (env.BROKER_IDS.split(' ').some(n => readFileSync(env[`BROKER_${n}_OUT`], 'utf8').includes(line))) return true
    await new Promise(r => setTimeout(r, 250))
  }
  return false
}

function scramProps(name: string, user: string, password: string, mechanism = 'SCRAM-SHA-512', extra: string[] = []): string {
  return writeProps(dir, name, [
    'security.protocol=SASL_SSL',
    `sasl.mechanism=${mechanism}`,
    `sasl.jaas.config=${SCRAM} required \\`,
    `    username="${user}" password="${password}";`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${env.CA_PEM}`,
    ...extra,
  ])
}

function expectNoSecrets(r: CliResult): void {
  for (const s of secrets()) {
    expect(r.stdout).not.toContain(s)
    expect(r.stderr).not.toContain(s)
  }
}

/** A failed command: exit code, exactly one error line naming the cause, within the deadline, no secrets. */
function expectFailure(r: CliResult, code: number, cause: RegExp, withinMs?: number): void {
  expect(r.code, r.stderr).toBe(code)
  expect(r.stdout).toBe('')
  expect(errorLine(r.stderr)).toMatch(cause)
  expect(r.stderr.split('\n').filter(l => /\wError: |Error: /.test(l))).toHaveLength(1)
  if (withinMs !== undefined) expect(r.ms).toBeLessThan(withinMs)
  expectNoSecrets(r)
}

beforeAll(async () => {
  dir = tempDir()
  const [p] = await Promise.all([Probe.start('security'), buildOnce()])
  probe = p
  env = probe.env.raw as Record<string, string>
  await probe.driver.cmd(`create-topic ${R}-open --assign 1:2,2:3,3:1`)
  await probe.driver.cmd(`create-topic ${env.RESTRICTED_TOPIC_PREFIX}${R} 2 2`)
})

afterAll(async () => {
  await probe?.close()
})

describe('SASL_SSL with SCRAM', () => {
  it.each(['SCRAM-SHA-512', 'SCRAM-SHA-256'])('%s with the right credentials gives the same hashes as PLAINTEXT', async mech => {
    const props = scramProps(`alice-${mech}.properties`, env.SCRAM_USER, env.SCRAM_PASSWORD, mech)
    const secure = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json', '--debug'])
    expect(secure.code, secure.stderr).toBe(0)
    const plain = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP, '--json'])
    expect(JSON.parse(secure.stdout)).toEqual(JSON.parse(plain.stdout))
    expect(secure.stderr).toContain(`[debug] connection settings:`)
    expectNoSecrets(secure)
  })

  it('settings from the environment only (no file), bootstrap from KAFKA_BOOTSTRAP_SERVERS', async () => {
    const r = await cli(['cluster', 'snapshot', '--json'], {
      KAFKA_BOOTSTRAP_SERVERS: env.BOOTSTRAP_SASL_SSL,
      REBALANCE_DOCTOR_SECURITY_PROTOCOL: 'SASL_SSL',
      REBALANCE_DOCTOR_SASL_MECHANISM: 'SCRAM-SHA-256',
      REBALANCE_DOCTOR_SASL_USERNAME: env.SCRAM_USER,
      REBALANCE_DOCTOR_SASL_PASSWORD: env.SCRAM_PASSWORD,
      REBALANCE_DOCTOR_SSL_TRUSTSTORE_LOCATION: env.CA_PEM,
    })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).topics.map((t: {name: string}) => t.name)).toContain(`${R}-open`)
    expectNoSecrets(r)
  })

  it('wrong password: one line naming SASL authentication and the user, exit 1, no secret even with --debug', async () => {
    const props = scramProps('wrong.properties', env.SCRAM_USER, 'wrong-s3cret-pw')
    const r = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--timeout', '10000', '--debug'])
    expectFailure(r, 1, new RegExp(`^SASL authentication failed for user "${env.SCRAM_USER}" \\(SCRAM-SHA-512\\) at 127\\.0\\.0\\.1:\\d+`), 10_000)
    expect(r.stderr).toContain('[debug] connection settings:')
    expect(r.stderr).toContain('sasl.password=(set)')
  })

  it('a topic the principal may not describe: one line naming the topic and the missing permission', async () => {
    const props = scramProps('bob.properties', env.SCRAM_RESTRICTED_USER, env.SCRAM_RESTRICTED_PASSWORD)
    const topic = `${env.RESTRICTED_TOPIC_PREFIX}${R}`
    const r = await cli(['topic-hash', 'compute', topic, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--timeout', '10000'])
    expectFailure(r, 1, new RegExp(`^describing topic ${topic} needs DESCRIBE on topic ${topic} \\(Metadata refused: TOPIC_AUTHORIZATION_FAILED\\)`), 10_000)
    // the grant names this user (the hint is wrapped to the terminal's width: read as one line)
    expect(r.stderr.replace(/\n\s*›?\s*/g, ' ').replace(/ +/g, ' ')).toContain(
      `--add --allow-principal User:${env.SCRAM_RESTRICTED_USER} --operation Describe --topic ${topic}`,
    )
    // the same user may describe other topics
    const ok = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json'])
    expect(ok.code, ok.stderr).toBe(0)
  })

  it('no truststore: the broker certificate is not trusted (named), with what to set', async () => {
    const props = writeProps(dir, 'notrust.properties', [
      'security.protocol=SASL_SSL',
      'sasl.mechanism=SCRAM-SHA-512',
      `sasl.jaas.config=${SCRAM} required username="${env.SCRAM_USER}" password="${env.SCRAM_PASSWORD}";`,
    ])
    const r = await cli(['cluster', 'snapshot', '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--timeout', '10000'])
    expectFailure(r, 1, /^TLS: the certificate of 127\.0\.0\.1:\d+ is not trusted \(SELF_SIGNED_CERT_IN_CHAIN\)$/, 10_000)
    expect(r.stderr).toContain('ssl.truststore.location')
  })

  it('SASL_SSL settings against the PLAINTEXT port fail fast with a named cause', async () => {
    const props = scramProps('alice.properties', env.SCRAM_USER, env.SCRAM_PASSWORD)
    const r = await cli(['cluster', 'snapshot', '-b', env.BOOTSTRAP.split(',')[0], '--command-config', props, '--timeout', '5000', '--debug'])
    // fast = before the 5 s timeout fires: measured on the live operation (debug log), as the process's own start
    // and exit take seconds on a loaded machine
    expectFailure(r, 1, /127\.0\.0\.1:\d+/, 5000 + 15_000)
    const took = Number(/live operation failed after (\d+) ms/.exec(r.stderr)?.[1])
    expect(took).toBeLessThan(5000)
  })
})

describe('a DESCRIBE-only account (READ on __consumer_offsets denied by an ACL)', () => {
  it('group explain and audit answer from the describes, agree with the full reading on what both see, and name READ on __consumer_offsets', async () => {
    const group = `${R}-monitored`
    await probe.driver.cmd(`consumer ${R}-m1 ${group} names ${R}-open`)
    try {
      const stored = await probe.settled(group, 'consumer')
      const props = scramProps('dave.properties', env.SCRAM_DESCRIBE_ONLY_USER, env.SCRAM_DESCRIBE_ONLY_PASSWORD)
      const limited = await cli(['group', 'explain', group, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json'])
      expect(limited.code, limited.stderr).toBe(0)
      const full = await cli(['group', 'explain', group, '-b', env.BOOTSTRAP, '--json'])
      expect(full.code, full.stderr).toBe(0)
      const [d, f] = [JSON.parse(limited.stdout), JSON.parse(full.stdout)]
      expect(d.reading).toMatchObject({mode: 'describe-only', reason: 'Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED'})
      expect(d.reading.missing[0].needs).toEqual({resourceType: 'topic', resourceName: '__consumer_offsets', operation: 'READ'})
      // what the describe tells equals what the records tell (DumpLogSegments' epoch for the group epoch)
      expect(d.groupEpoch).toBe(stored.epoch)
      expect([d.groupEpoch, d.assignmentEpoch, d.liveMetadataHash]).toEqual([f.groupEpoch, f.assignmentEpoch, f.liveMetadataHash])
      expect(d.members.map((m: {memberId: string}) => m.memberId)).toEqual(f.members.map((m: {memberId: string}) => m.memberId))
      expect(d.verdict.code).toBe('EPOCHS_IN_SYNC')
      expect([d.timeline, d.storedMetadataHash]).toEqual([[], null])
      // the refusal said once (a warning of the document), with the grant for this user
      const grant = `--add --allow-principal User:${env.SCRAM_DESCRIBE_ONLY_USER} --operation Read --topic __consumer_offsets`
      expect(d.reading.missing[0].grant).toContain(grant)
      expect(d.warnings.filter((w: string) => w.includes('READ on topic __consumer_offsets'))).toHaveLength(1)

      const audit = await cli(['audit', '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json', '--group', group])
      expect(audit.code, audit.stderr).toBe(0)
      const a = JSON.parse(audit.stdout)
      expect(a.summary.reading).toMatchObject({mode: 'describe-only'})
      expect(a.groups.map((g: {group: string; groupEpoch: number}) => [g.group, g.groupEpoch])).toEqual([[group, stored.epoch]])
      expectNoSecrets(limited)
      expectNoSecrets(audit)
      await predictedThenAltered(group, stored, props)
    } finally {
      await probe.driver.cmd(`stop ${R}-m1`)
    }
  })
})

/**
 * As dave: `impact --add-partitions` (with the placement, so the hash is predicted) before Kafka's TopicCommand adds
 * the partition; the coordinator then stores (DumpLogSegments) exactly the predicted bump and hash. Then
 * `group explain --all` as dave answers every group describe-only, its live hash now the stored one.
 */
async function predictedThenAltered(group: string, before: GroupMetadataRecord, props: string): Promise<void> {
  const asDave = ['-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json']
  const topic = `${R}-open`
  const imp = await cli(['impact', ...asDave, '--add-partitions', `${topic}=4/1:2,2:3,3:1,2:1`])
  expect(imp.code, imp.stderr).toBe(0)
  const p = JSON.parse(imp.stdout)
  expect(p.reading).toMatchObject({mode: 'describe-only', reason: 'Fetch of __consumer_offsets refused: TOPIC_AUTHORIZATION_FAILED'})
  const predicted = p.groups.find((g: {group: string}) => g.group === group)
  expect(predicted).toMatchObject({bumps: {min: 1, max: 1}, touchedTopics: [topic], storedMetadataHash: null, today: 'EPOCHS_IN_SYNC'})
  expect(predicted.steps).toEqual([expect.objectContaining({phase: 'topics', bump: 'yes', hashUnknown: null})])

  await clusterSh(
    probe.env,
    'tool',
    'org.apache.kafka.tools.TopicCommand',
    '--bootstrap-server',
    probe.env.bootstrap,
    '--alter',
    '--topic',
    topic,
    '--partitions',
    '4',
    '--replica-assignment',
    '1:2,2:3,3:1,2:1',
  )
  await probe.waitStored(group, 'consumer', 'the bump after the partition increase', r => r.epoch > before.epoch)
  const after = await probe.settled(group, 'consumer')
  const bumps = (await probe.history(group, 'consumer')).filter(r => r.epoch > before.epoch)
  expect(bumps.map(b => [b.epoch, String(b.metadataHash)])).toEqual([[before.epoch + 1, predicted.steps[0].metadataHash]])

  const all = await cli(['group', 'explain', '--all', ...asDave])
  expect(all.code, all.stderr).toBe(0)
  const doc = JSON.parse(all.stdout)
  expect(doc.groups.length).toBeGreaterThan(0)
  for (const g of doc.groups) expect(g.reading?.mode, g.group).toBe('describe-only')
  const mine = doc.groups.find((g: {group: string}) => g.group === group)
  expect([mine.groupEpoch, mine.liveMetadataHash, mine.verdict.code]).toEqual([after.epoch, String(after.metadataHash), 'EPOCHS_IN_SYNC'])
  expect(doc.warnings.filter((w: string) => w.includes('READ on topic __consumer_offsets'))).toHaveLength(1)
  expectNoSecrets(imp)
  expectNoSecrets(all)
}

/** Kafka's ConsumerGroupCommand --describe for `group` with `args`, as the user of `props`: its table as header-keyed rows. */
async function consumerGroupsTool(group: string, props: string, ...args: string[]): Promise<Array<Record<string, string>>> {
  const out = await clusterSh(
    probe.env,
    'tool',
    'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
    '--bootstrap-server',
    env.BOOTSTRAP_SASL_SSL,
    '--command-config',
    props,
    '--describe',
    '--group',
    group,
    ...args,
  )
  const lines = out.split('\n').map(l => l.trim().split(/\s+/))
  const header = lines.find(f => f[0] === 'GROUP')
  expect(header, out).toBeDefined()
  return lines.filter(f => f[0] === group).map(f => Object.fromEntries(header!.map((h, i) => [h, f[i]])))
}

/** Kafka's AclCommand as the super user (PLAINTEXT's ANONYMOUS): `op` is --add or --remove. */
const acls = (op: '--add' | '--remove', ...args: string[]) =>
  clusterSh(
    probe.env,
    'tool',
    'org.apache.kafka.tools.AclCommand',
    '--bootstrap-server',
    probe.env.bootstrap,
    op,
    ...(op === '--remove' ? ['--force'] : []),
    ...args,
  )

describe("a DESCRIBE-only account: parity with Kafka's own tools run as the same user", () => {
  it('group explain --json as dave equals kafka-consumer-groups --describe --members --verbose, --offsets and --state as dave; one group dave may not describe ends PATTERN and impact with exit 1 naming it, the others answered', async () => {
    const [group, hidden, topic] = [`${R}-parity`, `${R}-parity-hidden`, `${R}-par`]
    const d = probe.driver
    const props = scramProps('dave-parity.properties', env.SCRAM_DESCRIBE_ONLY_USER, env.SCRAM_DESCRIBE_ONLY_PASSWORD)
    // the one ACL of that group: only dave is refused (the members connect as the super user)
    const hiddenAcl = ['--group', hidden, '--operation', 'Describe', '--deny-principal', `User:${env.SCRAM_DESCRIBE_ONLY_USER}`]
    const denied = acls('--add', ...hiddenAcl)
    await d.cmd(`create-topic ${topic} 3 2`)
    await d.cmd(`produce ${topic} 30`)
    for (const [m, g] of [
      ['p1', group],
      ['p2', group],
      ['ph', hidden],
    ])
      await d.cmd(`consumer ${R}-${m} ${g} names ${topic}`)
    try {
      await Promise.all([probe.settled(group, 'consumer'), denied])
      for (const m of ['p1', 'p2']) await d.cmd(`commit ${R}-${m}`)
      await d.cmd(`produce ${topic} 12`) // lag: the members consume it but do not commit
      const asDave = ['-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json']
      const admin = scramProps('admin.properties', env.SCRAM_ADMIN_USER, env.SCRAM_ADMIN_PASSWORD)
      // nothing changes the group, its offsets or the topic while these run: all at once
      const [r, members, offsets, [state], hash] = await Promise.all([
        cli(['group', 'explain', group, ...asDave]),
        consumerGroupsTool(group, props, '--members', '--verbose'),
        consumerGroupsTool(group, props, '--offsets'),
        consumerGroupsTool(group, props, '--state', '--verbose'),
        cli(['topic-hash', 'compute', topic, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', admin, '--json']),
        refusedAmongOthers({group, hidden, topic}, asDave),
      ])
      console.log({members, offsets, state})
      expect(r.code, r.stderr).toBe(0)
      const ours = JSON.parse(r.stdout)
      expect(ours.reading.mode).toBe('describe-only')
      expectParity(ours, {members, offsets, state})
      // the live hash as dave equals topic-hash compute as the admin
      expect(hash.code, hash.stderr).toBe(0)
      expect(ours.liveMetadataHash).toBe(JSON.parse(hash.stdout).groupHash)
    } finally {
      // the ACL goes before any later test lists every group as dave (the stopped group stays listed, empty)
      await Promise.all([...['p1', 'p2', 'ph'].map(m => d.cmd(`stop ${R}-${m}`)), denied.then(() => acls('--remove', ...hiddenAcl))])
    }
  })
})

interface Tables {
  members: Array<Record<string, string>>
  offsets: Array<Record<string, string>>
  state: Record<string, string>
}

/** Our describe-only report against ConsumerGroupCommand's tables: epochs, verdict, members, assignment vs target, offsets and lag. */
function expectParity(ours: ExplainJson, t: Tables): void {
  const dash = (v: string | number | null) => (v === null ? '-' : String(v))
  const tps = (list: Array<{topic: string; partitions: number[]}> | null) =>
    !list || list.length === 0 ? '-' : list.map(tp => `${tp.topic}:${tp.partitions.join(',')}`).join(';')
  expect([String(ours.groupEpoch), String(ours.assignmentEpoch), String(ours.members.length)]).toEqual([
    t.state['GROUP-EPOCH'],
    t.state['TARGET-ASSIGNMENT-EPOCH'],
    t.state['#MEMBERS'],
  ])
  const byId = <T extends Record<string, unknown>>(rows: T[], key: keyof T) => [...rows].sort((a, b) => String(a[key]).localeCompare(String(b[key])))
  expect(
    byId(ours.members, 'memberId').map(m => ({
      'CONSUMER-ID': m.memberId,
      HOST: m.clientHost,
      'CLIENT-ID': m.clientId,
      '#PARTITIONS': String((m.partitions?.assigned ?? []).reduce((n, tp) => n + tp.partitions.length, 0)),
      'CURRENT-EPOCH': dash(m.memberEpoch),
      'CURRENT-ASSIGNMENT': tps(m.partitions?.assigned ?? null),
      'TARGET-EPOCH': dash(ours.assignmentEpoch),
      'TARGET-ASSIGNMENT': tps(m.partitions?.target ?? null),
    })),
  ).toEqual(byId(t.members, 'CONSUMER-ID').map(({GROUP: _, ...rest}) => rest))
  // in sync as far as the epochs show exactly when Kafka's epochs all agree
  const agree = t.state['GROUP-EPOCH'] === t.state['TARGET-ASSIGNMENT-EPOCH'] && t.members.every(m => m['CURRENT-EPOCH'] === m['TARGET-EPOCH'])
  expect(ours.verdict.code === 'EPOCHS_IN_SYNC').toBe(agree)
  expect(agree).toBe(true) // the group settled before both were read
  const order = (rows: string[][]) => [...rows].sort((a, b) => a[0].localeCompare(b[0]) || Number(a[1]) - Number(b[1]))
  const cols = ['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID']
  expect(
    order(
      ours.offsets.partitions.map(p => [
        p.topic,
        String(p.partition),
        dash(p.committedOffset),
        dash(p.logEndOffset),
        dash(p.lag),
        dash(p.memberId),
        dash(p.host),
        dash(p.clientId),
      ]),
    ),
  ).toEqual(order(t.offsets.map(row => cols.map(c => row[c]))))
  expect(ours.offsets.partitions.reduce((n, p) => n + Number(p.lag), 0)).toBe(12)
}

interface ExplainJson {
  groupEpoch: number
  assignmentEpoch: number
  verdict: {code: string}
  members: Array<{
    memberId: string
    clientId: string
    clientHost: string
    memberEpoch: number | null
    partitions: {assigned: Array<{topic: string; partitions: number[]}>; target: Array<{topic: string; partitions: number[]}> | null} | null
  }>
  offsets: {
    partitions: Array<{
      topic: string
      partition: number
      committedOffset: string | null
      logEndOffset: string | null
      lag: string | null
      memberId: string | null
      host: string | null
      clientId: string | null
    }>
  }
}

/**
 * dave denied DESCRIBE on one group of several: `group explain PATTERN` and `impact` (describe-only) answer every
 * other group, name the refused one with the request, DESCRIBE on the group and the grant, and exit 1.
 */
async function refusedAmongOthers(g: {group: string; hidden: string; topic: string}, asDave: string[]): Promise<void> {
  const refusal = {
    group: g.hidden,
    request: 'FindCoordinator',
    resourceType: 'group',
    resourceName: g.hidden,
    operation: 'DESCRIBE',
    errorName: 'GROUP_AUTHORIZATION_FAILED',
    principal: `User:${env.SCRAM_DESCRIBE_ONLY_USER}`,
  }
  const many = await cli(['group', 'explain', `${g.group}*`, ...asDave])
  expect(many.code, many.stderr).toBe(1)
  const doc = JSON.parse(many.stdout)
  expect(doc.groups.map((x: {group: string}) => x.group)).toEqual([g.group])
  expect(doc.refused).toEqual([expect.objectContaining(refusal)])
  expect(doc.refused[0].grant).toContain(`--allow-principal User:${env.SCRAM_DESCRIBE_ONLY_USER} --operation Describe --group ${g.hidden}`)
  const imp = await cli(['impact', ...asDave, '--add-partitions', `${g.topic}=4`])
  expect(imp.code, imp.stderr).toBe(1)
  const p = JSON.parse(imp.stdout)
  expect(p.groups.find((x: {group: string}) => x.group === g.group)).toMatchObject({bumps: {min: 1, max: 1}, touchedTopics: [g.topic]})
  expect(p.refused).toEqual([expect.objectContaining(refusal)])
  expect(p.warnings.some((w: string) => w.startsWith(`describing group ${g.hidden} needs DESCRIBE on group ${g.hidden} (FindCoordinator refused`))).toBe(true)
  expectNoSecrets(many)
  expectNoSecrets(imp)
}

describe('SASL_SSL with PLAIN', () => {
  it('PLAIN with the right credentials gives the same hashes as PLAINTEXT', async () => {
    const props = plainProps('carol.properties', env.PLAIN_USER, env.PLAIN_PASSWORD)
    const secure = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json', '--debug'])
    expect(secure.code, secure.stderr).toBe(0)
    const plain = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP, '--json'])
    expect(plain.code, plain.stderr).toBe(0)
    expect(JSON.parse(secure.stdout)).toEqual(JSON.parse(plain.stdout))
    expect(secure.stderr).toContain(`[debug] connection settings:`)
    expect(secure.stderr).toContain(`sasl.mechanism=PLAIN sasl.username=${env.PLAIN_USER} sasl.password=(set)`)
    expectNoSecrets(secure)
  })

  it('PLAIN wrong password: one line naming SASL authentication and the user, exit 1, no secret even with --debug', async () => {
    const props = plainProps('carol-wrong.properties', env.PLAIN_USER, 'wrong-s3cret-pw')
    const r = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--timeout', '10000', '--debug'])
    expectFailure(r, 1, new RegExp(`^SASL authentication failed for user "${env.PLAIN_USER}" \\(PLAIN\\) at 127\\.0\\.0\\.1:\\d+`), 10_000)
    expect(r.stderr).toContain('[debug] connection settings:')
    expect(r.stderr).toContain('sasl.password=(set)')
  })
})

describe('SASL_SSL with OAUTHBEARER (unsecured JWT)', () => {
  it('unsecuredLoginStringClaim_sub in sasl.jaas.config: the same hashes as PLAINTEXT, the broker validated our sub', async () => {
    const props = oauthProps('oauth-jaas.properties', [`sasl.jaas.config=${OAUTHBEARER} required unsecuredLoginStringClaim_sub="alice";`])
    const secure = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json', '--debug'])
    expect(secure.code, secure.stderr).toBe(0)
    const plain = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP, '--json'])
    expect(plain.code, plain.stderr).toBe(0)
    expect(JSON.parse(secure.stdout)).toEqual(JSON.parse(plain.stdout))
    expect(secure.stderr).toContain('sasl.mechanism=OAUTHBEARER sasl.username=alice sasl.token=(set)')
    expect(await brokerValidated('alice')).toBe(true)
    expectNoSecrets(secure)
  })

  it.each(['sasl.oauthbearer.token.endpoint.url=file:', 'REBALANCE_DOCTOR_SASL_OAUTHBEARER_TOKEN'])(
    'a token we made, given by %s, gives the same hashes as PLAINTEXT; the broker validated its sub',
    async how => {
      const from = how.startsWith('sasl.') ? 'file' : 'env'
      const sub = `rd-oauth-${from}-${R}`
      const now = Math.floor(Date.now() / 1000)
      const token = unsecuredJwt(sub, now, now + 600)
      let props: string
      let vars: Record<string, string> = {}
      if (from === 'file') {
        const tokenFile = writeProps(dir, `${sub}.jwt`, [token])
        props = oauthProps(`oauth-${from}.properties`, [`sasl.oauthbearer.token.endpoint.url=file:${tokenFile}`])
      } else {
        props = oauthProps(`oauth-${from}.properties`, [])
        vars = {REBALANCE_DOCTOR_SASL_OAUTHBEARER_TOKEN: token}
      }
      const secure = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--json', '--debug'], vars)
      expect(secure.code, secure.stderr).toBe(0)
      const plain = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP, '--json'])
      expect(plain.code, plain.stderr).toBe(0)
      expect(JSON.parse(secure.stdout)).toEqual(JSON.parse(plain.stdout))
      expect(secure.stderr).toContain('sasl.mechanism=OAUTHBEARER sasl.token=(set)')
      expect(await brokerValidated(sub)).toBe(true)
      expectNoSecrets(secure)
    },
  )

  it('an expired token is refused by the broker: exit 1, one line naming the broker, no token in any output', async () => {
    const sub = `rd-oauth-expired-${R}`
    const now = Math.floor(Date.now() / 1000)
    const tokenFile = writeProps(dir, `${sub}.jwt`, [unsecuredJwt(sub, now - 7200, now - 3600)])
    const props = oauthProps('oauth-expired.properties', [`sasl.oauthbearer.token.endpoint.url=file:${tokenFile}`])
    const r = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SASL_SSL, '--command-config', props, '--timeout', '10000', '--debug'])
    // The broker answers an expired token with RFC 7628's error challenge ({"status":"invalid_token"}), not an error
    // code. (@platformatic/kafka 1.35's connection took it for success and sent ApiVersions: "ILLEGAL_SASL_STATE".)
    expectFailure(r, 1, /^SASL authentication failed \(OAUTHBEARER\) at 127\.0\.0\.1:\d+: token refused \(status "invalid_token"\)/, 10_000)
    expect(await brokerValidated(sub)).toBe(false)
  })
})

describe("OIDC listener: OAUTHBEARER with tokens from a token endpoint (client credentials), checked by Kafka's OAuthBearerValidatorCallbackHandler", () => {
  const CLIENT = 'rd-it-client'
  const CLIENT_SECRET = 'rd-it-cl1ent-s3cret'
  /** A query parameter of the endpoint URL: it may hold a secret, so it is never shown. */
  const QUERY_SECRET = 'tenant=q-s3cret-param'
  const endpoints: TokenEndpoint[] = []
  const endpoint = async (sub: string, lifetimeS: number) => {
    const e = await startTokenEndpoint({env, clientId: CLIENT, clientSecret: CLIENT_SECRET, sub, lifetimeS})
    endpoints.push(e)
    return e
  }
  /** Kafka 4.x's client.properties for this: the handler class, the endpoint, the credentials in sasl.jaas.config. */
  const oidcProps = (name: string, e: TokenEndpoint, secret = CLIENT_SECRET) =>
    writeProps(dir, name, [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=OAUTHBEARER',
      `sasl.oauthbearer.token.endpoint.url=${e.url}?${QUERY_SECRET}`,
      'sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
      `sasl.jaas.config=${OAUTHBEARER} required clientId="${CLIENT}" clientSecret="${secret}" scope="kafka";`,
    ])

  beforeAll(() => {
    tokens.push(CLIENT_SECRET, QUERY_SECRET)
  })
  afterAll(async () => {
    await Promise.all(endpoints.map(e => e.close()))
  })

  it('group list and group explain as the OIDC client agree with PLAINTEXT; one token for the run; no secret in any output', async () => {
    const e = await endpoint(`rd-oidc-${R}`, 600)
    const props = oidcProps('oidc.properties', e)
    const group = `${R}-oidc`
    await probe.driver.cmd(`consumer ${R}-o1 ${group} names ${R}-open`)
    try {
      await probe.settled(group, 'consumer')
      const listed = await cli(['group', 'list', '-b', env.BOOTSTRAP_OIDC, '--command-config', props, '--json', '--debug'])
      expect(listed.code, listed.stderr).toBe(0)
      expect(JSON.parse(listed.stdout).groups.map((g: {group: string}) => g.group)).toContain(group)
      expect(listed.stderr).toMatch(/OAuth token from http:\/\/127\.0\.0\.1:\d+\/oauth2\/token for sub rd-oidc-\w+: expires in \d+ s/)
      const oidc = await cli(['group', 'explain', group, '-b', env.BOOTSTRAP_OIDC, '--command-config', props, '--json', '--debug'])
      expect(oidc.code, oidc.stderr).toBe(0)
      const plain = await cli(['group', 'explain', group, '-b', env.BOOTSTRAP, '--json'])
      const [o, p] = [JSON.parse(oidc.stdout), JSON.parse(plain.stdout)]
      expect([o.groupEpoch, o.assignmentEpoch, o.storedMetadataHash, o.liveMetadataHash, o.verdict.code]).toEqual([
        p.groupEpoch,
        p.assignmentEpoch,
        p.storedMetadataHash,
        p.liveMetadataHash,
        p.verdict.code,
      ])
      // each command is one process: one token each, shared by its connections to the three brokers
      expect(e.issued).toHaveLength(2)
      tokens.push(...e.issued)
      for (const r of [listed, oidc]) expectNoSecrets(r)
    } finally {
      await probe.driver.cmd(`stop ${R}-o1`)
    }
  })

  it('a wrong client secret: one line naming the endpoint (not its query), HTTP 401 and what to check; exit 1; no secret', async () => {
    const e = await endpoint(`rd-oidc-bad-${R}`, 600)
    const r = await cli(['group', 'list', '-b', env.BOOTSTRAP_OIDC, '--command-config', oidcProps('oidc-bad.properties', e, 'wr0ng-s3cret')])
    tokens.push('wr0ng-s3cret')
    expectFailure(r, 1, /^the OAuth token endpoint http:\/\/127\.0\.0\.1:\d+\/oauth2\/token answered HTTP 401 \(invalid_client\)$/, 20_000)
    expect(r.stderr).toContain('Check the client id and secret')
    expect(e.refused).toBe(1)
  })

  it('a token that expires during audit --watch is replaced before it expires: the watch keeps reading past the expiry', async () => {
    const lifetimeS = 10
    const e = await endpoint(`rd-oidc-short-${R}`, lifetimeS)
    const props = oidcProps('oidc-short.properties', e)
    const w = ndjsonCli(['audit', '-b', env.BOOTSTRAP_OIDC, '--command-config', props, '--watch', '1s', '--ndjson', '--group', `${R}-oidc`, '--debug'])
    const cycles = () => (w.stderr().match(/--watch cycle \d+:/g) ?? []).length
    try {
      const opts = {timeoutMs: 120_000, intervalMs: 200}
      await waitFor('the first token', async () => e.issued.length > 0, opts)
      const expiry = Date.now() + lifetimeS * 1000
      await waitFor('the first token expired', async () => Date.now() > expiry, opts)
      const atExpiry = cycles()
      await waitFor('two more cycles', async () => cycles() >= atExpiry + 2, opts)
    } finally {
      w.proc.kill('SIGINT')
    }
    expect(await w.exited, w.stderr()).toBe(0)
    tokens.push(...e.issued)
    expect(e.issued.length).toBeGreaterThanOrEqual(2)
    expect(w.stderr()).not.toMatch(/failed \(retrying/)
    expectNoSecrets({
      code: 0,
      stdout: w
        .lines()
        .map(l => JSON.stringify(l))
        .join('\n'),
      stderr: w.stderr(),
      ms: 0,
    })
  })
})

describe('connection failures', () => {
  let silent: Server
  const held: Socket[] = []
  beforeAll(async () => {
    // accepts TCP connections and never answers: a broker that hangs
    silent = createServer(s => held.push(s))
    await new Promise<void>(r => silent.listen(0, '127.0.0.1', r))
  })
  afterAll(async () => {
    for (const s of held) s.destroy()
    await new Promise(r => silent.close(r))
  })

  it('unknown host', async () => {
    const r = await cli(['topic-hash', 'compute', 'x', '-b', 'no-such-host.invalid:9092', '--timeout', '10000'])
    expectFailure(r, 1, /^cannot resolve host "no-such-host\.invalid"/, 10_000)
  })

  it('closed port', async () => {
    const r = await cli(['topic-hash', 'compute', 'x', '-b', '127.0.0.1:1', '--timeout', '10000'])
    expectFailure(r, 1, /^connection refused by 127\.0\.0\.1:1/, 10_000)
  })

  it.each([
    ['PLAINTEXT', []],
    ['SASL_SSL', ['security.protocol=SASL_SSL', 'sasl.mechanism=SCRAM-SHA-512', `sasl.jaas.config=${SCRAM} required username="u" password="wrong-s3cret-pw";`]],
  ])('a timeout (%s to a silent server): one line, exit 1, within the timeout', async (proto, lines) => {
    const port = (silent.address() as {port: number}).port
    const args = ['cluster', 'snapshot', '-b', `127.0.0.1:${port}`, '--timeout', '1500', '--debug']
    if ((lines as string[]).length > 0) args.push('--command-config', writeProps(dir, `silent-${proto}.properties`, lines as string[]))
    const r = await cli(args)
    // PLAINTEXT: TCP connects, then the first request (ApiVersions) gets no answer; SASL_SSL: the TLS handshake hangs
    const step = proto === 'PLAINTEXT' ? 'waiting for ApiVersions from' : 'connecting to'
    // the process wall time adds the CLI's start and exit (0.6 s here, several seconds on a loaded machine): bound it
    // loosely, and check the deadline itself on the time the live operation took (from the debug log)
    expectFailure(r, 1, new RegExp(`^timed out after 1500 ms ${step} 127\\.0\\.0\\.1:${port}`), 1500 + 15_000)
    const took = Number(/live operation failed after (\d+) ms/.exec(r.stderr)?.[1])
    expect(took).toBeGreaterThanOrEqual(1500)
    expect(took).toBeLessThan(1500 + 1000) // timers fire late on a loaded machine
  })

  it('bad settings are usage errors (exit 2) before any connection: JKS truststore, GSSAPI', async () => {
    // a JKS store is told by its magic number (0xFEEDFEED); a real keytool one is in the unit tests' fixtures
    const jks = join(dir, 'truststore.jks')
    writeFileSync(jks, Buffer.concat([Buffer.from('feedfeed00000002', 'hex'), Buffer.alloc(64)]))
    const props = writeProps(dir, 'jks.properties', [
      'security.protocol=SSL',
      `ssl.truststore.location=${jks}`,
      'ssl.truststore.type=JKS',
      'ssl.truststore.password=wrong-s3cret-pw',
    ])
    const r1 = await cli(['cluster', 'snapshot', '-b', '127.0.0.1:1', '--command-config', props])
    expectFailure(r1, 2, /^JKS truststores are not supported/)
    expect(r1.stderr).toContain('keytool -importkeystore')
    const gss = writeProps(dir, 'gss.properties', ['security.protocol=SASL_SSL', 'sasl.mechanism=GSSAPI'])
    const r2 = await cli(['cluster', 'snapshot', '-b', '127.0.0.1:1', '--command-config', gss])
    expectFailure(r2, 2, /GSSAPI \(Kerberos\)/)
  })
})

describe('SSL with a client certificate (mTLS)', () => {
  it('a PEM keystore file works; the JSON equals PLAINTEXT', async () => {
    const props = writeProps(dir, 'mtls.properties', [
      'security.protocol=SSL',
      'ssl.truststore.type=PEM',
      `ssl.truststore.location=${env.CA_PEM}`,
      'ssl.keystore.type=PEM',
      `ssl.keystore.location=${env.CLIENT_KEYSTORE_PEM}`,
    ])
    const r = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SSL, '--command-config', props, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const plain = await cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP, '--json'])
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(plain.stdout))
    expectNoSecrets(r)
  })

  it('PKCS12 key and trust stores made by keytool work (the JSON equals PLAINTEXT); a wrong store password is one usage error naming it', async () => {
    const {keystore, truststore} = await pkcs12Stores()
    const stores = (keystorePassword: string) => [
      'security.protocol=SSL',
      'ssl.truststore.type=PKCS12',
      `ssl.truststore.location=${truststore}`,
      `ssl.truststore.password=${STORE_PASSWORD}`,
      'ssl.keystore.type=PKCS12',
      `ssl.keystore.location=${keystore}`,
      `ssl.keystore.password=${keystorePassword}`,
    ]
    const props = writeProps(dir, 'pkcs12.properties', stores(STORE_PASSWORD))
    const [r, plain] = await Promise.all([
      cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP_SSL, '--command-config', props, '--json', '--debug']),
      cli(['topic-hash', 'compute', `${R}-open`, '-b', env.BOOTSTRAP, '--json']),
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(plain.stdout))
    expectNoSecrets(r)
    const wrong = await cli([
      'topic-hash',
      'compute',
      `${R}-open`,
      '-b',
      env.BOOTSTRAP_SSL,
      '--command-config',
      writeProps(dir, 'pkcs12-wrong.properties', stores('wrong-s3cret-pw')),
    ])
    expectFailure(
      wrong,
      2,
      /^ssl\.keystore\.password \(\S+pkcs12-wrong\.properties:7\) does not open the PKCS12 keystore .*: the integrity check \(MAC\) failed/,
    )
  })

  it('without a client certificate the listener rejects the handshake: named, with what to set', async () => {
    const props = writeProps(dir, 'nocert.properties', ['security.protocol=SSL', 'ssl.truststore.type=PEM', `ssl.truststore.location=${env.CA_PEM}`])
    const r = await cli(['cluster', 'snapshot', '-b', env.BOOTSTRAP_SSL, '--command-config', props, '--timeout', '10000'])
    // TLS 1.3: the broker's alert arrives after our side of the handshake is done (OpenSSL names it)
    expectFailure(
      r,
      1,
      /^TLS: 127\.0\.0\.1:\d+ rejected the handshake \(alert "(bad certificate|certificate required)"\): no client certificate was sent/,
      10_000,
    )
    expect(r.stderr).toContain('ssl.keystore.location')
  })

  it('host name check: the certificate names 127.0.0.1 and localhost, so "localhost" passes', async () => {
    const port = env.BROKER_1_SSL_PORT
    const props = writeProps(dir, 'mtls-localhost.properties', [
      'security.protocol=SSL',
      'ssl.truststore.type=PEM',
      `ssl.truststore.location=${env.CA_PEM}`,
      `ssl.keystore.certificate.chain=${readPem(env.CLIENT_CERT_PEM)}`,
      `ssl.keystore.key=${readPem(env.CLIENT_KEY_PEM)}`,
    ])
    const r = await cli(['cluster', 'snapshot', '-b', `localhost:${port}`, '--command-config', props, '--json', '--timeout', '10000'])
    expect(r.code, r.stderr).toBe(0)
  })
})

/** Java 17's keytool, as an operator runs it. */
async function keytool(args: string[]): Promise<void> {
  const r = await run('keytool', args, {encoding: 'utf8', timeout: 60_000}).catch((e: Error & {stderr?: string}) => e)
  expect(r instanceof Error ? `keytool ${args[0]}: ${r.message} ${r.stderr}` : '').toBe('')
}

/**
 * The test client's key and certificate (and the CA) in a PKCS12 keystore made by keytool, and the CA in a keytool
 * truststore. keytool cannot import a PEM key: openssl pkcs12 -export makes a store keytool -importkeystore reads.
 */
async function pkcs12Stores(): Promise<{keystore: string; truststore: string}> {
  const exported = join(dir, 'export.p12')
  const keystore = join(dir, 'keystore.p12')
  const truststore = join(dir, 'truststore.p12')
  const pem = ['-in', env.CLIENT_CERT_PEM, '-inkey', env.CLIENT_KEY_PEM, '-certfile', env.CA_PEM]
  await run('openssl', ['pkcs12', '-export', ...pem, '-name', 'client', '-out', exported, '-passout', 'pass:export-pw'], {timeout: 60_000})
  const from = ['-srckeystore', exported, '-srcstoretype', 'PKCS12', '-srcstorepass', 'export-pw']
  // two JVMs at once: each keytool start costs seconds on a loaded machine
  await Promise.all([
    keytool(['-importkeystore', '-noprompt', ...from, '-destkeystore', keystore, '-deststoretype', 'PKCS12', '-deststorepass', STORE_PASSWORD]),
    keytool([
      '-importcert',
      '-noprompt',
      '-alias',
      'CARoot',
      '-file',
      env.CA_PEM,
      '-keystore',
      truststore,
      '-storetype',
      'PKCS12',
      '-storepass',
      STORE_PASSWORD,
    ]),
  ])
  return {keystore, truststore}
}

/** PEM text for an inline property value: newlines escaped as \n. */
function readPem(path: string): string {
  return readFileSync(path, 'utf8').trim().replaceAll('\n', '\\n')
}

/**
 * A describe-only watch as dave: `audit --watch` (READ refused, so it polls the describes and the live metadata) prints
 * a member join, a member leave and a partition increase made with Kafka's TopicCommand, each once, with the cause
 * the two polls around it show; the history gets the epochs it saw. Its own group and topic: nothing else moves them.
 */
describe('a describe-only watch (dave: audit --watch without READ on __consumer_offsets)', () => {
  type Bump = {
    group: string
    epoch: number
    previousEpoch: number
    offset: string
    polls: {previousPoll: string; poll: string; bumps: number}
    causes: Array<{kind: string; confidence: string; message: string; details: {memberId?: string; changes?: Array<{kind: string; then: string; now: string}>}}>
  }
  it('prints a join, a leave and a partition increase, each once with its cause, and records the epochs', async () => {
    const group = `${R}-watched`
    const topic = `${R}-watch`
    await probe.driver.cmd(`create-topic ${topic} 2 2`)
    await probe.driver.cmd(`consumer ${R}-w1 ${group} names ${topic}`)
    const props = scramProps('dave-watch.properties', env.SCRAM_DESCRIBE_ONLY_USER, env.SCRAM_DESCRIBE_ONLY_PASSWORD)
    const history = tempDir()
    const explainHistory = tempDir()
    let w: NdjsonCli<Bump> | undefined
    let g: NdjsonCli<Bump> | undefined
    const auditWatch = () =>
      ndjsonCli<Bump>([
        'audit',
        '-b',
        env.BOOTSTRAP_SASL_SSL,
        '--command-config',
        props,
        '--watch',
        '1s',
        '--ndjson',
        '--group',
        group,
        '--history-dir',
        history,
        '--debug',
      ])
    // group explain --watch as dave, beside it: the same three bumps (its first line is the describe-only report)
    const explainWatch = () =>
      ndjsonCli<Bump>([
        'group',
        'explain',
        group,
        '-b',
        env.BOOTSTRAP_SASL_SSL,
        '--command-config',
        props,
        '--watch',
        '1s',
        '--ndjson',
        '--history-dir',
        explainHistory,
      ])
    try {
      const start = await probe.settled(group, 'consumer')
      w = auditWatch()
      g = explainWatch()
      const watch = w
      const explain = g
      const cyclesOf = (x: NdjsonCli<Bump>) => Number(/--watch cycle (\d+): describe-only[^\n]*\n?$/.exec(x.stderr())?.[1] ?? 0)
      const cycles = () => cyclesOf(watch)
      const printed = (kind: string, by = watch) => by.lines().filter(l => l.group === group && l.causes?.some(c => c.kind === kind))
      // group explain's first poll compares with its report's describe: the join may come as soon as the report is out
      await waitFor("the audit watch's baseline and the explain report", async () => cycles() >= 1 && explain.lines().length > 0, {
        timeoutMs: 60_000,
        intervalMs: 200,
      })

      await probe.driver.cmd(`consumer ${R}-w2 ${group} names ${topic}`)
      await waitFor('the join printed', async () => printed('member-joined').length > 0 && printed('member-joined', explain).length > 0, {
        timeoutMs: 30_000,
        intervalMs: 200,
      }).catch(e => {
        // what each watch said, to tell a join printed late from one printed with another cause or not at all
        for (const [name, x] of [
          ['audit --watch', watch],
          ['group explain --watch', explain],
        ] as const)
          console.log(`${name} stderr:\n${x.stderr().slice(-4000)}\n${name} lines:\n${JSON.stringify(x.lines()).slice(0, 4000)}`)
        throw e
      })
      await probe.driver.cmd(`stop ${R}-w2`)
      await waitFor('the leave printed', async () => printed('member-left').length > 0 && printed('member-left', explain).length > 0, {
        timeoutMs: 30_000,
        intervalMs: 200,
      })
      await clusterSh(
        probe.env,
        'tool',
        'org.apache.kafka.tools.TopicCommand',
        '--bootstrap-server',
        probe.env.bootstrap,
        '--alter',
        '--topic',
        topic,
        '--partitions',
        '3',
      )
      await waitFor(
        'the partition increase printed',
        async () => printed('metadata-hash-changed').length > 0 && printed('metadata-hash-changed', explain).length > 0,
        {
          timeoutMs: 30_000,
          intervalMs: 200,
        },
      )
      // two more polls: nothing is printed twice
      const n = cycles()
      await waitFor('two more polls', async () => cycles() >= n + 2, {timeoutMs: 20_000, intervalMs: 200})
      w.proc.kill('SIGTERM')
      g.proc.kill('SIGTERM')
      expect(await w.exited, w.stderr().slice(-3000)).toBe(0)
      expect(await g.exited, g.stderr().slice(-3000)).toBe(0)
      // group explain --watch: the report read describe-only, then the same bumps with the same causes
      const [report, ...bumps] = g.lines() as unknown as [{reading: {mode: string}}, ...Bump[]]
      expect(report.reading.mode).toBe('describe-only')
      const said = (ls: Bump[]) => ls.filter(l => l.group === group).map(l => [l.epoch, l.causes.map(c => [c.kind, c.confidence])])
      expect(said(bumps)).toEqual(said(w.lines()))

      const lines = w.lines().filter(l => l.group === group)
      console.log(`audit --watch describe-only:\n${lines.map(l => JSON.stringify(l)).join('\n')}`)
      expect(w.stderr()).toContain('READ on topic __consumer_offsets')
      expect(w.stderr()).toMatch(/describe-only every 1s: .*bumps between two polls are one observation/)
      expect([printed('member-joined'), printed('member-left'), printed('metadata-hash-changed')].map(x => x.length)).toEqual([1, 1, 1])
      const [joined, left, grew] = ['member-joined', 'member-left', 'metadata-hash-changed'].map(k => printed(k)[0].causes.find(c => c.kind === k)!)
      expect(joined.confidence).toBe('exact')
      expect(left.details.memberId).toBe(joined.details.memberId)
      expect(grew).toMatchObject({confidence: 'exact', details: {changes: [{kind: 'partition-count', then: '2', now: '3'}]}})
      // every epoch from the start to the last, each bump between two polls, none without a record offset claimed
      const last = await probe.settled(group, 'consumer')
      expect(lines.reduce((sum, l) => sum + (l.epoch - l.previousEpoch), 0)).toBe(last.epoch - start.epoch)
      for (const l of lines) expect([l.offset, l.polls.bumps, l.polls.previousPoll < l.polls.poll]).toEqual(['-1', l.epoch - l.previousEpoch, true])
      // the history holds the last epoch seen (no stored hash: null)
      const [cluster] = readdirSync(history)
      // (the history's files: the watch keeps its polls in watch/ beside them)
      const recorded = readdirSync(join(history, cluster), {withFileTypes: true})
        .filter(f => f.isFile())
        .map(f => readFileSync(join(history, cluster, f.name), 'utf8'))
        .join('')
      expect(recorded).toContain(`"${group}":{"type":"consumer","epoch":${last.epoch},"hash":null}`)
      for (const x of [w, g]) expectNoSecrets({code: 0, stdout: JSON.stringify(x.lines()), stderr: x.stderr(), ms: 0})

      // both stopped, a member joins; started again on their history dirs, each prints the join once, after restart
      await probe.driver.cmd(`consumer ${R}-w3 ${group} names ${topic}`)
      const moved = await probe.settled(group, 'consumer')
      w = auditWatch()
      g = explainWatch()
      const again = [w, g]
      const found = (x: NdjsonCli<Bump>) => x.lines().filter(l => l.group === group && (l as {afterRestart?: boolean}).afterRestart)
      await waitFor('the join found after the restart', async () => again.every(x => found(x).length > 0), {timeoutMs: 60_000, intervalMs: 200})
      const restarted = w
      const m = cyclesOf(restarted)
      await waitFor('two more polls', async () => cyclesOf(restarted) >= m + 2, {timeoutMs: 20_000, intervalMs: 200})
      for (const x of again) x.proc.kill('SIGTERM')
      for (const x of again) {
        expect(await x.exited, x.stderr().slice(-3000)).toBe(0)
        const lines = x.lines().filter(l => l.group === group && 'causes' in l)
        expect(lines.map(l => [l.previousEpoch, l.epoch, (l as {afterRestart?: boolean}).afterRestart])).toEqual([[last.epoch, moved.epoch, true]])
        expect(lines[0].causes.map(c => [c.kind, c.confidence])).toContainEqual(['member-joined', 'exact'])
      }
      expect(w.stderr()).toMatch(/audit --watch restarted describe-only: 1 group whose epoch moved since the earlier watch's polls/)
    } finally {
      w?.proc.kill('SIGTERM')
      g?.proc.kill('SIGTERM')
      await probe.driver.cmd(`stop ${R}-w1`)
      await probe.driver.cmd(`stop ${R}-w3`).catch(() => {})
    }
  })
})
