/**
 * A live broker's or controller's __cluster_metadata-0 changes while it is read: Kafka renames old snapshots and
 * segments to *.deleted (and deletes them later) as its log start advances. A file removed between the listing and
 * its read makes the reader list the directory again and read what is there then; history never spans a file that
 * is missing (a gap is damage), and the reads are bounded.
 *
 * The removal is made at the moment the reader stats or opens a given file: node:fs/promises is wrapped so that a
 * hook runs just before the call, as Kafka's cleanup would between two of our steps.
 */
import {appendFileSync, mkdtempSync, readdirSync, renameSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {encodeBatch} from '../../../src/core/metadata-log/batch-writer.js'
import {RdError} from '../../../src/core/errors.js'
import {replayMetadataLog} from '../../../src/sources/metadata-log.js'
import {brokerRegistration, partitionRecord, topicRecord} from '../../lib/metadata-records.js'
import {run} from '../helpers.js'

const fsHook = vi.hoisted(() => ({before: undefined as undefined | ((call: 'stat' | 'open', path: string) => void)}))
vi.mock('node:fs/promises', async importOriginal => {
  const fs = await importOriginal<typeof import('node:fs/promises')>()
  return {
    ...fs,
    stat: (path: string, ...rest: []) => (fsHook.before?.('stat', String(path)), fs.stat(path, ...rest)),
    open: (path: string, ...rest: [number]) => (fsHook.before?.('open', String(path)), fs.open(path, ...rest)),
  }
})
afterEach(() => {
  fsHook.before = undefined
})

const ORDERS = 'AAECAwQFBgcICQoLDA0ODw'
const T = Date.parse('2026-12-06T12:00:00Z')
const END = 24n
/** Offsets 0-2 register brokers, 3 creates topic orders, each later offset adds one of its partitions. */
const record = (o: number) =>
  o < 3 ? brokerRegistration(o + 1, 'rack-a', {fenced: false}) : o === 3 ? topicRecord('orders', ORDERS) : partitionRecord(ORDERS, o - 4, [1, 2])
const pad = (n: bigint, width: number) => n.toString().padStart(width, '0')
const segmentName = (base: bigint) => `${pad(base, 20)}.log`
const snapshotName = (end: bigint) => `${pad(end, 20)}-${pad(1n, 10)}.checkpoint`

/** A snapshot holding offsets before `end`: its header (LastContainedLogTimestamp), then the records. */
function snapshot(end: bigint): Buffer {
  const header = Buffer.alloc(11)
  header.writeBigInt64BE(BigInt(T + (Number(end) - 1) * 1000), 2)
  const records = Array.from({length: Number(end)}, (_, o) => record(o))
  return Buffer.concat([encodeBatch(0n, T, [[new Uint8Array([0, 0, 0, 3]), header]], true), encodeBatch(1n, T, records)])
}

/**
 * A directory as a live one is after Kafka's cleanup: segments of 4 offsets each from `start` to END, a snapshot at
 * each segment's start (the log start included), the newest at `newest`.
 */
function liveDir(start = 4n, newest = 20n): string {
  const dir = mkdtempSync(join(tmpdir(), 'rd-mdlog-live-'))
  for (let base = start; base < END; base += 4n) {
    const batches = [0n, 1n, 2n, 3n].map(i => encodeBatch(base + i, T + Number(base + i) * 1000, [record(Number(base + i))]))
    writeFileSync(join(dir, segmentName(base)), Buffer.concat(batches))
    if (base > 0n && base <= newest) writeFileSync(join(dir, snapshotName(base)), snapshot(base))
  }
  return dir
}

/** Kafka's cleanup once its log start reaches `logStart`: older snapshots and the segments before it renamed *.deleted. */
function cleanBefore(dir: string, logStart: bigint): void {
  for (const n of readdirSync(dir)) {
    const m = /^(\d{20})(-\d{10})?\.(log|checkpoint)$/.exec(n)
    if (!m) continue
    const offset = BigInt(m[1])
    if (m[3] === 'checkpoint' ? offset < logStart : offset + 4n <= logStart) renameSync(join(dir, n), join(dir, `${n}.deleted`))
  }
}

/** Runs `action` once, when the reader makes its `nth` `call` on `file`. */
function when(dir: string, call: 'stat' | 'open', file: string, action: () => void, nth = 1): void {
  let seen = 0
  fsHook.before = (c, path) => {
    if (c === call && path === join(dir, file) && ++seen === nth) action()
  }
}

const partitionsAdded = (r: Awaited<ReturnType<typeof replayMetadataLog>>) => r.replay.changes.filter(c => c.kind === 'partitions-added').map(c => c.offset)

describe('a live metadata log directory: files removed while it is read', () => {
  it('the directory as it is: read from the oldest snapshot (offset 4) to its end, nothing to note', async () => {
    const r = await replayMetadataLog(liveDir())
    expect(r.snapshot?.endOffset).toBe(4n)
    expect(r.historyStart.offset).toBe('4')
    expect(r.replay.lastOffset).toBe(END - 1n)
    expect(r.damage).toBeNull()
    expect(r.notes).toEqual([])
  })

  it('a snapshot removed between the listing and its check (the check that refuses FIFOs and dangling links): listed again, exit 0', async () => {
    const dir = liveDir()
    when(dir, 'stat', snapshotName(4n), () => cleanBefore(dir, 8n))
    const r = await replayMetadataLog(dir)
    expect(r.snapshot?.endOffset).toBe(8n)
    expect(r.historyStart.offset).toBe('8')
    expect(r.replay.lastOffset).toBe(END - 1n)
    expect(r.damage).toBeNull()
    expect(r.replay.image.toClusterMetadata().topics[0].partitions).toHaveLength(Number(END) - 4)

    when(dir, 'stat', snapshotName(8n), () => cleanBefore(dir, 12n))
    const cli = await run(['cluster:history', '--metadata-log', dir, '--json'])
    expect(cli.exitCode, cli.stdout).toBe(0)
    expect(JSON.parse(cli.stdout).source).toMatchObject({snapshot: {file: snapshotName(12n)}, lastOffset: '23', damage: null})
  })

  it('the oldest segment removed before the check that it is a metadata log reads it: listed again', async () => {
    const dir = liveDir()
    when(dir, 'open', segmentName(4n), () => cleanBefore(dir, 8n))
    const r = await replayMetadataLog(dir)
    expect(r.files.segments.map(s => s.baseOffset)).toEqual([8n, 12n, 16n, 20n])
    expect(r.historyStart.offset).toBe('8')
    expect(r.replay.lastOffset).toBe(END - 1n)
  })

  it('the starting snapshot removed before it is read: read again from the oldest snapshot there now, noted with its name', async () => {
    const dir = liveDir()
    when(dir, 'open', snapshotName(4n), () => cleanBefore(dir, 12n))
    const r = await replayMetadataLog(dir)
    expect(r.snapshot?.endOffset).toBe(12n)
    expect(r.historyStart).toEqual({offset: '12', timestamp: T + 11_000})
    expect(partitionsAdded(r)[0]).toBe(12n)
    expect(r.replay.lastOffset).toBe(END - 1n)
    expect(r.damage).toBeNull()
    expect(r.notes).toEqual([
      `${snapshotName(4n)}: removed from ${dir} after it was listed (Kafka deletes old snapshots and segments as its log start advances); the directory was listed and read again: history starts at offset 12.`,
    ])
  })

  it('a segment removed while the replay reads the ones before it: read again from the oldest snapshot there now, the same image at the end', async () => {
    const dir = liveDir()
    const whole = await replayMetadataLog(dir)
    // the probe opens segment 4 first, the replay second; segment 8 is opened by the replay only
    when(dir, 'open', segmentName(8n), () => cleanBefore(dir, 12n))
    const r = await replayMetadataLog(dir)
    expect(r.historyStart.offset).toBe('12')
    expect(r.replay.lastOffset).toBe(END - 1n)
    expect(r.damage).toBeNull()
    expect(r.replay.image.toClusterMetadata()).toEqual(whole.replay.image.toClusterMetadata())
    expect(r.notes[0]).toMatch(new RegExp(`^${segmentName(8n)}: removed from `))

    when(dir, 'open', segmentName(12n), () => cleanBefore(dir, 16n), 2)
    const cli = await run(['cluster:history', '--metadata-log', dir, '--json'])
    expect(cli.exitCode, cli.stdout).toBe(0)
    const doc = JSON.parse(cli.stdout)
    expect(doc.source).toMatchObject({historyStart: {offset: '16'}, lastOffset: '23', damage: null})
    expect(doc.warnings).toEqual([expect.stringMatching(new RegExp(`^${segmentName(12n)}: removed from .* history starts at offset 16\\.$`))])
  })

  it('a segment missing from the listing made again is a gap: exact history ends before it, not across it', async () => {
    // from offset 0 without snapshots; segment 8 removed while segment 4 is read (not Kafka's cleanup: it removes from the start)
    const dir = liveDir(0n, -1n)
    when(dir, 'open', segmentName(8n), () => renameSync(join(dir, segmentName(8n)), join(dir, `${segmentName(8n)}.deleted`)))
    const r = await replayMetadataLog(dir)
    expect(r.historyStart.offset).toBe('0')
    expect(r.replay.lastOffset).toBe(7n)
    expect(r.damage).toMatchObject({file: join(dir, segmentName(12n)), offset: '8', reason: 'offsets 8 to 11 are missing: this segment starts at 12'})
  })

  it('the active segment appended to as it is read: its complete batches are read, an incomplete last one is a partial tail (a warning), not an error', async () => {
    const dir = liveDir()
    const next = encodeBatch(END, T + Number(END) * 1000, [record(Number(END))])
    const active = join(dir, segmentName(20n))
    when(dir, 'open', segmentName(20n), () => appendFileSync(active, Buffer.concat([next, next.subarray(0, 40)])))
    const r = await replayMetadataLog(dir)
    expect(r.replay.lastOffset).toBe(END)
    expect(r.damage).toBeNull()
    expect(r.partialTail).toEqual({file: active, byte: statSync(active).size - 40, bytes: 40})
    expect(r.notes).toEqual([])
  })

  it('files removed on every read: the last read starts at the newest snapshot (the cleanup never removes it), and says so', async () => {
    const dir = liveDir()
    // each read's starting snapshot is removed as it is opened, with the segments it starts
    fsHook.before = (call, path) => {
      const m = /(\d{20})-\d{10}\.checkpoint$/.exec(path)
      if (call === 'open' && m && BigInt(m[1]) < 20n) cleanBefore(dir, BigInt(m[1]) + 4n)
    }
    const r = await replayMetadataLog(dir)
    expect(r.snapshot?.endOffset).toBe(20n)
    expect(r.historyStart.offset).toBe('20')
    expect(r.replay.lastOffset).toBe(END - 1n)
    expect(r.damage).toBeNull()
    expect(r.notes).toEqual([
      `${snapshotName(4n)}, ${snapshotName(8n)}: removed from ${dir} after it was listed (Kafka deletes old snapshots and segments as its log start advances); the directory was listed and read again from the newest snapshot (${snapshotName(20n)}): history starts at offset 20, nothing before it was read.`,
    ])
  })

  it('the reads are bounded: a file removed on each of 3 reads ends the run with a runtime error naming it (exit 1), not a usage error', async () => {
    const dir = liveDir()
    // every snapshot is removed as it is opened, the newest too (no cleanup does that: a directory replaced while read)
    fsHook.before = (call, path) => {
      if (call === 'open' && path.endsWith('.checkpoint')) renameSync(path, `${path}.deleted`)
    }
    const error = await replayMetadataLog(dir).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RdError)
    expect(error).toMatchObject({exitCode: 1, code: 'METADATA_LOG_CHANGING'})
    expect((error as Error).message).toBe(
      `${join(dir, snapshotName(20n))} was removed from ${dir} after it was listed, on each of 3 attempts to read the directory`,
    )
  })

  it('a file removed at every check of the listing: bounded too, a runtime error naming it', async () => {
    const dir = liveDir()
    fsHook.before = (call, path) => {
      if (call === 'stat' && path.endsWith('.log')) renameSync(path, `${path}.deleted`)
    }
    const error = await replayMetadataLog(dir).catch((e: unknown) => e)
    expect(error).toMatchObject({exitCode: 1, code: 'METADATA_LOG_CHANGING'})
    expect((error as Error).message).toContain(`${join(dir, segmentName(12n))} was removed from ${dir} after it was listed`)
  })
})
