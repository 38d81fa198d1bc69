/**
 * Share groups (ShareGroupMetadata, type 11) and streams groups (StreamsGroupMetadata, type 17): their hashes are
 * regular fields of their own metadata records; ours, from the live metadata document, must equal them.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TopicHasher} from '../../src/core/hash.js'
import {waitFor} from './lib/cluster.js'
import {ensureBaseline, Probe} from './lib/probe.js'

let probe: Probe

beforeAll(async () => {
  probe = await Probe.start('share-streams')
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
    console.log(`[kafka-it] streams group epochs: ${(await probe.history(app, 'streams')).map(r => r.epoch).join(' ')}`)
    await d.cmd('stop k1')
  })
})
