/**
 * KIP-848 consumer groups on a real cluster: the group hash our core computes from the live metadata document
 * equals the MetadataHash the coordinator stored (ConsumerGroupMetadata, read by Kafka's DumpLogSegments) at the
 * latest epoch, and the epoch moves as the scenario expects.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TopicHasher} from '../../src/core/hash.js'
import {versionAtLeast} from './lib/cluster.js'
import {ensureBaseline, Probe} from './lib/probe.js'

let probe: Probe

beforeAll(async () => {
  probe = await Probe.start('consumer-groups')
  await ensureBaseline(probe)
})
afterAll(async () => {
  await probe?.close()
})

/** 4.3+ keeps new groups at epoch 1 in memory, so the first persisted epoch is 2 (KAFKA-20268); 4.1/4.2 write 1. */
const firstEpoch = () => (versionAtLeast(probe.env.kafkaVersion, '4.3') ? 2 : 1)

describe(`consumer groups (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('two topics with replicas over rack-a, rack-a, rack-b: duplicate racks hashed as the coordinator does', async () => {
    const d = probe.driver
    await d.cmd('create-topic a-orders --assign 1:2:3,2:3:1,3:1:2')
    await d.cmd('create-topic a-payments --assign 1:2,2:1,3:1')
    const g = 'it-dup-racks'
    await d.cmd(`consumer a1 ${g} names a-orders,a-payments`)
    const stored = await probe.settled(g, 'consumer')
    const {md} = await probe.metadata()

    // the document really has partitions whose replicas share a rack
    const racks = new Map(md.brokers.map(b => [b.id, b.rack]))
    expect(md.brokers.map(b => [b.id, b.rack, b.fenced])).toEqual([
      [1, 'rack-a', false],
      [2, 'rack-a', false],
      [3, 'rack-b', false],
    ])
    const orders = md.topics.find(t => t.name === 'a-orders')!
    expect(orders.partitions[0].replicas.map(r => racks.get(r))).toEqual(['rack-a', 'rack-a', 'rack-b'])

    const hasher = new TopicHasher(md)
    expect(stored.metadataHash).not.toBe(0n)
    expect(hasher.groupHash(['a-orders', 'a-payments'])).toBe(stored.metadataHash)
    // the order of the subscription does not matter; a different topic set gives a different hash
    expect(hasher.groupHash(['a-payments', 'a-orders'])).toBe(stored.metadataHash)
    expect(hasher.groupHash(['a-orders'])).not.toBe(stored.metadataHash)

    const history = await probe.history(g, 'consumer')
    expect(history[0].epoch).toBe(firstEpoch())
    expect(stored.epoch).toBe(firstEpoch())

    await d.cmd('stop a1')
    // leaving bumps the epoch and stores the hash of an empty subscription (0: the tagged field is omitted)
    const left = await probe.waitStored(g, 'consumer', 'epoch after leave', r => r.epoch > stored.epoch)
    expect(left.epoch).toBe(stored.epoch + 1)
    expect(left.metadataHash).toBe(0n)
  })

  it('partitions added to a subscribed topic: one new epoch whose hash equals ours', async () => {
    const d = probe.driver
    await d.cmd('create-topic b-grow --assign 1:3,2:1,3:2')
    await d.cmd('create-topic b-still 2 3')
    const g = 'it-add-partitions'
    await d.cmd(`consumer b1 ${g} names b-grow,b-still`)
    const before = await probe.settled(g, 'consumer')
    expect(await probe.ourGroupHash(['b-grow', 'b-still'])).toBe(before.metadataHash)

    await d.cmd('add-partitions b-grow 5 --assign 3:1,1:2')
    await probe.waitStored(g, 'consumer', 'a new epoch after add-partitions', r => r.epoch > before.epoch)
    const after = await probe.settled(g, 'consumer')
    const {md} = await probe.metadata()
    expect(md.topics.find(t => t.name === 'b-grow')!.partitions).toHaveLength(5)
    expect(after.epoch).toBe(before.epoch + 1)
    expect(after.metadataHash).not.toBe(before.metadataHash)
    expect(new TopicHasher(md).groupHash(['b-grow', 'b-still'])).toBe(after.metadataHash)
    await d.cmd('stop b1')
  })

  it('subscribed topic deleted and recreated (new topic id): a bump for each, hashes equal ours', async () => {
    const d = probe.driver
    await d.cmd('create-topic d-keep --assign 1:2,2:3')
    const first = await d.cmd('create-topic d-gone --assign 3:1,1:2,2:3')
    const g = 'it-recreate'
    await d.cmd(`consumer d1 ${g} names d-keep,d-gone`)
    const s1 = await probe.settled(g, 'consumer')
    expect(await probe.ourGroupHash(['d-keep', 'd-gone'])).toBe(s1.metadataHash)

    await d.cmd('delete-topic d-gone')
    await probe.waitStored(g, 'consumer', 'a new epoch after delete', r => r.epoch > s1.epoch)
    const s2 = await probe.settled(g, 'consumer')
    const md2 = (await probe.metadata()).md
    expect(md2.topics.some(t => t.name === 'd-gone')).toBe(false)
    expect(s2.epoch).toBe(s1.epoch + 1)
    // the deleted topic is left out of the group hash (not hashed as 0)
    expect(new TopicHasher(md2).groupHash(['d-keep', 'd-gone'])).toBe(s2.metadataHash)
    expect(new TopicHasher(md2).groupHash(['d-keep'])).toBe(s2.metadataHash)

    const second = await d.cmd('create-topic d-gone --assign 3:1,1:2,2:3')
    expect(second.topicId).not.toBe(first.topicId)
    await probe.waitStored(g, 'consumer', 'a new epoch after re-create', r => r.epoch > s2.epoch)
    const s3 = await probe.settled(g, 'consumer')
    expect(s3.epoch).toBe(s2.epoch + 1)
    // same name, partitions and replicas as before: only the topic id differs, and so does the hash
    expect(s3.metadataHash).not.toBe(s1.metadataHash)
    expect(await probe.ourGroupHash(['d-keep', 'd-gone'])).toBe(s3.metadataHash)
    await d.cmd('stop d1')
  })

  it('a subscribed topic that did not exist is created: a new epoch, hash equal to ours', async () => {
    const d = probe.driver
    await d.cmd('create-topic m-present --assign 2:3,3:1')
    const g = 'it-missing-topic'
    await d.cmd(`consumer m1 ${g} names m-present,m-later`)
    const s1 = await probe.settled(g, 'consumer')
    const md1 = (await probe.metadata()).md
    expect(md1.topics.some(t => t.name === 'm-later')).toBe(false)
    expect(new TopicHasher(md1).groupHash(['m-present', 'm-later'])).toBe(s1.metadataHash)

    await d.cmd('create-topic m-later --assign 1:2:3')
    await probe.waitStored(g, 'consumer', 'a new epoch after the topic is created', r => r.epoch > s1.epoch)
    const s2 = await probe.settled(g, 'consumer')
    expect(s2.epoch).toBe(s1.epoch + 1)
    expect(await probe.ourGroupHash(['m-present', 'm-later'])).toBe(s2.metadataHash)
    expect(s2.metadataHash).not.toBe(s1.metadataHash)
    await d.cmd('stop m1')
  })

  it('a regex subscription (broker-side SubscriptionPattern) picks up a newly created matching topic', async () => {
    const d = probe.driver
    await d.cmd('create-topic re-orders-1 --assign 1:2,3:1')
    await d.cmd('create-topic re-other 1 3')
    const g = 'it-regex'
    const regex = 're-orders-.*'
    await d.cmd(`consumer r1 ${g} regex ${regex}`)
    const resolved = async () => {
      const recs = (await probe.records(g)).filter(r => r.type === 16 && r.key.regularExpression === regex)
      const last = recs.at(-1)
      return last?.value ? ((last.value.topics as string[]) ?? []).slice().sort() : undefined
    }
    await probe.waitStored(g, 'consumer', 'regex resolved', r => r.metadataHash !== 0n)
    const s1 = await probe.settled(g, 'consumer')
    expect(await resolved()).toEqual(['re-orders-1'])
    expect(await probe.ourGroupHash(['re-orders-1'])).toBe(s1.metadataHash)

    await d.cmd('create-topic re-orders-2 --assign 2:3,3:2')
    await probe.waitStored(g, 'consumer', 'a new epoch after a matching topic is created', r => r.epoch > s1.epoch, 120_000)
    const s2 = await probe.settled(g, 'consumer')
    expect(await resolved()).toEqual(['re-orders-1', 're-orders-2'])
    expect(s2.epoch).toBe(s1.epoch + 1)
    expect(await probe.ourGroupHash(['re-orders-1', 're-orders-2'])).toBe(s2.metadataHash)
    await d.cmd('stop r1')
  })
})
