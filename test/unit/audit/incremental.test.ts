/**
 * scanOffsets with checkpoints against a scripted partition (log start, leader epochs, fromOffset as the broker
 * handles it): resumed runs read only the new batches and give the same audit as a full read; a checkpoint
 * that no longer fits is reported and the partition read in full.
 * @slow: equivalence over generated logs of many groups (the slow unit project)
 */
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {auditContext, auditGroup, FINDING_KINDS, isDeleted} from '../../../src/core/audit/audit.js'
import {AuditPass, historyGroups} from '../../../src/core/audit/pass.js'
import {auditDocument, ndjsonLines, prometheusText} from '../../../src/core/audit/output.js'
import {StoredRow} from '../../../src/core/audit/stored-row.js'
import {jsonPieces, piecesText} from '../../../src/render/json-stream.js'
import {renderAuditTable} from '../../../src/render/audit.js'
import {rowCacheKey} from '../../../src/core/audit/row-cache.js'
import type {ReassignmentInFlight} from '../../../src/core/explain/search/hypotheses.js'
import type {ClusterMetadata} from '../../../src/core/metadata.js'
import type {LogBatch} from '../../../src/core/log/batch.js'
import type {KafkaClient} from '../../../src/kafka/client.js'
import {checkpointStore} from '../../../src/sources/audit-checkpoint.js'
import {scanOffsets} from '../../../src/sources/audit-scan.js'
import {encodeRecord} from '../../../src/core/records/index.js'
import {consumer, settledConsumer, T1} from '../../lib/records.js'
import {cluster, hashOf} from '../../lib/fixtures.js'
import {batches, generate} from './generated.js'

type Batch = LogBatch & {partitionLeaderEpoch: number}

/** One __consumer_offsets partition: its batches, log start offset and end offset, served like a broker. */
function partition(all: LogBatch[]) {
  const p = {log: all.map(b => ({...b, partitionLeaderEpoch: 0})) as Batch[], logStart: 0n}
  const client = {
    topics: async () => [{name: '__consumer_offsets', partitions: [{partition: 0, replicas: [1]}]}],
    readPartition: async (o: {fromOffset?: bigint; onBatch: (b: Batch) => void}) => {
      const from = o.fromOffset !== undefined && o.fromOffset > p.logStart ? o.fromOffset : p.logStart
      for (const b of p.log) if (b.lastOffset >= from && b.baseOffset >= p.logStart) o.onBatch(b)
      const end = p.log.length ? p.log.at(-1)!.lastOffset + 1n : 0n
      return {
        topic: '__consumer_offsets',
        partition: 0,
        leader: 1,
        logStartOffset: p.logStart,
        endOffset: end,
        batches: [],
        abortedTransactions: [],
        fetches: 1,
      }
    },
  }
  return {p, client: client as unknown as KafkaClient}
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})

async function audit(client: KafkaClient, dir: string | undefined, now: number, clusterId = 'test-cluster-id') {
  const ctx = auditContext(cluster(3, 2), now, 10 * 60_000)
  const rows: unknown[] = []
  let deleted = 0
  const scan = await scanOffsets(client, {
    checkpoints: dir === undefined ? undefined : {store: checkpointStore(dir, clusterId), clusterId},
    // each row's cost too: a resumed group's fold goes on from its checkpoint's state
    rowCosts: true,
    onPartition: (_p, groups) => {
      // all or nothing (a damaged group state throws): the partition is then read again in full
      const mine: unknown[] = []
      let gone = 0
      for (const sg of [...groups].sort((a, b) => (a.id < b.id ? -1 : 1))) {
        const id = sg.id
        const g = sg.summary()
        if (isDeleted(g)) gone++
        else mine.push(auditGroup(id, g, ctx, sg.cost))
      }
      rows.push(...mine)
      deleted += gone
    },
  })
  return {json: JSON.stringify({rows, deleted, recordsScanned: scan.recordsScanned, decodeErrors: scan.decodeErrors}), scan}
}

const checkpointFile = (dir: string) => join(dir, 'test-cluster-id', 'audit-checkpoint', 'offsets-0.json')

/**
 * A partition of generated groups audited twice with checkpoints in a fresh directory: half its batches, then all
 * (the second run resumed); `full` is a full read of all of them.
 */
