/**
 * A watch started again after its own restart (core/audit/restart.ts, sources/watch-state.ts, operations/watch-resume.ts):
 * it prints once, marked, the bumps stored since the earlier watch's last print, within a bound; a bump printed before
 * is not printed again; a watch state of another cluster, kind or filters is a first start, said on stderr.
 */
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join as joinPath} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {auditContext} from '../../../src/core/audit/audit.js'
import {
  boundAfterRestart,
  decodeWatchState,
  encodeWatchState,
  printedSoFar,
  printedThrough,
  RESTART_BOUND,
  restartNotice,
  samePrinted,
  storedSince,
  type WatchState,
  watchStart,
} from '../../../src/core/audit/restart.js'
import {newBumpEvents, orderBumps, PrintedBumps} from '../../../src/core/audit/watch.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import type {LogBatch} from '../../../src/core/log/batch.js'
import type {RecordToEncode} from '../../../src/core/records/index.js'
import type {KafkaClient} from '../../../src/kafka/client.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {notAheadOf} from '../../../src/operations/audit/watch.js'
import {explainOne} from '../../../src/operations/explain/one.js'
import {bumpsAfterRestart} from '../../../src/operations/explain/watch.js'
import type {Session} from '../../../src/operations/session.js'
import {WatchResume} from '../../../src/operations/watch-resume.js'
import {type CheckpointStore, checkpointStore, type MemoryCheckpointStore, memoryCheckpointStore} from '../../../src/sources/audit-checkpoint.js'
import {scanOffsets} from '../../../src/sources/audit-scan.js'
import {watchStateStore} from '../../../src/sources/watch-state.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {cluster} from '../../lib/fixtures.js'
import {BatchWriter, consumer as c, consumer, T1} from '../../lib/records.js'

const state = (over: Partial<WatchState> = {}): WatchState => ({
  clusterId: 'c1',
  kind: 'audit',
  filters: '--group orders-*',
  at: Date.UTC(2026, 11, 1, 6),
  printedThrough: new Map([
    [0, 12n],
    [7, 9_007_199_254_740_993n],
  ]),
  ...over,
})

describe('the watch state', () => {
  it('round-trips, offsets as decimal strings (past 2^53)', () => {
    const text = encodeWatchState(state())
    expect(JSON.parse(text).printedThrough).toEqual({'0': '12', '7': '9007199254740993'})
    expect(decodeWatchState(text)).toEqual(state())
  })

  it('a damaged or foreign file is an error, not a state', () => {
    expect(decodeWatchState('{"schema":')).toMatchObject({error: expect.stringMatching(/^damaged/)})
    expect(decodeWatchState('{"schema":"x"}')).toEqual({error: 'not a rebalance-doctor/watch-state-v1 file'})
    const bad = JSON.parse(encodeWatchState(state()))
    bad.printedThrough['0'] = 12
    expect(decodeWatchState(JSON.stringify(bad))).toEqual({error: 'damaged (fields missing or of the wrong type)'})
  })

  it('is a restart only for the same cluster, kind and filters; otherwise a first start, and why', () => {
    const now = {clusterId: 'c1', kind: 'audit', filters: '--group orders-*'} as const
    expect(watchStart(undefined, now)).toEqual({firstStart: true})
    expect(watchStart(state(), now)).toEqual({restart: state()})
    expect(watchStart(state({clusterId: 'c2'}), now)).toEqual({firstStart: true, why: 'the watch state found is of another cluster (c2)'})
    expect(watchStart(state({kind: 'group-explain'}), now)).toEqual({firstStart: true, why: 'the watch state found is of group-explain --watch'})
    expect(watchStart(state({filters: ''}), now)).toEqual({
      firstStart: true,
      why: 'the watch state found is of a watch of (every group), not --group orders-*',
    })
    expect(watchStart({error: 'damaged (x)'}, now)).toEqual({firstStart: true, why: 'its watch state cannot be used: damaged (x)'})
  })

  it('is kept per cluster, command and filters (one file each: watches side by side keep their own), written whole', () => {
    const root = mkdtempSync(joinPath(tmpdir(), 'rd-restart-'))
    const audit = watchStateStore(root, 'c1', 'audit', '--group orders-*')
    expect(audit.file).toMatch(new RegExp(`^${joinPath(root, 'c1', 'watch')}/audit-[0-9a-f]+\\.json$`))
    expect(audit.load()).toBeUndefined()
    expect(audit.save(state())).toBeUndefined()
    expect(audit.load()).toEqual(state())
    // another audit watch's filters, and the same filters on another cluster: files of their own, the first kept
    const payments = watchStateStore(root, 'c1', 'audit', '--group payments-*')
    const elsewhere = watchStateStore(root, 'c2', 'audit', '--group orders-*')
    expect(new Set([audit.file, payments.file, elsewhere.file]).size).toBe(3)
    payments.save(state({filters: '--group payments-*', at: 1}))
    elsewhere.save(state({clusterId: 'c2', at: 2}))
    expect(audit.load()).toEqual(state())
    expect(watchStateStore(root, 'c1', 'group-explain', '--group orders-*').file).not.toBe(audit.file)
    const a = watchStateStore(root, 'c1', 'group-explain', 'orders')
    const b = watchStateStore(root, 'c1', 'group-explain', 'payments')
    expect(a.file).not.toBe(b.file)
    writeFileSync(a.file.replace(/[^/]+$/, 'x'), '')
    writeFileSync(b.file, '{"schema":"rebalance-doctor/watch-state-v1"')
    expect(b.load()).toMatchObject({error: expect.stringMatching(/^damaged/)})
  })

  it('records where each read ended, and is rewritten only when that moved', () => {
    const through = printedThrough(3, p => (p === 1 ? undefined : BigInt(p * 10)))
    expect([...through]).toEqual([
      [0, 0n],
      [2, 20n],
    ])
    expect(samePrinted(undefined, through)).toBe(false)
    expect(samePrinted(new Map(through), through)).toBe(true)
    expect(samePrinted(new Map([[0, 0n]]), through)).toBe(false)
    expect(
      samePrinted(
        new Map([
          [0, 0n],
          [2, 21n],
        ]),
        through,
      ),
    ).toBe(false)
  })
})

