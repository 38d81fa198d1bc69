/**
 * A cause for each generation bump of a classic group, on a real cluster with Kafka's own classic consumer
 * (ConsoleConsumer, short session timeout): a clean close (SIGTERM: the consumer commits and sends LeaveGroup) is
 * named a leave, `kill -9` a session timeout, and a partition increase by TopicCommand the leader's rejoin with the
 * partition count its assignments now cover. All three are inferences and must say so.
 */
import type {ChildProcess} from 'node:child_process'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce, cli} from './adapter-cli.js'
import {clusterSh, waitFor} from './lib/cluster.js'
import {consoleConsumer} from './lib/console-consumer.js'
import {Probe} from './lib/probe.js'

let probe: Probe
const consumers: ChildProcess[] = []
const P = `cc${Date.now().toString(36).slice(-5)}`
const g = `${P}-classic-causes`
const topic = `${P}-orders`

beforeAll(async () => {
  probe = await Probe.start('classic-causes')
  await buildOnce()
})
afterAll(async () => {
  for (const c of consumers) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await probe?.close()
})

interface Cause {
  kind: string
  message: string
  confidence: string
  details: {
    memberId?: string
    clientId?: string
    how?: {kind: string; inferred: boolean}
    partitionCounts?: Array<{topic: string; before: number; after: number}>
  }
}
interface Doc {
  members: Array<{memberId: string; clientId: string | null}>
  timeline: Array<{epoch: number; causes: Cause[]}>
}

function start(clientId: string): ChildProcess {
  const props = {
    'client.id': clientId,
    'session.timeout.ms': '6000',
    'heartbeat.interval.ms': '500',
    'auto.commit.interval.ms': '200',
    'metadata.max.age.ms': '1000',
  }
  const c = consoleConsumer(probe.env, {topic, group: g, props, fromBeginning: true})
  consumers.push(c)
  return c
}

