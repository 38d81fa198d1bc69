/**
 * The Kafka adapter and the live commands on the real cluster:
 * - live `topic-hash compute` = hashes from `cluster snapshot`'s file = hashes from Kafka's own Admin client's
 *   metadata = the MetadataHash the coordinator stored;
 * - with a broker killed and fenced, the live path still counts its rack;
 * - every group type is listed (ListGroups v5) and described at its coordinator;
 * - read-only: the commands leave groups, committed offsets, topics and configs as they were.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {resolveConnectionSettings} from '../../src/config/client-config.js'
import {TopicHasher} from '../../src/core/hash.js'
import {parseMetadataJson} from '../../src/core/metadata.js'
import type {KafkaClient} from '../../src/kafka/client.js'
import {buildOnce, cli, clusterState, tempDir} from './adapter-cli.js'
import {killBroker, startBroker, waitFor} from './lib/cluster.js'
import {dumpOffsetsPartition} from './lib/offsets-log.js'
import {Probe} from './lib/probe.js'

let probe: Probe
let dir: string

async function openClient(): Promise<KafkaClient> {
  const {KafkaClient} = await import('../../src/kafka/client.js')
  return KafkaClient.open(resolveConnectionSettings({bootstrapServer: probe.env.bootstrap, env: {}, timeoutMs: 30_000}))
}

async function withClient<T>(f: (c: KafkaClient) => Promise<T>): Promise<T> {
  const c = await openClient()
  try {
    return await f(c)
  } finally {
    await c.close()
  }
}

/** Names of this run's topics and groups (the suite may run twice against one cluster while developing). */
const R = `rda${Date.now().toString(36)}`

const json = <T = any>(stdout: string): T => JSON.parse(stdout) as T

beforeAll(async () => {
  dir = tempDir()
  const [p] = await Promise.all([Probe.start('adapter'), buildOnce()])
  probe = p
  const d = probe.driver
  await d.cmd(`create-topic ${R}-orders --assign 1:2:3,2:3:1,3:1:2`)
  await d.cmd(`create-topic ${R}-payments --assign 1:2,2:1,3:1`)
  await d.cmd(`create-topic ${R}-b3only --assign 3:1,3:2,1:3`)
})

afterAll(async () => {
  await probe?.close()
})

