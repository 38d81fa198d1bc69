/**
 * The audit history's on-disk format (pure). History lives in NDJSON segment files, one per UTC day:
 *
 *   <dir>/<cluster id>/history-YYYY-MM-DD.ndjson
 *
 * Each line is `<crc32 of the JSON, 8 hex digits> <JSON of a HistoryEntry>`. A line whose checksum does not
 * match (a write torn by a crash, a truncated file) is ignored, and so is everything that is not a whole line.
 * A segment starts with a full entry (every topic, every group, the brokers); later lines of the same day hold
 * only what changed since the day's state (deltas). Retention deletes whole segments, so the oldest segment
 * kept still starts with a full picture.
 */

export const HISTORY_FORMAT = 1

export type {TopicObservation} from '../explain/evidence/recorded.js'
import type {TopicObservation} from '../explain/evidence/recorded.js'
import {compare} from '../order.js'

export interface GroupObservation {
  type: string
  epoch: number
  /** Stored metadata hash, decimal string; null when read describe-only (a describe shows no stored hash). */
  hash: string | null
}

export interface HistoryEntry {
  v: typeof HISTORY_FORMAT
  /** ISO-8601 time of the audit. */
  at: string
  clusterId: string
  /** A full picture (first line of a segment) or a delta against the segment's state so far. */
  full: boolean
  /** Registered brokers and their racks (null: no rack); present when full or changed. */
  brokers?: Array<{id: number; rack: string | null}>
  /** Topics new or changed (all topics when full). */
  topics: Record<string, TopicObservation>
  /** Topics gone since the previous line. */
  deletedTopics: string[]
  /** Groups whose epoch or stored hash changed (all groups when full). */
  groups: Record<string, GroupObservation>
}

// CRC-32 (IEEE 802.3), table-driven: zlib.crc32 needs Node 20.15+, and this must not depend on a native module.
const TABLE = (() => {
  const t = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c
  }
  return t
})()

export function crc32(text: string): number {
  const bytes = Buffer.from(text, 'utf8')
  let c = -1
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8)
  return (c ^ -1) >>> 0
}

export function encodeLine(entry: HistoryEntry): string {
  const json = JSON.stringify(entry)
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`
}

export interface ParsedSegment {
  entries: HistoryEntry[]
  /** Lines ignored: bad checksum, not JSON, wrong shape, or an unterminated last line. */
  badLines: number
}

/** Parses a segment's text; only complete, checksummed lines count. */
export function parseSegment(text: string): ParsedSegment {
  const entries: HistoryEntry[] = []
  let badLines = 0
  const lines = text.split('\n')
  const last = lines.pop() // after the final '\n': '' when the file ends cleanly, else a torn tail
  if (last !== undefined && last !== '') badLines++
  for (const line of lines) {
    if (line === '') continue
    const m = /^([0-9a-f]{8}) (.*)$/s.exec(line)
    if (!m || Number.parseInt(m[1], 16) !== crc32(m[2])) {
      badLines++
      continue
    }
    try {
      const e = JSON.parse(m[2]) as HistoryEntry
      if (e?.v !== HISTORY_FORMAT || typeof e.at !== 'string' || typeof e.topics !== 'object' || Number.isNaN(Date.parse(e.at))) {
        badLines++
        continue
      }
      entries.push({...e, deletedTopics: e.deletedTopics ?? [], groups: e.groups ?? {}})
    } catch {
      badLines++
    }
  }
  return {entries, badLines}
}

/** The state after a run of entries (used to compute the next delta). */
export interface HistoryState {
  brokers: Array<{id: number; rack: string | null}> | undefined
  topics: Map<string, TopicObservation>
  groups: Map<string, GroupObservation>
}

export function foldState(entries: readonly HistoryEntry[]): HistoryState {
  const s: HistoryState = {brokers: undefined, topics: new Map(), groups: new Map()}
  for (const e of entries) applyEntry(s, e)
  return s
}

export function applyEntry(s: HistoryState, e: HistoryEntry): void {
  if (e.full) {
    s.topics.clear()
    s.groups.clear()
  }
  if (e.brokers) s.brokers = e.brokers
  for (const name of e.deletedTopics) s.topics.delete(name)
  for (const [name, t] of Object.entries(e.topics)) s.topics.set(name, t)
  for (const [id, g] of Object.entries(e.groups)) s.groups.set(id, g)
}

/** The entry to append: everything when `previous` is undefined (a new segment), else what changed. */
export function makeEntry(
  at: string,
  clusterId: string,
  now: {brokers: Array<{id: number; rack: string | null}>; topics: Map<string, TopicObservation>; groups: Map<string, GroupObservation>},
  previous: HistoryState | undefined,
): HistoryEntry {
  const full = previous === undefined
  const entry: HistoryEntry = {v: HISTORY_FORMAT, at, clusterId, full, topics: {}, deletedTopics: [], groups: {}}
  const brokers = [...now.brokers].sort((a, b) => a.id - b.id)
  if (full || JSON.stringify(previous.brokers) !== JSON.stringify(brokers)) entry.brokers = brokers
  for (const [name, t] of [...now.topics].sort(([a], [b]) => compare(a, b))) {
    const p = previous?.topics.get(name)
    if (
      !p ||
      p.id !== t.id ||
      p.partitions !== t.partitions ||
      p.hash !== t.hash ||
      p.racks.join('\u0000') !== t.racks.join('\u0000') ||
      JSON.stringify(p.replicas ?? null) !== JSON.stringify(t.replicas ?? null)
    )
      entry.topics[name] = t
  }
  if (previous) for (const name of previous.topics.keys()) if (!now.topics.has(name)) entry.deletedTopics.push(name)
  for (const [id, g] of now.groups) {
    const p = previous?.groups.get(id)
    if (!p || p.epoch !== g.epoch || p.hash !== g.hash || p.type !== g.type) entry.groups[id] = g
  }
  return entry
}

export function segmentName(at: Date): string {
  return `history-${at.toISOString().slice(0, 10)}.ndjson`
}

export function segmentDay(name: string): number | undefined {
  const m = /^history-(\d{4}-\d{2}-\d{2})\.ndjson$/.exec(name)
  return m ? Date.parse(`${m[1]}T00:00:00Z`) : undefined
}

/** `--history-retention 30d`: a duration (d, h, w) in ms. */
export function parseRetention(text: string): number {
  const m = /^(\d+)(h|d|w)$/.exec(text.trim())
  if (!m || Number(m[1]) === 0) throw new Error(`--history-retention "${text}": use a positive duration in hours, days or weeks, e.g. 30d, 12w, 48h`)
  return Number(m[1]) * {h: 3_600_000, d: 86_400_000, w: 604_800_000}[m[2] as 'h' | 'd' | 'w']
}

/** Segments entirely older than the retention (their whole day ended before now - retention). */
export function expiredSegments(names: readonly string[], now: number, retentionMs: number): string[] {
  return names.filter(n => {
    const day = segmentDay(n)
    return day !== undefined && day + 86_400_000 <= now - retentionMs
  })
}
