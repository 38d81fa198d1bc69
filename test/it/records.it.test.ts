/**
 * `group records` (our network reader + codec) against Kafka's own decoder on the same cluster: for groups of every
 * type driven through joins, leaves, partition additions, regex resolution, topic recreation, share and streams
 * scenarios, every record the reader returns equals, field by field, what DumpLogSegments --offsets-decoder prints
 * for the coordinator's copy of the partition; the replayed epoch and metadata hash equal the last ones Kafka wrote;
 * and transactional offset commits count only when their transaction commits.
 */
import {execFile} from 'node:child_process'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {KnownRecord} from '../../src/core/records/index.js'
import {expectSameAsKafka} from '../lib/kafka-json.js'
import {buildOnce, cli} from './adapter-cli.js'
import {sleep, waitFor} from './lib/cluster.js'
import type {GroupKind} from './lib/offsets-log.js'
import {Probe} from './lib/probe.js'

const exec = promisify(execFile)
let probe: Probe
const R = `rec${Date.now().toString(36)}`

interface RecordJson {
  offset: string
  type: number
  name?: string
  version?: number
  key: Record<string, unknown> | null
  value: Record<string, unknown> | null
  tombstone: boolean
  unknown?: string
}

interface RecordsJson {
  group: string
  partition: number
  records: RecordJson[]
}

beforeAll(async () => {
  await buildOnce()
  probe = await Probe.start('records')
})
afterAll(async () => {
  await probe?.close()
})

async function groupRecords(group: string, ...args: string[]): Promise<RecordsJson> {
  const r = await cli(['group', 'records', group, '-b', probe.env.bootstrap, '--json', ...args])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as RecordsJson
}

/** Re-decodes a record from --json the way Kafka prints it: compare ours (as JSON) with the dump's record. */
async function expectSameRecordsAsKafka(group: string): Promise<RecordsJson> {
  const ours = await groupRecords(group)
  const theirs = await probe.records(group)
  // DumpLogSegments also prints records of aborted transactions; none of these groups uses transactions
  expect(
    ours.records.map(r => Number(r.offset)),
    group,
  ).toEqual(theirs.map(r => r.offset))
  ours.records.forEach((r, i) => {
    const t = theirs[i]
    expect(r.unknown, `${group} @${r.offset}`).toBeUndefined()
    // our --json is the decoded record made JSON-safe: compare it in Kafka's shape, field by field
    expectSameAsKafka(
      {kind: 'record', type: r.type, name: r.name!, key: r.key ?? {}, version: r.version, value: r.value} as unknown as KnownRecord,
      {type: t.type, key: t.key, version: t.valueVersion, value: t.value},
      `${group} @${r.offset}`,
    )
  })
  return ours
}

/** The last epoch and hash the reader saw equal the last ones Kafka's decoder saw. */
async function expectLastEpoch(group: string, kind: GroupKind, ours: RecordsJson): Promise<void> {
  const type = {consumer: 3, share: 11, streams: 17}[kind]
  const last = ours.records.filter(r => r.type === type && !r.tombstone).at(-1)!
  const stored = (await probe.history(group, kind)).at(-1)!
  expect(last.value!.Epoch).toBe(stored.epoch)
  expect(String(last.value!.MetadataHash ?? '0')).toBe(stored.metadataHash.toString())
}

