/**
 * `group explain --json` on a real cluster: the causes it reports, epoch by epoch, for members joining, leaving and
 * being fenced by the session timeout, a subscription change, partitions added, a topic re-created or created, a
 * regex picking up a topic, share and streams groups; and the verdict while a rebalance is pending (members paused,
 * metadata changed, no heartbeat yet) with --fail-on-pending exiting 3.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce} from './adapter-cli.js'
import {afterBump, allCauses, alongside, explain, explainRaw, firstEpoch, kinds, MemberJvm, runTag, settled, since, waitReport} from './explain-lib.js'
import {waitFor} from './lib/cluster.js'
import {Probe} from './lib/probe.js'

let probe: Probe
const R = runTag()
const jvms: MemberJvm[] = []

beforeAll(async () => {
  const [p] = await Promise.all([Probe.start('explain'), buildOnce()])
  probe = p
})
afterAll(async () => {
  await Promise.all(jvms.map(j => j.close().catch(() => undefined)))
  await probe?.close()
})

const env = () => probe.env

describe(`group explain on consumer groups (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('a member joins, the subscription changes, a member leaves, a member is fenced by the session timeout', async () => {
    const d = probe.driver
    const [A, B, G] = [`${R}-j-a`, `${R}-j-b`, `${R}-members`]
    await d.cmd(`create-topic ${A} --assign 1:2,2:3`)
    await d.cmd(`create-topic ${B} --assign 3:1`)
    await d.cmd(`consumer ${R}c1 ${G} names ${A}`)
    // the second member's JVM (killed below) starts while the first member settles
    const [jvm, r1] = await alongside(MemberJvm.start(env(), `${R}-jvm`), settled(env(), G))
    jvms.push(jvm)
    expect(r1.type).toBe('consumer')
    expect(r1.groupEpoch).toBe(firstEpoch(env()))
    expect(r1.timeline).toHaveLength(1)
    expect(kinds(r1.timeline[0])).toEqual(['group-created', 'member-joined'])
    expect(r1.timeline[0].causes[1].details).toMatchObject({clientId: `${R}c1`, subscribedTopicNames: [A]})
    expect(r1.timeline[0].causes[1].message).toContain(`client ${R}c1`)
    expect(r1.members.map(m => m.clientId)).toEqual([`${R}c1`])
    const e1 = r1.groupEpoch!

    // a second member, in its own JVM
    await jvm.cmd(`consumer ${R}c2 ${G} names ${A}`)
    const r2 = await afterBump(env(), G, e1, 'the second member joined')
    expect(since(r2, e1).map(kinds)).toEqual([['member-joined']])
    expect(since(r2, e1)[0].causes[0].details).toMatchObject({clientId: `${R}c2`, subscribedTopicNames: [A]})
    const e2 = r2.groupEpoch!

    await d.cmd(`subscribe ${R}c1 names ${A},${B}`)
    const r3 = await afterBump(env(), G, e2, 'the subscription changed')
    const [sub] = since(r3, e2)
    expect(kinds(sub)).toEqual(['subscription-changed'])
    expect(sub.causes[0].details).toMatchObject({clientId: `${R}c1`, added: [B], removed: []})
    expect(sub.metadataHash).not.toBe(sub.previousMetadataHash)
    const e3 = r3.groupEpoch!

    await d.cmd(`stop ${R}c1`)
    const r4 = await afterBump(env(), G, e3, 'the first member left')
    expect(since(r4, e3).map(kinds)).toEqual([['member-left']])
    expect(since(r4, e3)[0].causes[0].details).toMatchObject({clientId: `${R}c1`})
    const e4 = r4.groupEpoch!

    // kill -9: no leave heartbeat; the coordinator fences the member after the session timeout (10 s)
    const killedAt = Date.now()
    jvm.kill()
    const r5 = await waitReport(env(), G, 'the killed member fenced', r => (r.groupEpoch ?? -1) > e4, 60_000)
    const [fenced] = since(r5, e4)
    expect(kinds(fenced)).toEqual(['member-left'])
    expect(fenced.causes[0].details).toMatchObject({clientId: `${R}c2`})
    // not a leave: the bump came a session timeout after the kill
    expect(Date.parse(fenced.time) - killedAt).toBeGreaterThan(5000)
    expect(r5.members).toEqual([])
    expect(r5.verdict.code).toBe('EMPTY_GROUP')
    expect(r5.storedMetadataHash).toBe('0')
  })

  it('partitions added: the bump is attributed to the topic, with the old and the new count', async () => {
    const d = probe.driver
    const [T, U, G] = [`${R}-grow`, `${R}-still`, `${R}-grow-g`]
    await d.cmd(`create-topic ${T} --assign 1:2,2:3`)
    await d.cmd(`create-topic ${U} --assign 3:1`)
    await d.cmd(`consumer ${R}p1 ${G} names ${T},${U}`)
    const r1 = await settled(env(), G)
    const e1 = r1.groupEpoch!
    expect(r1.topics.find(t => t.name === T)).toMatchObject({exists: true, partitions: 2})

    await d.cmd(`add-partitions ${T} 4 --assign 3:1,1:2`)
    const r2 = await afterBump(env(), G, e1, 'partitions added')
    const [bump] = since(r2, e1)
    expect(kinds(bump)).toEqual(['metadata-hash-changed'])
    expect(bump.causes[0].details.changes).toEqual([expect.objectContaining({kind: 'partition-count', topic: T, then: '2', now: '4'})])
    expect(bump.causes[0].message).toContain(`consistent with: topic ${T} had 2 partitions then (4 now)`)
    expect(bump.causes[0].confidence).toBe('inferred-unique')
    // the earlier bump (creation) is still explained: nothing unexplained anywhere
    expect(allCauses(r2).map(c => c.kind)).not.toContain('unexplained')
    expect(r2.verdict.code).toBe('IN_SYNC')
    // --last N keeps the newest entries
    const last = await explain(env(), G, '--last', '1')
    expect(last.timeline.map(e => e.epoch)).toEqual([bump.epoch])
    await d.cmd(`stop ${R}p1`)
  })

  it('a subscribed topic deleted and re-created: the re-creation attributed to the new topic id, the deletion to the old one', async () => {
    const d = probe.driver
    const [K, T, G] = [`${R}-keep`, `${R}-re`, `${R}-re-g`]
    await d.cmd(`create-topic ${K} --assign 1:2,2:3`)
    const first = await d.cmd(`create-topic ${T} --assign 3:1,1:2,2:3`)
    await d.cmd(`consumer ${R}r1 ${G} names ${K},${T}`)
    const e1 = (await settled(env(), G)).groupEpoch!

    await d.cmd(`delete-topic ${T}`)
    const r2 = await afterBump(env(), G, e1, 'the topic deleted')
    const e2 = r2.groupEpoch!
    expect(r2.findings.map(f => f.code)).toContain('MISSING_TOPICS')
    expect(r2.topics.find(t => t.name === T)).toMatchObject({exists: false})

    const second = await d.cmd(`create-topic ${T} --assign 3:1,1:2,2:3`)
    expect(second.topicId).not.toBe(first.topicId)
    const r3 = await afterBump(env(), G, e2, 'the topic re-created')
    const [del, re] = since(r3, e1)
    expect(kinds(del)).toEqual(['metadata-hash-changed'])
    expect(kinds(re)).toEqual(['metadata-hash-changed'])
    // re-created: it did not exist before this bump, and exists now under the new id
    expect(re.causes[0].details.changes).toEqual([expect.objectContaining({topic: T, now: second.topicId})])
    expect(re.causes[0].message).toContain(String(second.topicId))
    // deleted: it existed before under the old id (seen in the group's assignment records)
    expect(del.causes[0].details.changes).toEqual([expect.objectContaining({kind: 'topic-deleted', topic: T, then: first.topicId})])
    expect(del.causes[0].message).toContain(String(first.topicId))
    expect(r3.verdict.code).toBe('IN_SYNC')
    await d.cmd(`stop ${R}r1`)
  })

  it('a subscribed topic that did not exist is created: missing-topic finding first, then the bump attributed to the topic', async () => {
    const d = probe.driver
    const [P, L, G] = [`${R}-present`, `${R}-later`, `${R}-later-g`]
    await d.cmd(`create-topic ${P} --assign 2:3`)
    await d.cmd(`consumer ${R}m1 ${G} names ${P},${L}`)
    const r1 = await settled(env(), G)
    expect(r1.findings.find(f => f.code === 'MISSING_TOPICS')?.details.topics).toEqual([L])
    const e1 = r1.groupEpoch!

    const created = await d.cmd(`create-topic ${L} --assign 1:2`)
    const r2 = await afterBump(env(), G, e1, 'the missing topic created')
    const [bump] = since(r2, e1)
    expect(bump.causes[0].details.changes).toEqual([expect.objectContaining({kind: 'topic-absent', topic: L, now: created.topicId})])
    expect(r2.findings.map(f => f.code)).not.toContain('MISSING_TOPICS')
    await d.cmd(`stop ${R}m1`)
  })

  it('a broker-side regex picks up a newly created topic: the bump names the regex and the topic', async () => {
    const d = probe.driver
    const [T1, T2, G] = [`${R}-rx-1`, `${R}-rx-2`, `${R}-rx-g`]
    await d.cmd(`create-topic ${T1} --assign 1:2`)
    await d.cmd(`consumer ${R}x1 ${G} regex ${R}-rx-.*`)
    const r1 = await waitReport(env(), G, 'the regex resolved', r => r.verdict.code === 'IN_SYNC' && r.storedMetadataHash !== '0')
    expect(allCauses(r1).some(c => c.kind === 'regex-resolution-changed' && c.details.added.includes(T1))).toBe(true)
    const e1 = r1.groupEpoch!

    await d.cmd(`create-topic ${T2} --assign 2:3`)
    const r2 = await afterBump(env(), G, e1, 'the new topic picked up', 120_000)
    const [bump] = since(r2, e1)
    expect(bump.causes).toEqual([
      expect.objectContaining({kind: 'regex-resolution-changed', details: expect.objectContaining({regex: `${R}-rx-.*`, added: [T2], removed: []})}),
    ])
    expect(bump.causes[0].message).toContain(T2)
    await d.cmd(`stop ${R}x1`)
  })

  it('rebalance pending: metadata changed while the only member is paused; --fail-on-pending exits 3 until the heartbeat bumps', async () => {
    const d = probe.driver
    const [T, G] = [`${R}-pend`, `${R}-pend-g`]
    await d.cmd(`create-topic ${T} --assign 1:2,2:3`)
    // a long session timeout for this group, so the paused member is not fenced while we look
    await d.cmd(`group-config ${G} consumer.session.timeout.ms 45000`)
    const jvm = await MemberJvm.start(env(), `${R}-pend`)
    jvms.push(jvm)
    await jvm.cmd(`consumer ${R}q1 ${G} names ${T}`)
    const r1 = await settled(env(), G)
    const e1 = r1.groupEpoch!
    const ok = await explainRaw(env(), G, '--fail-on-pending')
    expect(ok.code).toBe(0)

    jvm.pause()
    try {
      await d.cmd(`add-partitions ${T} 3 --assign 3:1`)
      const pending = await explainRaw(env(), G, '--fail-on-pending')
      expect(pending.code, pending.stderr).toBe(3)
      const r2 = JSON.parse(pending.stdout)
      expect(r2.groupEpoch).toBe(e1)
      expect(r2.inSync).toBe(false)
      expect(r2.verdict).toMatchObject({code: 'REBALANCE_PENDING', pending: true})
      expect(r2.verdict.message).toContain(`consistent with: topic ${T} had 2 partitions then (3 now)`)
      expect(r2.findings.find((f: {code: string}) => f.code === 'REBALANCE_PENDING').details.changes).toEqual([
        expect.objectContaining({kind: 'partition-count', topic: T, then: '2', now: '3'}),
      ])
    } finally {
      jvm.resume()
    }
    const r3 = await afterBump(env(), G, e1, 'the resumed member heartbeated')
    expect(since(r3, e1)[0].causes[0].details.changes).toEqual([expect.objectContaining({kind: 'partition-count', topic: T, then: '2', now: '3'})])
    expect((await explainRaw(env(), G, '--fail-on-pending')).code).toBe(0)
    await jvm.cmd(`stop ${R}q1`)
  })
})

describe(`group explain on share and streams groups (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('a share group member joins', async () => {
    const d = probe.driver
    const [T, G] = [`${R}-sh`, `${R}-share`]
    await d.cmd(`create-topic ${T} --assign 1:2,2:3`)
    await d.cmd(`share ${R}s1 ${G} ${T}`)
    const r = await settled(env(), G)
    expect(r.type).toBe('share')
    expect(r.timeline[0].epoch).toBe(firstEpoch(env()))
    expect(kinds(r.timeline[0])).toEqual(['group-created', 'member-joined'])
    expect(r.timeline[0].causes[1].details).toMatchObject({clientId: `${R}s1`, subscribedTopicNames: [T]})
    // later bumps (share-partition initialization) are explained too
    for (const e of r.timeline.slice(1)) expect(kinds(e)).not.toContain('unexplained')
    expect(r.storedMetadataHash).toBe(r.liveMetadataHash)
    await d.cmd(`stop ${R}s1`)
  })

  it('a streams group: the topology initialized', async () => {
    const d = probe.driver
    const [S, K, APP] = [`${R}-st-src`, `${R}-st-sink`, `${R}-app`]
    await d.cmd(`create-topic ${S} --assign 1:2,2:3`)
    await d.cmd(`create-topic ${K} 1 3`)
    await d.cmd(`produce ${S} 10`)
    await d.cmd(`streams ${R}k1 ${APP} ${S} ${K}`)
    await waitFor(
      'streams member RUNNING',
      async () => {
        const m = (await d.cmd('members')).members as Array<{member: string; state: string}>
        return m.find(x => x.member === `${R}k1`)?.state === 'RUNNING'
      },
      {timeoutMs: 120_000},
    )
    const r = await settled(env(), APP)
    expect(r.type).toBe('streams')
    const init = allCauses(r).filter(c => c.kind === 'streams-topology-changed')
    expect(init.length).toBeGreaterThan(0)
    expect(init[0].details.epochBefore ?? null).toBeNull()
    expect(init[0].message).toContain('initialized')
    expect(allCauses(r).some(c => c.kind === 'member-joined' && c.details.clientId?.startsWith(`${R}k1`))).toBe(true)
    expect(allCauses(r).map(c => c.kind)).not.toContain('unexplained')
    expect(r.topics.map(t => t.name).sort()).toEqual([`${APP}-counts-changelog`, `${APP}-counts-repartition`, S].sort())
    await d.cmd(`stop ${R}k1`)
  })
})
