/**
 * "Causes you can trust", on a real cluster (brokers 1, 2, 3: rack-a, rack-a, rack-b) with the changes
 * made by Kafka's own tools (TopicCommand, ReassignPartitionsCommand, ClusterTool through `cluster.sh tool`):
 *   1. a reassignment [1,2] → [2,3] seen by the group in one bump (the group is empty while it runs): the rack
 *      lists then equal "broker 3 had rack-a", so the cause is inferred-ambiguous and lists the replica move; with
 *      audit history around it, exact, naming the topic's replica racks;
 *   2. a throttled reassignment held in flight: REASSIGNMENT_IN_FLIGHT in explain and audit, gone once it
 *      completes, and the bumps it caused explained (never unexplained);
 *   3. a subscribed topic deleted: named, evident from the topic id in the group's records;
 *   4. broker 3 unregistered while the coordinator's cache hides it, then a partition added: one bump, attributed
 *      to both changes (a pair), never unexplained. Broker 3 is restarted (rack-b) at the end whatever happens;
 *   5. a rack renamed: broker 3 restarted with rack-c, so no broker has rack-b any more. The old name is known only
 *      from a member's client.rack (RackId in the group's records): the bump is attributed to broker 3's rack, not
 *      left unexplained. Broker 3 goes back to rack-b at the end whatever happens.
 * In 4 and 5, `group explain --metadata-log` on the controller's KRaft metadata log makes the same bump exact.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce, cli, tempDir} from './adapter-cli.js'
import {uuidToString} from '../../src/core/uuid.js'
import {afterBump, alongside, type Entry, explain, MemberJvm, runTag, settled, since} from './explain-lib.js'
import {partitionOnEveryBroker} from './lib/broker-metadata.js'
import {clusterSh, killBroker, sleep, startBroker, versionAtLeast, waitFor} from './lib/cluster.js'
import {groupAwayFrom, Probe} from './lib/probe.js'

let probe: Probe
const R = runTag()
const REASSIGN = 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand'
const TOPIC_CMD = 'org.apache.kafka.tools.TopicCommand'
const CLUSTER_TOOL = 'org.apache.kafka.tools.ClusterTool'
const noHistory = tempDir()

beforeAll(async () => {
  const [p] = await Promise.all([Probe.start('causes'), buildOnce()])
  probe = p
})
afterAll(async () => {
  await probe?.close()
})

const controllerLog = () => join(probe.env.raw.CONTROLLER_LOG_DIR, '__cluster_metadata-0')
const tool = (cls: string, ...args: string[]) => clusterSh(probe.env, 'tool', cls, '--bootstrap-server', probe.env.bootstrap, ...args)
const createTopic = (name: string, assignment: string) => tool(TOPIC_CMD, '--create', '--topic', name, '--replica-assignment', assignment)

function reassignmentFile(topic: string, replicas: number[]): string {
  const f = join(tempDir(), 'reassign.json')
  writeFileSync(f, JSON.stringify({version: 1, partitions: [{topic, partition: 0, replicas}]}))
  return f
}

/** ReassignPartitionsCommand --verify until it says complete (it also removes the throttles then). */
const verifyComplete = (file: string) =>
  waitFor(
    'the reassignment complete',
    async () => {
      const out = await tool(REASSIGN, '--reassignment-json-file', file, '--verify').catch((error: Error) => error.message)
      return /is completed/.test(out) && !/still in progress/.test(out) ? out : undefined
    },
    {timeoutMs: 120_000, intervalMs: 2000},
  )

const metadataCauses = (entries: readonly Entry[]) => entries.flatMap(e => e.causes).filter(c => c.kind === 'metadata-hash-changed')
const kindsOf = (c: ReturnType<typeof metadataCauses>[number]) => [...(c.details.changes as Array<{kind: string}>), ...c.alternatives].map(h => h.kind)

async function auditJson(...args: string[]): Promise<{groups: Array<{group: string; findings: string[]; reassignments: Array<{topic: string}>}>}> {
  const r = await cli(['audit', '-b', probe.env.bootstrap, '--json', ...args])
  expect([0, 3], r.stderr).toContain(r.code)
  return JSON.parse(r.stdout)
}

