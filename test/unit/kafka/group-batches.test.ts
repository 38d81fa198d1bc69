/**
 * A cluster's groups are never one FindCoordinator or one describe request.
 * In-process: the Kafka client against a server that lists GROUPS consumer groups (test/lib/hostile-broker.ts
 * 'many-groups'); its request log shows how the groups were asked for.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {resolveConnectionSettings} from '../../../src/config/client-config.js'
import {KafkaClient} from '../../../src/kafka/client.js'
import {DESCRIBE_BATCH, FIND_COORDINATOR_BATCH} from '../../../src/kafka/groups.js'
import {LISTING_SLICE, readGroupList} from '../../../src/sources/group-list.js'
import {type HostileBroker, startHostileKafka} from '../../lib/hostile-broker.js'

const GROUPS = 25_000
let broker: HostileBroker

beforeAll(async () => {
  broker = await startHostileKafka('many-groups', 120_000, {groups: GROUPS})
})
afterAll(async () => broker.stop())

describe('groups in batches', () => {
  it(`${GROUPS} groups: FindCoordinator in batches of ${FIND_COORDINATOR_BATCH}, ConsumerGroupDescribe in batches of ${DESCRIBE_BATCH}, every group described once`, async () => {
    const client = await KafkaClient.open(resolveConnectionSettings({bootstrapServer: broker.address, timeoutMs: 60_000, env: {}}))
    try {
      const listed = await client.listGroups()
      expect(listed).toHaveLength(GROUPS)
      const described = await client.describeConsumerGroups(listed.map(g => g.groupId))
      expect(described.map(d => d.groupId)).toEqual(listed.map(g => g.groupId))
    } finally {
      await client.close()
    }
    const asked = (apiKey: number) => broker.requests!.filter(r => r.apiKey === apiKey).map(r => r.groups!)
    expect(asked(10)).toEqual([10_000, 10_000, 5_000])
    expect(Math.max(...asked(69))).toBe(DESCRIBE_BATCH)
    expect(asked(69).reduce((a, b) => a + b, 0)).toBe(GROUPS)
  })

  it(`group list: one FindCoordinator lookup per group, its answer reused by the describes, in slices of ${LISTING_SLICE}`, async () => {
    const before = broker.requests!.length
    const client = await KafkaClient.open(resolveConnectionSettings({bootstrapServer: broker.address, timeoutMs: 60_000, env: {}}))
    let read: Awaited<ReturnType<typeof readGroupList>>
    try {
      read = await readGroupList(client, () => true)
    } finally {
      await client.close()
    }
    const entries = [...read.entries]
    expect(entries.map(e => e.group)).toEqual(entries.map(e => e.group).sort())
    expect(entries.filter(e => e.coordinator === 1 && e.state === 'Empty')).toHaveLength(GROUPS)
    const asked = (apiKey: number) =>
      broker
        .requests!.slice(before)
        .filter(r => r.apiKey === apiKey)
        .map(r => r.groups!)
    expect(asked(10)).toEqual([10_000, 10_000, 5_000])
    expect(asked(69).reduce((a, b) => a + b, 0)).toBe(GROUPS)
  })
})