describe('the state written after each bump printed', () => {
  const bump = (partition: number, offset: bigint) => ({partition, offset})
  const before = new Map([
    [0, 10n],
    [1, 20n],
    [2, 30n],
  ])
  // in print order (by time): partition 0's bumps at 12 and 15, partition 1's at 25
  const read = [bump(0, 12n), bump(1, 25n), bump(0, 15n)]

  it('each partition through its first bump not printed yet, else one past its last printed; the others as before', () => {
    expect(printedSoFar(before, read, 0)).toEqual(
      new Map([
        [0, 12n],
        [1, 25n],
        [2, 30n],
      ]),
    )
    expect(printedSoFar(before, read, 1)).toEqual(
      new Map([
        [0, 15n],
        [1, 25n],
        [2, 30n],
      ]),
    )
    expect(printedSoFar(before, read, 2)).toEqual(
      new Map([
        [0, 15n],
        [1, 26n],
        [2, 30n],
      ]),
    )
    expect(printedSoFar(before, read, 3)).toEqual(
      new Map([
        [0, 16n],
        [1, 26n],
        [2, 30n],
      ]),
    )
    // a partition the earlier state lacks gets one once a bump of it is read
    expect(printedSoFar(new Map(), [bump(4, 7n)], 0)).toEqual(new Map([[4, 7n]]))
  })

  it('a bump printed out of offset order is not past its partition until the earlier one is printed (printed again, never lost)', () => {
    expect(printedSoFar(before, [bump(0, 15n), bump(0, 12n)], 1).get(0)).toBe(12n)
  })

  it('a kill between a print and its state write prints that one bump again after the restart, and only it', () => {
    const root = mkdtempSync(joinPath(tmpdir(), 'rd-restart-'))
    const events = [3, 4, 5].map(epoch => ({...bumpAt(epoch), offset: String(100 + epoch)}))
    const first = new WatchResume(session(), {kind: 'group-explain', filters: 'g', historyDir: root})
    first.restartOf('c1')
    first.printed('c1', new Map([[0, 103n]]), 0)
    const out: number[] = []
    // the print of epoch 4 reaches stdout, then the process is killed before the state is written
    const kill = new Error('SIGKILL')
    expect(() =>
      first.print(
        'c1',
        events,
        () => 0,
        ([e]) => {
          out.push(e.epoch)
          if (e.epoch === 4) throw kill
        },
        0,
      ),
    ).toThrow(kill)
    expect(out).toEqual([3, 4])
    const again = new WatchResume(session(), {kind: 'group-explain', filters: 'g', historyDir: root})
    expect(again.restartOf('c1')?.printedThrough).toEqual(new Map([[0, 104n]]))
  })
})

