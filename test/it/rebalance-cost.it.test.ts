/**
 * What each bump cost (`timeline[].cost` of `group explain --json`) on a real cluster, made with Kafka's own
 * clients and checked against the coordinator's records as Kafka's own decoder (DumpLogSegments) prints them.
 * A KIP-848 group of two members, one of which sleeps 6 s in onPartitionsRevoked; a third member joins: the moved
 * partitions (old and new owner), each one's time without an owner, the time to converge and the slowest member
 * (the slow one, revoking) equal what the records' timestamps give. A member closes: its partitions' gap runs from
 * its current-assignment tombstone. A classic group (two console consumers, one after the other): the partitions
 * moved between the two generations. Both groups' `group explain --html` pages (written by the runs that give the
 * reports checked, so no run is added): a lane per member, the bump lines with their causes, the gaps without an
 * owner of the moved partitions (as the cost says), the page opened in the real headless Chromium (skipped with a
 * message where it is absent) with no request leaving it.
 */
import type {ChildProcess} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join as joinPath} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {RebalanceCost} from '../../src/core/cost/index.js'
import {h, secs, utc} from '../../src/render/html/escape.js'
import {blueBands, chromium, chromiumDir, HAVE_CHROMIUM, pageRequests, readPng, skipMessage} from '../lib/chromium.js'
import {buildOnce, tempDir} from './adapter-cli.js'
import {type Entry, type Report, runTag, waitReport} from './explain-lib.js'
import type {OffsetsRecord} from './lib/offsets-log.js'
import {waitFor} from './lib/cluster.js'
import {consoleConsumer} from './lib/console-consumer.js'
import {Probe} from './lib/probe.js'

let probe: Probe
const R = runTag()
const consoles: ChildProcess[] = []
let classic: ReturnType<typeof startClassic>

beforeAll(async () => {
  const [p] = await Promise.all([Probe.start('rebalance-cost'), buildOnce()])
  probe = p
  classic = startClassic()
  classic.catch(() => undefined) // awaited by its test
})
afterAll(async () => {
  for (const c of consoles) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await probe?.close()
})

const env = () => probe.env
type CostEntry = Entry & {cost?: RebalanceCost}
const timeline = (r: Report) => r.timeline as CostEntry[]
const cost = (r: Report, epoch: number) => timeline(r).find(e => e.epoch === epoch)?.cost

/** Each named member's consumer holds that many partitions (its rebalance listener's view): polled in the driver. */
function owning(counts: Record<string, number>): Promise<true> {
  return waitFor(
    `members owning ${JSON.stringify(counts)}`,
    async () => {
      const members = (await probe.driver.cmd('members')).members as Array<{member: string; assignment: string[]}>
      return Object.entries(counts).every(([name, n]) => members.find(m => m.member === name)?.assignment.length === n) || undefined
    },
    {timeoutMs: 90_000, intervalMs: 200},
  )
}

/** The group's last bump after epoch `after` converged, in the records (read with the driver's decoder): its epoch. */
function convergedInRecords(group: string, after: number, what: string): Promise<number> {
  return waitFor(
    `${group}: ${what}`,
    async () => {
      const recs = await probe.records(group)
      const bump = recs.findLast(r => r.type === 3 && r.value !== null)
      if (!bump) return undefined
      const epoch = bump.value!.epoch as number
      return epoch > after && convergedAt(recs, bump.offset, epoch) !== undefined && epoch
    },
    {timeoutMs: 90_000, intervalMs: 300},
  )
}

// ---------------------------------------------------------------- what Kafka's decoder says
interface Tps {
  topicId: string
  partitions: number[]
}
type Value = Record<string, unknown>

const listed = (v: Value | null, field: 'assignedPartitions' | 'partitionsPendingRevocation') =>
  ((v?.[field] as Tps[] | undefined) ?? []).flatMap(t => t.partitions.map(p => `${t.topicId}:${p}`))
const held = (v: Value | null) => [...listed(v, 'assignedPartitions'), ...listed(v, 'partitionsPendingRevocation')]
const currents = (recs: OffsetsRecord[], memberId: string) => recs.filter(r => r.type === 8 && r.key.memberId === memberId)

