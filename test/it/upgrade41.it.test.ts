/**
 * In CI on a cluster of its own (scripts/test-all.sh: "4.1 -> … streams upgrade"; it leaves that cluster on other
 * jars), and opt-in by hand: a Kafka Streams app's group written under Kafka 4.1.x, then every broker restarted in place
 * (same data dirs, controller left on 4.1) on the jars of KAFKA_UPGRADE_TO (4.2 or later).
 * 4.1 stored neither the validated topology epoch nor the assignment configs of a streams group; a 4.2+ coordinator
 * loads -1 and none, and its first heartbeat bumps the epoch once to record them (hash unchanged). group explain must
 * call that bump `streams-upgrade-from-4.1`, not a topology validation plus a config change, and nothing unexplained.
 *   KAFKA_VERSION=4.1.2 KAFKA_UPGRADE_TO=4.4.0 npx vitest run --config vitest.it.config.ts test/it/upgrade41.it.test.ts
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce} from './adapter-cli.js'
import {explain, expectRollingUpgrade, runTag} from './explain-lib.js'
import {clusterSh, killBroker, REPO_ROOT, startBroker, waitFor} from './lib/cluster.js'
import {Probe} from './lib/probe.js'

const VERSION = process.env.KAFKA_VERSION ?? '4.4.0'
const TO = process.env.KAFKA_UPGRADE_TO ?? ''
const RUN = VERSION.startsWith('4.1.') && TO !== ''
if (!RUN) console.log('[upgrade41] skipped: needs KAFKA_VERSION=4.1.x and KAFKA_UPGRADE_TO (e.g. 4.4.0)')

let probe: Probe
const R = runTag()

beforeAll(async () => {
  if (!RUN) return
  const [p] = await Promise.all([Probe.start('upgrade41'), buildOnce()])
  probe = p
})
afterAll(async () => {
  await probe?.close()
})

describe.skipIf(!RUN)(`in-place upgrade Kafka ${VERSION} -> ${TO}, a streams group`, () => {
  it('the first 4.2+ heartbeat bumps once, same hash: streams-upgrade-from-4.1, exact', async () => {
    const d = probe.driver
    const env = probe.env
    const S = `${R}-src`
    await d.cmd(`create-topic ${S} --assign 1:2,2:3,3:1`)
    await d.cmd(`create-topic ${R}-sink 1 3`)
    await d.cmd(`produce ${S} 10`)
    const app = `${R}-app`
    await d.cmd(`streams ${R}s1 ${app} ${S} ${R}-sink`)
    // under 4.1: created, then the internal topics' creation moves the hash; wait for that bump before the upgrade
    const topics = [S, `${app}-counts-repartition`, `${app}-counts-changelog`]
    await waitFor('the streams internal topics', async () => {
      const {md} = await probe.metadata()
      return topics.every(t => md.topics.some(x => x.name === t))
    })
    const hash = await probe.ourGroupHash(topics)
    await probe.waitStored(app, 'streams', 'the hash of the source and internal topics', r => r.metadataHash === hash)
    const before = await probe.settled(app, 'streams')
    expect(before.metadataHash).toBe(hash)
    const upEnv = {...env, kafkaVersion: TO, libs: join(REPO_ROOT, '.kafka-libs', TO)}
    if (!existsSync(upEnv.libs)) await clusterSh(upEnv, 'libs')
    for (const n of [1, 2, 3]) {
      await killBroker(env, n)
      await d.cmd(`wait-broker ${n} fenced 60000`)
      await startBroker(upEnv, n)
      await d.cmd(`wait-broker ${n} unfenced 120000`)
      if (n === 1) {
        // mid upgrade: broker 1 on the new release, 2 and 3 on the old
        const mid = await expectRollingUpgrade(env, app, [1], VERSION, TO)
        console.log(`[upgrade41] mid upgrade: ${JSON.stringify([mid.rules, mid.releases!.coordinator, mid.releases!.notes])}`)
      }
    }
    await probe.waitStored(app, 'streams', 'a bump after the upgrade', r => r.epoch > before.epoch, 180_000)
    const after = await probe.settled(app, 'streams')
    // the coordinator's own records (DumpLogSegments): the first bump after the upgrade keeps the hash (seen: one
    // bump, 2 -> 3, on 4.2.2 and 4.4.0)
    expect(after.epoch, 'one bump').toBe(before.epoch + 1)
    const firstAfter = (await probe.history(app, 'streams')).find(r => r.epoch > before.epoch)!
    expect(firstAfter.metadataHash, 'the hash kept').toBe(before.metadataHash)
    expect(after.metadataHash, 'the hash kept').toBe(before.metadataHash)
    const report = await explain(env, app)
    console.log(`[upgrade41] ${VERSION} -> ${TO}: ${JSON.stringify(report.timeline.map(e => [e.epoch, e.causes.map(c => [c.kind, c.confidence])]))}`)
    const bump = report.timeline.find(e => e.epoch === firstAfter.epoch)
    expect(
      report.timeline.filter(e => e.causes.some(c => c.kind === 'streams-upgrade-from-4.1')),
      'once',
    ).toHaveLength(1)
    expect(
      bump?.causes.map(c => [c.kind, c.confidence]),
      JSON.stringify(bump),
    ).toEqual([['streams-upgrade-from-4.1', 'exact']])
    expect(bump?.causes[0].details).toMatchObject({validatedTopologyEpoch: 0, assignmentConfigs: [{field: 'num.standby.replicas', after: '0'}]})
    expect(report.timeline.flatMap(e => e.causes.map(c => c.kind))).not.toContain('unexplained')
    expect(report.verdict.code).toBe('IN_SYNC')
    await d.cmd(`stop ${R}s1`)
  })
})
