/**
 * audit --watch: what is new since the last cycle (PartitionScan's trackFrom, in-memory checkpoints, printed
 * once), and the loop (a failing cycle does not end it, a stop lets the running cycle finish).
 */
import {execFileSync, spawn} from 'node:child_process'
import {createWriteStream, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join as joinPath} from 'node:path'
import {describe, expect, it} from 'vitest'
import {auditContext} from '../../../src/core/audit/audit.js'
import {PartitionScan} from '../../../src/core/audit/scan.js'
import {bumpDocument, bumpKey, type BumpEvent, newBumpEvents, orderBumps, PrintedBumps} from '../../../src/core/audit/watch.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import type {LogBatch} from '../../../src/core/log/batch.js'
import type {RecordToEncode} from '../../../src/core/records/index.js'
import type {ReplayResult} from '../../../src/core/replay/index.js'
import type {KafkaClient} from '../../../src/kafka/client.js'
import {runWatch, stopOnSignals, watchLoop} from '../../../src/io/watch-loop.js'
import {bumpLine} from '../../../src/render/watch.js'
import {memoryCheckpointStore} from '../../../src/sources/audit-checkpoint.js'
import {scanOffsets} from '../../../src/sources/audit-scan.js'
import {BatchWriter, consumer} from '../../lib/records.js'
import {cluster} from '../../lib/fixtures.js'

type Batch = LogBatch & {partitionLeaderEpoch: number}

const writer = new BatchWriter()
const batch = (records: RecordToEncode[]) => writer.batch(records)

/** A member joins group g: a member record, then the epoch bump and the assignment, in one write. */
const join = (g: string, member: string, epoch: number) =>
  batch([consumer.member(g, member, {names: ['t']}), consumer.metadata(g, epoch, 0n), consumer.targetMetadata(g, epoch), consumer.current(g, member, epoch)])

/** One __consumer_offsets partition served like a broker (fromOffset, log start, end offset); `fail` makes reads throw. */
function partition() {
  const p = {log: [] as Batch[], fail: false, reads: 0}
  const client = {
    topics: async () => [{name: '__consumer_offsets', partitions: [{partition: 0, replicas: [1]}]}],
    readPartition: async (o: {fromOffset?: bigint; onBatch: (b: Batch) => void}) => {
      p.reads++
      if (p.fail) throw new Error('broker 1 not available (restarting)')
      const from = o.fromOffset ?? 0n
      for (const b of p.log) if (b.lastOffset >= from) o.onBatch(b)
      const end = p.log.length ? p.log.at(-1)!.lastOffset + 1n : 0n
      return {topic: '__consumer_offsets', partition: 0, leader: 1, logStartOffset: 0n, endOffset: end, batches: [], abortedTransactions: [], fetches: 1}
    },
  }
  return {p, client: client as unknown as KafkaClient}
}

describe('PrintedBumps', () => {
  it('says true once per key, and forgets the oldest past its limit (flat memory)', () => {
    const printed = new PrintedBumps(3)
    expect(printed.firstTime('a')).toBe(true)
    expect(printed.firstTime('a')).toBe(false)
    for (const k of ['b', 'c', 'd']) expect(printed.firstTime(k)).toBe(true)
    expect(printed.size).toBe(3)
    expect(printed.firstTime('d')).toBe(false)
    expect(printed.firstTime('a')).toBe(true) // forgotten: the oldest
    for (let i = 0; i < 10_000; i++) printed.firstTime(`k${i}`)
    expect(printed.size).toBe(3)
    expect(() => new PrintedBumps(0)).toThrow()
  })

  it('keys on group, type, epoch and offset (a recreated group starts again at epoch 1)', () => {
    expect(bumpKey('g', 'consumer', 1, '10')).not.toBe(bumpKey('g', 'consumer', 1, '99'))
    expect(bumpKey('g', 'consumer', 1, '10')).not.toBe(bumpKey('g', 'share', 1, '10'))
  })
})