/** "topicId:partition" → the member holding it (assigned or pending revocation) after the record at `offset`. */
function ownersAfter(recs: OffsetsRecord[], offset: number): Map<string, string> {
  const byMember = new Map<string, Value>()
  for (const r of recs) {
    if (r.offset > offset) break
    if (r.type === 8) r.value ? byMember.set(r.key.memberId as string, r.value) : byMember.delete(r.key.memberId as string)
  }
  const out = new Map<string, string>()
  for (const [m, v] of byMember) for (const u of held(v)) out.set(u, m)
  return out
}

/** The partitions whose holder differs between two points of the log, with the old and the new holder. */
function movedBetween(recs: OffsetsRecord[], before: number, after: number): string[] {
  const a = ownersAfter(recs, before)
  const b = ownersAfter(recs, after)
  return [...new Set([...a.keys(), ...b.keys()])].filter(u => a.get(u) !== b.get(u)).map(u => `${u} ${a.get(u) ?? '-'} → ${b.get(u) ?? '-'}`)
}

/** From the record after which `from` no longer held the partition to the first after which `to` held it. */
function gap(recs: OffsetsRecord[], unit: string, from: string, to: string) {
  const own = currents(recs, from)
  const released = own[own.findLastIndex(r => held(r.value).includes(unit)) + 1]
  const owned = currents(recs, to).find(r => r.offset > released.offset && held(r.value).includes(unit))!
  return {released, owned, ms: owned.timestamp - released.timestamp}
}

/** The first record from the epoch record on after which the target assignment covers the epoch and every member is at it, stable, nothing pending. */
function convergedAt(recs: OffsetsRecord[], epochOffset: number, epoch: number): OffsetsRecord | undefined {
  const members = new Set<string>()
  const current = new Map<string, Value>()
  let target = -1
  for (const r of recs) {
    const id = r.key.memberId as string
    if (r.type === 5) r.value ? members.add(id) : members.delete(id)
    if (r.type === 8) r.value ? current.set(id, r.value) : current.delete(id)
    if (r.type === 6 && r.value) target = r.value.assignmentEpoch as number
    if (r.offset < epochOffset || target < epoch) continue
    const stable = (v: Value | undefined) => v?.memberEpoch === target && v.state === 0 && listed(v, 'partitionsPendingRevocation').length === 0
    if ([...members].every(m => stable(current.get(m)))) return r
  }
  return undefined
}

/** The member's revocation: its record listing partitions pending revocation, then its next record without them. */
function revocation(recs: OffsetsRecord[], memberId: string, fromOffset: number) {
  const own = currents(recs, memberId).filter(r => r.offset >= fromOffset)
  const start = own.findIndex(r => listed(r.value, 'partitionsPendingRevocation').length > 0)
  const end = own.slice(start).find(r => listed(r.value, 'partitionsPendingRevocation').length === 0)!
  return {start: own[start], end, ms: end.timestamp - own[start].timestamp}
}

const epochRecord = (recs: OffsetsRecord[], epoch: number) => recs.find(r => r.type === 3 && r.value?.epoch === epoch)!
const ourMoves = (c: RebalanceCost) => c.moved.map(m => `${m.topicId}:${m.partition} ${m.from?.memberId ?? '-'} → ${m.to?.memberId ?? '-'}`)

