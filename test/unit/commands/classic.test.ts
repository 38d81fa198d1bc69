/**
 * A Stable classic group with one consumer-protocol member (a group mid-migration) through the fake cluster: group
 * explain gives its member and offsets/lag, audit and its Prometheus file count the member.
 */
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ConsumerProtocolAssignment, ConsumerProtocolSubscription, encodeEmbeddedMessage} from '../../../src/core/records/index.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {cluster} from '../../lib/fixtures.js'
import {run} from '../helpers.js'
import {consumer, T1} from '../../lib/records.js'

const dir = () => mkdtempSync(join(tmpdir(), 'rd-classic-'))
const G = 'billing-legacy'

function classicCluster(): FakeCluster {
  const fake = new FakeCluster(cluster())
  const subscription = encodeEmbeddedMessage(
    ConsumerProtocolSubscription,
    {Topics: ['orders'], UserData: null, OwnedPartitions: [], GenerationId: -1, RackId: null},
    3,
  )
  const assignment = encodeEmbeddedMessage(ConsumerProtocolAssignment, {AssignedPartitions: [{Topic: 'orders', Partitions: [0, 1, 2]}], UserData: null}, 3)
  fake.write(G, [
    {
      type: 2,
      version: 3,
      key: {group: G},
      value: {
        protocolType: 'consumer',
        generation: 3,
        protocol: 'range',
        leader: 'console-consumer-1',
        currentStateTimestamp: BigInt(fake.time),
        members: [
          {
            memberId: 'console-consumer-1',
            groupInstanceId: null,
            clientId: 'console-consumer',
            clientHost: '/127.0.0.1',
            rebalanceTimeout: 300_000,
            sessionTimeout: 45_000,
            subscription,
            assignment,
          },
        ],
      },
    },
  ])
  fake.write(G, [consumer.offsetCommit(G, 'orders', 0, 10n), consumer.offsetCommit(G, 'orders', 1, 4n), consumer.offsetCommit(G, 'orders', 2, 0n)], 1000)
  for (const [p, end] of [
    [0, 12n],
    [1, 4n],
    [2, 7n],
  ] as const)
    fake.logEnd.set(`orders:${p}`, end)
  return fake
}

describe('a classic group through a fake cluster', () => {
  it('group explain --json: its member and the offsets table', async () => {
    const r = await run(['group:explain', G, '--json', '-b', 'fake:9092', '--history-dir', dir()], classicCluster())
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.type).toBe('classic')
    expect(doc.members).toHaveLength(1)
    expect(doc.members[0]).toMatchObject({
      memberId: 'console-consumer-1',
      clientId: 'console-consumer',
      clientHost: '/127.0.0.1',
      subscribedTopicNames: ['orders'],
    })
    expect(doc.members[0].partitions.assigned).toEqual([{topic: 'orders', topicId: T1, partitions: [0, 1, 2]}])
    expect(
      doc.offsets.partitions.map((p: {partition: number; committedOffset: string; logEndOffset: string; lag: string; memberId: string}) => [
        p.partition,
        p.committedOffset,
        p.logEndOffset,
        p.lag,
        p.memberId,
      ]),
    ).toEqual([
      [0, '10', '12', '2', 'console-consumer-1'],
      [1, '4', '4', '0', 'console-consumer-1'],
      [2, '0', '7', '7', 'console-consumer-1'],
    ])
    expect(doc.offsets.totalLag).toBe('9')
  })

  it('audit --json and its Prometheus file: members 1', async () => {
    const prom = join(dir(), 'rd.prom')
    const r = await run(['audit', '--json', '--no-record', '--prometheus', prom, '-b', 'fake:9092', '--history-dir', dir()], classicCluster())
    expect(r.exitCode, r.stderr).toBe(0)
    const row = JSON.parse(r.stdout).groups.find((g: {group: string}) => g.group === G)
    expect(row).toMatchObject({type: 'classic', groupEpoch: 3, members: 1})
    expect(readFileSync(prom, 'utf8')).toMatch(/^rebalance_doctor_group_members\{[^}]*group="billing-legacy"[^}]*\} 1$/m)
    // the road to KIP-848: per group, and counted in the summary
    expect(row.migration).toMatchObject({upgrade: 'possible', blockers: [], metadataHash: null})
    expect(JSON.parse(r.stdout).summary.classicMigration).toEqual({possible: 1, blocked: 0, replaced: 0})
  })

  it('audit --incremental: a classic row read back from its checkpoint is counted in classicMigration too', async () => {
    const d = dir()
    const args = ['audit', '--json', '--incremental', '-b', 'fake:9092', '--history-dir', d]
    const fake = classicCluster()
    expect((await run(args, fake)).exitCode).toBe(0)
    const again = await run(args, fake)
    const doc = JSON.parse(again.stdout)
    expect(doc.summary.incremental.partitionsResumed).toBeGreaterThan(0)
    expect(doc.summary.classicMigration).toEqual({possible: 1, blocked: 0, replaced: 0})
  })
})
