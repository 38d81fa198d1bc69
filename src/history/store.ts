/**
 * The audit history on disk (see format.ts for the line format). Location, first match wins:
 *   --history-dir DIR, $REBALANCE_DOCTOR_HISTORY_DIR, $XDG_STATE_HOME/rebalance-doctor/history,
 *   ~/.local/state/rebalance-doctor/history
 * then one directory per cluster id. Crash safety: a new day's segment is written to a temp file, fsynced and
 * renamed into place (it exists whole or not at all); later lines are appended with one write each and
 * fsynced, after repairing a torn tail (a line without its newline) by ending it, so a torn line stays one
 * bad line that readers skip by its checksum. Every write takes all its bytes or fails (a full disk is an error,
 * never a short success; a failed append is cut back, a failed rewrite leaves the old segment; see io/atomic-file).
 * Writers of one cluster's history take a lock file holding a random token: only its holder removes it, and a
 * stale lock (a crashed writer's, older than 10 minutes) is taken over only if it still holds the token seen.
 */
import {randomBytes} from 'node:crypto'
import {closeSync, existsSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {TopicHasher} from '../core/hash.js'
import type {ClusterMetadata} from '../core/metadata.js'
import {uuidToString} from '../core/uuid.js'
import {appendDurably, type FileOps, fsyncDir, nodeFileOps, writeFileAtomic, writeFully} from '../io/atomic-file.js'
import {
  encodeLine,
  expiredSegments,
  foldState,
  type GroupObservation,
  type HistoryEntry,
  makeEntry,
  parseSegment,
  segmentDay,
  segmentName,
  type TopicObservation,
} from '../core/history/format.js'

export const HISTORY_DIR_ENV = 'REBALANCE_DOCTOR_HISTORY_DIR'

export function defaultHistoryDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env[HISTORY_DIR_ENV]) return env[HISTORY_DIR_ENV]!
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state')
  return join(state, 'rebalance-doctor', 'history')
}

/** A cluster id as a directory name (cluster ids are base64url already; anything else is replaced). */
export function clusterDir(root: string, clusterId: string): string {
  return join(root, clusterId.replace(/[^A-Za-z0-9_-]/g, '_') || 'unknown-cluster')
}

/** Per-topic observations of live metadata (hash via the audit's shared hasher). */
export function observeTopics(md: ClusterMetadata, hasher = new TopicHasher(md)): Map<string, TopicObservation> {
  const rackOf = new Map(md.brokers.map(b => [b.id, b.rack]))
  const out = new Map<string, TopicObservation>()
  for (const t of md.topics) {
    if (t.internal) continue
    const racks = new Set<string>()
    for (const p of t.partitions)
      for (const r of p.replicas) {
        const rack = rackOf.get(r)
        if (rack !== null && rack !== undefined) racks.add(rack)
      }
    const replicas: number[][] = []
    for (const p of t.partitions) replicas[p.partition] = [...p.replicas]
    out.set(t.name, {
      id: uuidToString(t.topicId),
      partitions: t.partitions.length,
      hash: hasher.topicHash(t.name).toString(),
      racks: [...racks].sort(),
      // (a partition id missing from the metadata: an empty list)
      replicas: Array.from(replicas, r => r ?? []),
    })
  }
  return out
}

export interface RecordResult {
  file: string
  full: boolean
  topicsWritten: number
  groupsWritten: number
  expired: string[]
}

export interface StoreOptions {
  dir: string
  retentionMs: number
  now?: number
  /** For tests: the fs write functions (a full disk). */
  fileOps?: FileOps
  /** How long to wait for another audit's lock (default 5 s). */
  lockWaitMs?: number
}

/** A lock older than this was left by a crashed writer (an audit's history write takes well under a second). */
export const STALE_LOCK_MS = 600_000

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

function readLock(lock: string): {token: string; mtimeMs: number} | undefined {
  try {
    return {token: readFileSync(lock, 'utf8'), mtimeMs: statSync(lock).mtimeMs}
  } catch {
    return undefined
  }
}

/**
 * Moves a stale lock out of the way only if it is still the one judged stale (same token): the lock is renamed
 * to a private name (atomic: one writer gets it), then checked; a lock that turns out to be another writer's fresh
 * one is linked back (link fails rather than replace a newer lock) and nothing of it is deleted.
 */
