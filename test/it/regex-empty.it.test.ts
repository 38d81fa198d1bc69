/**
 * KAFKA-19899 on a real broker: a member whose broker-side regex (SubscriptionPattern) goes from non-empty to empty
 * (it subscribes to the same topic by name instead). Kafka 4.1.2 and later bump the group epoch for it; 4.1.0 did
 * not (the fix, read in the group coordinator's bytecode). What the coordinator did is read with DumpLogSegments,
 * and the tool must name every bump it wrote (no 'unexplained'). Runs on every version from 4.1 on.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce} from './adapter-cli.js'
import {explain, kinds, runTag, since} from './explain-lib.js'
import {versionAtLeast} from './lib/cluster.js'
import {Probe} from './lib/probe.js'

const VERSION = process.env.KAFKA_VERSION ?? '4.4.0'
let probe: Probe
const R = runTag()

beforeAll(async () => {
  if (!versionAtLeast(VERSION, '4.1')) return
  const [p] = await Promise.all([Probe.start('regex-empty'), buildOnce()])
  probe = p
})
afterAll(async () => {
  await probe?.close()
})

describe.skipIf(!versionAtLeast(VERSION, '4.1'))(`a regex going empty (KAFKA-19899, Kafka ${VERSION})`, () => {
  it('the coordinator bumps from 4.1.2 on (not on 4.1.0); the tool names what it did', async () => {
    const d = probe.driver
    const [T, G] = [`${R}-re`, `${R}-re-g`]
    await d.cmd(`create-topic ${T} --assign 1:2`)
    await d.cmd(`consumer ${R}m ${G} regex ${T}`)
    const e1 = (await probe.settled(G, 'consumer')).epoch
    await d.cmd(`subscribe ${R}m names ${T}`)
    // (settled: no new epoch for several heartbeats under the new subscription)
    const after = await probe.settled(G, 'consumer')
    const bumped = after.epoch > e1
    console.log(`[regex-empty] Kafka ${VERSION}: regex -> names of the same topic: epoch ${e1} -> ${after.epoch} (${bumped ? 'bumped' : 'no bump'})`)
    if (VERSION === '4.1.0') expect(bumped).toBe(false)
    else if (versionAtLeast(VERSION, '4.1.2')) expect(bumped).toBe(true)
    const report = await explain(probe.env, G)
    expect(report.groupEpoch).toBe(after.epoch)
    for (const e of since(report, e1)) expect(kinds(e), JSON.stringify(e)).not.toContain('unexplained')
    await d.cmd(`stop ${R}m`)
  })
})