/** A bump event of group g at `epoch` (its offset set by the caller). */
function bumpAt(epoch: number) {
  return {clusterId: 'c1', group: 'g', type: 'consumer', epoch, offset: '0', timestamp: 0, causes: []} as unknown as Parameters<WatchResume['print']>[1][number]
}

describe('what a restarted watch prints first', () => {
  const at = (h: number) => ({timestamp: Date.UTC(2026, 11, 2, h), n: h})
  const now = Date.UTC(2026, 11, 3, 12)

  it('the bumps within the age, the newest past the count; the others counted', () => {
    expect(boundAfterRestart([at(1), at(11), at(12), at(13)], now, {maxAgeMs: 24 * 3600_000, maxBumps: 10})).toEqual({
      kept: [at(12), at(13)],
      tooOld: 2,
      overCount: 0,
    })
    expect(boundAfterRestart([at(12), at(13), at(14)], now, {maxAgeMs: 24 * 3600_000, maxBumps: 2})).toEqual({kept: [at(13), at(14)], tooOld: 0, overCount: 1})
    expect(boundAfterRestart([], now)).toEqual({kept: [], tooOld: 0, overCount: 0})
  })

  it('at the bound (24 h, 1,000 bumps): a bump stored exactly 24 h ago and the 1,000th newest are printed, one past each is skipped', () => {
    expect(RESTART_BOUND).toEqual({maxAgeMs: 24 * 3600_000, maxBumps: 1000})
    const stored = (msAgo: number) => ({timestamp: now - msAgo, n: msAgo})
    const oldest = [stored(24 * 3600_000 + 1), stored(24 * 3600_000)]
    expect(boundAfterRestart(oldest, now)).toEqual({kept: [stored(24 * 3600_000)], tooOld: 1, overCount: 0})
    const recent = Array.from({length: 1001}, (_, i) => stored(1001 - i))
    expect(boundAfterRestart(recent.slice(1), now)).toEqual({kept: recent.slice(1), tooOld: 0, overCount: 0})
    const over = boundAfterRestart(recent, now)
    expect([over.kept.length, over.kept[0], over.tooOld, over.overCount]).toEqual([1000, recent[1], 0, 1])
    expect(restartNotice('audit', boundAfterRestart([...oldest, ...recent], now), now)).toMatch(
      /: 1003 bumps stored since .*, 1000 printed \(marked after restart\); skipped past the bound: 1 stored more than 24 h ago, 2 older than the newest 1000$/,
    )
  })

  it('one stderr line: how many were found since the earlier watch, printed, and skipped past the bound', () => {
    const since = Date.UTC(2026, 11, 3, 11, 59)
    expect(restartNotice('audit', {kept: [1, 2], tooOld: 0, overCount: 0}, since)).toBe(
      'audit --watch restarted: 2 bumps stored since the last print of the earlier watch (2026-12-03T11:59:00.000Z), 2 printed (marked after restart)',
    )
    expect(restartNotice('group-explain', {kept: [1], tooOld: 3, overCount: 2}, since, {maxAgeMs: 6 * 3600_000, maxBumps: 1})).toBe(
      'group-explain --watch restarted: 6 bumps stored since the last print of the earlier watch (2026-12-03T11:59:00.000Z), 1 printed (marked after restart); skipped past the bound: 3 stored more than 6 h ago, 2 older than the newest 1',
    )
    expect(restartNotice('audit', {kept: [], tooOld: 0, overCount: 0}, since)).toBe(
      'audit --watch restarted: 0 bumps stored since the last print of the earlier watch (2026-12-03T11:59:00.000Z)',
    )
  })

  it('group explain: the timeline entries at or after what was printed', () => {
    const t = [{offset: '3'}, {offset: '9'}, {offset: '10'}]
    expect(storedSince(t, 9n)).toEqual([{offset: '9'}, {offset: '10'}])
    expect(storedSince(t, 11n)).toEqual([])
  })
})