function takeOverStale(lock: string, staleToken: string): void {
  const aside = `${lock}.stale-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    renameSync(lock, aside)
  } catch {
    return // someone else moved or released it
  }
  let token: string | undefined
  try {
    token = readFileSync(aside, 'utf8')
  } catch {}
  if (token !== staleToken) {
    try {
      linkSync(aside, lock)
    } catch {}
  }
  try {
    unlinkSync(aside)
  } catch {}
}

/** Takes the history lock of a cluster directory; returns the token that proves it is ours. */
export function acquireLock(dir: string, options: {waitMs?: number; staleSeen?: string} = {}): string {
  const lock = join(dir, '.lock')
  const token = `${process.pid}-${randomBytes(8).toString('hex')}\n`
  const deadline = Date.now() + (options.waitMs ?? 5000)
  let staleSeen = options.staleSeen
  for (;;) {
    let fd: number | undefined
    try {
      fd = openSync(lock, 'wx')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    if (fd !== undefined) {
      try {
        writeFully(fd, Buffer.from(token))
      } catch (error) {
        closeSync(fd)
        try {
          unlinkSync(lock)
        } catch {}
        throw error
      }
      closeSync(fd)
      return token
    }
    const held = readLock(lock)
    const stale = staleSeen ?? (held && Date.now() - held.mtimeMs > STALE_LOCK_MS ? held.token : undefined)
    staleSeen = undefined
    if (stale !== undefined) {
      takeOverStale(lock, stale)
      continue
    }
    if (Date.now() > deadline) {
      throw Object.assign(new Error(`${lock} is held by another audit (remove it if no audit is running)`), {code: 'ELOCKED'})
    }
    sleep(50)
  }
}

/** Releases the lock if it is still ours (a takeover of a lock thought stale must not be undone by its old owner). */
export function releaseLock(dir: string, token: string): void {
  const lock = join(dir, '.lock')
  const held = readLock(lock)
  if (held?.token === token) {
    try {
      unlinkSync(lock)
    } catch {}
  }
}

function withLock<T>(dir: string, waitMs: number | undefined, work: () => T): T {
  const token = acquireLock(dir, {waitMs})
  try {
    return work()
  } finally {
    releaseLock(dir, token)
  }
}

/** Appends one audit's observations to the cluster's history; deletes segments past retention. */
export function recordHistory(
  o: StoreOptions,
  clusterId: string,
  md: ClusterMetadata,
  groups: Map<string, GroupObservation>,
  hasher?: TopicHasher,
): RecordResult {
  const now = o.now ?? Date.now()
  const dir = clusterDir(o.dir, clusterId)
  mkdirSync(dir, {recursive: true})
  const ops = o.fileOps ?? nodeFileOps
  return withLock(dir, o.lockWaitMs, () => {
    // under the lock no other writer is active: a temp file here is a crashed writer's (old or new naming)
    for (const n of readdirSync(dir))
      if (/\.tmp-\d+/.test(n))
        try {
          unlinkSync(join(dir, n))
        } catch {}
    const at = new Date(now)
    const file = join(dir, segmentName(at))
    const topics = observeTopics(md, hasher)
    const brokers = md.brokers.map(b => ({id: b.id, rack: b.rack}))
    const exists = existsSync(file)
    const previous = exists ? parseSegment(readFileSync(file, 'utf8')).entries : []
    // a segment whose full first line was lost cannot carry deltas: start it over with a full entry
    const usable = previous.length > 0 && previous[0].full
    const entry = makeEntry(at.toISOString(), clusterId, {brokers, topics, groups}, usable ? foldState(previous) : undefined)
    const line = encodeLine(entry)
    if (!usable) {
      // keep whatever readable lines an unusable segment had (they still count for attribution); the old
      // segment stays in place until the new one is whole on disk
      writeFileAtomic(file, previous.map(e => encodeLine(e)).join('') + line, {ops})
    } else {
      const size = statSync(file).size
      let prefix = ''
      if (size > 0) {
        const last = Buffer.alloc(1)
        const rfd = openSync(file, 'r')
        try {
          readSyncAt(rfd, last, size - 1)
        } finally {
          closeSync(rfd)
        }
        if (last[0] !== 0x0a) prefix = '\n' // end a torn line so it stays one bad line
      }
      appendDurably(file, prefix + line, ops)
    }
    const expired = expiredSegments(listSegments(dir), now, o.retentionMs)
    for (const name of expired) unlinkSync(join(dir, name))
    if (expired.length) fsyncDir(dir, ops)
    return {file, full: entry.full, topicsWritten: Object.keys(entry.topics).length, groupsWritten: Object.keys(entry.groups).length, expired}
  })
}

function readSyncAt(fd: number, buf: Buffer, position: number): void {
  readSync(fd, buf, 0, buf.length, position)
}

function listSegments(dir: string): string[] {
  return readdirSync(dir)
    .filter(n => segmentDay(n) !== undefined)
    .sort()
}

/**
 * Changes whenever a segment of the cluster's history is written: its segments' names, sizes and modification times
 * ('' when there is none). One readdir and a stat per day segment: a watch asks it to skip reloading an unchanged
 * history.
 */
export function historyStamp(root: string, clusterId: string): string {
  const dir = clusterDir(root, clusterId)
  try {
    return listSegments(dir)
      .map(n => {
        const st = statSync(join(dir, n))
        return `${n}:${st.size}:${st.mtimeMs}`
      })
      .join('|')
  } catch {
    return ''
  }
}

export interface LoadedHistory {
  dir: string
  entries: HistoryEntry[]
  segments: number
  badLines: number
}

/** Every readable entry of a cluster's history within retention (none when the directory does not exist). */
export function loadHistory(root: string, clusterId: string, retentionMs?: number, now = Date.now()): LoadedHistory {
  const dir = clusterDir(root, clusterId)
  const out: LoadedHistory = {dir, entries: [], segments: 0, badLines: 0}
  if (!existsSync(dir)) return out
  const names = listSegments(dir)
  const expired = new Set(retentionMs === undefined ? [] : expiredSegments(names, now, retentionMs))
  for (const name of names) {
    if (expired.has(name)) continue
    const p = parseSegment(readFileSync(join(dir, name), 'utf8'))
    out.segments++
    out.badLines += p.badLines
    out.entries.push(...p.entries.filter(e => e.clusterId === clusterId))
  }
  return out
}