describe('live metadata and hashes', () => {
  it('live compute = compute from the snapshot file = hashes from the Java Admin metadata = stored MetadataHash', async () => {
    const B = probe.env.bootstrap
    const file = join(dir, 'snap.json')
    const snap = await cli(['cluster', 'snapshot', '-b', B, '--output', file, '--json'])
    expect(snap.code, snap.stderr).toBe(0)
    const summary = json(snap.stdout)
    expect(summary).toMatchObject({output: file, brokers: 3, fencedBrokers: 0, clusterId: probe.env.raw.CLUSTER_ID})
    const ours = parseMetadataJson(readFileSync(file, 'utf8'), file)
    expect(ours.topics.some(t => t.name === '__consumer_offsets')).toBe(false)

    // the same document as Kafka's own Admin client sees it (ids, replica order, racks), capture times aside
    const {md: java} = await probe.metadata()
    const strip = (m: typeof ours) => ({brokers: m.brokers, clusterId: m.clusterId, topics: m.topics.map(t => ({...t, topicId: t.topicId.bytes.toString()}))})
    expect(strip(ours)).toEqual(strip(java))

    const topics = [`${R}-orders`, `${R}-payments`, `${R}-missing`]
    const live = await cli(['topic-hash', 'compute', ...topics, '-b', B, '--json'])
    const fromFile = await cli(['topic-hash', 'compute', ...topics, '-f', file, '--json'])
    expect(live.code, live.stderr).toBe(0)
    expect(fromFile.code).toBe(0)
    expect(json(live.stdout)).toEqual(json(fromFile.stdout))
    const report = json(live.stdout)
    expect(report.missing).toEqual([`${R}-missing`])
    expect(report.groupHash).toBe(new TopicHasher(java).groupHash(topics).toString())

    // all topics: the live command lists the same rows as the file (internal topics left out in both)
    const liveAll = await cli(['topic-hash', 'compute', '-b', B, '--json'])
    const fileAll = await cli(['topic-hash', 'compute', '-f', file, '--json'])
    expect(json(liveAll.stdout)).toEqual(json(fileAll.stdout))

    // the human output is the same table too
    const liveText = await cli(['topic-hash', 'compute', ...topics, '-b', B])
    const fileText = await cli(['topic-hash', 'compute', ...topics, '-f', file])
    expect(liveText.stdout).toBe(fileText.stdout)

    // and the coordinator agrees: a consumer group on the same topics stores our group hash
    const g = `${R}-hash-check`
    await probe.driver.cmd(`consumer ${R}-h1 ${g} names ${R}-orders,${R}-payments`)
    const stored = await probe.settled(g, 'consumer')
    const again = await cli(['topic-hash', 'compute', `${R}-orders`, `${R}-payments`, '-b', B, '--json'])
    expect(BigInt(json(again.stdout).groupHash)).toBe(stored.metadataHash)
    await probe.driver.cmd(`stop ${R}-h1`)
  })

  it('internal topics are obtainable: named, or with --include-internal', async () => {
    const B = probe.env.bootstrap
    const named = await cli(['topic-hash', 'compute', '__consumer_offsets', '-b', B, '--json'])
    expect(json(named.stdout).topics.map((t: {name: string; partitions: number}) => [t.name, t.partitions])).toEqual([
      ['__consumer_offsets', probe.env.offsetsPartitions],
    ])
    const snap = await cli(['cluster', 'snapshot', '-b', B, '--include-internal', '--json'])
    const doc = json(snap.stdout)
    expect(doc.topics.find((t: {name: string}) => t.name === '__consumer_offsets')).toMatchObject({internal: true})
  })

  it('Metadata v12 and DescribeTopicPartitions (paged, topics split across pages) give the same metadata', async () => {
    await withClient(async c => {
      const a = await c.clusterMetadata({includeInternal: true, method: 'metadata'})
      const b = await c.clusterMetadata({includeInternal: true, method: 'describe-topic-partitions', partitionLimit: 2})
      expect(b.topics).toEqual(a.topics)
      expect(b.brokers).toEqual(a.brokers)
      const named = await c.topics({topics: [`${R}-orders`, 'nope'], method: 'describe-topic-partitions', partitionLimit: 1})
      expect(named.map(t => [t.name, t.partitions.length])).toEqual([[`${R}-orders`, 3]])
    })
  })

  it('a killed and fenced broker still counts: its rack enters the live hash (DescribeCluster v2)', async () => {
    const B = probe.env.bootstrap
    await killBroker(probe.env, 3)
    try {
      await probe.driver.cmd('wait-broker 3 fenced 30000')
      const {md: java} = await probe.metadata()
      expect(java.brokers.find(b => b.id === 3)).toEqual({id: 3, rack: 'rack-b', fenced: true})
      const file = join(dir, 'fenced.json')
      const snap = await cli(['cluster', 'snapshot', '-b', B, '-o', file, '--json'])
      expect(snap.code, snap.stderr).toBe(0)
      expect(json(snap.stdout)).toMatchObject({brokers: 3, fencedBrokers: 1})
      const live = await cli(['topic-hash', 'compute', `${R}-b3only`, '-b', B, '--json'])
      expect(live.code, live.stderr).toBe(0)
      const row = json(live.stdout).topics[0]
      expect(row.replicaRacks).toEqual({'rack-a': 3, 'rack-b': 3})
      expect(row.hash).toBe(new TopicHasher(java).topicHash(`${R}-b3only`).toString())
      // without the fenced broker (what Metadata's broker list gives) the hash would differ
      const withoutFenced = {...java, brokers: java.brokers.filter(b => !b.fenced)}
      expect(row.hash).not.toBe(new TopicHasher(withoutFenced).topicHash(`${R}-b3only`).toString())
    } finally {
      await startBroker(probe.env, 3)
      await probe.driver.cmd('wait-broker 3 unfenced 60000')
    }
  })
})

