/**
 * A classic group (Kafka's console consumer, the classic protocol by default) on a real cluster: group explain's
 * members and offsets/lag equal ConsumerGroupCommand --describe --members --verbose and --offsets, and audit's
 * Prometheus member count equals its #MEMBERS. The consumer is paused (SIGSTOP) after it committed everything, so
 * records produced then are lag while it is still a member (its session timeout is 45 s).
 */
import type {ChildProcess} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce, cli, tempDir} from './adapter-cli.js'
import {clusterSh, waitFor} from './lib/cluster.js'
import {consoleConsumer} from './lib/console-consumer.js'
import {Probe} from './lib/probe.js'

let probe: Probe
let consumer: ChildProcess | undefined
const P = `cl${Date.now().toString(36).slice(-5)}`
const g = `${P}-billing-legacy`
const topic = `${P}-orders`

beforeAll(async () => {
  probe = await Probe.start('classic-groups')
  await buildOnce()
})
afterAll(async () => {
  if (consumer?.pid) {
    consumer.kill('SIGCONT')
    consumer.kill('SIGKILL')
  }
  await probe?.close()
})

interface ExplainDoc {
  type: string
  members: Array<{
    memberId: string
    clientId: string | null
    clientHost: string | null
    instanceId: string | null
    partitions: {assigned: Array<{topic: string; partitions: number[]}>} | null
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

describe(`classic groups (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('members, offsets and lag equal ConsumerGroupCommand; audit counts the member', async () => {
    const bs = probe.env.bootstrap
    await probe.driver.cmd(`create-topic ${topic} 3`)
    await probe.driver.cmd(`produce ${topic} 30`)
    consumer = consoleConsumer(probe.env, {
      topic,
      group: g,
      props: {'client.id': 'billing-client', 'auto.commit.interval.ms': '500'},
      fromBeginning: true,
      heapMb: 256,
    })
    const explain = async () => {
      const r = await cli(['group', 'explain', g, '-b', bs, '--json'])
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout) as ExplainDoc
    }
    // everything consumed and committed: 30 records over 3 partitions
    await waitFor(
      'the console consumer committed all 30 records',
      async () => {
        const d = await explain()
        return (
          d.members.length === 1 &&
          d.offsets.partitions.length === 3 &&
          d.offsets.partitions.every(p => p.lag === '0') &&
          d.offsets.partitions.reduce((n, p) => n + Number(p.committedOffset), 0) === 30
        )
      },
      {timeoutMs: 90_000, intervalMs: 1000},
    )
    consumer.kill('SIGSTOP')
    await probe.driver.cmd(`produce ${topic} 11`)

    const ours = await explain()
    const tool = async (...args: string[]) =>
      (
        await clusterSh(
          probe.env,
          'tool',
          'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
          '--bootstrap-server',
          bs,
          '--describe',
          '--group',
          g,
          ...args,
        )
      )
        .split('\n')
        .map(l => l.trim().split(/\s+/))
        .filter(f => f[0] === g)
    const offsets = await tool('--offsets')
    const members = await tool('--members', '--verbose')
    const state = await tool('--state')
    // audit's lag while the member is still stopped: kafka-consumer-groups' LAG column summed
    const lagged = await cli(['audit', '-b', bs, '--json', '--no-record', '--group', g])
    consumer.kill('SIGCONT')
    console.log({offsets, members, state})

    expect(ours.type).toBe('classic')
    const dash = (v: string | number | null) => (v === null ? '-' : String(v))
    // ConsumerGroupCommand lists the partitions in no fixed order: both sides by topic, then partition
    const byPartition = (rows: string[][]) => [...rows].sort((a, b) => a[0].localeCompare(b[0]) || Number(a[1]) - Number(b[1]))
    expect(
      byPartition(
        ours.offsets.partitions.map(r => [
          r.topic,
          String(r.partition),
          dash(r.committedOffset),
          dash(r.logEndOffset),
          dash(r.lag),
          dash(r.memberId),
          dash(r.host),
          dash(r.clientId),
        ]),
      ),
    ).toEqual(byPartition(offsets.map(f => f.slice(1, 9))))
    expect(ours.offsets.partitions.reduce((n, p) => n + Number(p.lag), 0)).toBe(11)
    const committed = offsets.filter(f => f[3] !== '-')
    expect(JSON.parse(lagged.stdout).groups[0].lag, lagged.stderr).toEqual({
      totalLag: String(committed.reduce((n, f) => n + Number(f[5]), 0)),
      partitions: committed.length,
      partitionsUnknown: 0,
      error: null,
    })
    // GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT-ASSIGNMENT (classic: epochs "-")
    expect(members).toHaveLength(1)
    const [, memberId, host, clientId, count, , assignment] = members[0]
    const m = ours.members[0]
    expect([m.memberId, m.clientHost, m.clientId]).toEqual([memberId, host, clientId])
    expect(m.partitions!.assigned.reduce((n, tp) => n + tp.partitions.length, 0)).toBe(Number(count))
    expect(m.partitions!.assigned.map(tp => `${tp.topic}:${tp.partitions.join(',')}`).join(';')).toBe(assignment)

    // GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS
    const dir = tempDir()
    const audit = await cli(['audit', '-b', bs, '--json', '--no-record', '--group', g, '--prometheus', join(dir, 'rd.prom'), '--history-dir', dir])
    expect([0, 3], audit.stderr).toContain(audit.code)
    expect(JSON.parse(audit.stdout).groups[0]).toMatchObject({group: g, type: 'classic', members: Number(state[0].at(-1))})
    const line = readFileSync(join(dir, 'rd.prom'), 'utf8')
      .split('\n')
      .find(l => l.startsWith('rebalance_doctor_group_members{') && l.includes(`group="${g}"`))
    expect(line).toMatch(new RegExp(`type="classic"\\} ${state[0].at(-1)}$`))
  })
})
