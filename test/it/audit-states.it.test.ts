/**
 * The two in-between states of a rebalance, made on the real cluster and reported by `audit` (every output format,
 * exit codes) and `group explain`:
 * - a member stuck reconciling: its onPartitionsRevoked blocks (driver `hold-revocation`), so it stays at the old
 *   member epoch in UNREVOKED_PARTITIONS while the member that joined waits in UNRELEASED_PARTITIONS;
 * - assignment pending: the group epoch is ahead of the target assignment epoch. Kafka 4.4 batches a group's
 *   assignments (group config consumer.assignment.interval.ms); Kafka 4.1 writes the epoch bump and the new target
 *   assignment in one batch, so there the state never reaches the log and the test is skipped.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildOnce, cli, tempDir} from './adapter-cli.js'
import {sleep, waitFor} from './lib/cluster.js'
import {Probe} from './lib/probe.js'

let probe: Probe
let bs: string
const P = `as${Date.now().toString(36).slice(-5)}`
const version = process.env.KAFKA_VERSION ?? '4.4.0'
const batchesAssignments = !/^4\.[01]\./.test(version)

interface Row {
  group: string
  type: string
  verdict: {code: string; pending: boolean}
  inSync: boolean | null
  groupEpoch: number | null
  assignmentEpoch: number | null
  members: number
  membersReconciling: number
  stuckMembers: Array<{
    memberId: string
    since: string | null
    memberEpoch: number | null
    state: string | null
    clientId: string | null
    clientHost: string | null
    waitingOn: string[]
    blocking: string[]
  }>
  assignmentPending: boolean
  findings: string[]
}
interface Member {
  memberId: string
  clientId: string | null
  clientHost: string | null
  memberEpoch: number | null
  state: string | null
  reconciling: boolean
  reconcilingSince: string | null
  partitions:
    | (Record<'assigned' | 'target' | 'pendingRevocation' | 'pendingAssignment', Array<{topic: string | null; topicId: string; partitions: number[]}>> & {
        waitingOn: string[]
      })
    | null
}
interface Report {
  groupEpoch: number
  assignmentEpoch: number | null
  verdict: {code: string; pending: boolean; message: string}
  members: Member[]
  findings: Array<{code: string; message: string; details: Record<string, unknown>}>
}

const audit = (group: string, ...args: string[]) => cli(['audit', '-b', bs, '--no-record', '--group', group, ...args])
async function row(group: string, ...args: string[]): Promise<Row & {code: number}> {
  const r = await audit(group, '--json', ...args)
  const groups = (JSON.parse(r.stdout) as {groups: Row[]}).groups
  if (groups.length !== 1) throw new Error(`audit --group ${group}: ${groups.length} rows (${r.stderr})`)
  return {...groups[0], code: r.code}
}
async function explain(group: string, ...args: string[]): Promise<Report & {code: number}> {
  const r = await cli(['group', 'explain', group, '-b', bs, '--json', ...args])
  if (!r.stdout) throw new Error(`group explain ${group}: exit ${r.code}: ${r.stderr}`)
  return {...(JSON.parse(r.stdout) as Report), code: r.code}
}

beforeAll(async () => {
  const [p] = await Promise.all([Probe.start('audit-states'), buildOnce()])
  probe = p
  bs = probe.env.bootstrap
})
afterAll(async () => {
  await probe?.close()
})

// the two tests run side by side (their own topics and groups): the stuck member's (~15 s) inside the pending
// test's 60 s assignment interval, which it spends waiting
describe.concurrent(`audit: rebalance states on a real cluster (Kafka ${version})`, () => {
  it('a member stuck revoking: reconciling, then stuck after --stuck-after; released, in sync', async () => {
    const d = probe.driver
    const [T, G] = [`${P}-st`, `${P}-stuck`]
    await d.cmd(`create-topic ${T} --assign 1:2,2:3,3:1,1:3`)
    await d.cmd(`consumer ${P}k1 ${G} names ${T}`)
    await waitFor(
      'the first member in sync',
      async () => {
        const r = await row(G)
        return r.verdict.code === 'IN_SYNC' ? r : undefined
      },
      {timeoutMs: 90_000, intervalMs: 1000},
    )

    await d.cmd(`hold-revocation ${P}k1 on`)
    try {
      await d.cmd(`consumer ${P}k2 ${G} names ${T}`)
      await waitFor(
        `${P}k1 holding a revocation`,
        async () => {
          const ms = (await d.cmd('members')).members as Array<{member: string; heldRevocations: number}>
          return ms.find(m => m.member === `${P}k1`)!.heldRevocations > 0 || undefined
        },
        {timeoutMs: 60_000, intervalMs: 500},
      )
      // the coordinator has written both members' states. Waited for by state, not by "reconciling": between k2's
      // join and k1's next heartbeat k1 is reconciling at STABLE, only behind the target epoch (failed once in CI)
      let last: Awaited<ReturnType<typeof explain>> | undefined
      const rec = await waitFor(
        'k1 UNREVOKED_PARTITIONS and k2 UNRELEASED_PARTITIONS in the log',
        async () => {
          const r = (last = await explain(G))
          const states = r.members.map(m => `${m.clientId}:${m.state}`).sort()
          return r.members.every(m => m.reconciling) && states.join() === `${P}k1:UNREVOKED_PARTITIONS,${P}k2:UNRELEASED_PARTITIONS` ? r : undefined
        },
        {timeoutMs: 60_000, intervalMs: 1000},
      ).catch(e => {
        throw new Error(`${e.message}; last: ${JSON.stringify({groupEpoch: last?.groupEpoch, assignmentEpoch: last?.assignmentEpoch, members: last?.members})}`)
      })
      const k1 = rec.members.find(m => m.clientId === `${P}k1`)!
      const k2 = rec.members.find(m => m.clientId === `${P}k2`)!
      // k1 revokes at the epoch it had; k2 is at the target epoch, waiting for what k1 still owns
      expect(k2.memberEpoch, JSON.stringify(rec.members)).toBe(rec.assignmentEpoch)
      expect(k1.memberEpoch!, JSON.stringify(rec.members)).toBeLessThan(k2.memberEpoch!)
      expect(k1.reconcilingSince).not.toBeNull()
      expect(k2.reconcilingSince).not.toBeNull()
      expect(rec.verdict).toMatchObject({code: 'RECONCILING', pending: true})

      // reconciling, not yet stuck: no finding, exit 0
      const young = await row(G, '--stuck-after', '1h')
      expect(young).toMatchObject({
        code: 0,
        verdict: {code: 'RECONCILING', pending: true},
        inSync: true,
        members: 2,
        membersReconciling: 2,
        stuckMembers: [],
        findings: [],
      })

      // past the threshold: stuck, in every format (3.5 s after the later of the two began reconciling; the runs
      // above took part of it)
      const stuckAt = Math.max(Date.parse(k1.reconcilingSince!), Date.parse(k2.reconcilingSince!)) + 3500
      await sleep(Math.max(0, stuckAt - Date.now()))
      const prom = join(tempDir(), 'rd.prom')
      const [json, ndjson, table, notCovered, ex] = await Promise.all([
        row(G, '--stuck-after', '3s'),
        audit(G, '--ndjson', '--stuck-after', '3s', '--prometheus', prom),
        audit(G, '--stuck-after', '3s'),
        audit(G, '--stuck-after', '3s', '--fail-on', 'drift,pending'),
        explain(G, '--stuck-after', '3s'),
      ])
      expect(json).toMatchObject({code: 3, verdict: {code: 'RECONCILING'}, findings: ['stuck'], membersReconciling: 2})
      expect(json.stuckMembers.map(m => [m.memberId, m.state, m.memberEpoch]).sort()).toEqual(
        [
          [k1.memberId, 'UNREVOKED_PARTITIONS', k1.memberEpoch],
          [k2.memberId, 'UNRELEASED_PARTITIONS', k2.memberEpoch],
        ].sort(),
      )
      expect(json.stuckMembers.find(m => m.memberId === k1.memberId)!.since).toBe(k1.reconcilingSince)
      // which one blocks the rest: k1 holds the partitions k2 is to get; both named with client and host
      const s1 = json.stuckMembers.find(m => m.memberId === k1.memberId)!
      const s2 = json.stuckMembers.find(m => m.memberId === k2.memberId)!
      expect(s1).toMatchObject({blocking: [k2.memberId], waitingOn: [], clientId: k1.clientId, clientHost: k1.clientHost})
      expect(s2).toMatchObject({blocking: [], waitingOn: [k1.memberId], clientId: k2.clientId})
      expect(table.stdout).toContain(`${k1.memberId} (client ${k1.clientId} on ${k1.clientHost}) UNREVOKED_PARTITIONS since`)
      expect(table.stdout).toContain(`, blocks ${k2.memberId}`)

      expect(ndjson.code, ndjson.stderr).toBe(3)
      const line = ndjson.stdout
        .trim()
        .split('\n')
        .map(l => JSON.parse(l) as Row & {schema: {name: string}})
        .find(l => l.schema.name === 'rebalance-doctor/audit-group')!
      expect(line).toMatchObject({group: G, findings: ['stuck'], membersReconciling: 2})
      const text = readFileSync(prom, 'utf8')
      const CLUSTER_ID = (JSON.parse(ndjson.stdout.trim().split('\n').at(-1)!) as {clusterId: string}).clusterId
      expect(CLUSTER_ID).toMatch(/^[\w-]{22}$/)
      expect(text).toContain(`rebalance_doctor_group_members_stuck{cluster_id="${CLUSTER_ID}",group="${G}",type="consumer"} 2`)
      expect(text).toContain(`rebalance_doctor_group_members_reconciling{cluster_id="${CLUSTER_ID}",group="${G}",type="consumer"} 2`)
      expect(text).toContain(`rebalance_doctor_audit_exit_code{cluster_id="${CLUSTER_ID}"} 3`)
      expect(text).toContain(`rebalance_doctor_up{cluster_id="${CLUSTER_ID}"} 1`)

      expect(table.code, table.stderr).toBe(3)
      expect(table.stdout).toMatch(new RegExp(`${G} .*RECONCILING`))
      expect(table.stdout).toContain(`stuck: ${k1.memberId}`)
      expect(notCovered.code, notCovered.stderr).toBe(0)

      const stuckFindings = ex.findings.filter(f => f.code === 'MEMBER_RECONCILING')
      expect(stuckFindings.map(f => f.details.stuck)).toEqual([true, true])
      expect(stuckFindings.find(f => f.details.memberId === k1.memberId)!.message).toMatch(
        new RegExp(`^member ${k1.memberId} \\(client ${P}k1\\) is stuck reconciling: member epoch ${k1.memberEpoch}, state UNREVOKED_PARTITIONS`),
      )

      // current vs target partitions by topic name (not base64 ids), and the blocker: k2 waits on k1's revocation
      const p1 = ex.members.find(m => m.memberId === k1.memberId)!.partitions!
      const p2 = ex.members.find(m => m.memberId === k2.memberId)!.partitions!
      expect(p1.pendingRevocation.map(x => x.topic)).toEqual([T])
      const moving = p1.pendingRevocation[0].partitions
      const kept = [0, 1, 2, 3].filter(p => !moving.includes(p))
      expect(moving).toHaveLength(2)
      expect(p1).toMatchObject({assigned: [{topic: T, partitions: kept}], target: [{topic: T, partitions: kept}], pendingAssignment: [], waitingOn: []})
      expect(p2).toMatchObject({
        assigned: [],
        target: [{topic: T, partitions: moving}],
        pendingRevocation: [],
        pendingAssignment: [{topic: T, partitions: moving}],
        waitingOn: [k1.memberId],
      })
      const exText = await cli(['group', 'explain', G, '-b', bs, '--stuck-after', '3s'])
      expect(exText.stdout).toContain(`member ${k2.memberId} waits for ${k1.memberId} (client ${P}k1 on `)
      expect(exText.stdout).toContain(`to revoke ${T} ${moving.join(',')}`)
      expect(exText.stdout).toMatch(new RegExp(`${k1.memberId}.*│ ${T} ${kept.join(',')}.*│ ${T} ${moving.join(',')}`))
    } finally {
      await d.cmd(`hold-revocation ${P}k1 off`)
    }

    // released: both members reach the target, nothing reconciles
    const done = await waitFor(
      'the group stable after the release',
      async () => {
        const r = await row(G, '--stuck-after', '3s')
        return r.verdict.code === 'IN_SYNC' ? r : undefined
      },
      {timeoutMs: 60_000, intervalMs: 1000},
    )
    expect(done).toMatchObject({code: 0, membersReconciling: 0, stuckMembers: [], findings: []})
    for (const m of ['k1', 'k2']) await d.cmd(`stop ${P}${m}`)
  })

  it.skipIf(!batchesAssignments)(
    'assignment pending in a consumer, a share and a streams group: the epoch bumped, the batched target assignment not yet computed',
    async () => {
      const d = probe.driver
      // per group: its type, its (source) topic, and the group config that batches its assignments: at most every
      // 60 s (the test cluster's maximum), so that the pending window holds the twelve CLI runs of the three groups
      // at once on a loaded machine. Set once the group is in sync: the share and the streams group bump twice as
      // they start (epochs 2 and 3), and under the config from the start their second assignment waited the
      // interval out itself (~45 s of the test's ~100 s)
      const cases = [
        {
          type: 'consumer',
          G: `${P}-pending`,
          T: `${P}-pa`,
          config: 'consumer.assignment.interval.ms',
          start: (m: string, G: string, T: string) => `consumer ${m} ${G} names ${T}`,
        },
        {
          type: 'share',
          G: `${P}-spending`,
          T: `${P}-ps`,
          config: 'share.assignment.interval.ms',
          start: (m: string, G: string, T: string) => `share ${m} ${G} ${T}`,
        },
        {
          type: 'streams',
          G: `${P}-kpending`,
          T: `${P}-pk`,
          config: 'streams.assignment.interval.ms',
          start: (m: string, G: string, T: string) => `streams ${m} ${G} ${T} ${T}-sink`,
        },
      ]
      for (const c of cases) {
        await d.cmd(`create-topic ${c.T} --assign 1:2,2:3`)
        if (c.type === 'streams') await d.cmd(`create-topic ${c.T}-sink 1 3`)
        await d.cmd(c.start(`${c.G}-m1`, c.G, c.T))
      }
      const inSync = (G: string) =>
        waitFor(
          `${G}: the first assignment`,
          async () => {
            const r = await row(G)
            return r.verdict.code === 'IN_SYNC' ? r : undefined
          },
          {timeoutMs: 150_000, intervalMs: 1000},
        )
      // the three groups run at once (each waits up to 60 s for its batched assignment)
      await Promise.all(
        cases.map(async c => {
          expect((await inSync(c.G)).type).toBe(c.type)
          await d.cmd(`group-config ${c.G} ${c.config} 60000`)
          // the last assignment before the join, read after the config is set: the run is also what lets the
          // coordinator's broker apply the config (from the metadata log) before the second member's heartbeat
          const first = await inSync(c.G)

          // right after an assignment, a second member joins: the epoch bumps, the assignment waits
          await d.cmd(c.start(`${c.G}-m2`, c.G, c.T))
          const pending = await waitFor(
            `${c.G}: the epoch bump with the assignment pending`,
            async () => {
              const r = await row(c.G)
              return r.groupEpoch! > first.groupEpoch! ? r : undefined
            },
            {timeoutMs: 30_000, intervalMs: 500},
          )
          expect(pending, c.type).toMatchObject({
            code: 3,
            verdict: {code: 'ASSIGNMENT_PENDING', pending: true},
            inSync: true,
            assignmentPending: true,
            assignmentEpoch: first.groupEpoch,
            findings: ['pending'],
          })
          const prom = join(tempDir(), 'rd.prom')
          const [ndjson, table, notCovered, ex] = await Promise.all([
            audit(c.G, '--ndjson', '--prometheus', prom),
            audit(c.G),
            audit(c.G, '--fail-on', 'drift,stuck'),
            explain(c.G, '--fail-on-pending'),
          ])
          expect(ndjson.code, ndjson.stderr).toBe(3)
          expect(
            ndjson.stdout
              .trim()
              .split('\n')
              .map(l => JSON.parse(l) as Row & {schema: {name: string}})
              .find(l => l.schema.name === 'rebalance-doctor/audit-group'),
          ).toMatchObject({group: c.G, verdict: {code: 'ASSIGNMENT_PENDING'}, findings: ['pending']})
          const CLUSTER_ID = (JSON.parse(ndjson.stdout.trim().split('\n').at(-1)!) as {clusterId: string}).clusterId
          expect(readFileSync(prom, 'utf8')).toContain(
            `rebalance_doctor_group_assignment_pending{cluster_id="${CLUSTER_ID}",group="${c.G}",type="${c.type}"} 1`,
          )
          expect(table.code, table.stderr).toBe(3)
          expect(table.stdout).toMatch(new RegExp(`${c.G} .*ASSIGNMENT_PENDING`))
          expect(notCovered.code, notCovered.stderr).toBe(0)
          expect(ex.code).toBe(3)
          expect(ex).toMatchObject({groupEpoch: pending.groupEpoch, assignmentEpoch: first.groupEpoch, verdict: {code: 'ASSIGNMENT_PENDING'}})
          expect(ex.findings.find(f => f.code === 'ASSIGNMENT_PENDING')!.details).toMatchObject({
            groupEpoch: pending.groupEpoch,
            assignmentEpoch: first.groupEpoch,
          })

          // the batched assignment comes (≤ 60 s after the last one): in sync, nothing pending
          const done = await inSync(c.G)
          expect(done).toMatchObject({code: 0, assignmentPending: false, findings: []})
          expect(done.assignmentEpoch).toBeGreaterThanOrEqual(pending.groupEpoch!)
          for (const m of ['m1', 'm2']) await d.cmd(`stop ${c.G}-${m}`)
        }),
      )
    },
    600_000,
  )
})