describe('PartitionScan trackFrom: the bumps of the records after the last cycle, with causes', () => {
  it('replays only the new records, from the group as it stood before them', () => {
    const first = new PartitionScan()
    first.onBatch(join('g', 'm1', 1))
    first.onBatch(join('g', 'm2', 2))
    const next = writer.offset
    expect(first.newBumps().size).toBe(0) // no trackFrom: baseline, nothing tracked
    const resumed = new PartitionScan({}, {groups: structuredClone(first.data()), counters: first.counters}, next)
    resumed.onBatch(join('g', 'm3', 3))
    resumed.onBatch(join('h', 'x', 1))
    const bumps = resumed.newBumps()
    expect([...bumps.keys()].sort()).toEqual(['g', 'h'])
    const g = bumps.get('g')!
    expect(g.timeline.map(e => [e.previousEpoch, e.epoch])).toEqual([[2, 3]])
    const report = explainGroup('g', g, {})
    expect(report.timeline).toHaveLength(1)
    // the cause is the one joiner of this cycle, not the members already there
    expect(report.timeline[0].causes.map(c => c.kind)).toEqual(['member-joined'])
    expect(JSON.stringify(report.timeline[0].causes)).toContain('m3')
    expect(JSON.stringify(report.timeline[0].causes)).not.toContain('m2')
    // the audit's own state is unchanged by the tracking (it was cloned)
    const summary = resumed.finish().get('g')!
    expect(summary.state.consumer!.epoch).toBe(3)
    expect(summary.state.consumer!.members.size).toBe(3)
    expect(resumed.newBumps().size).toBe(0) // handed out once
  })
})

