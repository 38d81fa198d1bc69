/**
 * group explain read describe-only with a history recorded by earlier runs: the group's recorded epochs and the
 * recorded topic changes between them, in the report (JSON and text); without a history nothing is added.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {explainOne} from '../../../src/operations/explain/one.js'
import type {Session} from '../../../src/operations/session.js'
import {recordHistory} from '../../../src/history/store.js'
import {describedMember as member} from '../../lib/describes.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {T1} from '../../lib/records.js'
import {run} from '../helpers.js'

const G = 'orders-app'
const HOUR = 3_600_000
const metadata = (partitions: number): ClusterMetadata =>
  parseMetadataDocument({
    clusterId: 'cid',
    brokers: [{id: 1, rack: 'rack-a'}],
    topics: [{name: 'orders', topicId: T1, partitions: Array.from({length: partitions}, (_, p) => ({partition: p, replicas: [1]}))}],
  })
const live = metadata(2)

/** The group at epoch 6, stable; the records never read. */
function cluster(): FakeCluster {
  const fake = new FakeCluster(live, {offsetsPartitions: 1})
  fake.describeGroup('consumer', {
    groupId: G,
    state: 'Stable',
    groupEpoch: 6,
    assignmentEpoch: 6,
    assignorName: 'uniform',
    members: [member('m1', 6, [0, 1], [0, 1])],
  })
  return fake
}

/** Two earlier runs: epoch 5 with orders at 1 partition, then epoch 6 with 2. */
function recorded(): {dir: string; times: string[]} {
  const dir = mkdtempSync(join(tmpdir(), 'rd-do-hist-'))
  const at = [Date.now() - 2 * HOUR, Date.now() - HOUR]
  at.forEach((now, i) =>
    recordHistory({dir, retentionMs: 30 * 24 * HOUR, now}, 'cid', metadata(i + 1), new Map([[G, {type: 'consumer', epoch: 5 + i, hash: null}]])),
  )
  return {dir, times: at.map(t => new Date(t).toISOString())}
}

function session(fake: FakeCluster): Session {
  return {withCluster: work => work(fake, {update: () => {}, stop: () => {}} as never), warn: () => {}, report: () => {}}
}

const request = (historyDir: string) => ({now: Date.now(), stuckAfterMs: undefined, historyDir, describeOnly: 'asked' as const})

describe('group explain describe-only with a recorded history', () => {
  it("gives the group's recorded epochs and the one recorded change between them as the rise's exact cause", async () => {
    const {dir, times} = recorded()
    const fake = cluster()
    const {report} = await explainOne(session(fake), G, request(dir))
    expect(fake.reads).toBe(0)
    expect(report.timeline).toEqual([])
    expect(report.history?.observations).toEqual([
      {time: times[0], epoch: 5},
      {time: times[1], epoch: 6},
    ])
    expect(report.history?.rises).toHaveLength(1)
    expect(report.history?.rises[0]).toMatchObject({previousEpoch: 5, epoch: 6, bumps: 1})
    expect(report.history?.rises[0].causes).toMatchObject([
      {kind: 'metadata-hash-changed', confidence: 'exact', details: {changes: [{kind: 'partition-count', topic: 'orders', then: '1', now: '2'}]}},
    ])
  })

  it('text: a History section after the line saying the timeline needs READ', async () => {
    const {dir} = recorded()
    const r = await run(['group:explain', G, '-b', 'fake:9092', '--history-dir', dir, '--describe-only'], cluster())
    expect(r.exitCode).toBe(0)
    const needs = r.stdout.indexOf('need READ on topic __consumer_offsets')
    const section = r.stdout.indexOf('History (recorded by earlier runs): 2 observations of the group epoch')
    expect(needs).toBeGreaterThan(-1)
    expect(section).toBeGreaterThan(needs)
    expect(r.stdout).toContain('5 → 6')
    expect(r.stdout).toContain('orders: 1 → 2 partitions')
    expect(r.stdout).toContain('the history records no members')
  })

  it('no history: no history field, no section', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'rd-do-nohist-'))
    const {report} = await explainOne(session(cluster()), G, request(empty))
    expect(report).not.toHaveProperty('history')
    const r = await run(['group:explain', G, '-b', 'fake:9092', '--history-dir', empty, '--describe-only'], cluster())
    expect(r.stdout).toContain('need READ on topic __consumer_offsets')
    expect(r.stdout).not.toContain('History (recorded')
  })
})