type Batch = LogBatch & {partitionLeaderEpoch: number}
const writer = new BatchWriter()
const batch = (records: RecordToEncode[]) => writer.batch(records)
const join = (g: string, member: string, epoch: number) =>
  batch([consumer.member(g, member, {names: ['t']}), consumer.metadata(g, epoch, 0n), consumer.targetMetadata(g, epoch), consumer.current(g, member, epoch)])

/** One __consumer_offsets partition served like a broker. */
function partition() {
  const log: Batch[] = []
  const client = {
    topics: async () => [{name: '__consumer_offsets', partitions: [{partition: 0, replicas: [1]}]}],
    readPartition: async (o: {fromOffset?: bigint; onBatch: (b: Batch) => void}) => {
      for (const b of log) if (b.lastOffset >= (o.fromOffset ?? 0n)) o.onBatch(b)
      const end = log.length ? log.at(-1)!.lastOffset + 1n : 0n
      return {topic: '__consumer_offsets', partition: 0, leader: 1, logStartOffset: 0n, endOffset: end, batches: [], abortedTransactions: [], fetches: 1}
    },
  }
  return {log, client: client as unknown as KafkaClient}
}

function session(): Session & {lines: string[]} {
  const lines: string[] = []
  return {lines, withCluster: () => Promise.reject(new Error('not here')), warn: m => lines.push(`warning: ${m}`), report: l => lines.push(l)}
}

/** An audit --watch pass as watchAudit makes it: tracked from `trackFrom`, its bumps explained; `print` false: killed before the print. */
async function pass(
  client: KafkaClient,
  store: CheckpointStore & Partial<MemoryCheckpointStore>,
  trackFrom: (p: number) => bigint | undefined,
  printed: PrintedBumps,
) {
  const replays: Array<[string, Parameters<typeof explainGroup>[1]]> = []
  const ctx = auditContext(cluster(3, 2), writer.time, 600_000)
  await scanOffsets(client, {checkpoints: {store, clusterId: 'c1'}, trackFrom, onPartition: (_p, _g, bumps) => replays.push(...bumps)})
  return orderBumps(replays.flatMap(([id, r]) => newBumpEvents(explainGroup(id, r, {live: ctx.live, hasher: ctx.hasher, now: writer.time}), 'c1', printed)))
}