describe(`classic generation causes (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('group list counts the members; a clean close is a leave, kill -9 a session timeout, a partition increase the leader’s rejoin', async () => {
    const bs = probe.env.bootstrap
    await probe.driver.cmd(`create-topic ${topic} 3`)
    await probe.driver.cmd(`produce ${topic} 30`)
    const explain = async () => {
      const r = await cli(['group', 'explain', g, '-b', bs, '--json'])
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout) as Doc
    }
    let doc: Doc | undefined
    const until = (what: string, ok: (d: Doc) => boolean) =>
      waitFor(
        what,
        async () => {
          doc = await explain()
          return ok(doc)
        },
        {timeoutMs: 60_000, intervalMs: 500},
      )
    const clients = (d: Doc) => d.members.map(m => m.clientId).sort()
    const last = () => doc!.timeline.at(-1)!

    const a = start(`${P}-a`)
    start(`${P}-b`)
    await until('two members', d => clients(d).join() === `${P}-a,${P}-b`)
    const aId = doc!.members.find(m => m.clientId === `${P}-a`)!.memberId
    // group list: DescribeGroups at the coordinator counts the classic group's members (ConsumerGroupCommand --state's #MEMBERS)
    await waitFor(
      'group list counts both members',
      async () => {
        const r = await cli(['group', 'list', '-b', bs, '--json', '--group', g])
        expect(r.code, r.stderr).toBe(0)
        const [row] = JSON.parse(r.stdout).groups as Array<{type: string; state: string; members: number | null; groupEpoch: number | null}>
        return row.type === 'classic' && row.state === 'Stable' && row.members === 2 && row.groupEpoch === null
      },
      {timeoutMs: 30_000, intervalMs: 500},
    )
    a.kill('SIGTERM') // ConsoleConsumer's shutdown hook closes the consumer: commit, then LeaveGroup
    await until('a left', d => clients(d).join() === `${P}-b`)
    const left = last().causes.find(c => c.kind === 'classic-member-left')!
    console.log(left.message)
    expect(left).toMatchObject({confidence: 'inferred-unique', details: {memberId: aId, how: {kind: 'leave', inferred: true}}})

    const c = start(`${P}-c`)
    await until('c joined', d => clients(d).join() === `${P}-b,${P}-c`)
    const cId = doc!.members.find(m => m.clientId === `${P}-c`)!.memberId
    c.kill('SIGKILL')
    await until('c expired', d => clients(d).join() === `${P}-b`)
    const expired = last().causes.find(x => x.kind === 'classic-member-left')!
    console.log(expired.message)
    expect(expired).toMatchObject({confidence: 'inferred-unique', details: {memberId: cId, how: {kind: 'session-timeout', inferred: true}}})

    const before = last().epoch
    // impact before the change: the classic group predicted to rebalance once, at its leader's refresh
    const plan = await cli(['impact', '-b', bs, '--add-partitions', `${topic}=6`, '--json'])
    expect(plan.code, plan.stderr).toBe(0)
    const predicted = (JSON.parse(plan.stdout) as {classicGroups: Array<{group: string; bumps: {min: number; max: number}; steps: Array<{why: string}>}>})
      .classicGroups
    expect(
      predicted.find(x => x.group === g),
      plan.stdout,
    ).toMatchObject({bumps: {min: 1, max: 1}, steps: [{why: `${topic} partitions 3 → 6`}]})
    await clusterSh(probe.env, 'tool', 'org.apache.kafka.tools.TopicCommand', '--bootstrap-server', bs, '--alter', '--topic', topic, '--partitions', '6')
    await until('the leader rejoined', d => d.timeline.at(-1)!.epoch > before)
    const rejoin = last().causes.find(x => x.kind === 'classic-metadata-rejoin')!
    console.log(rejoin.message)
    expect(rejoin).toMatchObject({confidence: 'inferred-unique', details: {partitionCounts: [{topic, before: 3, after: 6}]}})

    // with the controller's metadata log: the partition increase between the two generations, exact
    const r = await cli(['group', 'explain', g, '-b', bs, '--json', '--metadata-log', join(probe.env.raw.CONTROLLER_LOG_DIR, '__cluster_metadata-0')])
    expect(r.code, r.stderr).toBe(0)
    const exact = (JSON.parse(r.stdout) as Doc).timeline.find(e => e.epoch === last().epoch)!.causes.find(x => x.kind === 'classic-metadata-rejoin')!
    console.log(exact.message)
    expect(exact).toMatchObject({confidence: 'exact', details: {source: 'metadata-log'}})
    expect(exact.message).toContain(topic)

    // the road to KIP-848: readiness before, the online upgrade by a consumer-protocol member after
    const ready = JSON.parse((await cli(['group', 'explain', g, '-b', bs, '--json'])).stdout) as {migration: {upgrade: string; metadataHash: string | null}}
    expect(ready.migration).toMatchObject({upgrade: 'possible'})
    expect(ready.migration.metadataHash).toMatch(/^-?\d+$/)
    await probe.driver.cmd(`consumer ${P}-k848 ${g} names ${topic}`)
    const converted = await waitFor(
      'the group converted to a consumer group',
      async () => {
        const d = JSON.parse((await cli(['group', 'explain', g, '-b', bs, '--json'])).stdout) as Doc & {type: string; storedMetadataHash: string | null}
        return d.type === 'consumer' ? d : undefined
      },
      {timeoutMs: 60_000, intervalMs: 1000},
    )
    const kinds = converted.timeline.flatMap(e => e.causes.map(c => c.kind))
    expect(kinds, JSON.stringify(converted.timeline)).toContain('converted-from-classic')
    // the hash the readiness said it would store (live metadata unchanged since)
    expect(converted.storedMetadataHash).toBe(ready.migration.metadataHash)
    // and back: the classic member left alone once the consumer-protocol one leaves (the default policy allows it)
    expect((converted as unknown as {downgrade: {classicMembers: number; consumerMembers: number}}).downgrade).toMatchObject({
      classicMembers: 1,
      consumerMembers: 1,
    })
    await probe.driver.cmd(`stop ${P}-k848`)
    const back = await waitFor(
      'the group converted back to classic',
      async () => {
        const d = JSON.parse((await cli(['group', 'explain', g, '-b', bs, '--json'])).stdout) as Doc & {type: string}
        return d.type === 'classic' ? d : undefined
      },
      {timeoutMs: 60_000, intervalMs: 1000},
    )
    expect(back.timeline.flatMap(e => e.causes.map(c => c.kind))).toContain('converted-from-consumer')
  })
})