async function resumed() {
  const dir = mkdtempSync(join(tmpdir(), 'rd-ckpt-'))
  dirs.push(dir)
  const all = batches(generate(5, 10, 80), 5)
  const now = Number(all.at(-1)!.records.at(-1)!.timestamp) + 600_000
  const cut = Math.floor(all.length / 2)
  const {p, client} = partition(all.slice(0, cut))
  const first = await audit(client, dir, now)
  // new writes: only they are read
  p.log.push(...all.slice(cut).map(b => ({...b, partitionLeaderEpoch: 0})))
  const second = await audit(client, dir, now)
  const full = await audit(client, undefined, now)
  return {dir, all, now, cut, p, client, first, second, full}
}

describe('incremental audit: scanOffsets with checkpoints', () => {
  it('a first run has no checkpoint to resume and nothing to report', async () => {
    const {first} = await resumed()
    expect(first.scan.resumed).toBe(0)
    expect(first.scan.fullReads).toEqual([])
  })

  it('resumes where the last run stopped: reads only the new batches, and equals a full read', async () => {
    const {all, cut, second, full} = await resumed()
    expect(second.scan.resumed).toBe(1)
    expect(second.scan.recordsRead).toBe(all.slice(cut).reduce((n, b) => n + b.records.length, 0))
    expect(second.json).toBe(full.json)
    // its rows' costs included: measured in full for most groups (not a comparison of nulls)
    const rows = JSON.parse(full.json).rows as Array<{cost: {last: unknown}}>
    expect(rows.filter(r => r.cost.last !== null).length).toBeGreaterThan(rows.length / 2)
  })

  it('nothing new: nothing read but the checked batch, the same result, and the checkpoint not rewritten', async () => {
    const {dir, client, now, full} = await resumed()
    const before = statSync(checkpointFile(dir)).mtimeMs
    const idle = await audit(client, dir, now)
    expect(statSync(checkpointFile(dir)).mtimeMs).toBe(before)
    expect(idle.scan.resumed).toBe(1)
    expect(idle.scan.recordsRead).toBe(0)
    expect(idle.json).toBe(full.json)
  })

  it('a leader epoch history that diverged (the last batch has another epoch now) is read in full', async () => {
    const {dir, p, client, now, full} = await resumed()
    p.log[p.log.length - 1] = {...p.log.at(-1)!, partitionLeaderEpoch: 7}
    const diverged = await audit(client, dir, now)
    expect(diverged.scan.fullReads).toEqual([{partition: 0, reason: expect.stringMatching(/diverged/)}])
    expect(diverged.json).toBe(full.json)
  })

  it("another cluster's checkpoint in the same directory (cluster ids x.y and x_y share its name) is read in full", async () => {
    const {dir, client, now, full} = await resumed()
    await audit(client, dir, now, 'x.y')
    const other = await audit(client, dir, now, 'x_y')
    expect(other.scan.fullReads).toEqual([{partition: 0, reason: expect.stringMatching(/another cluster \(x\.y\)/)}])
    expect(other.json).toBe(full.json)
  })

  it('a damaged checkpoint file is read in full', async () => {
    const {dir, client, now, full} = await resumed()
    expect((await audit(client, dir, now)).scan.resumed).toBe(1)
    writeFileSync(checkpointFile(dir), '{"schema":"rebalance-doctor/audit-checkpoint-v1"')
    const damaged = await audit(client, dir, now)
    expect(damaged.scan.fullReads[0].reason).toMatch(/cannot be used/)
    expect(damaged.json).toBe(full.json)
  })

  it("the right syntax and schema with a wrong shape inside (an edited file, another version's) is read in full", async () => {
    const {dir, client, now, full} = await resumed()
    for (const [what, mangle] of [
      // (each group's state is a JSON text inside the file: its quotes are escaped)
      ['a group state of another shape', (t: string) => t.replace(/\\"state\\":\{/, '\\"state\\":{\\"consumer\\":5,\\"x\\":')],
      ['a group state that is a number', (t: string) => t.replace(/\\"state\\":\{/, '\\"state\\":7,\\"y\\":{')],
    ] as const) {
      await audit(client, dir, now)
      const f = checkpointFile(dir)
      const text = readFileSync(f, 'utf8')
      const bad = mangle(text)
      expect(bad, what).not.toBe(text)
      writeFileSync(f, bad)
      const r = await audit(client, dir, now)
      expect(r.scan.fullReads, what).toEqual([{partition: 0, reason: expect.stringMatching(/cannot be used|damaged/)}])
      expect(r.json, what).toBe(full.json)
    }
  })

  it('the log start moved past the checkpoint (retention): read from the new start, in full', async () => {
    const {dir, p, client, now} = await resumed()
    p.log.push(
      ...batches(generate(6, 2, 5), 6).map(b => ({
        ...b,
        baseOffset: b.baseOffset + 1_000_000n,
        lastOffset: b.lastOffset + 1_000_000n,
        records: b.records.map(r => ({...r, offset: r.offset + 1_000_000n})),
        partitionLeaderEpoch: 0,
      })),
    )
    p.logStart = p.log.at(-2)!.baseOffset
    const moved = await audit(client, dir, now)
    expect(moved.scan.fullReads).toEqual([{partition: 0, reason: expect.stringMatching(/log start moved past|diverged/)}])
    expect(moved.json).toBe((await audit(client, undefined, now)).json)
  })
})

/**
 * Generated groups (mostly drifting or reconciling) and settled ones in sync with `live`, in one partition, with
 * the audit command's pass over them (`run`): cached entries reused where they hold, every output of the rows
 * compared. `t0` is the time of the last record.
 */
function cachedRows() {
  const dir = mkdtempSync(join(tmpdir(), 'rd-ckpt-'))
  dirs.push(dir)
  const live = cluster(3, 2)
  const settled = ['orders', 'payments', 'orders,payments'].flatMap(t =>
    Array.from({length: 4}, (_, i) => {
      const topics = t.split(',')
      return settledConsumer(`settled-${t}-${i}`, 'm1', topics, hashOf(live, topics), [[T1, [0]]]).map(r => encodeRecord(r))
    }),
  )
  const all = batches([...settled, ...generate(7, 40, 60)], 7)
  const t0 = Number(all.at(-1)!.records.at(-1)!.timestamp)
  const {p, client} = partition(all)
  /** The audit command's pass; `rebuilt`: groups whose state was parsed; `stored`: rows read back as their text. */
  async function run(withCheckpoint: boolean, md: ClusterMetadata, now: number, stuckAfterMs?: number, reassignments: ReassignmentInFlight[] = []) {
    const pass = new AuditPass(auditContext(md, now, stuckAfterMs, reassignments), undefined)
    let rebuilt = 0
    let groups = 0
    const scan = await scanOffsets(client, {
      checkpoints: withCheckpoint
        ? {store: checkpointStore(dir, 'test-cluster-id'), clusterId: 'test-cluster-id', rowsKey: rowCacheKey('test', stuckAfterMs)}
        : undefined,
      rowCosts: true,
      onPartition: (_p, scanned) => {
        for (const g of scanned) {
          const summary = g.summary.bind(g)
          ;(g as {summary: typeof summary}).summary = () => (rebuilt++, summary())
        }
        groups += scanned.length
        pass.addScanned(scanned)
      },
    })
    const rows = pass.rows()
    // every output of the rows (rows read back from the checkpoint are written from their text, or parsed): the
    // --json document as written, --ndjson, Prometheus, the table, the history's groups
    const summary = pass.summary(
      {partitions: 1, recordsScanned: scan.recordsScanned, decodeErrors: scan.decodeErrors, durationMs: 0},
      [...FINDING_KINDS],
      'test-cluster-id',
      now,
      false,
    )
    const doc = auditDocument(summary, rows)
    const written = piecesText(jsonPieces(doc))
    expect(written).toBe(JSON.stringify(doc))
    const json = [
      written,
      ndjsonLines(summary, rows),
      prometheusText(summary, rows),
      renderAuditTable(rows, {all: true}),
      JSON.stringify([...historyGroups(rows)]),
      pass.deleted,
    ].join('\n')
    const stored = rows.filter(r => r instanceof StoredRow).length
    // rows whose entry is not kept: they read more than the group's state and its topics' hash
    const uncached = rows.filter(r => r.inSync === false || r.membersReconciling > 0 || r.reassignments.length > 0).length
    return {json, rebuilt, groups, uncached, fullReads: scan.fullReads, stored}
  }
  const states = join(dir, 'test-cluster-id', 'audit-checkpoint', 'offsets-0.states.json')
  return {live, t0, p, run, states}
}

describe('incremental audit: cached audit rows', () => {
  it('a first run parses every group and reads no row back', async () => {
    const {live, t0, run} = cachedRows()
    const first = await run(true, live, t0 + 60_000)
    expect(first.rebuilt).toBe(first.groups)
    expect(first.stored).toBe(0)
  })

  it('a quiet partition is not rebuilt: the same output, the rows read back as their text, only the rows that read more remade', async () => {
    const {live, t0, run} = cachedRows()
    const first = await run(true, live, t0 + 60_000)
    const quiet = await run(true, live, t0 + 60_000)
    expect(quiet.json).toBe(first.json)
    // the rows reused are read back as their text (those of deleted groups are counted, not listed)
    expect(quiet.stored).toBeGreaterThan(10)
    // only the rows that depend on more than the group's state and its topics' hash (drifting, reconciling) are remade
    expect(quiet.rebuilt).toBe(first.uncached)
    expect(quiet.rebuilt).toBeLessThan(quiet.groups)
  })

  it('whatever a row reads that changed recomputes it: each resumed run equals a full read with the same inputs', async () => {
    const {live, t0, run} = cachedRows()
    await run(true, live, t0 + 60_000)
    // each change a row reads: partitions, racks, the clock (stuck members), --stuck-after, reassignments in flight;
    // resumed with the cached entries of the run before it, equal to a full read with the same inputs (--stuck-after
    // last: another value drops every entry)
    const changes: Array<[string, ClusterMetadata, number, number | undefined, ReassignmentInFlight[]]> = [
      ['fewer partitions', cluster(2, 2), t0 + 60_000, undefined, []],
      ['another rack', cluster(3, 2, 'rack-z'), t0 + 60_000, undefined, []],
      ['back to the first metadata', live, t0 + 60_000, undefined, []],
      [
        'a reassignment on orders',
        live,
        t0 + 60_000,
        undefined,
        [{topic: 'orders', partition: 0, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [1]}],
      ],
      ['ten days later', live, t0 + 10 * 86_400_000, undefined, []],
      ['--stuck-after 1s', live, t0 + 60_000, 1000, []],
      ['the same again', live, t0 + 60_000, undefined, []],
    ]
    const seen = new Set<string>()
    for (const [what, md, now, stuck, reassignments] of changes) {
      const incremental = await run(true, md, now, stuck, reassignments)
      const full = await run(false, md, now, stuck, reassignments)
      expect(incremental.json, what).toBe(full.json)
      // the rows' costs are compared too (the groups' bumps measured in full)
      expect(full.json).toMatch(/"cost":\{"last":\{"epoch"/)
      seen.add(full.json)
    }
    // the changes did change the rows (else the comparison proves nothing)
    expect(seen.size).toBeGreaterThanOrEqual(5)
  })

  it("new records for two cached groups and a new group: only the header is rewritten, the result a full read's", async () => {
    const {live, t0, p, run, states} = cachedRows()
    const first = await run(true, live, t0 + 60_000)
    // the states file stays; the changed groups' states are kept in the header
    const statesBefore = readFileSync(states, 'utf8')
    const end = p.log.at(-1)!.lastOffset + 1n
    const more = batches(
      [
        [consumer.member('settled-orders-0', 'm2', {names: ['orders']}), consumer.metadata('settled-orders-0', 2, hashOf(live, ['orders']))].map(r =>
          encodeRecord(r),
        ),
        [consumer.memberTombstone('settled-payments-1', 'm1'), consumer.metadata('settled-payments-1', 2, hashOf(live, ['payments']))].map(r =>
          encodeRecord(r),
        ),
        [consumer.member('brand-new', 'm1', {names: ['orders']}), consumer.metadata('brand-new', 1, hashOf(live, ['orders']))].map(r => encodeRecord(r)),
      ],
      9,
    ).map(b => ({
      ...b,
      baseOffset: b.baseOffset + end,
      lastOffset: b.lastOffset + end,
      records: b.records.map(r => ({...r, offset: r.offset + end})),
      partitionLeaderEpoch: 0,
    }))
    p.log.push(...more)
    const changed = await run(true, live, t0 + 60_000)
    expect(changed.json).toBe((await run(false, live, t0 + 60_000)).json)
    expect(changed.rebuilt).toBe(first.uncached + 3)
    expect(readFileSync(states, 'utf8')).toBe(statesBefore)
    expect((await run(true, live, t0 + 60_000)).json).toBe(changed.json)
  })

  it("the cached groups' states file is read only when needed: damaged, a full read's result; another write's, read in full", async () => {
    const {live, t0, run, states} = cachedRows()
    await run(true, live, t0 + 60_000)
    // a quiet run does without the states file; one that needs it and finds another write's (a crash between the
    // two files) reads in full
    const good = readFileSync(states, 'utf8')
    writeFileSync(states, '{"damaged"')
    expect((await run(true, live, t0 + 60_000)).json).toBe((await run(false, live, t0 + 60_000)).json)
    writeFileSync(states, good.replace(/"generation":"[^"]*"/, '"generation":"another"'))
    const needed = await run(true, cluster(2, 2), t0 + 60_000)
    // (another write's file: its checksum is not the one the header keeps, which tells first)
    expect(needed.fullReads).toEqual([{partition: 0, reason: expect.stringMatching(/states file cannot be read \(its checksum does not match\)/)}])
    expect(needed.json).toBe((await run(false, cluster(2, 2), t0 + 60_000)).json)
  })
})
