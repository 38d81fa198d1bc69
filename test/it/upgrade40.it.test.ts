/**
 * In CI on a cluster of its own (scripts/test-all.sh: "4.0 -> 4.1.2 upgrade"; it leaves that cluster on other jars),
 * and opt-in by hand: a consumer group written under Kafka 4.0.x, then every
 * broker restarted in place (same data dirs, controller left on 4.0) on the jars of KAFKA_UPGRADE_TO (e.g. 4.1.2).
 * The first 4.1+ recomputation stores a metadata hash, tombstones the 4.0 subscription metadata record and bumps the
 * epoch: group explain must call that bump `upgrade-from-4.0`, switch the group to rules 4.1+ with the stored hash
 * equal to ours, and keep the 4.0 entries of the timeline under rules 4.0.
 *   KAFKA_VERSION=4.0.2 KAFKA_UPGRADE_TO=4.1.2 npx vitest run --config vitest.it.config.ts test/it/upgrade40.it.test.ts
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce} from './adapter-cli.js'
import {explain, expectRollingUpgrade, runTag, settled, waitReport} from './explain-lib.js'
import {clusterSh, killBroker, REPO_ROOT, startBroker} from './lib/cluster.js'
import {Probe} from './lib/probe.js'

const VERSION = process.env.KAFKA_VERSION ?? '4.4.0'
const TO = process.env.KAFKA_UPGRADE_TO ?? ''
const RUN = VERSION.startsWith('4.0.') && TO !== ''
if (!RUN) console.log('[upgrade40] skipped: needs KAFKA_VERSION=4.0.x and KAFKA_UPGRADE_TO (e.g. 4.1.2)')

let probe: Probe
const R = runTag()

beforeAll(async () => {
  if (!RUN) return
  const [p] = await Promise.all([Probe.start('upgrade40'), buildOnce()])
  probe = p
})
afterAll(async () => {
  await probe?.close()
})

describe.skipIf(!RUN)(`in-place upgrade Kafka ${VERSION} -> ${TO}`, () => {
  it('the upgrade bump is upgrade-from-4.0, then rules 4.1+ with the stored hash = ours', async () => {
    const d = probe.driver
    const env = probe.env
    const A = `${R}-up`
    await d.cmd(`create-topic ${A} --assign 1:2,2:3,3:1`)
    const G = `${R}-up-g`
    await d.cmd(`consumer ${R}u1 ${G} names ${A}`)
    const before = await settled(env, G)
    expect(before).toMatchObject({rules: '4.0', storedMetadataHash: null})
    const upEnv = {...env, kafkaVersion: TO, libs: join(REPO_ROOT, '.kafka-libs', TO)}
    if (!existsSync(upEnv.libs)) await clusterSh(upEnv, 'libs')
    for (const n of [1, 2, 3]) {
      await killBroker(env, n)
      await d.cmd(`wait-broker ${n} fenced 60000`)
      await startBroker(upEnv, n)
      await d.cmd(`wait-broker ${n} unfenced 120000`)
      if (n === 1) {
        // mid upgrade: broker 1 on the new release, 2 and 3 on the old
        const mid = await expectRollingUpgrade(env, G, [1], VERSION, TO)
        console.log(`[upgrade40] mid upgrade: ${JSON.stringify([mid.rules, mid.releases!.coordinator, mid.releases!.notes])}`)
        // a 4.0-rules group whose coordinator already runs 4.1+: the note says its next recomputation bumps once more
        if (mid.rules === '4.0' && mid.releases!.coordinator!.atLeast !== '4.0') expect(mid.releases!.notes.join(' ')).toContain('bumps the epoch once more')
      }
    }
    const after = await waitReport(env, G, 'rules 4.1+ in sync after the upgrade', r => r.rules === '4.1+' && r.verdict.code === 'IN_SYNC', 180_000)
    console.log(`[upgrade40] ${VERSION} -> ${TO}: ${JSON.stringify(after.timeline.map(e => [e.epoch, e.rules, e.metadataHash, e.causes.map(c => c.kind)]))}`)
    const up = after.timeline.filter(e => e.causes.some(c => c.kind === 'upgrade-from-4.0'))
    expect(up).toHaveLength(1)
    expect(after.timeline.filter(e => e.epoch < up[0].epoch).every(e => e.metadataHash === null)).toBe(true)
    expect(up[0].previousMetadataHash).toBeNull()
    expect(after.storedMetadataHash).toBe(after.liveMetadataHash)
    expect(String(await probe.ourGroupHash([A]))).toBe(after.storedMetadataHash)
    // the coordinator's own record of it: the 4.0 subscription metadata record tombstoned
    const records = await probe.records(G)
    expect(records.some(r => r.type === 4 && r.value === null)).toBe(true)
    expect((await explain(env, G)).timeline.flatMap(e => e.causes.map(c => c.kind))).not.toContain('unexplained')
    await d.cmd(`stop ${R}u1`)
  })
})