describe(`the cost of a rebalance (Kafka ${process.env.KAFKA_VERSION ?? '4.4.0'})`, () => {
  it('a third member joins while one revokes slowly (6 s); then a member closes: moves, time without an owner, convergence, slowest', async () => {
    const d = probe.driver
    const [T, G] = [`${R}-cost`, `${R}-cost-g`]
    const [fast, slow, late] = [`${R}fast`, `${R}slow`, `${R}late`]
    await d.cmd(`create-topic ${T} 6`)
    // the fast member first: when the slow one joins, only the fast one gives partitions up (no 6 s here)
    await d.cmd(`consumer ${fast} ${G} names ${T}`)
    await owning({[fast]: 6})
    await d.cmd(`consumer ${slow} ${G} names ${T} revoke-sleep=6000`)
    await owning({[fast]: 3, [slow]: 3})

    // the third member joins; once that bump converged, the fast member closes (a CLI run is seconds on a loaded
    // machine: group explain reads both bumps at the end, once)
    const e2 = (await probe.latest(G, 'consumer'))!.epoch
    const t0 = Date.now()
    await d.cmd(`consumer ${late} ${G} names ${T}`)
    const e3 = await convergedInRecords(G, e2, 'the third member joined and the group converged')
    console.log(`[rebalance-cost] join to convergence seen in the records in ${Date.now() - t0} ms`)
    await d.cmd(`stop ${fast}`)
    const e4 = await convergedInRecords(G, e3, 'the closed member left and the group converged')
    // (the page is written by the same runs: the last one's is the page of the report returned)
    const page = pageFile()
    const report = await waitReport(
      env(),
      G,
      `epoch ${e4} converged`,
      r => r.groupEpoch === e4 && r.verdict.code === 'IN_SYNC' && cost(r, e4)?.convergence.status === 'converged',
      90_000,
      ['--html', page],
    )
    const recs = await probe.records(G)
    const ids = new Map(recs.filter(r => r.type === 5 && r.value !== null).map(r => [r.value!.clientId as string, r.key.memberId as string]))

    const join = cost(report, e3)!
    const bump = epochRecord(recs, e3)
    const settledAt = convergedAt(recs, bump.offset, e3)!
    // moved: each member gave one partition to the new one, exactly as the records' holders changed
    expect(ourMoves(join).sort()).toEqual(movedBetween(recs, bump.offset - 1, settledAt.offset).sort())
    expect(join.moved.map(m => [m.from?.clientId, m.to?.clientId]).sort()).toEqual([
      [fast, late],
      [slow, late],
    ])
    for (const m of join.moved) {
      const dump = gap(recs, `${m.topicId}:${m.partition}`, m.from!.memberId, m.to!.memberId)
      console.log(`[rebalance-cost] join ${m.topic}-${m.partition} ${m.from!.clientId} → ${late}: ours ${m.unownedMs} ms, dump ${dump.ms} ms`)
      expect([m.releasedBy, m.releasedOffset, m.ownedOffset, m.open]).toEqual(['revocation', String(dump.released.offset), String(dump.owned.offset), false])
      expect(Math.abs(m.unownedMs! - dump.ms)).toBeLessThanOrEqual(1000)
    }
    expect(join.unownedPartitionMs).toBe(join.moved.reduce((n, m) => n + m.unownedMs!, 0))

    // convergence: from the epoch record to the record after which everyone is at the new epoch, stable
    expect(join.convergence).toMatchObject({status: 'converged', offset: String(settledAt.offset)})
    const convergeMs = settledAt.timestamp - bump.timestamp
    console.log(`[rebalance-cost] join converged: ours ${(join.convergence as {afterMs: number}).afterMs} ms, dump ${convergeMs} ms`)
    expect(Math.abs((join.convergence as {afterMs: number}).afterMs - convergeMs)).toBeLessThanOrEqual(1000)

    // the slowest: the slow member, revoking its partition for its listener's 6 s (and the records around it)
    const rev = revocation(recs, ids.get(slow)!, bump.offset)
    console.log(`[rebalance-cost] slowest: ours ${join.slowest?.member.clientId} ${join.slowest?.doing} ${join.slowest?.ms} ms, dump ${rev.ms} ms`)
    expect(join.slowest).toMatchObject({member: {memberId: ids.get(slow), clientId: slow}, doing: 'revoking', ongoing: false, removed: false, units: 1})
    expect(Math.abs(join.slowest!.ms - rev.ms)).toBeLessThanOrEqual(1000)
    expect(join.slowest!.ms).toBeGreaterThanOrEqual(6000)
    expect(join.slowest!.ms).toBeLessThan(12_000)
    expect(convergeMs).toBeGreaterThanOrEqual(join.slowest!.ms)

    // the fast member closed: its partitions are released by its tombstone, then owned by the others
    const leave = cost(report, e4)!
    const tombstone = currents(recs, ids.get(fast)!).at(-1)!
    expect(tombstone.value).toBeNull()
    expect(ourMoves(leave).sort()).toEqual(movedBetween(recs, tombstone.offset - 1, convergedAt(recs, epochRecord(recs, e4).offset, e4)!.offset).sort())
    expect(leave.moved.length).toBeGreaterThan(0)
    for (const m of leave.moved) {
      const dump = gap(recs, `${m.topicId}:${m.partition}`, m.from!.memberId, m.to!.memberId)
      console.log(`[rebalance-cost] leave ${m.topic}-${m.partition} → ${m.to!.clientId}: ours ${m.unownedMs} ms, dump ${dump.ms} ms`)
      expect(m.from).toEqual({memberId: ids.get(fast), clientId: fast})
      expect(dump.released.offset).toBe(tombstone.offset)
      expect([m.releasedBy, m.releasedOffset, m.ownedOffset]).toEqual(['member-removed', String(tombstone.offset), String(dump.owned.offset)])
      expect(Math.abs(m.unownedMs! - dump.ms)).toBeLessThanOrEqual(1000)
    }
    await Promise.all([d.cmd(`stop ${slow}`), d.cmd(`stop ${late}`), checkPage(readFileSync(page, 'utf8'), report, ids, [join, leave])])
  })

  it('a classic group (two console consumers, one after the other): the partitions moved between the two generations', async () => {
    const {G, c1, c2, g1} = await classic
    // the first generation that gave the second consumer partitions (whatever came after it)
    const joined = (r: Report) => timeline(r).find(e => e.epoch > g1 && e.cost?.moved.some(m => m.to?.clientId === c2))?.cost
    const page = pageFile()
    const gen = joined(await waitReport(env(), G, 'the second console consumer has partitions', r => joined(r) !== undefined, 90_000, ['--html', page]))!
    const recs = await probe.records(G)
    const [before, after] = [generation(recs, gen.previousEpoch!), generation(recs, gen.epoch)]
    const owners = (v: Value) =>
      new Map((v.members as ClassicMember[]).flatMap(m => m.assignment.assignedPartitions.flatMap(t => t.partitions.map(p => [`${t.topic}:${p}`, m.memberId]))))
    const [a, b] = [owners(before), owners(after)]
    const expected = [...new Set([...a.keys(), ...b.keys()])].filter(u => a.get(u) !== b.get(u)).map(u => `${u} ${a.get(u) ?? '-'} → ${b.get(u) ?? '-'}`)
    console.log(`[rebalance-cost] classic generation ${gen.previousEpoch} → ${gen.epoch}: moved ${gen.moved.map(m => `${m.topic}-${m.partition}`)}`)
    expect(gen.moved.map(m => `${m.topic}:${m.partition} ${m.from?.memberId ?? '-'} → ${m.to?.memberId ?? '-'}`).sort()).toEqual(expected.sort())
    expect(gen.moved.length).toBeGreaterThan(0)
    expect(new Set(gen.moved.map(m => `${m.from?.clientId} → ${m.to?.clientId}`))).toEqual(new Set([`${c1} → ${c2}`]))
    // no duration is claimed for a classic group; the protocol follows the assignor the coordinator chose: the
    // console consumer offers Kafka's default list (range, cooperative-sticky), so range, eager
    expect(gen.moved.map(m => [m.unownedMs, m.releasedBy, m.open])).toEqual(gen.moved.map(() => [null, null, false]))
    expect(gen).toMatchObject({groupType: 'classic', convergence: {status: 'not-measured', reason: 'classic-group'}, slowest: null, unownedPartitionMs: 0})
    expect(after.protocol).toBe('range')
    expect([gen.assignor, gen.protocol]).toEqual(['range', 'eager'])

    // the page: a lane per console consumer, the generation's line, no time without an owner claimed
    const html = readFileSync(page, 'utf8')
    const members = (before.members as ClassicMember[]).concat(after.members as ClassicMember[])
    for (const id of new Set(members.map(m => m.memberId))) expect(html).toContain(`<td><code>${h(id)}</code></td>`)
    expect(html).toMatch(new RegExp(`>${c1} \\([^)]+\\)<title>`))
    expect(html).toMatch(new RegExp(`>${c2} \\([^)]+\\)<title>`))
    expect(html).toContain(`<g class="bump"><title>generation ${gen.epoch} at ${utc(gen.atMs)}`)
    expect(html).not.toContain('<rect class="gap"')
    expect(html).toContain('no duration is claimed')
  })
})

