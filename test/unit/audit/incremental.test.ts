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
import type {ReassignmentInFlight} from '../../../src/core/explain/hypotheses.js'
import type {ClusterMetadata} from '../../../src/core/metadata.js'
import type {LogBatch} from '../../../src/core/log/batch.js'
import type {KafkaClient} from '../../../src/kafka/client.js'
import {checkpointStore} from '../../../src/sources/audit-checkpoint.js'
import {scanOffsets} from '../../../src/sources/audit-scan.js'
import {encodeRecord} from '../../../src/core/records/index.js'
import {consumer, T1} from '../../lib/records.js'
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
    onPartition: (_p, groups) => {
      // all or nothing (a damaged group state throws): the partition is then read again in full
      const mine: unknown[] = []
      let gone = 0
      for (const sg of [...groups].sort((a, b) => (a.id < b.id ? -1 : 1))) {
        const id = sg.id
        const g = sg.summary()
        if (isDeleted(g)) gone++
        else mine.push(auditGroup(id, g, ctx))
      }
      rows.push(...mine)
      deleted += gone
    },
  })
  return {json: JSON.stringify({rows, deleted, recordsScanned: scan.recordsScanned, decodeErrors: scan.decodeErrors}), scan}
}

describe('incremental audit: scanOffsets with checkpoints', () => {
  it('resumes where the last run stopped, reads only new batches, equals a full read; misfits read in full', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-ckpt-'))
    dirs.push(dir)
    const all = batches(generate(5, 10, 80), 5)
    const now = Number(all.at(-1)!.records.at(-1)!.timestamp) + 600_000
    const cut = Math.floor(all.length / 2)
    const {p, client} = partition(all.slice(0, cut))

    const first = await audit(client, dir, now)
    expect(first.scan.resumed).toBe(0)
    expect(first.scan.fullReads).toEqual([]) // no checkpoint yet: nothing to report

    // new writes: only they are read
    p.log.push(...all.slice(cut).map(b => ({...b, partitionLeaderEpoch: 0})))
    const second = await audit(client, dir, now)
    expect(second.scan.resumed).toBe(1)
    expect(second.scan.recordsRead).toBe(all.slice(cut).reduce((n, b) => n + b.records.length, 0))
    const full = await audit(client, undefined, now)
    expect(second.json).toBe(full.json)

    // nothing new: nothing read but the checked batch, same result, and the checkpoint is not rewritten
    const cpFile = join(dir, 'test-cluster-id', 'audit-checkpoint', 'offsets-0.json')
    const before = statSync(cpFile).mtimeMs
    const idle = await audit(client, dir, now)
    expect(statSync(cpFile).mtimeMs).toBe(before)
    expect(idle.scan.resumed).toBe(1)
    expect(idle.scan.recordsRead).toBe(0)
    expect(idle.json).toBe(full.json)

    // the leader epoch history diverged: the last batch has another epoch now
    p.log[p.log.length - 1] = {...p.log.at(-1)!, partitionLeaderEpoch: 7}
    const diverged = await audit(client, dir, now)
    expect(diverged.scan.fullReads).toEqual([{partition: 0, reason: expect.stringMatching(/diverged/)}])
    expect(diverged.json).toBe(full.json)

    // another cluster's checkpoint (cluster ids x.y and x_y share a directory name)
    await audit(client, dir, now, 'x.y')
    const other = await audit(client, dir, now, 'x_y')
    expect(other.scan.fullReads).toEqual([{partition: 0, reason: expect.stringMatching(/another cluster \(x\.y\)/)}])
    expect(other.json).toBe(full.json)

    // a damaged file
    expect((await audit(client, dir, now)).scan.resumed).toBe(1)
    writeFileSync(join(dir, 'test-cluster-id', 'audit-checkpoint', 'offsets-0.json'), '{"schema":"rebalance-doctor/audit-checkpoint-v1"')
    const damaged = await audit(client, dir, now)
    expect(damaged.scan.fullReads[0].reason).toMatch(/cannot be used/)
    expect(damaged.json).toBe(full.json)

    // the right syntax and schema, a wrong shape inside (an edited file, another version's): read in full
    for (const [what, mangle] of [
      // (each group's state is a JSON text inside the file: its quotes are escaped)
      ['a group state of another shape', (t: string) => t.replace(/\\"state\\":\{/, '\\"state\\":{\\"consumer\\":5,\\"x\\":')],
      ['a group state that is a number', (t: string) => t.replace(/\\"state\\":\{/, '\\"state\\":7,\\"y\\":{')],
    ] as const) {
      await audit(client, dir, now)
      const f = join(dir, 'test-cluster-id', 'audit-checkpoint', 'offsets-0.json')
      const text = readFileSync(f, 'utf8')
      const bad = mangle(text)
      expect(bad, what).not.toBe(text)
      writeFileSync(f, bad)
      const r = await audit(client, dir, now)
      expect(r.scan.fullReads, what).toEqual([{partition: 0, reason: expect.stringMatching(/cannot be used|damaged/)}])
      expect(r.json, what).toBe(full.json)
    }

    // the log start moved past the checkpoint (retention): read from the new start, in full
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

  it('cached audit entries: a quiet partition is not rebuilt, and whatever a row reads that changed recomputes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-ckpt-'))
    dirs.push(dir)
    // generated groups (mostly drifting or reconciling) and settled ones, in sync with the live metadata
    const live = cluster(3, 2)
    const settled = ['orders', 'payments', 'orders,payments'].flatMap(t =>
      Array.from({length: 4}, (_, i) => {
        const g = `settled-${t}-${i}`
        const topics = t.split(',')
        return [
          consumer.member(g, 'm1', {names: topics}),
          consumer.metadata(g, 1, hashOf(live, topics)),
          consumer.target(g, 'm1', [[T1, [0]]]),
          consumer.targetMetadata(g, 1),
          consumer.current(g, 'm1', 1, [[T1, [0]]]),
        ].map(r => encodeRecord(r))
      }),
    )
    const all = batches([...settled, ...generate(7, 40, 60)], 7)
    const t0 = Number(all.at(-1)!.records.at(-1)!.timestamp)
    const {p, client} = partition(all)
    /** The audit command's pass (cached entries reused where they hold); `rebuilt`: groups whose state was parsed. */
    async function run(withCheckpoint: boolean, md: ClusterMetadata, now: number, stuckAfterMs?: number, reassignments: ReassignmentInFlight[] = []) {
      const pass = new AuditPass(auditContext(md, now, stuckAfterMs, reassignments), undefined)
      let rebuilt = 0
      let groups = 0
      const scan = await scanOffsets(client, {
        checkpoints: withCheckpoint
          ? {store: checkpointStore(dir, 'test-cluster-id'), clusterId: 'test-cluster-id', rowsKey: rowCacheKey('test', stuckAfterMs)}
          : undefined,
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
      stored = rows.filter(r => r instanceof StoredRow).length
      // rows whose entry is not kept: they read more than the group's state and its topics' hash
      const uncached = rows.filter(r => r.inSync === false || r.membersReconciling > 0 || r.reassignments.length > 0).length
      return {json, rebuilt, groups, uncached, fullReads: scan.fullReads, stored}
    }
    let stored = 0
    const first = await run(true, live, t0 + 60_000)
    expect(first.rebuilt).toBe(first.groups)
    expect(first.stored).toBe(0)
    const quiet = await run(true, live, t0 + 60_000)
    expect(quiet.json).toBe(first.json)
    // the rows reused are read back as their text (those of deleted groups are counted, not listed)
    expect(quiet.stored).toBeGreaterThan(10)
    // only the rows that depend on more than the group's state and its topics' hash (drifting, reconciling) are remade
    expect(quiet.rebuilt).toBe(first.uncached)
    expect(quiet.rebuilt).toBeLessThan(quiet.groups)
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
      seen.add(full.json)
    }
    // the changes did change the rows (else the comparison proves nothing)
    expect(seen.size).toBeGreaterThanOrEqual(5)

    // new records for two cached groups and a new group: only the header is rewritten (the states file stays, the
    // changed groups' states are kept in the header), and the result is a full read's
    const states = join(dir, 'test-cluster-id', 'audit-checkpoint', 'offsets-0.states.json')
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

    // the cached groups' states live in the second file, read only when one of them is needed: a quiet run does
    // without it; one that needs it and finds another write's (a crash between the two files) reads in full
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
