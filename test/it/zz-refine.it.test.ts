import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce} from './adapter-cli.js'
import {explain} from './explain-lib.js'
import {clusterSh, sleep, waitFor} from './lib/cluster.js'
import {ensureBaseline, Probe} from './lib/probe.js'

let probe: Probe
beforeAll(async () => {
  const [p] = await Promise.all([Probe.start('zz-refine'), buildOnce()])
  probe = p
  await ensureBaseline(probe)
})
afterAll(async () => {
  await probe?.close()
})
describe('refine', () => {
  it('observe', async () => {
    const d = probe.driver
    const app = 'it-refine'
    await d.cmd('create-topic r-src --assign 1:2,2:3,3:1,1:3')
    await d.cmd('create-topic r-sink 1 3')
    await d.cmd('produce r-src 3000')
    const out = await clusterSh(probe.env, 'tool', 'org.apache.kafka.tools.ConfigCommand', '--bootstrap-server', probe.env.bootstrap, '--entity-type', 'groups', '--entity-name', app, '--alter', '--add-config', 'streams.acceptable.recovery.lag=0,streams.task.offset.interval.ms=1000').catch((e: Error) => e.message)
    console.log(`[zz] config: ${out}`)
    await d.cmd(`streams k1 ${app} r-src r-sink`)
    await waitFor('k1', async () => ((await d.cmd('members')).members as any[]).find(x => x.member === 'k1')?.state === 'RUNNING', {timeoutMs: 90_000})
    await probe.settled(app, 'streams')
    await d.cmd(`streams k2 ${app} r-src r-sink`)
    await sleep(45_000)
    const recs = (await probe.records(app)).filter(r => [17, 20, 21].includes(r.type))
    for (const r of recs) console.log(`[zz] ${r.offset} ${r.typeName} ${JSON.stringify(r.key)} ${JSON.stringify(r.value)}`)
    const rep = await explain(probe.env, app)
    for (const e of rep.timeline) console.log(`[zz] epoch ${e.epoch}: ${e.causes.map(c => `${c.kind}: ${c.message}`).join(' | ')}`)
    expect(rep.timeline.length).toBeGreaterThan(0)
  })
})
