/**
 * The reference reader itself: Kafka's DumpLogSegments --offsets-decoder, run as its own process and inside the
 * driver JVM, decodes the same records; a group's records live in partition abs(hashCode(group)) % 5 only.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {dumpOffsetsPartition, dumpOffsetsPartitionInDriver, groupRecords, metadataRecords, offsetsPartitionFor} from './lib/offsets-log.js'
import {ensureBaseline, Probe} from './lib/probe.js'

let probe: Probe

beforeAll(async () => {
  probe = await Probe.start('offsets-decoder')
  await ensureBaseline(probe)
})
afterAll(async () => {
  await probe?.close()
})

describe('__consumer_offsets reference decoder', () => {
  it('in-driver and stand-alone DumpLogSegments agree; records sit in the partition Utils.abs(hashCode) % n names', async () => {
    const d = probe.driver
    const env = probe.env
    await d.cmd('create-topic od-t 2 3')
    const groups = ['it-od-a', 'it-od-b', 'it-od-c']
    for (const [i, g] of groups.entries()) await d.cmd(`consumer od${i} ${g} names od-t`)
    for (const g of groups) await probe.settled(g, 'consumer', 3000)

    for (const g of groups) {
      const p = offsetsPartitionFor(g, env.offsetsPartitions)
      for (let q = 0; q < env.offsetsPartitions; q++) {
        const leader = (await d.cmd(`partition __consumer_offsets ${q}`)).leader as number
        const inDriver = await dumpOffsetsPartitionInDriver(env, d, leader, q)
        if (q === p) {
          const alone = await dumpOffsetsPartition(env, leader, q)
          expect(alone.length).toBeGreaterThan(0)
          expect(inDriver).toEqual(alone)
          expect(metadataRecords(alone, g, 'consumer').length).toBeGreaterThan(0)
        } else {
          expect(groupRecords(inDriver, g)).toEqual([])
        }
      }
    }
    for (const i of groups.keys()) await d.cmd(`stop od${i}`)
  })
})
