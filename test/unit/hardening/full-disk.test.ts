/**
 * History on a full disk. Short writes and ENOSPC are detected (never taken as success), a
 * rewrite is atomic and never drops entries that were readable, temp files are cleaned, and the stale-lock
 * takeover never deletes a lock another writer holds. The fs write function is injected (root ignores chmod).
 */
import * as fs from 'node:fs'
import {mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {type FileOps, nodeFileOps, writeFileAtomic} from '../../../src/io/atomic-file.js'
import {parseSegment} from '../../../src/core/history/format.js'
import {acquireLock, clusterDir, loadHistory, recordHistory, releaseLock} from '../../../src/history/store.js'
import {cluster} from '../../lib/fixtures.js'

const DAY = 86_400_000
const T0 = Date.parse('2026-11-01T10:00:00Z')
const tmp = () => mkdtempSync(join(tmpdir(), 'rd-disk-'))
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC', errno: -28, syscall: 'write'})

/** A disk that takes `room` more bytes, then writes short and fails with ENOSPC. */
function fullDisk(room: number, opts: {shortOnly?: boolean} = {}): FileOps {
  let left = room
  return {
    ...nodeFileOps,
    writeSync(fd: number, buf: Uint8Array, offset = 0, length = buf.length - offset, position?: number | null) {
      if (left <= 0) {
        if (opts.shortOnly) return 0
        throw enospc()
      }
      const n = Math.min(length, left)
      left -= n
      return fs.writeSync(fd, buf, offset, n, position)
    },
  }
}

/** A disk that writes at most `chunk` bytes per call (legitimate short writes). */
function choppy(chunk: number): FileOps {
  return {
    ...nodeFileOps,
    writeSync: (fd: number, buf: Uint8Array, offset = 0, length = buf.length - offset, position?: number | null) =>
      fs.writeSync(fd, buf, offset, Math.min(chunk, length), position),
  }
}

const record = (root: string, at: number, ops?: FileOps) =>
  recordHistory(
    {dir: root, retentionMs: 30 * DAY, now: at, ...(ops ? {fileOps: ops} : {})},
    'cid',
    cluster(3 + (Math.floor((at - T0) / 60_000) % 5)),
    new Map(),
  )
const segment = (root: string) => join(clusterDir(root, 'cid'), 'history-2026-11-01.ndjson')

describe('atomic file writer', () => {
  it('writes all bytes through short writes', () => {
    const file = join(tmp(), 'out.txt')
    const text = 'x'.repeat(10_000)
    writeFileAtomic(file, text, {ops: choppy(777)})
    expect(readFileSync(file, 'utf8')).toBe(text)
  })

  it('a full disk fails the write, keeps the old file whole and leaves no temp file', () => {
    const dir = tmp()
    const file = join(dir, 'metrics.prom')
    writeFileSync(file, 'old contents\n')
    expect(() => writeFileAtomic(file, 'n'.repeat(5000), {ops: fullDisk(1000)})).toThrow(/ENOSPC|no space left/)
    expect(readFileSync(file, 'utf8')).toBe('old contents\n')
    expect(readdirSync(dir)).toEqual(['metrics.prom'])
  })

  it('a write that returns 0 (short, no error) is a failure, not success', () => {
    const dir = tmp()
    const file = join(dir, 'f')
    expect(() => writeFileAtomic(file, 'n'.repeat(5000), {ops: fullDisk(1000, {shortOnly: true})})).toThrow(/short write|no space/)
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('history on a full disk', () => {
  it('an append cut short by ENOSPC fails loudly and leaves the segment as it was', () => {
    const root = tmp()
    for (let i = 0; i < 5; i++) record(root, T0 + i * 60_000)
    const before = readFileSync(segment(root), 'utf8')
    expect(parseSegment(before).entries).toHaveLength(5)
    expect(() => record(root, T0 + 5 * 60_000, fullDisk(10))).toThrow(/ENOSPC|no space left/)
    expect(readFileSync(segment(root), 'utf8')).toBe(before)
    expect(loadHistory(root, 'cid').entries).toHaveLength(5)
  })

  it('a short write (0 bytes, no error) on append is not taken as success', () => {
    const root = tmp()
    for (let i = 0; i < 3; i++) record(root, T0 + i * 60_000)
    const before = readFileSync(segment(root), 'utf8')
    expect(() => record(root, T0 + 3 * 60_000, fullDisk(10, {shortOnly: true}))).toThrow(/short write|no space/)
    expect(readFileSync(segment(root), 'utf8')).toBe(before)
  })

  it('a rewrite (segment without its full first line) that hits ENOSPC keeps every readable entry and cleans its temp file', () => {
    const root = tmp()
    for (let i = 0; i < 17; i++) record(root, T0 + i * 60_000)
    // damage the first (full) line: the next record rewrites the segment
    const text = readFileSync(segment(root), 'utf8')
    writeFileSync(segment(root), 'X' + text.slice(1))
    const readable = parseSegment(readFileSync(segment(root), 'utf8')).entries.length
    expect(readable).toBe(16)
    expect(() => record(root, T0 + 17 * 60_000, fullDisk(2000))).toThrow(/ENOSPC|no space left/)
    expect(parseSegment(readFileSync(segment(root), 'utf8')).entries).toHaveLength(16)
    expect(readdirSync(clusterDir(root, 'cid')).filter(n => n.includes('tmp'))).toEqual([])
    // with room again the rewrite keeps the 16 and adds one
    record(root, T0 + 17 * 60_000)
    expect(parseSegment(readFileSync(segment(root), 'utf8')).entries).toHaveLength(17)
  })

  it('history writes survive legitimate short writes', () => {
    const root = tmp()
    for (let i = 0; i < 4; i++) record(root, T0 + i * 60_000, choppy(100))
    expect(loadHistory(root, 'cid').entries).toHaveLength(4)
  })
})

describe('history lock', () => {
  it('releasing never deletes a lock another writer holds', () => {
    const dir = tmp()
    const mine = acquireLock(dir)
    writeFileSync(join(dir, '.lock'), 'someone-else\n')
    releaseLock(dir, mine)
    expect(readFileSync(join(dir, '.lock'), 'utf8')).toBe('someone-else\n')
  })

  it('a stale-lock takeover does not delete a fresh lock that replaced the stale one', () => {
    const dir = tmp()
    const lock = join(dir, '.lock')
    writeFileSync(lock, 'crashed-writer\n')
    const old = (Date.now() - 3_600_000) / 1000
    utimesSync(lock, old, old)
    // writer A takes the stale lock over
    const a = acquireLock(dir)
    expect(readFileSync(lock, 'utf8')).toContain(a)
    // writer B judged the same stale lock (its token) stale a moment ago and now acts on it: A's lock stays
    expect(() => acquireLock(dir, {staleSeen: 'crashed-writer\n', waitMs: 200})).toThrow(/held by another audit/)
    expect(readFileSync(lock, 'utf8')).toContain(a)
    releaseLock(dir, a)
    expect(readdirSync(dir)).toEqual([])
  })

  it('a stale lock is taken over', () => {
    const dir = tmp()
    const lock = join(dir, '.lock')
    writeFileSync(lock, 'crashed-writer\n')
    const old = (Date.now() - 3_600_000) / 1000
    utimesSync(lock, old, old)
    const t = acquireLock(dir, {waitMs: 1000})
    expect(readFileSync(lock, 'utf8')).toContain(t)
    releaseLock(dir, t)
  })
})