describe('audit --watch killed and started again with the same history directory', () => {
  it('prints once, marked, what the earlier watch had not printed: read by the pass it was killed in, or stored while it was down', async () => {
    const root = mkdtempSync(joinPath(tmpdir(), 'rd-restart-'))
    const {log, client} = partition()
    const disk = checkpointStore(root, 'c1')
    const s1 = session()
    const first = new WatchResume(s1, {kind: 'audit', filters: '', historyDir: root})
    const mem1 = memoryCheckpointStore(disk)
    const printed1 = new PrintedBumps()
    log.push(join('g', 'm1', 1))
    // a first-ever start: quiet
    expect(first.restartOf('c1')).toBeUndefined()
    expect(first.found(await pass(client, mem1, p => mem1.nextOffset(p), printed1), 0)).toEqual([])
    mem1.commit()
    first.printed(
      'c1',
      printedThrough(1, p => mem1.nextOffset(p)),
      1000,
    )
    log.push(join('g', 'm2', 2))
    const e2 = first.found(await pass(client, mem1, p => mem1.nextOffset(p), printed1), 0)
    expect(e2.map(e => [e.epoch, e.afterRestart])).toEqual([[2, undefined]])
    mem1.commit()
    first.printed(
      'c1',
      printedThrough(1, p => mem1.nextOffset(p)),
      2000,
    )
    // the next pass reads epoch 3 and writes its checkpoint to disk, then SIGKILL before it prints
    log.push(join('g', 'm3', 3))
    await pass(client, mem1, p => mem1.nextOffset(p), printed1)
    // stored while no watch runs
    log.push(join('g', 'm4', 4))

    const s2 = session()
    const again = new WatchResume(s2, {kind: 'audit', filters: '', historyDir: root})
    const earlier = again.restartOf('c1')!
    expect(earlier.at).toBe(2000)
    const mem2 = memoryCheckpointStore(disk)
    const found = again.found(await pass(client, notAheadOf(mem2, earlier), p => earlier.printedThrough.get(p), new PrintedBumps()), writer.time)
    expect(found.map(e => [e.epoch, e.afterRestart])).toEqual([
      [3, true],
      [4, true],
    ])
    expect(s2.lines).toEqual([
      expect.stringMatching(/^audit --watch restarted: 2 bumps stored since the last print of the earlier watch \(1970-01-01T00:00:02.000Z\), 2 printed/),
    ])
    mem2.commit()
    again.printed(
      'c1',
      printedThrough(1, p => mem2.nextOffset(p)),
      3000,
    )
    // later passes: as before, unmarked, the restart said once
    log.push(join('g', 'm5', 5))
    expect(again.found(await pass(client, mem2, p => mem2.nextOffset(p), new PrintedBumps()), writer.time).map(e => [e.epoch, e.afterRestart])).toEqual([
      [5, undefined],
    ])
    expect(s2.lines).toHaveLength(1)
    expect(JSON.parse(readFileSync(watchStateStore(root, 'c1', 'audit', '').file, 'utf8')).printedThrough).toEqual({'0': String(log.at(-2)!.lastOffset + 1n)})
  })

  it('without --history-dir, kept in the history directory the command reads: $REBALANCE_DOCTOR_HISTORY_DIR, else the default', () => {
    const root = mkdtempSync(joinPath(tmpdir(), 'rd-restart-'))
    vi.stubEnv('REBALANCE_DOCTOR_HISTORY_DIR', root)
    try {
      const r = new WatchResume(session(), {kind: 'group-explain', filters: 'orders', historyDir: undefined})
      r.restartOf('c1')
      r.printed('c1', new Map([[2, 7n]]), 0)
      expect(watchStateStore(root, 'c1', 'group-explain', 'orders').load()).toMatchObject({filters: 'orders', printedThrough: new Map([[2, 7n]])})
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('a watch of other filters is a first start, beside the other watch in the same directory; a state that cannot be written is said once', () => {
    const root = mkdtempSync(joinPath(tmpdir(), 'rd-restart-'))
    watchStateStore(root, 'c1', 'audit', '--group a').save(state({filters: '--group a'}))
    const s = session()
    const r = new WatchResume(s, {kind: 'audit', filters: '--group b', historyDir: root})
    // --group a's state is not --group b's: a first start, quiet as any
    expect(r.restartOf('c1')).toBeUndefined()
    expect(s.lines).toEqual([])
    // a file of --group b's name holding another watch's state (copied by hand) is said
    const copied = mkdtempSync(joinPath(tmpdir(), 'rd-restart-'))
    watchStateStore(copied, 'c1', 'audit', '--group b').save(state({filters: '--group a'}))
    const s1 = session()
    expect(new WatchResume(s1, {kind: 'audit', filters: '--group b', historyDir: copied}).restartOf('c1')).toBeUndefined()
    expect(s1.lines).toEqual([
      'Warning: --watch: the watch state found is of a watch of --group a, not --group b: started as a first start (the bumps stored before it are not printed)',
    ])
    // and the watch of --group a, started again beside it, is still a restart of its own
    const a = new WatchResume(session(), {kind: 'audit', filters: '--group a', historyDir: root})
    expect(a.restartOf('c1')).toEqual(state({filters: '--group a'}))
    r.printed('c1', new Map([[0, 99n]]), 5)
    expect(new WatchResume(session(), {kind: 'audit', filters: '--group a', historyDir: root}).restartOf('c1')).toEqual(state({filters: '--group a'}))
    expect(new WatchResume(session(), {kind: 'audit', filters: '--group b', historyDir: root}).restartOf('c1')?.printedThrough).toEqual(new Map([[0, 99n]]))
    writeFileSync(joinPath(root, 'file'), '')
    const s2 = session()
    const blocked = new WatchResume(s2, {kind: 'audit', filters: '', historyDir: joinPath(root, 'file')})
    blocked.restartOf('c1')
    blocked.printed('c1', new Map([[0, 1n]]), 0)
    blocked.printed('c1', new Map([[0, 2n]]), 0)
    expect(s2.lines).toEqual([expect.stringMatching(/^Warning: --watch: what was printed could not be written to .*: a restart will start quiet$/)])
  })

  it('a checkpoint read from disk and still exact is held: the next cycle tracks that partition', async () => {
    const root = mkdtempSync(joinPath(tmpdir(), 'rd-restart-'))
    const {log, client} = partition()
    log.push(join('g', 'm1', 1))
    const disk = checkpointStore(root, 'c1')
    await scanOffsets(client, {checkpoints: {store: disk, clusterId: 'c1'}}) // an --incremental audit
    const mem = memoryCheckpointStore(disk)
    await pass(client, mem, p => mem.nextOffset(p), new PrintedBumps()) // resumed, nothing new: not rewritten
    mem.commit()
    expect(mem.nextOffset(0)).toBe(log[0].lastOffset + 1n)
    log.push(join('g', 'm2', 2))
    expect((await pass(client, mem, p => mem.nextOffset(p), new PrintedBumps())).map(e => e.epoch)).toEqual([2])
  })
})

describe('group explain --watch started again after its own restart', () => {
  const G = 'orders-app'
  const md = parseMetadataDocument({
    clusterId: 'c1',
    brokers: [{id: 1, rack: null}],
    topics: [{name: 'orders', topicId: T1, partitions: [{partition: 0, replicas: [1]}]}],
  })
  const joined = (fake: FakeCluster, member: string, epoch: number) =>
    fake.write(G, [c.member(G, member, {names: ['orders']}), c.metadata(G, epoch, 0n), c.targetMetadata(G, epoch), c.current(G, member, epoch)])
  const fakeSession = (fake: FakeCluster): Session & {lines: string[]} => {
    const lines: string[] = []
    return {lines, withCluster: work => work(fake, {update: () => {}, stop: () => {}} as never), warn: m => lines.push(m), report: m => lines.push(m)}
  }
  const request = (historyDir: string) => ({now: Date.now(), stuckAfterMs: undefined, historyDir, metadataLogDir: undefined})

  it('after the report, the bumps stored since the earlier watch last printed, once and marked; a first start none', async () => {
    const hist = mkdtempSync(joinPath(tmpdir(), 'rd-restart-'))
    const fake = new FakeCluster(md, {offsetsPartitions: 3})
    joined(fake, 'm1', 1)
    joined(fake, 'm2', 2)
    const s1 = fakeSession(fake)
    const one = await explainOne(s1, G, request(hist))
    const first = new WatchResume(s1, {kind: 'group-explain', filters: G, historyDir: hist})
    // a first start: the report shows epochs 1 and 2, no bump line follows it
    expect(bumpsAfterRestart(one.watchFrom!, first, new PrintedBumps(), one.report, Date.now(), () => {})).toEqual([])
    expect(s1.lines).toEqual([])
    // stored while no watch runs
    joined(fake, 'm3', 3)
    joined(fake, 'm4', 4)
    const s2 = fakeSession(fake)
    const two = await explainOne(s2, G, request(hist))
    expect(two.report.timeline.map(e => e.epoch)).toEqual([1, 2, 3, 4])
    const again = new WatchResume(s2, {kind: 'group-explain', filters: G, historyDir: hist})
    const out: number[] = []
    const found = bumpsAfterRestart(two.watchFrom!, again, new PrintedBumps(), two.report, fake.time, e => out.push(...e.map(x => x.epoch)))
    expect(out).toEqual([3, 4])
    expect(found.map(e => [e.epoch, e.afterRestart, e.causes.map(x => x.kind)])).toEqual([
      [3, true, ['member-joined']],
      [4, true, ['member-joined']],
    ])
    expect(s2.lines).toEqual([expect.stringMatching(/^group-explain --watch restarted: 2 bumps stored since the last print of the earlier watch/)])
    // a third start right after: nothing new, nothing printed again
    const three = await explainOne(fakeSession(fake), G, request(hist))
    const r3 = new WatchResume(fakeSession(fake), {kind: 'group-explain', filters: G, historyDir: hist})
    expect(bumpsAfterRestart(three.watchFrom!, r3, new PrintedBumps(), three.report, fake.time, () => {})).toEqual([])
    // another group's watch in the same directory keeps its own state: a first start
    const other = new WatchResume(fakeSession(fake), {kind: 'group-explain', filters: 'payments', historyDir: hist})
    expect(other.restartOf('c1')).toBeUndefined()
  })
})