describe('audit --watch cycles: scanOffsets with in-memory checkpoints', () => {
  async function cycle(client: KafkaClient, store: ReturnType<typeof memoryCheckpointStore>, printed: PrintedBumps): Promise<BumpEvent[]> {
    const events: BumpEvent[] = []
    const replays: Array<[string, ReplayResult]> = []
    const ctx = auditContext(cluster(3, 2), writer.time, 600_000)
    // as the command does: the cycle's checkpoints count once it succeeded
    await scanOffsets(client, {
      checkpoints: {store, clusterId: 'c1'},
      trackFrom: p => store.nextOffset(p),
      onPartition: (_p, _groups, bumps) => {
        for (const [id, replay] of bumps) replays.push([id, replay])
      },
    }).catch((error: unknown) => {
      store.rollback()
      throw error
    })
    // explained and marked printed once the whole pass has been read (as the command does)
    for (const [id, replay] of replays)
      events.push(...newBumpEvents(explainGroup(id, replay, {live: ctx.live, hasher: ctx.hasher, now: writer.time}), 'c1', printed))
    store.commit()
    return orderBumps(events)
  }

  it('prints nothing on the first cycle, then each new bump once; a failed cycle loses nothing', async () => {
    const {p, client} = partition()
    const store = memoryCheckpointStore()
    const printed = new PrintedBumps()
    p.log.push(join('g', 'm1', 1), join('g', 'm2', 2))
    expect(await cycle(client, store, printed)).toEqual([]) // baseline
    expect(store.nextOffset(0)).toBe(writer.offset)

    p.log.push(join('g', 'm3', 3))
    const second = await cycle(client, store, printed)
    expect(second.map(e => [e.group, e.epoch, e.causes.map(c => c.kind)])).toEqual([['g', 3, ['member-joined']]])
    expect(await cycle(client, store, printed)).toEqual([]) // nothing new: nothing printed again

    // a broker restart: the cycle fails; the bumps written meanwhile come with the next cycle, once
    p.log.push(join('g', 'm4', 4), join('h', 'x', 1))
    p.fail = true
    await expect(cycle(client, store, printed)).rejects.toThrow(/restarting/)
    p.fail = false
    const after = await cycle(client, store, printed)
    expect(after.map(e => `${e.group}:${e.epoch}`)).toEqual(['g:4', 'h:1'])
    expect(await cycle(client, store, printed)).toEqual([])
  })

  it('a partition read again in full (checkpoint misfit) does not print its bumps twice', async () => {
    const {p, client} = partition()
    const store = memoryCheckpointStore()
    const printed = new PrintedBumps()
    p.log.push(join('g', 'm1', 1))
    await cycle(client, store, printed)
    p.log.push(join('g', 'm2', 2))
    expect((await cycle(client, store, printed)).map(e => e.epoch)).toEqual([2])
    // the leader epoch history diverged: the partition is read in full, from the same trackFrom
    p.log[p.log.length - 1] = {...p.log.at(-1)!, partitionLeaderEpoch: 5}
    p.log.push(join('g', 'm3', 3))
    expect((await cycle(client, store, printed)).map(e => e.epoch)).toEqual([3])
  })

  it('a cycle that fails after some partitions were read loses none of their bumps (their checkpoints roll back)', async () => {
    const logs = [[] as Batch[], [] as Batch[]]
    let failOn: number | undefined
    const client = {
      topics: async () => [
        {
          name: '__consumer_offsets',
          partitions: [
            {partition: 0, replicas: [1]},
            {partition: 1, replicas: [1]},
          ],
        },
      ],
      readPartition: async (o: {partition: number; fromOffset?: bigint; onBatch: (b: Batch) => void}) => {
        if (o.partition === failOn) throw new Error('coordinator moved')
        const log = logs[o.partition]
        for (const b of log) if (b.lastOffset >= (o.fromOffset ?? 0n)) o.onBatch(b)
        return {
          topic: '__consumer_offsets',
          partition: o.partition,
          leader: 1,
          logStartOffset: 0n,
          endOffset: log.length ? log.at(-1)!.lastOffset + 1n : 0n,
          batches: [],
          abortedTransactions: [],
          fetches: 1,
        }
      },
    } as unknown as KafkaClient
    const store = memoryCheckpointStore()
    const printed = new PrintedBumps()
    logs[0].push(join('a', 'm1', 1))
    logs[1].push(join('b', 'm1', 1))
    await cycle(client, store, printed)
    logs[0].push(join('a', 'm2', 2))
    logs[1].push(join('b', 'm2', 2))
    failOn = 1
    await expect(cycle(client, store, printed)).rejects.toThrow(/coordinator moved/) // partition 0 was read
    failOn = undefined
    expect((await cycle(client, store, printed)).map(e => `${e.group}:${e.epoch}`)).toEqual(['a:2', 'b:2'])
    expect(await cycle(client, store, printed)).toEqual([])
  })

  it('hands out copies: a cycle that fails half-way cannot damage the checkpoint resumed from', async () => {
    const {p, client} = partition()
    const store = memoryCheckpointStore()
    p.log.push(join('g', 'm1', 1))
    await cycle(client, store, new PrintedBumps())
    const a = store.load(0) as unknown as {groups: Array<[string, {data: string}]>}
    expect(a.groups[0][1].data).toContain('"epoch":1')
    ;(a.groups[0][1] as {data: string}).data = '{"damaged"'
    a.groups.push(['h', {data: 'x'}])
    const b = store.load(0) as unknown as typeof a
    expect(b.groups).toHaveLength(1)
    expect(b.groups[0][1].data).toContain('"epoch":1')
  })

  /** A bump as a watch prints it: a member joined (the group id holds a terminal control sequence). */
  const joined: BumpEvent = {
    clusterId: 'c1',
    group: 'g\u001b[2J',
    type: 'consumer',
    epoch: 3,
    previousEpoch: 2,
    timestamp: 0,
    time: '1970-01-01T00:00:00.000Z',
    offset: '12',
    metadataHash: '0',
    previousMetadataHash: '0',
    rules: '4.1+',
    assignmentEpoch: 3,
    causes: [{kind: 'member-joined', message: 'member m3 joined', confidence: 'exact', alternatives: [], details: {}} as never],
  }

  it('the bump line and document', () => {
    const e = joined
    expect(bumpLine(e)).toBe('1970-01-01T00:00:00.000Z g\\x1b[2J (consumer) epoch 2 → 3: member m3 joined')
    const doc = bumpDocument(e)
    expect(Object.keys(doc)[0]).toBe('schema')
    expect(doc.schema).toEqual({name: 'rebalance-doctor/bump', version: 1})
    expect(doc).toMatchObject({group: e.group, epoch: 3, offset: '12', warnings: []})
  })

  it('a bump found after a restart is marked in its line and its document', () => {
    const e: BumpEvent = {...joined, group: 'g', afterRestart: true}
    expect(bumpLine(e)).toBe('1970-01-01T00:00:00.000Z g (consumer) epoch 2 → 3 (found after restart): member m3 joined')
    expect(bumpDocument(e)).toMatchObject({afterRestart: true, epoch: 3})
    // absent on every other bump (the document's fields as before)
    const {afterRestart: _, ...plain} = e
    expect(JSON.stringify(bumpDocument(plain))).not.toContain('afterRestart')
  })
})

