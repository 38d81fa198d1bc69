/**
 * The audit history on disk (see format.ts for the line format). Location, first match wins:
 *   --history-dir DIR, $REBALANCE_DOCTOR_HISTORY_DIR, $XDG_STATE_HOME/rebalance-doctor/history,
 *   ~/.local/state/rebalance-doctor/history
 * then one directory per cluster id. Crash safety: a new day's segment is written to a temp file, fsynced and
 * renamed into place (it exists whole or not at all); later lines are appended with one write each and
 * fsynced, after repairing a torn tail (a line without its newline) by ending it, so a torn line stays one
 * bad line that readers skip by its checksum. Writers of one cluster's history take a lock file.
 */
import {closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {TopicHasher} from '../core/hash.js'
import type {ClusterMetadata} from '../core/metadata.js'
import {uuidToString} from '../core/uuid.js'
import {
  encodeLine, expiredSegments, foldState, type GroupObservation, type HistoryEntry, makeEntry, parseSegment, segmentDay, segmentName, type TopicObservation,
} from './format.js'

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
    for (const p of t.partitions) for (const r of p.replicas) {
      const rack = rackOf.get(r)
      if (rack !== null && rack !== undefined) racks.add(rack)
    }
    out.set(t.name, {id: uuidToString(t.topicId), partitions: t.partitions.length, hash: hasher.topicHash(t.name).toString(), racks: [...racks].sort()})
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
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // not supported on every platform; the rename is still atomic
  }
}

function withLock<T>(dir: string, work: () => T): T {
  const lock = join(dir, '.lock')
  for (let i = 0; ; i++) {
    try {
      closeSync(openSync(lock, 'wx'))
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      // a lock older than 10 minutes is left by a crashed writer
      try {
        if (Date.now() - statSync(lock).mtimeMs > 600_000) unlinkSync(lock)
      } catch {}
      if (i > 100) throw new Error(`history: ${lock} is held by another audit; remove it if no audit is running`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
    }
  }
  try {
    return work()
  } finally {
    try {
      unlinkSync(lock)
    } catch {}
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
  return withLock(dir, () => {
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
      const tmp = `${file}.tmp-${process.pid}`
      const fd = openSync(tmp, 'w')
      try {
        // keep whatever readable lines an unusable segment had (they still count for attribution)
        const keep = previous.map(e => encodeLine(e)).join('')
        writeSync(fd, keep + line)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(tmp, file)
      fsyncDir(dir)
    } else {
      const fd = openSync(file, 'a+')
      try {
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
        writeSync(fd, prefix + line)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
    }
    const expired = expiredSegments(listSegments(dir), now, o.retentionMs)
    for (const name of expired) unlinkSync(join(dir, name))
    if (expired.length) fsyncDir(dir)
    return {file, full: entry.full, topicsWritten: Object.keys(entry.topics).length, groupsWritten: Object.keys(entry.groups).length, expired}
  })
}

function readSyncAt(fd: number, buf: Buffer, position: number): void {
  readSync(fd, buf, 0, buf.length, position)
}

function listSegments(dir: string): string[] {
  return readdirSync(dir).filter(n => segmentDay(n) !== undefined).sort()
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
