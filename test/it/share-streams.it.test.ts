/**
 * Share groups (ShareGroupMetadata, type 11) and streams groups (StreamsGroupMetadata, type 17): their hashes are
 * regular fields of their own metadata records; ours, from the live metadata document, must equal them. A streams
 * member leaving: a 4.1 coordinator stores hash 0 (4.2+ keeps the hash), and `group explain` and `audit` say so.
 * The streams group's `group explain --html` page: the member's lane of tasks, and what the records cannot tell.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TopicHasher} from '../../src/core/hash.js'
import {buildOnce, cli, tempDir} from './adapter-cli.js'
import {explain, kinds} from './explain-lib.js'
import {clusterSh, versionAtLeast, waitFor} from './lib/cluster.js'
import {ensureBaseline, Probe} from './lib/probe.js'

let probe: Probe

beforeAll(async () => {
  const [p] = await Promise.all([Probe.start('share-streams'), buildOnce()])
  probe = p
  await ensureBaseline(probe)
})
afterAll(async () => {
  await probe?.close()
})

describe(`share and streams groups (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('share group on two topics, then partitions added: stored hash equals ours at each latest epoch', async () => {
    const d = probe.driver
    await d.cmd('create-topic s-one --assign 1:2:3,2:3:1')
    await d.cmd('create-topic s-two --assign 3:1')
    const g = 'it-share'
    await d.cmd(`share s1 ${g} s-one,s-two`)
    const s1 = await probe.settled(g, 'share')
    expect(s1.metadataHash).not.toBe(0n)
    expect(await probe.ourGroupHash(['s-one', 's-two'])).toBe(s1.metadataHash)

    await d.cmd('add-partitions s-two 3 --assign 1:2,2:3')
    await probe.waitStored(g, 'share', 'a new epoch after add-partitions', r => r.epoch > s1.epoch)
    const s2 = await probe.settled(g, 'share')
    expect(s2.metadataHash).not.toBe(s1.metadataHash)
    expect(await probe.ourGroupHash(['s-one', 's-two'])).toBe(s2.metadataHash)
    console.log(`[kafka-it] share group epochs: ${(await probe.history(g, 'share')).map(r => r.epoch).join(' ')}`)
    await d.cmd('stop s1')
  })

  it('streams group (group.protocol=streams): hash over source, repartition and changelog topics equals ours', async () => {
    const d = probe.driver
    const app = 'it-streams'
    await d.cmd('create-topic st-src --assign 1:2,2:3')
    await d.cmd('create-topic st-sink 1 3')
    await d.cmd('produce st-src 20')
    await d.cmd(`streams k1 ${app} st-src st-sink`)

    // the topology the member sent, as the coordinator stored it (StreamsGroupTopology, type 23)
    const topology = await waitFor(
      'the StreamsGroupTopology record',
      async () => {
        const t = (await probe.records(app)).filter(r => r.type === 23 && r.value).at(-1)
        return t?.value ?? undefined
      },
      {timeoutMs: 90_000},
    )
    const topics = new Set<string>()
    for (const s of topology.subtopologies as Array<Record<string, unknown>>) {
      for (const n of (s.sourceTopics as string[]) ?? []) topics.add(n)
      for (const r of (s.repartitionSourceTopics as Array<{name: string}>) ?? []) topics.add(r.name)
      for (const c of (s.stateChangelogTopics as Array<{name: string}>) ?? []) topics.add(c.name)
    }
    expect([...topics].sort()).toEqual(['it-streams-counts-changelog', 'it-streams-counts-repartition', 'st-src'])

    // the coordinator creates the internal topics; wait for them, then for the group to settle
    await waitFor(
      'internal topics created',
      async () => {
        const {md} = await probe.metadata()
        return [...topics].every(t => md.topics.some(x => x.name === t))
      },
      {timeoutMs: 90_000, intervalMs: 1000},
    )
    await waitFor(
      'member RUNNING',
      async () => {
        const m = (await d.cmd('members')).members as Array<{member: string; state: string}>
        return m.find(x => x.member === 'k1')?.state === 'RUNNING'
      },
      {timeoutMs: 90_000},
    )
    const s = await probe.settled(app, 'streams')
    const {md} = await probe.metadata()
    const hasher = new TopicHasher(md)
    expect(s.metadataHash).not.toBe(0n)
    expect(hasher.groupHash(topics)).toBe(s.metadataHash)
    // the source topic alone (internal topics left out) would differ
    expect(hasher.groupHash(['st-src'])).not.toBe(s.metadataHash)
    // the bump after the coordinator created the internal topics (4.2+: with the topology's validation) covers topics
    // that did not exist at the group's first hash: both found absent then (two absences made it unexplained before)
    const page = join(tempDir(), 'streams.html')
    const r = await explain(probe.env, app, '--html', page)
    const changes = r.timeline.flatMap(e => e.causes).filter(c => c.kind === 'metadata-hash-changed')
    expect(changes).toHaveLength(1)
    const [change] = changes
    expect(change?.confidence).toBe('inferred-unique')
    expect(change?.details.changes).toEqual([
      expect.objectContaining({
        kind: 'combined',
        parts: [
          expect.objectContaining({kind: 'topic-absent', topic: 'it-streams-counts-changelog'}),
          expect.objectContaining({kind: 'topic-absent', topic: 'it-streams-counts-repartition'}),
        ],
      }),
    ])
    console.log(`[kafka-it] streams group epochs: ${(await probe.history(app, 'streams')).map(r => r.epoch).join(' ')}`)
    // the page of the same run: one lane, k1's, holding tasks (subtopology_partition); streams words
    const html = readFileSync(page, 'utf8')
    expect(r.members).toHaveLength(1)
    expect(html.match(/<g class="lane">/g)).toHaveLength(1)
    expect(html).toMatch(new RegExp(`\\(${r.members[0].memberId.slice(0, 8)}\\) held \\d+ tasks?: \\d+_\\d+`))
    expect(html).toContain('Only active tasks have a time without an owner')
    expect(html).toContain(`<g class="bump"><title>epoch ${r.groupEpoch} at `)
    // k1 keeps running for the next test
  })

  it('a streams member leaves: 4.1 stores metadata hash 0 (4.2+ keeps it); explained as the fence, and so is the recomputation after it', async () => {
    const d = probe.driver
    const env = probe.env
    const app = 'it-streams'
    const is41 = !versionAtLeast(env.kafkaVersion, '4.2.0')
    const running = (name: string) =>
      waitFor(
        `${name} RUNNING`,
        async () => ((await d.cmd('members')).members as Array<{member: string; state: string}>).find(x => x.member === name)?.state === 'RUNNING',
        {timeoutMs: 90_000},
      )
    await d.cmd(`streams k2 ${app} st-src st-sink`)
    await running('k2')
    const joined = await probe.settled(app, 'streams')
    expect(joined.metadataHash).not.toBe(0n)
    await d.cmd('stop k2')
    // what the coordinator stored, read with DumpLogSegments
    const left = await probe.waitStored(app, 'streams', 'the epoch after k2 left', r => r.epoch > joined.epoch)
    expect(left.metadataHash).toBe(is41 ? 0n : joined.metadataHash)

    const r = await explain(env, app)
    const entry = r.timeline.find(e => e.epoch === left.epoch)!
    const audit = await cli(['audit', '-b', env.bootstrap, '--json', '--group', app])
    const row = JSON.parse(audit.stdout).groups[0]
    expect(row.findings).not.toContain('drift')
    if (!is41) {
      expect(kinds(entry)).toEqual(['member-left'])
      expect(r.findings.map(f => f.code)).not.toContain('HASH_ZEROED_BY_FENCE')
      await d.cmd('stop k1')
      return
    }
    expect(kinds(entry)).toEqual(['member-left', 'streams-hash-zeroed'])
    expect(r.verdict.code).toBe('HASH_ZEROED_BY_FENCE')
    expect(r.findings.find(f => f.code === 'HASH_ZEROED_BY_FENCE')?.details).toEqual({
      fenceEpoch: left.epoch,
      hashBefore: joined.metadataHash.toString(),
      sameAsLive: true,
    })
    expect(row).toMatchObject({verdict: {code: 'HASH_ZEROED_BY_FENCE'}, inSync: false, hashZeroedByFence: {sameAsLive: true}})
    expect(audit.code, audit.stderr).toBe(0)

    // A change to a subscribed topic that does not change its hash (partition 0's replicas reordered, with Kafka's
    // ReassignPartitionsCommand) makes the coordinator recompute on k1's next heartbeat: 0 → the hash before the fence.
    const file = join(tempDir(), 'reorder.json')
    const {md} = await probe.metadata()
    const replicas = md.topics.find(t => t.name === 'st-src')!.partitions[0].replicas
    writeFileSync(file, JSON.stringify({version: 1, partitions: [{topic: 'st-src', partition: 0, replicas: [...replicas].reverse()}]}))
    await clusterSh(
      env,
      'tool',
      'org.apache.kafka.tools.reassign.ReassignPartitionsCommand',
      '--bootstrap-server',
      env.bootstrap,
      '--reassignment-json-file',
      file,
      '--execute',
    )
    const recomputed = await probe.waitStored(app, 'streams', 'the recomputation after the fence', x => x.epoch > left.epoch && x.metadataHash !== 0n)
    expect(recomputed.metadataHash).toBe(joined.metadataHash)
    const after = await explain(env, app)
    const bump = after.timeline.find(e => e.epoch === recomputed.epoch)!
    expect(kinds(bump)).toEqual(['streams-hash-recomputed'])
    expect(bump.causes[0]).toMatchObject({confidence: 'exact', details: {fenceEpoch: left.epoch, sameAsBefore: true}})
    expect(after.findings.map(f => f.code)).not.toContain('HASH_ZEROED_BY_FENCE')
    console.log(
      `[kafka-it] streams fence on ${env.kafkaVersion}: epochs ${(await probe.history(app, 'streams')).map(x => `${x.epoch}:${x.metadataHash}`).join(' ')}`,
    )
    await d.cmd('stop k1')
  })
})