describe(`causes you can trust (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('a reassignment [1,2] → [2,3] that hashes like a rack change: inferred-ambiguous, the move listed; with history exact', async () => {
    const env = probe.env
    const [T, G] = [`${R}-ra`, `${R}-ra-g`]
    const hist = tempDir()
    await createTopic(T, '1:2')
    // the member is paused (SIGSTOP) while the reassignment runs, so its next heartbeat sees only the end of it
    // (one bump); the group's session timeout is raised (group config, Kafka's ConfigCommand) so it is not fenced
    // (ConfigCommand moved from kafka.admin to org.apache.kafka.tools; checked on 4.1.2 and 4.4.0 only)
    const configCommand = versionAtLeast(env.kafkaVersion, '4.4') ? 'org.apache.kafka.tools.ConfigCommand' : 'kafka.admin.ConfigCommand'
    // the member's JVM starts while ConfigCommand's runs (a JVM start each: 2-5 s on a loaded machine)
    const [m] = await alongside(
      MemberJvm.start(env, `${R}-ra-m`),
      tool(configCommand, '--alter', '--entity-type', 'groups', '--entity-name', G, '--add-config', 'consumer.session.timeout.ms=50000'),
    )
    try {
      await m.cmd(`consumer ${R}a1 ${G} names ${T}`)
      const e2 = (await settled(env, G)).groupEpoch!
      await auditJson('--group', G, '--history-dir', hist)
      await sleep(2000) // a heartbeat under the new session timeout
      m.pause()
      const file = reassignmentFile(T, [2, 3])
      try {
        await tool(REASSIGN, '--reassignment-json-file', file, '--execute')
        // complete in every broker's own metadata, the coordinator's included, before the member's next heartbeat
        await waitFor(
          'the reassignment complete on every broker',
          async () => {
            const seen = await partitionOnEveryBroker(env.bootstrap, T, 0)
            return seen.every(p => 'replicas' in p && p.replicas.join() === '2,3' && p.isr.length === 2) ? seen : undefined
          },
          {timeoutMs: 30_000, intervalMs: 300},
        )
      } finally {
        m.resume()
      }
      await auditJson('--group', G, '--history-dir', hist)
      const r = await afterBump(env, G, e2, 'the member saw the reassignment')
      await m.cmd(`stop ${R}a1`)
      // without history (an empty history dir): what the hashes alone say
      const bumps = since(await explain(env, G, '--history-dir', noHistory), e2).filter(e => e.epoch <= r.groupEpoch!)
      expect(
        bumps.map(e => e.causes.map(c => c.kind)),
        JSON.stringify(bumps),
      ).toEqual([['metadata-hash-changed']])
      const [cause] = metadataCauses(bumps)
      expect(cause.confidence).toBe('inferred-ambiguous')
      expect(kindsOf(cause)).toEqual(expect.arrayContaining(['broker-rack', 'replica-placement']))
      expect(cause.message).toMatch(new RegExp(`^metadata changed, consistent with any of: .*partition 0 of ${T} had replicas on other racks then`))
      expect(cause.message).toContain('broker 3 had rack rack-a then')
      expect(cause.message).toContain('`--metadata-log`')
      expect(r.verdict.code).toBe('IN_SYNC')

      // with the audits before and after: exact, from what was recorded
      const withHistory = await explain(env, G, '--history-dir', hist)
      const [exact] = metadataCauses(since(withHistory, e2))
      expect(exact.confidence).toBe('exact')
      expect(exact.alternatives).toEqual([])
      // the partition, its replicas and their racks before and after, as the two audits recorded them (item 5)
      expect(exact.message).toContain(`${T}: partition 0: replicas [1,2] on rack-a,rack-a → [2,3] on rack-a,rack-b`)
      // every field exact: details.changes is what the history saw, the guess only under inferred
      const d = exact.details as {changes: Array<{kind: string; topic?: string; then: string; now: string}>; inferred: {changes: Array<{kind: string}>}}
      expect(d.changes, JSON.stringify(exact)).toEqual([
        expect.objectContaining({
          kind: 'replica-placement',
          topic: T,
          partitions: [0],
          then: '0: [1,2] on rack-a,rack-a',
          now: '0: [2,3] on rack-a,rack-b',
          replicasThen: [{partition: 0, replicas: [1, 2]}],
        }),
      ])
      expect(d.inferred.changes.map(c => c.kind)).toContain('broker-rack')

      // from the controller's metadata log: the replica lists themselves, no rack change anywhere in the cause
      const [fromLog] = metadataCauses(since(await explain(env, G, '--history-dir', noHistory, '--metadata-log', controllerLog()), e2))
      expect(fromLog.confidence, JSON.stringify(fromLog)).toBe('exact')
      const lc = (fromLog.details as {changes: Array<{kind: string; topic?: string; partitions?: number[]; then: string; now: string}>}).changes
      expect(lc.length, JSON.stringify(lc)).toBeGreaterThan(0)
      for (const c of lc)
        expect(c, JSON.stringify(lc)).toMatchObject({topic: T, partitions: [0], kind: expect.stringMatching(/^(replica-placement|reassignment-started)$/)})
      expect([lc[0].then, lc.at(-1)!.now]).toEqual(['[1,2]', '[2,3]'])
      expect(JSON.stringify(fromLog.details.changes)).not.toContain('broker-rack')
    } finally {
      await m.close()
    }
  })

  it('two topics raised within one second with TopicCommand: one bump naming both, inferred without history, exact from the metadata log', async () => {
    const env = probe.env
    const [A, B, G] = [`${R}-two-a`, `${R}-two-b`, `${R}-two-g`]
    const [m] = await alongside(MemberJvm.start(env, `${R}-two-m`), Promise.all([createTopic(A, '1:2,2:3'), createTopic(B, '2:3')]))
    try {
      await m.cmd(`consumer ${R}t1 ${G} names ${A},${B}`)
      const e0 = (await settled(env, G)).groupEpoch!
      // paused: its next heartbeat sees both changes at once (a pause of a few seconds, well within its session)
      m.pause()
      try {
        await Promise.all([
          tool(TOPIC_CMD, '--alter', '--topic', A, '--partitions', '3', '--replica-assignment', '1:2,2:3,3:1'),
          tool(TOPIC_CMD, '--alter', '--topic', B, '--partitions', '2', '--replica-assignment', '2:3,3:1'),
        ])
        await waitFor(
          'both partition counts in the live metadata',
          async () => {
            const {md} = await probe.metadata()
            const n = (t: string) => md.topics.find(x => x.name === t)?.partitions.length
            return n(A) === 3 && n(B) === 2 ? true : undefined
          },
          {timeoutMs: 20_000, intervalMs: 300},
        )
      } finally {
        m.resume()
      }
      const r = await afterBump(env, G, e0, 'the member saw both changes')
      await m.cmd(`stop ${R}t1`)
      const bumps = since(await explain(env, G, '--history-dir', noHistory), e0).filter(e => e.epoch <= r.groupEpoch!)
      expect(
        bumps.map(e => e.causes.map(c => c.kind)),
        JSON.stringify(bumps),
      ).toEqual([['metadata-hash-changed']])
      const [cause] = metadataCauses(bumps)
      expect(cause.confidence, cause.message).toBe('inferred-unique')
      const [combined] = cause.details.changes as Array<{kind: string; parts: Array<{kind: string; topic: string; then: string; now: string}>}>
      expect(combined.kind).toBe('combined')
      expect(combined.parts.map(p => [p.kind, p.topic, p.then, p.now]).sort()).toEqual(
        [
          ['partition-count', A, '2', '3'],
          ['partition-count', B, '1', '2'],
        ].sort(),
      )
      // exact from the controller's metadata log: both partition additions, each with its time
      const [exact] = metadataCauses(since(await explain(env, G, '--history-dir', noHistory, '--metadata-log', controllerLog()), e0))
      expect(exact.confidence, JSON.stringify(exact)).toBe('exact')
      const seen = (exact.details.changes as Array<{kind: string; topic: string; then: string; now: string}>).map(c => [c.kind, c.topic, c.then, c.now])
      expect(seen.sort()).toEqual(
        [
          ['partition-count', A, '2', '3'],
          ['partition-count', B, '1', '2'],
        ].sort(),
      )
    } finally {
      await m.close()
    }
  })

  it('a throttled reassignment in flight: REASSIGNMENT_IN_FLIGHT in explain and audit until it completes; its bumps explained', async () => {
    const d = probe.driver
    const env = probe.env
    const [T, G] = [`${R}-rb`, `${R}-rb-g`]
    await createTopic(T, '1:2')
    await d.cmd(`produce ${T} 150000`) // a few MB for broker 3 to copy at 1 byte/s
    await d.cmd(`consumer ${R}b1 ${G} names ${T}`)
    const e1 = (await settled(env, G)).groupEpoch!
    const file = reassignmentFile(T, [2, 3])
    try {
      await tool(REASSIGN, '--reassignment-json-file', file, '--execute', '--throttle', '1')
      const during = await afterBump(env, G, e1, 'the adding replica in the replica list')
      const f = during.findings.find(x => x.code === 'REASSIGNMENT_IN_FLIGHT')
      expect(f, JSON.stringify(during.findings)).toBeDefined()
      expect(f!.details.topics).toEqual([
        expect.objectContaining({
          topic: T,
          bumpOnCompletion: true,
          partitions: [expect.objectContaining({partition: 0, addingReplicas: [3], removingReplicas: [1]})],
        }),
      ])
      expect(f!.message).toContain('Expect one more bump when it completes')
      const [start] = metadataCauses(since(during, e1))
      expect(kindsOf(start)).toContain('reassignment-started')
      expect(start.confidence).not.toBe('unexplained')
      const row = (await auditJson('--group', G, '--no-record')).groups.find(g => g.group === G)!
      expect(row.findings).toContain('reassignment')
      expect(row.reassignments.map(x => x.topic)).toEqual([T])

      // lift the throttle: the reassignment completes, the removing replica leaves, one more bump
      await tool(REASSIGN, '--reassignment-json-file', file, '--execute', '--additional', '--throttle', '1000000000')
      await verifyComplete(file)
      const after = await afterBump(env, G, during.groupEpoch!, 'the removing replica gone', 120_000)
      expect(after.findings.map(x => x.code)).not.toContain('REASSIGNMENT_IN_FLIGHT')
      const causes = metadataCauses(since(after, e1))
      expect(causes.length).toBeGreaterThanOrEqual(2)
      expect(
        causes.map(c => c.confidence),
        JSON.stringify(causes.map(c => c.message)),
      ).not.toContain('unexplained')
      expect(kindsOf(causes.at(-1)!)).toContain('replica-placement')
      expect((await auditJson('--group', G, '--no-record')).groups.find(g => g.group === G)!.findings).not.toContain('reassignment')
    } finally {
      await tool(REASSIGN, '--reassignment-json-file', file, '--execute', '--additional', '--throttle', '1000000000').catch(() => undefined)
      await verifyComplete(file).catch(() => undefined)
      await d.cmd(`stop ${R}b1`).catch(() => undefined)
    }
  }, 420_000) // ~1.5 min on a quiet machine: a few MB produced, two reassignment tool runs, two bumps to settle

  it('a subscribed topic deleted: named, evident from its id in the records', async () => {
    const d = probe.driver
    const env = probe.env
    const [T, K, G] = [`${R}-rc`, `${R}-rk`, `${R}-rc-g`]
    await createTopic(T, '1:2')
    await createTopic(K, '2:3')
    const id = (await probe.metadata()).md.topics.find(t => t.name === T)!.topicId
    await d.cmd(`consumer ${R}c1 ${G} names ${T},${K}`)
    const e1 = (await settled(env, G)).groupEpoch!
    await tool(TOPIC_CMD, '--delete', '--topic', T)
    const r = await afterBump(env, G, e1, 'the topic deleted')
    const [cause] = metadataCauses(since(r, e1))
    expect(cause.confidence).toBe('evident')
    expect(cause.details.evident.deletedTopics).toEqual([T])
    expect(cause.details.evident.topicIds).toContain(uuidToString(id))
    expect(cause.message).toContain(`topic ${T} was deleted (evident`)
    await d.cmd(`stop ${R}c1`)
  })

  it('a broker unregistered behind the coordinator cache, then a partition added: one bump attributed to both', async () => {
    const d = probe.driver
    const env = probe.env
    const T = `${R}-rd`
    await createTopic(T, '1:3,3:2')
    const G = await groupAwayFrom(probe, `${R}-rd-g`, 3)
    await d.cmd(`consumer ${R}d1 ${G} names ${T}`)
    const e1 = (await settled(env, G)).groupEpoch!
    let down = false
    try {
      await killBroker(env, 3)
      down = true
      await d.cmd('wait-broker 3 fenced 60000')
      // The fencing shrinks T's ISR: a change of T, which the coordinator hashes again at the member's next heartbeat,
      // while broker 3 is still registered (same racks, same hash, no bump). Unregistered before that heartbeat, the
      // recompute would already miss broker 3's rack (a bump: seen once with two suites side by side). Nothing shows
      // the recompute (the hash does not move): heartbeats (1 s) are waited out.
      await sleep(3000)
      await clusterSh(probe.env, 'tool', CLUSTER_TOOL, 'unregister', '--bootstrap-server', probe.env.bootstrap, '--id', '3')
      await d.cmd('wait-broker 3 absent 60000')
      await sleep(3000) // heartbeats: broker changes do not evict the cached topic hash
      expect((await explain(env, G)).groupEpoch).toBe(e1)
      await tool(TOPIC_CMD, '--alter', '--topic', T, '--partitions', '3')
      const r1 = await afterBump(env, G, e1, 'the partition added')
      const e2 = r1.groupEpoch!
      // broker 3 comes back (rack-b): its replicas rejoin the ISR, the coordinator sees it registered again
      await startBroker(env, 3, 'rack-b').catch((error: Error) => console.warn(`[causes] start-broker 3: ${error.message}`))
      await d.cmd('wait-broker 3 unfenced 120000')
      down = false
      const r2 = await afterBump(env, G, e2, 'broker 3 registered again', 120_000)
      const [pair] = metadataCauses(since(r2, e1))
      expect(pair.confidence, pair.message).toMatch(/^inferred-(unique|ambiguous)$/)
      const combined = (pair.details.changes as Array<{kind: string; parts?: Array<{kind: string; topic?: string; broker?: number}>}>).filter(
        h => h.kind === 'combined',
      )
      expect(
        combined.some(h => h.parts!.some(p => p.kind === 'partition-count' && p.topic === T) && h.parts!.some(p => p.broker === 3)),
        pair.message,
      ).toBe(true)
      expect(pair.message).toContain(`topic ${T} had 2 partitions then (3 now), and broker 3`)
      expect(metadataCauses(since(r2, e1)).map(c => c.confidence)).not.toContain('unexplained')
      // from the controller's metadata log, the same bump is exact and names both changes with their times
      const [exact] = metadataCauses(since(await explain(env, G, '--metadata-log', controllerLog()), e1))
      expect(exact.details.source, JSON.stringify(exact)).toBe('metadata-log')
      expect(exact.message).toContain('broker 3 unregistered (was "rack-b")')
      expect(exact.message).toContain(`topic ${T} partitions 2 → 3`)
      await d.cmd(`stop ${R}d1`)
    } finally {
      if (down) {
        await startBroker(env, 3, 'rack-b').catch((error: Error) => console.warn(`[causes] start-broker 3: ${error.message}`))
        await d.cmd('wait-broker 3 unfenced 120000')
      }
    }
  })
  it("a rack renamed (broker 3: rack-b to rack-c, no broker keeps rack-b): the old name from a member's client.rack", async () => {
    const d = probe.driver
    const env = probe.env
    const T = `${R}-rn`
    await createTopic(T, '3:1')
    const G = await groupAwayFrom(probe, `${R}-rn-g`, 3)
    await d.cmd(`consumer ${R}n1 ${G} names ${T} rack=rack-b`)
    const e1 = (await settled(env, G)).groupEpoch!
    // a second group, no member with a rack: there, nothing names rack-b, so the rack bump cannot be reconstructed;
    // a partition increase (TopicCommand) before it must stay known (one failed bump erases nothing)
    const [T2, G2] = [`${R}-rn2`, await groupAwayFrom(probe, `${R}-rn2-g`, 3)]
    await createTopic(T2, '3:1')
    await d.cmd(`consumer ${R}n2 ${G2} names ${T2}`)
    const f1 = (await settled(env, G2)).groupEpoch!
    await tool(TOPIC_CMD, '--alter', '--topic', T2, '--partitions', '2')
    const f2 = (await afterBump(env, G2, f1, 'the partition added')).groupEpoch!
    let rack3 = 'rack-b'
    const restart = async (rack: string) => {
      await killBroker(env, 3)
      await d.cmd('wait-broker 3 fenced 60000')
      await startBroker(env, 3, rack)
      rack3 = rack
      await d.cmd('wait-broker 3 unfenced 120000')
    }
    try {
      await restart('rack-c')
      // the bump comes when broker 3's replica rejoins the ISR (a topic change: the cached topic hash is evicted)
      const r = await afterBump(env, G, e1, 'broker 3 back with rack-c', 120_000)
      const report = await explain(env, G, '--history-dir', noHistory)
      const [cause] = metadataCauses(since(report, e1))
      expect(cause.confidence, cause.message).toMatch(/^inferred-(unique|ambiguous)$/)
      expect(cause.details.changes).toEqual(expect.arrayContaining([expect.objectContaining({kind: 'broker-rack', broker: 3, then: 'rack-b', now: 'rack-c'})]))
      expect(cause.message).toContain('consistent with: broker 3 had rack rack-b then (rack rack-c now)')
      expect(r.groupEpoch).toBeGreaterThan(e1)
      // from the controller's metadata log, exact, with the re-registration's time
      const [exact] = metadataCauses(since(await explain(env, G, '--history-dir', noHistory, '--metadata-log', controllerLog()), e1))
      if (exact.details.source !== 'metadata-log') {
        // evidence: the log's changes of the topic and broker 3, and the topic's hash at each of them
        const h = JSON.parse((await cli(['cluster', 'history', '--metadata-log', controllerLog(), '--topic', T, '--broker', '3', '--json'])).stdout)
        console.log(
          `[causes] history: ${JSON.stringify(h.source)} ${JSON.stringify(h.changes.map((c: {offset: string; time: string; description: string}) => [c.offset, c.time, c.description]))}`,
        )
        for (const c of h.changes as Array<{offset: string}>)
          console.log(
            `[causes] at ${c.offset}: ${(await cli(['topic-hash', 'compute', T, '--metadata-log', controllerLog(), '--at', c.offset, '--json'])).stdout.replace(/\s+/g, ' ').slice(0, 600)}`,
          )
        console.log(`[causes] e1 ${e1}; report: ${JSON.stringify(since(report, e1 - 1).map(e => [e.epoch, e.time, e.metadataHash, e.previousMetadataHash]))}`)
      }
      expect(exact.details.source, JSON.stringify(exact)).toBe('metadata-log')
      expect(exact.message).toContain('broker 3 "rack-b" → "rack-c" (re-registered)')

      // the second group: its rack bump unexplained; its partition increase before it still named, from its records
      await afterBump(env, G2, f2, 'the second group saw broker 3 with rack-c', 120_000)
      const bumps2 = since(await explain(env, G2, '--history-dir', noHistory), f1)
      const causes2 = bumps2.map(e => [e.epoch, metadataCauses([e])[0]] as const).filter(([, c]) => c !== undefined)
      expect(causes2.length, JSON.stringify(bumps2)).toBeGreaterThanOrEqual(2)
      const [epoch2, added] = causes2[0]
      expect(epoch2).toBe(f2)
      expect(added.confidence, added.message).toBe('evident')
      expect(added.details.evident).toEqual({deletedTopics: [], topicIds: [], partitionsAdded: [{topic: T2, then: 1, now: 2}]})
      expect(added.message).toContain(`the later metadata change at group epoch ${causes2.at(-1)![0]} could not be reconstructed`)
      expect(causes2.at(-1)![1].confidence).toBe('unexplained')
    } finally {
      await d.cmd(`stop ${R}n2`).catch(() => undefined)
      await d.cmd(`stop ${R}n1`).catch(() => undefined)
      if (rack3 !== 'rack-b') await restart('rack-b').catch((error: Error) => console.warn(`[causes] restart broker 3 with rack-b: ${error.message}`))
    }
  })
})