describe('watchLoop', () => {
  /** A clock that moves only when the loop sleeps. */
  function fakeTime() {
    let t = 0
    const sleeps: number[] = []
    return {now: () => t, sleep: async (ms: number) => void (sleeps.push(ms), (t += ms)), sleeps, advance: (ms: number) => void (t += ms)}
  }

  it('a failing cycle is reported and the next one runs', async () => {
    const clock = fakeTime()
    const stop = new AbortController()
    const errors: string[] = []
    const ran: number[] = []
    const n = await watchLoop({
      intervalMs: 1000,
      stop: stop.signal,
      now: clock.now,
      sleep: clock.sleep,
      onError: (e, i) => errors.push(`${i}: ${(e as Error).message}`),
      cycle: async i => {
        ran.push(i)
        clock.advance(300)
        if (i === 2) throw new Error('coordinator moved')
        if (i === 4) stop.abort()
      },
    })
    expect(n).toBe(4)
    expect(ran).toEqual([1, 2, 3, 4])
    expect(errors).toEqual(['2: coordinator moved'])
    // each cycle starts one interval after the last one started
    expect(clock.sleeps).toEqual([700, 700, 700])
  })

  it('a stop (SIGTERM) during a cycle lets it finish its writes, then the loop returns', async () => {
    const stop = new AbortController()
    const writes: string[] = []
    const n = await watchLoop({
      intervalMs: 10,
      stop: stop.signal,
      onError: e => {
        throw e
      },
      cycle: async i => {
        writes.push(`start ${i}`)
        if (i === 2) stop.abort()
        await new Promise(r => setTimeout(r, 20))
        writes.push(`written ${i}`)
      },
    })
    expect(n).toBe(2)
    expect(writes).toEqual(['start 1', 'written 1', 'start 2', 'written 2'])
  })

  it('a stop while sleeping ends the sleep at once', async () => {
    const stop = new AbortController()
    const t0 = Date.now()
    setTimeout(() => stop.abort(), 30)
    const n = await watchLoop({intervalMs: 60_000, stop: stop.signal, onError: () => {}, cycle: async () => {}})
    expect(n).toBe(1)
    expect(Date.now() - t0).toBeLessThan(5000)
  })

  it('stopOnSignals: SIGTERM or SIGINT stops; a second signal exits at once; dispose removes the handlers', () => {
    const handlers = new Map<string, (s: string) => void>()
    const exits: number[] = []
    const proc = {
      on: (s: string, h: (s: string) => void) => handlers.set(s, h),
      off: (s: string) => handlers.delete(s),
      exit: (c: number) => void exits.push(c),
    }
    const seen: string[] = []
    const {controller, dispose} = stopOnSignals(s => seen.push(s), proc as never)
    expect([...handlers.keys()].sort()).toEqual(['SIGINT', 'SIGTERM'])
    handlers.get('SIGTERM')!('SIGTERM')
    expect(controller.signal.aborted).toBe(true)
    expect(seen).toEqual(['SIGTERM'])
    expect(exits).toEqual([])
    handlers.get('SIGINT')!('SIGINT')
    expect(exits).toEqual([130])
    dispose()
    expect(handlers.size).toBe(0)
  })
})

describe('runWatch: a watch whose output is gone stops (`audit --watch --ndjson | head -1`)', () => {
  it('a write that meets EPIPE on a real pipe ends the loop after its cycle; the watch returns (exit 0)', async () => {
    // the reader: `head -c 1` on a FIFO exits after one byte; every later write to the pipe fails with EPIPE
    const dir = mkdtempSync(joinPath(tmpdir(), 'rd-epipe-'))
    const fifo = joinPath(dir, 'out')
    execFileSync('mkfifo', [fifo])
    const head = spawn('sh', ['-c', 'exec head -c 1 < "$0"', fifo], {stdio: 'ignore'})
    const exited = new Promise(r => head.once('exit', r))
    const out = createWriteStream(fifo)
    let cycles = 0
    try {
      await runWatch({
        interval: {text: '10ms', ms: 10},
        unit: 'cycle',
        out,
        cycle: async n => {
          cycles = n
          if (n === 2) await exited
          out.write(`{"bump":${n}}\n`)
        },
      })
    } finally {
      out.destroy()
      rmSync(dir, {recursive: true, force: true})
    }
    // cycle 1's line reached head; cycle 2 or 3 finds the pipe closed (EPIPE is reported asynchronously)
    expect(cycles).toBeGreaterThanOrEqual(2)
    expect(cycles).toBeLessThanOrEqual(4)
  }, 5000)
})