describe('groups', () => {
  it('lists every group type (ListGroups v5) and describes each at its coordinator', async () => {
    const d = probe.driver
    await d.cmd(`create-topic ${R}-src 3 2`)
    await d.cmd(`create-topic ${R}-sink 1 1`)
    await d.cmd(`consumer rdc1 ${R}-consumer names ${R}-orders,${R}-payments`)
    await d.cmd(`consumer rdc2 ${R}-regex regex ${R}-p.*`)
    await d.cmd(`share rds1 ${R}-share ${R}-orders`)
    await d.cmd(`streams rdt1 ${R}-streams ${R}-src ${R}-sink`)
    const want = {[`${R}-consumer`]: 'consumer', [`${R}-regex`]: 'consumer', [`${R}-share`]: 'share', [`${R}-streams`]: 'streams'}
    try {
      const listed = await waitFor(
        'all four groups listed and stable',
        () =>
          withClient(async c => {
            const gs = await c.listGroups()
            const byId = new Map(gs.map(g => [g.groupId, g]))
            return Object.entries(want).every(([id, type]) => byId.get(id)?.type === type && byId.get(id)?.state.toLowerCase() === 'stable') ? gs : undefined
          }),
        {timeoutMs: 120_000, intervalMs: 1000},
      )
      expect(listed.find(g => g.groupId === `${R}-consumer`)).toMatchObject({type: 'consumer', protocolType: 'consumer'})

      await withClient(async c => {
        // filters are passed to the broker
        const shares = await c.listGroups({types: ['share']})
        expect(shares.map(g => g.groupId)).toContain(`${R}-share`)
        expect(shares.every(g => g.type === 'share')).toBe(true)

        const [cons, regex, missing] = await c.describeConsumerGroups([`${R}-consumer`, `${R}-regex`, `${R}-nope`])
        expect(cons).toMatchObject({groupId: `${R}-consumer`, errorCode: 0, state: 'Stable', assignorName: expect.any(String)})
        expect(cons.groupEpoch).toBeGreaterThan(0)
        expect(cons.assignmentEpoch).toBe(cons.groupEpoch)
        expect(cons.members).toHaveLength(1)
        const m = cons.members[0]
        // the coordinator keeps subscribed names in a set: their order on the wire is not defined
        expect(m).toMatchObject({clientId: 'rdc1', subscribedTopicRegex: null, memberEpoch: cons.groupEpoch, memberType: 1})
        expect([...m.subscribedTopicNames].sort()).toEqual([`${R}-orders`, `${R}-payments`])
        const assigned = (tps: typeof m.assignment) => tps.map(tp => `${tp.topicName}:${[...tp.partitions].sort().join(',')}`).sort()
        expect(assigned(m.assignment)).toEqual([`${R}-orders:0,1,2`, `${R}-payments:0,1,2`])
        expect(assigned(m.targetAssignment)).toEqual(assigned(m.assignment))
        expect(m.assignment[0].topicId).toMatch(/^[A-Za-z0-9_-]{22}$/)

        expect(regex.members[0]).toMatchObject({subscribedTopicRegex: `${R}-p.*`, subscribedTopicNames: []})
        expect(assigned(regex.members[0].assignment)).toEqual([`${R}-payments:0,1,2`])
        expect(missing).toMatchObject({groupId: `${R}-nope`, errorName: 'GROUP_ID_NOT_FOUND'})

        // a share group assigns once its share partitions are initialized, which can lag "Stable"
        const share = await waitFor(
          'the share member assigned',
          async () => {
            const [sg] = await c.describeShareGroups([`${R}-share`])
            return sg.members[0]?.assignment.length ? sg : undefined
          },
          {timeoutMs: 60_000, intervalMs: 500},
        )
        expect(share).toMatchObject({groupId: `${R}-share`, errorCode: 0, state: 'Stable'})
        expect(share.groupEpoch).toBeGreaterThan(0)
        expect(share.members[0]).toMatchObject({clientId: 'rds1', subscribedTopicNames: [`${R}-orders`]})
        expect(assigned(share.members[0].assignment)).toEqual([`${R}-orders:0,1,2`])

        const [streams] = await c.describeStreamsGroups([`${R}-streams`])
        expect(streams).toMatchObject({groupId: `${R}-streams`, errorCode: 0, state: 'Stable'})
        expect(streams.groupEpoch).toBeGreaterThan(0)
        const sub = streams.topology!.subtopologies!
        expect(sub.flatMap(s => s.sourceTopics)).toContain(`${R}-src`)
        expect(sub.flatMap(s => s.repartitionSourceTopics.map(t => t.name)).some(n => n.startsWith(`${R}-streams-`))).toBe(true)
        expect(sub.flatMap(s => s.stateChangelogTopics.map(t => t.name)).some(n => n.endsWith('-changelog'))).toBe(true)
        const sm = streams.members[0]
        expect(sm.memberEpoch).toBe(streams.groupEpoch)
        expect(sm.processId).not.toBe('')
        expect(sm.assignment.activeTasks.length).toBeGreaterThan(0)
        expect(sm.isClassic).toBe(false)

        // a group described with the wrong API says so instead of failing
        const [wrong] = await c.describeConsumerGroups([`${R}-share`])
        expect(wrong.errorCode).not.toBe(0)
      })
    } finally {
      for (const m of ['rdc1', 'rdc2', 'rds1', 'rdt1']) await d.cmd(`stop ${m}`).catch(() => {})
    }
  })
})

