/**
 * The explain operations all go through one pipeline: the same group explained alone, by a pattern, or as a bump
 * of the watch gets the same report; the metadata log and the history are evidence read before the report is
 * built, so which source names a cause does not depend on the order of the steps, nor on --since/--last.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {encodeBatch} from '../../../src/core/metadata-log/batch-writer.js'
import {explainMany} from '../../../src/operations/explain/many.js'
import {explainOne} from '../../../src/operations/explain/one.js'
import type {Session} from '../../../src/operations/session.js'
import {renderExplain} from '../../../src/render/explain.js'
import {PLAIN} from '../../../src/render/style.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {brokerRegistration, partitionRecord, topicRecord} from '../../lib/metadata-records.js'
import {consumer as c, T1} from '../../lib/records.js'

const G = 'orders-app'
const BROKERS = [{id: 1, rack: 'rack-a'}]
const orders = (partitions: number): ClusterMetadata =>
  parseMetadataDocument({
    brokers: BROKERS,
    topics: [{name: 'orders', topicId: T1, partitions: Array.from({length: partitions}, (_, p) => ({partition: p, replicas: [1]}))}],
  })
const groupHash = (partitions: number) => new TopicHasher(orders(partitions)).groupHash(['orders'])

/**
 * A group whose epochs 2 and 3 follow the partition increases 1 → 2 → 3 of its topic, and the metadata log that
 * holds those increases (each a few seconds before the bump it causes).
 */
function scenario(): {fake: FakeCluster; logDir: string} {
  const fake = new FakeCluster(orders(3), {offsetsPartitions: 1, logEnd: 10n})
  const t0 = fake.time
  const tps = (n: number): [string, number[]][] => [[T1, Array.from({length: n}, (_, p) => p)]]
  fake.write(
    G,
    [c.member(G, 'm1', {names: ['orders']}), c.metadata(G, 1, groupHash(1)), c.target(G, 'm1', tps(1)), c.targetMetadata(G, 1), c.current(G, 'm1', 1, tps(1))],
    10_000,
  )
  for (const n of [2, 3]) {
    fake.write(G, [c.metadata(G, n, groupHash(n)), c.target(G, 'm1', tps(n)), c.targetMetadata(G, n)], 10_000)
    fake.write(G, [c.current(G, 'm1', n, tps(n))], 1000)
  }
  const logDir = mkdtempSync(join(tmpdir(), 'rd-ops-log-'))
  const batches = [
    encodeBatch(0n, t0, [brokerRegistration(1, 'rack-a', {fenced: false}), topicRecord('orders', T1), partitionRecord(T1, 0, [1])], false),
    encodeBatch(3n, t0 + 15_000, [partitionRecord(T1, 1, [1])], false),
    encodeBatch(4n, t0 + 26_000, [partitionRecord(T1, 2, [1])], false),
  ]
  writeFileSync(join(logDir, '00000000000000000000.log'), Buffer.concat(batches))
  return {fake, logDir}
}

function session(fake: FakeCluster): Session & {warnings: string[]} {
  const warnings: string[] = []
  return {
    warnings,
    withCluster: work => work(fake, {update: () => {}, stop: () => {}} as never),
    warn: m => warnings.push(m),
    report: m => warnings.push(m),
  }
}

const request = (logDir: string, o: {last?: number} = {}) => ({
  now: Date.now(),
  stuckAfterMs: undefined,
  historyDir: mkdtempSync(join(tmpdir(), 'rd-ops-h-')),
  metadataLogDir: logDir,
  ...o,
})

describe('group explain: one pipeline for one group and many', () => {
  it('names both partition increases exactly from the metadata log', async () => {
    const {fake, logDir} = scenario()
    const {report} = await explainOne(session(fake), G, request(logDir))
    const causes = report.timeline.map(e => [e.epoch, e.causes.map(x => [x.kind, x.confidence])])
    expect(causes).toEqual([
      [
        1,
        [
          ['group-created', 'exact'],
          ['member-joined', 'exact'],
        ],
      ],
      [2, [['metadata-hash-changed', 'exact']]],
      [3, [['metadata-hash-changed', 'exact']]],
    ])
    expect(report.timeline[1].causes[0].details).toMatchObject({source: 'metadata-log', metadataLog: {exact: true}})
    expect(report.metadataLog?.attributed).toBe(2)
  })

  it('the group alone and the group matched by a pattern get the same report', async () => {
    const {fake, logDir} = scenario()
    const o = request(logDir)
    const {report: one} = await explainOne(session(fake), G, o)
    const [many] = await explainMany(session(fake), g => g === G, {...o, concurrency: 1, quiet: true})
    // (the offsets, releases are what a single group's read adds; everything else is the same report)
    const {offsets, releases, ...rest} = one
    expect(offsets).not.toBeUndefined()
    expect(releases).not.toBeUndefined()
    expect({...many, offsets: undefined}).toEqual({...rest, offsets: undefined})
  })

  it('--last is a view: what the metadata log attributed is the same whether one group or a pattern was asked', async () => {
    const {fake, logDir} = scenario()
    const o = request(logDir, {last: 1})
    const {report: one} = await explainOne(session(fake), G, o)
    const [many] = await explainMany(session(fake), g => g === G, {...o, concurrency: 1, quiet: true})
    expect(one.timeline.map(e => e.epoch)).toEqual([3])
    expect(many.timeline.map(e => e.epoch)).toEqual([3])
    expect(many.metadataLog?.attributed).toBe(one.metadataLog?.attributed)
    expect(one.metadataLog?.attributed).toBe(2)
  })
})

describe('group explain: what each bump cost', () => {
  it('each bump carries its cost from the records read, and the text shows it under the causes', async () => {
    const {fake, logDir} = scenario()
    const {report} = await explainOne(session(fake), G, request(logDir))
    const second = report.timeline.find(e => e.epoch === 2)!
    // epoch 2 added partition 1: it moved from nobody to m1, and m1 took it 1 s after the bump
    expect(second.cost).toMatchObject({epoch: 2, movedCount: 1, convergence: {status: 'converged', afterMs: 1000}})
    expect(second.cost!.moved[0]).toMatchObject({topic: 'orders', partition: 1, from: null, to: {memberId: 'm1'}})
    expect(renderExplain(report, PLAIN)).toContain('cost: 1 partition moved; converged in 1.0 s')
    const narrow = renderExplain(report, {...PLAIN, width: 80})
    expect(narrow).toContain('cost: 1 partition moved; converged in 1.0')
    expect(Math.max(...narrow.split('\n').map(l => [...l].length))).toBeLessThanOrEqual(80)
  })
})