/** Where `group explain --html` writes a page. */
const pageFile = () => joinPath(tempDir(), 'group.html')

/**
 * The consumer group's page against its report: a lane per member seen in the records (client id → member id), each bump's line titled with its causes, a gap
 * row per moved partition as its cost measured it; in Chromium: the lanes drawn, no request made.
 */
async function checkPage(html: string, report: Report, ids: Map<string, string>, costs: RebalanceCost[]): Promise<void> {
  expect(html.match(/<g class="lane">/g)).toHaveLength(ids.size)
  for (const [clientId, memberId] of ids) expect(html).toContain(`>${h(clientId)} (${h(memberId.slice(0, 8))})<title>`)
  for (const e of timeline(report)) {
    const title = html.slice(html.indexOf(`<g class="bump"><title>epoch ${e.epoch} at `)).split('</title>')[0]
    for (const c of e.causes) expect(title).toContain(h(c.message))
  }
  for (const c of costs)
    for (const m of c.moved)
      expect(html).toContain(
        `<tr><td>${h(`${m.topic}-${m.partition}`)}</td><td>${c.epoch}</td><td>${utc(m.releasedAtMs!)}</td><td>${secs(m.unownedMs!)}</td></tr>`,
      )
  if (!HAVE_CHROMIUM) return console.warn(skipMessage('rebalance-cost --html'))
  const {dir, remove} = chromiumDir()
  try {
    const [file, png, net] = [joinPath(dir, 'page.html'), joinPath(dir, 'page.png'), joinPath(dir, 'net.json')]
    writeFileSync(file, html)
    chromium(dir, [`--screenshot=${png}`, '--window-size=1280,900', `--log-net-log=${net}`], file)
    expect(pageRequests(net)).toEqual([])
    const bands = blueBands(readPng(png), 30)
    expect(bands.filter(b => b.length >= 10 && b.length <= 16)).toHaveLength(ids.size)
  } finally {
    remove()
  }
}

