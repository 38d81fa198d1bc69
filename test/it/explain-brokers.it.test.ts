/**
 * `group explain --json` through broker changes on a real cluster (3 brokers: rack-a, rack-a, rack-b), one group
 * whose coordinator is not broker 2:
 *   1. broker 2 killed and fenced: no bump, verdict IN_SYNC (fenced brokers stay registered; their racks count);
 *   2. broker 2 restarted with broker.rack=rack-b: the bump (when its replicas rejoin the ISR, a topic change that
 *      evicts the coordinator's cached topic hash) attributed to broker 2's rack change;
 *   3. broker 2 killed again and unregistered: no bump (broker changes do not evict the topic-hash cache), verdict
 *      STALE_COORDINATOR_CACHE naming the unregistration and what will make the coordinator notice;
 *   4. the leader of the group's __consumer_offsets partition killed: the coordinator reloads on another broker with
 *      an empty cache, and the bump that follows is attributed to the disappearance of broker 2 (rack-b).
 * The cluster is put back as it was (brokers 1-3 running, rack-a, rack-a, rack-b) whatever happens.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce} from './adapter-cli.js'
import {afterBump, explain, kinds, runTag, settled, since, waitReport} from './explain-lib.js'
import {killBroker, sleep, startBroker} from './lib/cluster.js'
import {groupAwayFrom, Probe} from './lib/probe.js'

let probe: Probe
const R = runTag()

beforeAll(async () => {
  const [p] = await Promise.all([Probe.start('explain-brokers'), buildOnce()])
  probe = p
})
afterAll(async () => {
  await probe?.close()
})

describe(`group explain through broker changes (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('fenced: in sync; rack changed: bump attributed; unregistered: stale cache; coordinator moved: bump attributed', async () => {
    const d = probe.driver
    const env = probe.env
    const T = `${R}-brk`
    // every partition has a replica on broker 2 beside one on another broker
    await d.cmd(`create-topic ${T} --assign 1:2,2:3,3:1`)
    const G = await groupAwayFrom(probe, `${R}-brk-g`, 2)
    await d.cmd(`consumer ${R}b1 ${G} names ${T}`)
    const e1 = (await settled(env, G)).groupEpoch!

    const down = new Set<number>()
    let rack2 = 'rack-a'
    try {
      // 1. fenced: no bump
      await killBroker(env, 2)
      down.add(2)
      await d.cmd('wait-broker 2 fenced 60000')
      await sleep(6000) // ISR shrinks (topic changes: the coordinator recomputes) and several heartbeats
      const fenced = await explain(env, G)
      expect(fenced.groupEpoch).toBe(e1)
      expect(fenced.verdict.code).toBe('IN_SYNC')
      expect(fenced.inSync).toBe(true)

      // 2. restarted with another rack: one bump, attributed to broker 2's rack (cluster.sh start-broker can give up on
      // a loaded machine while the broker does start: the unfenced wait decides, as in the restore below)
      await startBroker(env, 2, 'rack-b').catch((error: Error) => console.warn(`[explain-brokers] start-broker 2: ${error.message}`))
      rack2 = 'rack-b'
      down.delete(2)
      await d.cmd('wait-broker 2 unfenced 60000')
      const moved = await afterBump(env, G, e1, 'a bump after broker 2 came back with rack-b', 120_000)
      const [rackBump] = since(moved, e1)
      expect(kinds(rackBump)).toEqual(['metadata-hash-changed'])
      expect(rackBump.causes[0].details.changes).toEqual([expect.objectContaining({kind: 'broker-rack', broker: 2, then: 'rack-a', now: 'rack-b'})])
      expect(rackBump.causes[0].message).toContain('consistent with: broker 2 had rack rack-a then (rack rack-b now)')
      expect(rackBump.causes[0].confidence).toBe('inferred-unique')
      const e2 = moved.groupEpoch!

      // 3. fenced, then unregistered: the stored hash is stale in the coordinator's cache, and no bump comes
      await killBroker(env, 2)
      down.add(2)
      await d.cmd('wait-broker 2 fenced 60000')
      await sleep(6000)
      expect((await explain(env, G)).groupEpoch).toBe(e2)
      await d.cmd('unregister-broker 2')
      await d.cmd('wait-broker 2 absent 60000')
      await sleep(4000) // heartbeats: they do not recompute
      const stale = await explain(env, G)
      expect(stale.groupEpoch).toBe(e2)
      expect(stale.inSync).toBe(false)
      expect(stale.verdict.code).toBe('STALE_COORDINATOR_CACHE')
      expect(stale.verdict.pending).toBe(false)
      expect(stale.verdict.message).toContain('consistent with: broker 2 was registered with rack rack-b then')
      expect(stale.verdict.message).toMatch(/leader move of the group's __consumer_offsets partition/)
      expect(stale.findings.find(f => f.code === 'STALE_COORDINATOR_CACHE')?.details.changes).toEqual([
        expect.objectContaining({kind: 'broker-registered', broker: 2, then: 'registered, rack rack-b'}),
      ])

      // 4. the coordinator moves: a fresh cache, a recomputed hash, a bump attributed to the broker that disappeared
      const leader = await probe.coordinator(G)
      expect([1, 3]).toContain(leader)
      await killBroker(env, leader)
      down.add(leader)
      await d.cmd(`wait-broker ${leader} fenced 60000`)
      const after = await waitReport(env, G, 'a bump after the coordinator moved', r => (r.groupEpoch ?? -1) > e2, 120_000)
      const [reload] = since(after, e2)
      expect(kinds(reload)).toEqual(['metadata-hash-changed'])
      expect(reload.causes[0].details.changes).toEqual([expect.objectContaining({kind: 'broker-registered', broker: 2, then: 'registered, rack rack-b'})])
      // the walk goes on back through the rack change
      expect(since(after, e1)[0].causes[0].details.changes).toEqual([expect.objectContaining({kind: 'broker-rack', broker: 2})])
      expect(after.storedMetadataHash).toBe(after.liveMetadataHash)
      await d.cmd(`stop ${R}b1`)
    } catch (error) {
      // a failed restore below would replace this error in the report
      console.error(`[explain-brokers] failed: ${(error as Error).stack ?? error}`)
      throw error
    } finally {
      // cluster.sh start-broker can give up on a loaded machine while the broker does start: the unfenced wait decides
      const start = (id: number, rack?: string) =>
        startBroker(env, id, rack).catch((error: Error) => console.warn(`[explain-brokers] start-broker ${id}: ${error.message}`))
      // the stopped brokers start side by side (a JVM start each: ~10-20 s on a loaded machine)
      await Promise.all([...down].map(id => start(id, id === 2 ? 'rack-a' : undefined)))
      if (down.has(2)) rack2 = 'rack-a'
      if (rack2 !== 'rack-a') {
        await killBroker(env, 2)
        await start(2, 'rack-a')
      }
      for (const id of [1, 2, 3]) await d.cmd(`wait-broker ${id} unfenced 120000`)
      const racks = ((await d.cmd('describe-cluster')).brokers as Array<{id: number; rack: string}>).map(b => [b.id, b.rack])
      expect(racks).toEqual([
        [1, 'rack-a'],
        [2, 'rack-a'],
        [3, 'rack-b'],
      ])
    }
  })
})