describe('partition read (for group records)', () => {
  it('reads a __consumer_offsets partition from log start to the end with no group: the records DumpLogSegments sees', async () => {
    const g = `${R}-consumer`
    const partition = probe.offsetsPartition(g)
    const leader = await probe.coordinator(g)
    const read = await withClient(c => c.readPartition({partition}))
    expect(read).toMatchObject({topic: '__consumer_offsets', partition, leader, logStartOffset: 0n})
    expect(read.endOffset).toBeGreaterThan(0n)
    const data = read.batches.filter(b => !b.isControl).flatMap(b => b.records)
    const dump = (await dumpOffsetsPartition(probe.env, leader, partition)).filter(r => BigInt(r.offset) < read.endOffset)
    expect(data.map(r => Number(r.offset))).toEqual(dump.map(r => r.offset))
    // the key's int16 prefix is the record type DumpLogSegments decoded; tombstones agree too
    expect(data.map(r => Buffer.from(r.key!).readInt16BE(0))).toEqual(dump.map(r => r.type))
    expect(data.map(r => r.value === null)).toEqual(dump.map(r => r.value === null))
    // offsets strictly increase, batches are contiguous in offset order
    for (let i = 1; i < read.batches.length; i++) expect(read.batches[i].baseOffset).toBeGreaterThan(read.batches[i - 1].lastOffset)
    // our group's records are there
    expect(data.some(r => Buffer.from(r.key!).includes(Buffer.from(g)))).toBe(true)

    // from an offset, and streaming
    const mid = data[Math.floor(data.length / 2)].offset
    const seen: bigint[] = []
    const tail = await withClient(c =>
      c.readPartition({
        partition,
        fromOffset: mid,
        onBatch: b => {
          if (!b.isControl) seen.push(...b.records.map(r => r.offset))
        },
      }),
    )
    expect(tail.batches).toEqual([])
    expect(seen.filter(o => o >= mid)).toEqual(data.filter(r => r.offset >= mid).map(r => r.offset))
  })
})

