/**
 * A broker killed (kill -9) and fenced: fencing alone does not bump the group epoch, the coordinator keeps counting
 * the fenced broker's rack (it stays registered), and so does our core; dropping fenced brokers would differ.
 * Right after the kill, before the fencing, `audit` and `group explain` wait for the new leaders and coordinator
 * (within --timeout, with a bounded backoff) instead of failing on the refused connections.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TopicHasher} from '../../src/core/hash.js'
import type {ClusterMetadata} from '../../src/core/metadata.js'
import {resolveConnectionSettings} from '../../src/config/client-config.js'
import {KafkaClient} from '../../src/kafka/client.js'
import {buildOnce, cli} from './adapter-cli.js'
import {killBroker, sleep, startBroker} from './lib/cluster.js'
import {BASELINE_RACKS, ensureBaseline, groupAwayFrom, groupOn, Probe} from './lib/probe.js'

let probe: Probe

beforeAll(async () => {
  const [p] = await Promise.all([Probe.start('fencing'), buildOnce()])
  probe = p
  await ensureBaseline(probe)
})
afterAll(async () => {
  await probe?.close()
})

const withoutFenced = (md: ClusterMetadata): ClusterMetadata => ({...md, brokers: md.brokers.filter(b => !b.fenced)})

describe(`fenced broker (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('kill -9 broker 3 (rack-b): no epoch bump from fencing, stored hash still counts its rack', async () => {
    const d = probe.driver
    const env = probe.env
    // every partition has a replica on broker 3, the only rack-b broker
    await d.cmd('create-topic f-main --assign 1:3,3:2,2:3')
    // hashed for the first time only after broker 3 is fenced (no group subscribes to it before)
    await d.cmd('create-topic f-late --assign 3:1,2:3')
    // a group whose coordinator is not on broker 3, so the kill is a fencing and not a coordinator fail-over
    const g = await groupAwayFrom(probe, 'it-fence', 3)
    await d.cmd(`consumer f1 ${g} names f-main`)
    const before = await probe.settled(g, 'consumer')
    expect(await probe.ourGroupHash(['f-main'])).toBe(before.metadataHash)

    let killed = false
    try {
      await killBroker(env, 3)
      killed = true
      const fenced = await d.cmd('wait-broker 3 fenced 60000')
      expect(fenced.brokers).toContainEqual({id: 3, rack: 'rack-b', fenced: true})
      // a hash the coordinator computes for the first time while broker 3 is fenced (checked below): its group
      // starts now and settles while the first group is watched
      const g2 = 'it-fence-fresh'
      await d.cmd(`consumer f2 ${g2} names f-late`)
      const settledFresh = probe.settled(g2, 'consumer')
      settledFresh.catch(() => undefined) // awaited below
      await sleep(5000) // several heartbeats of the member (1 s) after fencing

      const after = await probe.settled(g, 'consumer', 4000)
      expect(after.epoch).toBe(before.epoch)
      expect(after.metadataHash).toBe(before.metadataHash)

      const {md} = await probe.metadata()
      expect(md.brokers).toContainEqual({id: 3, rack: 'rack-b', fenced: true})
      expect(new TopicHasher(md).groupHash(['f-main'])).toBe(after.metadataHash)
      // a computation that takes racks only from unfenced brokers (e.g. the Metadata API) differs
      expect(new TopicHasher(withoutFenced(md)).groupHash(['f-main'])).not.toBe(after.metadataHash)

      // a hash the coordinator computes for the first time while broker 3 is fenced counts rack-b too
      const fresh = await settledFresh
      const md2 = (await probe.metadata()).md
      expect(md2.brokers).toContainEqual({id: 3, rack: 'rack-b', fenced: true})
      expect(new TopicHasher(md2).groupHash(['f-late'])).toBe(fresh.metadataHash)
      expect(new TopicHasher(withoutFenced(md2)).groupHash(['f-late'])).not.toBe(fresh.metadataHash)
      await d.cmd('stop f2')
      await d.cmd('stop f1')
    } finally {
      if (killed) {
        await startBroker(env, 3)
        await d.cmd('wait-broker 3 unfenced 60000')
      }
    }
  })

  it('broker 3 restarted with another rack (rack-b → rack-c): one bump, stored hash equals ours with the new rack', async () => {
    const d = probe.driver
    const env = probe.env
    await d.cmd('create-topic rk-main --assign 1:3,3:2,2:1')
    const g = await groupAwayFrom(probe, 'it-rack', 3)
    await d.cmd(`consumer k1 ${g} names rk-main`)
    const before = await probe.settled(g, 'consumer')
    expect(await probe.ourGroupHash(['rk-main'])).toBe(before.metadataHash)

    try {
      await killBroker(env, 3)
      await startBroker(env, 3, 'rack-c')
      await d.cmd('wait-broker 3 unfenced 60000')
      // The restart changes the topic's partitions (ISR, leaders): the coordinator drops its cached topic hash,
      // recomputes it with the new registration's rack, and bumps once.
      await probe.waitStored(g, 'consumer', 'a new epoch after the rack change', r => r.epoch > before.epoch)
      const after = await probe.settled(g, 'consumer')
      const {md} = await probe.metadata()
      expect(md.brokers).toContainEqual({id: 3, rack: 'rack-c', fenced: false})
      expect(after.epoch).toBe(before.epoch + 1)
      expect(after.metadataHash).not.toBe(before.metadataHash)
      expect(new TopicHasher(md).groupHash(['rk-main'])).toBe(after.metadataHash)
      // and the old rack would give the old hash
      const oldRack = {...md, brokers: md.brokers.map(b => (b.id === 3 ? {...b, rack: 'rack-b'} : b))}
      expect(new TopicHasher(oldRack).groupHash(['rk-main'])).toBe(before.metadataHash)
      await d.cmd('stop k1')
    } finally {
      // back to rack-b for the other test files
      await killBroker(env, 3)
      await startBroker(env, 3, 'rack-b')
      await d.cmd('wait-broker 3 unfenced 60000')
    }
  })

  it('a broker killed while it leads __consumer_offsets partitions: reads, describes, audit and group explain wait for new leaders within --timeout', async () => {
    const d = probe.driver
    const env = probe.env
    await d.cmd('create-topic kl-main --assign 1:3,3:2')
    // the broker that leads the most __consumer_offsets partitions dies (earlier tests restart brokers, so which one
    // leads them varies); the group is coordinated by it
    const led = new Map<number, number>()
    for (let p = 0; p < env.offsetsPartitions; p++) {
      const leader = (await d.cmd(`partition __consumer_offsets ${p}`)).leader as number
      if (leader >= 0) led.set(leader, (led.get(leader) ?? 0) + 1)
    }
    const victim = [...led].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0]
    const g = await groupOn(probe, 'it-kill', victim)
    await d.cmd(`consumer kl1 ${g} names kl-main`)
    await probe.settled(g, 'consumer')
    await d.cmd('stop kl1')
    const count = (lines: string[], re: RegExp) => lines.filter(l => re.test(l)).length
    const attempts = /connection attempt \d+/
    const retry = /\bretry \d+ in \d+ ms: waiting for/
    // A client opened before the kill (a CLI started on a loaded machine may start after the fencing)
    const debug: string[] = []
    const t0 = performance.now()
    const client = await KafkaClient.open(resolveConnectionSettings({bootstrapServer: env.bootstrap, timeoutMs: 30_000, env: {}}), {
      debug: l => debug.push(`+${Math.round(performance.now() - t0)} ms ${l}`),
    })

    let killed = false
    try {
      await killBroker(env, victim)
      killed = true
      const tKill = performance.now()
      const [read, [described]] = await Promise.all([client.readPartition({partition: probe.offsetsPartition(g)}), client.describeConsumerGroups([g])])
      const clientMs = Math.round(performance.now() - tKill)
      console.log(
        `[fencing] in-process, right after kill -9 of broker ${victim}: ${clientMs} ms, ${count(debug, attempts)} connection attempts, ${count(debug, retry)} retries\n${debug.join('\n')}`,
      )
      expect(read.leader).not.toBe(victim)
      expect(read.endOffset).toBeGreaterThan(0n)
      expect(described.groupId).toBe(g)
      expect(clientMs).toBeLessThan(30_000)
      expect(count(debug, retry)).toBeGreaterThan(0) // the dead broker was met (refused) and waited for
      expect(count(debug, attempts)).toBeLessThan(50) // a bounded backoff, not a storm

      // the CLI, as an operator runs it during the incident
      const flags = ['-b', env.bootstrap, '--json', '--timeout', '30s', '--debug']
      const tCli = performance.now()
      const [audit, explain] = await Promise.all([cli(['audit', '--no-record', ...flags]), cli(['group', 'explain', g, ...flags])])
      const figures = [audit, explain].map(r => ({
        ms: Math.round(r.ms),
        attempts: count(r.stderr.split('\n'), attempts),
        retries: count(r.stderr.split('\n'), retry),
      }))
      console.log(
        `[fencing] CLI started ${Math.round(tCli - tKill)} ms after the kill: audit ${JSON.stringify(figures[0])}, group explain ${JSON.stringify(figures[1])}`,
      )
      expect([0, 3], audit.stderr.slice(-2000)).toContain(audit.code) // 3: a finding in some other file's group
      expect(explain.code, explain.stderr.slice(-2000)).toBe(0)
      expect((JSON.parse(audit.stdout) as {groups: Array<{group: string}>}).groups.map(x => x.group)).toContain(g)
      expect((JSON.parse(explain.stdout) as {groupEpoch: number}).groupEpoch).toBeGreaterThan(0)
      for (const f of figures) {
        expect(f.ms).toBeLessThan(30_000)
        expect(f.attempts).toBeLessThan(50)
      }
    } finally {
      await client.close()
      if (killed) {
        await startBroker(env, victim, BASELINE_RACKS[victim])
        await d.cmd(`wait-broker ${victim} unfenced 60000`)
      }
    }
  })
})