describe(`group records vs Kafka's offsets decoder (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('consumer groups: joins, a leave, partitions added, a topic recreated, a regex resolving a new topic', async () => {
    const d = probe.driver
    await d.cmd(`create-topic ${R}-a 3 3`)
    await d.cmd(`create-topic ${R}-b 2 2`)
    const g = `${R}-consumer`
    await d.cmd(`consumer c1 ${g} names ${R}-a,${R}-b`)
    await probe.settled(g, 'consumer')
    await d.cmd(`consumer c2 ${g} names ${R}-a`)
    const h0 = (await probe.waitStored(g, 'consumer', 'second member', r => r.epoch >= 2)).metadataHash
    // each change stored (its own bump) before the next is made
    await d.cmd(`add-partitions ${R}-a 5`)
    const h1 = (await probe.waitStored(g, 'consumer', 'the partitions added', r => r.metadataHash !== h0)).metadataHash
    await d.cmd(`delete-topic ${R}-b`)
    await d.cmd(`create-topic ${R}-b 2 2`)
    await probe.waitStored(g, 'consumer', 'the topic deleted or re-created', r => r.metadataHash !== h1)
    await d.cmd('stop c2')
    const rx = `${R}-regex`
    await d.cmd(`consumer x1 ${rx} regex ${R}-r.*`)
    await sleep(3000)
    await d.cmd(`create-topic ${R}-r1 1 1`)
    // regex refreshes are at least 10 s apart
    await waitFor(
      'the regex to resolve the new topic',
      async () => (await probe.records(rx)).some(r => r.type === 16 && JSON.stringify(r.value).includes(`${R}-r1`)),
      {timeoutMs: 90_000, intervalMs: 1000},
    )
    await probe.settled(g, 'consumer')

    const ours = await expectSameRecordsAsKafka(g)
    const types = new Set(ours.records.map(r => r.type))
    for (const t of [3, 5, 6, 7, 8]) expect(types.has(t), `record type ${t}`).toBe(true)
    expect(ours.records.some(r => r.tombstone)).toBe(true)
    await expectLastEpoch(g, 'consumer', ours)

    const rxOurs = await expectSameRecordsAsKafka(rx)
    expect(rxOurs.records.some(r => r.type === 16)).toBe(true)
    await expectLastEpoch(rx, 'consumer', rxOurs)
    await d.cmd('stop c1')
    await d.cmd('stop x1')
  })

  it('share and streams groups', async () => {
    const d = probe.driver
    await d.cmd(`create-topic ${R}-s 2 2`)
    const sg = `${R}-share`
    await d.cmd(`share s1 ${sg} ${R}-s`)
    await probe.settled(sg, 'share')
    await d.cmd('stop s1')
    await probe.settled(sg, 'share')

    await d.cmd(`create-topic ${R}-src 2 1`)
    const app = `${R}-streams`
    await d.cmd(`streams k1 ${app} ${R}-src ${R}-sink`)
    await probe.settled(app, 'streams')

    const share = await expectSameRecordsAsKafka(sg)
    expect(share.records.some(r => r.type === 11)).toBe(true)
    await expectLastEpoch(sg, 'share', share)
    const streams = await expectSameRecordsAsKafka(app)
    expect(streams.records.some(r => r.type === 23)).toBe(true)
    await expectLastEpoch(app, 'streams', streams)
    await d.cmd('stop k1')
  })

  it('filters by record type and time', async () => {
    const g = `${R}-consumer`
    const all = await groupRecords(g)
    const meta = await groupRecords(g, '--type', 'ConsumerGroupMetadata', '--type', '7')
    expect(meta.records.length).toBeGreaterThan(0)
    expect(meta.records.every(r => r.type === 3 || r.type === 7)).toBe(true)
    expect(meta.records.length).toBe(all.records.filter(r => r.type === 3 || r.type === 7).length)
    expect((await groupRecords(g, '--since', '2h')).records.length).toBe(all.records.length)
    // filters that match none of the group's records: an empty document and exit 4 (nothing found)
    const none = await cli(['group', 'records', g, '-b', probe.env.bootstrap, '--json', '--until', '2h'])
    expect(none.code).toBe(4)
    expect((JSON.parse(none.stdout) as RecordsJson).records).toEqual([])
    expect((await groupRecords(g, '--last', '2')).records).toEqual(all.records.slice(-2))
    const bad = await cli(['group', 'records', g, '-b', probe.env.bootstrap, '--type', 'NoSuchRecord'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--type "NoSuchRecord" is not a coordinator record type')
  })

  it('transactional offset commits: aborted ones are not returned (one producer aborting several times), committed ones are', async () => {
    const d = probe.driver
    await d.cmd(`create-topic ${R}-t 1 1`)
    const g = `${R}-txn`
    const {stdout} = await exec(
      'java',
      [
        '-Xmx256m',
        '-XX:TieredStopAtLevel=1',
        `-Dlog4j2.configurationFile=${join(probe.env.itDir, 'config', 'tools-log4j2.properties')}`,
        '-cp',
        `${probe.env.driverClasses}:${probe.env.libs}/*`,
        'TxnOffsets',
        probe.env.bootstrap,
        `${R}-tx`,
        g,
        `${R}-t`,
        '0',
        'commit:5',
        'abort:7',
        'abort:8',
        'commit:9',
        'abort:11',
      ],
      {timeout: 120_000},
    )
    expect(
      stdout
        .trim()
        .split('\n')
        .map(l => JSON.parse(l).step),
    ).toEqual(['commit', 'abort', 'abort', 'commit', 'abort'])
    const ours = await groupRecords(g)
    const commits = ours.records.filter(r => r.type === 1).map(r => r.value!.offset)
    expect(commits).toEqual(['5', '9'])
    // Kafka's decoder sees the aborted ones too: the reader dropped them, it did not miss them
    const theirs = (await probe.records(g)).filter(r => r.type === 1).map(r => String(r.value!.offset))
    expect(theirs).toEqual(['5', '7', '8', '9', '11'])
  })
})