describe('read-only', () => {
  it('live commands leave groups, committed offsets, topics and configs as they were', async () => {
    const B = probe.env.bootstrap
    // nothing else runs now: members of earlier tests are stopped; wait for their last writes to land (every group of
    // this file empty, the end of their __consumer_offsets partitions unchanged over two reads), not a fixed time
    let lastEnds = ''
    await waitFor(
      "this file's groups empty and their __consumer_offsets partitions still",
      async () => {
        const ends = await withClient(async c => {
          const ours = (await c.listGroups()).filter(g => g.groupId.startsWith(R))
          if (ours.some(g => !['Empty', 'Dead'].includes(g.state))) return undefined
          // a read from past the end fetches nothing and gives the partition's end offset
          const partitions = [...new Set(ours.map(g => probe.offsetsPartition(g.groupId)))]
          const reads = await Promise.all(partitions.map(p => c.readPartition({partition: p, fromOffset: 1n << 62n})))
          return reads.map(r => `${r.partition}:${r.endOffset}`).join(',')
        })
        if (ends === undefined) return undefined
        const still = ends === lastEnds
        lastEnds = ends
        return still || undefined
      },
      {timeoutMs: 120_000, intervalMs: 1000},
    )
    const before = await clusterState(probe.env)
    const runs = [
      await cli(['cluster', 'snapshot', '-b', B, '--include-internal', '-o', join(dir, 'ro.json')]),
      await cli(['topic-hash', 'compute', '-b', B]),
      await cli(['topic-hash', 'compute', `${R}-orders`, '__consumer_offsets', 'no-such-topic', '-b', B, '--json']),
    ]
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    await withClient(async c => {
      const groups = await c.listGroups()
      await c.describeConsumerGroups(groups.filter(g => g.type === 'consumer').map(g => g.groupId))
      await c.describeShareGroups(groups.filter(g => g.type === 'share').map(g => g.groupId))
      await c.describeStreamsGroups(groups.filter(g => g.type === 'streams').map(g => g.groupId))
      await c.describeConsumerGroups([`${R}-never-existed`])
      for (let p = 0; p < probe.env.offsetsPartitions; p++) await c.readPartition({partition: p})
    })
    const after = await clusterState(probe.env)
    // The coordinator itself may write meanwhile (e.g. deleting a now-empty group of an earlier test file): where
    // __consumer_offsets grew, the new records must be none of ours: no offset commit, no group we named.
    const ends = (s: string) =>
      new Map(
        s
          .split('\n')
          .map(l => l.split(':'))
          .map(([, p, o]) => [Number(p), BigInt(o)]),
      )
    const [endsBefore, endsAfter] = [ends(before.consumerOffsetsEnd), ends(after.consumerOffsetsEnd)]
    for (const [p, end] of endsAfter) {
      const from = endsBefore.get(p) ?? 0n
      if (end === from) continue
      const read = await withClient(c => c.readPartition({partition: p, fromOffset: from}))
      const records = read.batches
        .filter(b => !b.isControl)
        .flatMap(b => b.records)
        .filter(r => r.offset >= from)
      for (const r of records) {
        const type = Buffer.from(r.key!).readInt16BE(0)
        expect(type, `__consumer_offsets-${p} @${r.offset}: an offset commit appeared`).not.toBe(1)
        expect(Buffer.from(r.key!).includes(Buffer.from(R)), `__consumer_offsets-${p} @${r.offset}: a record of this test's groups`).toBe(false)
      }
      console.log(
        `[kafka-it] __consumer_offsets-${p} grew ${from} → ${end} during the read-only check: coordinator records only (types ${[...new Set(records.map(r => Buffer.from(r.key!).readInt16BE(0)))].join(',')})`,
      )
    }
    // no new group (the coordinator may delete an empty one meanwhile); topics and configs unchanged
    const groupsBefore = new Set(before.groups.split('\n'))
    for (const g of after.groups.split('\n').filter(Boolean)) expect(groupsBefore.has(g), `new group ${g}`).toBe(true)
    expect({...after, consumerOffsetsEnd: '', groups: ''}).toEqual({...before, consumerOffsetsEnd: '', groups: ''})
    expect(after.groups).not.toContain(`${R}-never-existed`)
  })
})