interface ClassicMember {
  memberId: string
  assignment: {assignedPartitions: Array<{topic: string; partitions: number[]}>}
}

/** The GroupMetadata record (as Kafka's decoder prints it) of a classic group's generation. */
const generation = (recs: OffsetsRecord[], gen: number): Value => recs.find(r => r.type === 2 && r.value?.generation === gen)!.value!

/**
 * The classic group's first console consumer, then the second once the first owns the topic: started with the file
 * (their JVM starts overlap the test above), read by the test below. Resolves to the first generation.
 */
async function startClassic() {
  const [T, G] = [`${R}-cl`, `${R}-cl-g`]
  const [c1, c2] = [`${R}cl1`, `${R}cl2`]
  await probe.driver.cmd(`create-topic ${T} 4`)
  startConsole(T, G, c1)
  const g1 = await waitFor(
    'the first console consumer owns the topic',
    async () =>
      (await probe.records(G)).find(r => r.type === 2 && (r.value?.members as unknown[] | undefined)?.length === 1)?.value?.generation as number | undefined,
    {timeoutMs: 90_000, intervalMs: 1000},
  )
  startConsole(T, G, c2)
  return {G, c1, c2, g1}
}

/** Kafka's console consumer (the classic protocol); a short heartbeat interval, so it rejoins soon when a rebalance starts. */
function startConsole(topic: string, group: string, clientId: string): ChildProcess {
  const props = {'client.id': clientId, 'heartbeat.interval.ms': '500', 'metadata.max.age.ms': '1000'}
  const c = consoleConsumer(probe.env, {topic, group, props})
  consoles.push(c)
  return c
}
