/**
 * Incremental audit: a `__consumer_offsets` partition's checkpoint is where the last audit stopped reading it
 * (the next offset, the last batch's offsets and leader epoch, the log start offset) and the reduced state of
 * its groups. The next audit resumes from it when it still fits the log: same cluster, the log start not past
 * it, the log not truncated below it, and the last batch still there with the same offsets and leader epoch
 * (else the leader epoch history diverged). Otherwise the partition is read in full and the reason reported.
 * Pure: text in, text out (the file is written atomically by src/sources/audit-checkpoint.ts).
 *
 * The cost of a run follows what changed: each group's state is kept as its own JSON text, parsed only when the
 * group has new records (or its audit row must be recomputed), and next to it the group's audit row as the last
 * run computed it (src/core/audit/row-cache.ts says when it can be reused). A quiet partition is then resumed
 * without rebuilding any group.
 *
 * Files: offsets-N.json, JSON lines: first {schema, clusterId, partition, keepEpochs, nextOffset, logStartOffset,
 * lastBatch, counters, rowsKey, statesFile: {generation, bytes, xxh64}, groups: count, xxh64}, then one line per group
 * [groupId, entry | null, stateText | null] (a cached row's entry: its facts, then a tab and its JSON; a line per
 * group so that a run rewrites only the lines of the groups that changed: the others are written back as read);
 * and offsets-N.states.json {schema, generation, groups: [[groupId, stateText]]} (encodeCheckpoint says which group
 * goes where); stateText is
 * a ReducerData in a tagged form: {"$n": "…"} a bigint, {"$b": base64} bytes, {"$m": [[k, v]]} a Map, {"$o": {…}}
 * an object with a key starting with "$".
 */
import {Xxh64, xxh64} from '@node-rs/xxhash'
import type {ReducerData} from '../replay/index.js'
import type {CachedEntry} from './row-cache.js'
import {FactsPool, factsOf, StoredRow} from './stored-row.js'

// v6: a group's state carries its cost fold's (`cost`); a v5 file is read in full once, so rows get their costs
export const CHECKPOINT_SCHEMA = 'rebalance-doctor/audit-checkpoint-v6'

export interface BatchMark {
  readonly baseOffset: bigint
  readonly lastOffset: bigint
  readonly leaderEpoch: number
}

export interface ScanCounters {
  recordsScanned: number
  offsetCommitsSkipped: number
  decodeErrors: number
  batches: number
}

export interface PartitionCheckpoint {
  readonly clusterId: string
  readonly partition: number
  /** Bumps kept per group: a checkpoint made with another value does not fit. */
  readonly keepEpochs: number
  /** The offset after the last batch read (the read's end offset). */
  readonly nextOffset: bigint
  readonly logStartOffset: bigint
  /** The last batch read; null when the partition had none. */
  readonly lastBatch: BatchMark | null
  /** Totals since the partition was last read in full (the audit reports them as if it had been now). */
  readonly counters: ScanCounters
  /** What the cached rows were computed with (rowCacheKey: the tool's version, --stuck-after); null: no rows. */
  readonly rowsKey: string | null
  /** The states file the groups kept there refer to (its generation and size); null: none yet. */
  readonly statesFile?: StatesFile | null
  readonly groups: ReadonlyArray<readonly [string, StoredGroup]>
}

export interface StatesFile {
  readonly generation: string
  readonly bytes: number
  /** The xxh64 of the states file's UTF-8 bytes (decimal): a state damaged on disk is not taken for one. */
  readonly xxh64: string
}

/** A group as a checkpoint keeps it: its reducer state as text (encodeGroupData) and its cached audit entry. */
export interface StoredGroup {
  /** The state's text; null for a group kept in the partition's second file (a group with a cached entry), read only when needed: `cold`. */
  readonly data: string | null
  /** The text of a group's state kept in the second file (one function per file read: no closure per group). */
  readonly cold?: (groupId: string) => string
  /** The group's audit entry for this very state (row-cache.ts), or null when none can be reused. Not trusted: reuseEntry checks it. */
  readonly row: CachedEntry | null
  /**
   * The group's line as read from the header, newline included (decodeCheckpoint): bytes [lineStart, lineEnd) of
   * `lineIn`, written back as these very bytes while `data` and `row` are those read (no re-encoding of the thousands
   * of groups a run did not change). Offsets rather than a view per line: fewer objects kept through a run.
   */
  readonly lineIn?: Uint8Array
  readonly lineStart?: number
  readonly lineEnd?: number
}

/** A stored group whose line, as read, is at hand. */
type ReadLine = StoredGroup & {readonly lineIn: Uint8Array; readonly lineStart: number; readonly lineEnd: number}
const wasRead = (g: StoredGroup): g is ReadLine => g.lineIn !== undefined && g.lineStart !== undefined && g.lineEnd !== undefined

/** The state text of stored group `id` (reads the second file the first time one of its groups needs it). */
export function stateText(id: string, g: StoredGroup): string {
  if (g.data !== null) return g.data
  if (!g.cold) throw new Error(`the state of group ${JSON.stringify(id)} is not at hand`)
  return g.cold(id)
}

function tag(v: unknown): unknown {
  if (typeof v === 'bigint') return {$n: v.toString()}
  if (v instanceof Uint8Array) return {$b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')}
  if (v instanceof Map) return {$m: [...v].map(([k, x]) => [tag(k), tag(x)])}
  if (Array.isArray(v)) return v.map(tag)
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    let dollar = false
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue
      if (k.startsWith('$')) dollar = true
      out[k] = tag(x)
    }
    return dollar ? {$o: out} : out
  }
  return v
}

function untag(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(untag)
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    if (typeof o.$n === 'string') return BigInt(o.$n)
    if (typeof o.$b === 'string') return new Uint8Array(Buffer.from(o.$b, 'base64'))
    if (Array.isArray(o.$m)) return new Map((o.$m as unknown[][]).map(([k, x]) => [untag(k), untag(x)]))
    const src = (o.$o && typeof o.$o === 'object' ? o.$o : o) as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(src)) out[k] = untag(x)
    return out
  }
  return v
}

/** A group's state as a checkpoint keeps it: the reducer's, and its cost fold's (audit rows' costs; none: not measured). */
export type StoredData = ReducerData & {readonly cost?: unknown}

/** A group's reducer state (and cost fold state: CostTracker.save) as the text a checkpoint keeps. */
export function encodeGroupData(data: ReducerData, cost?: unknown): string {
  return JSON.stringify(tag(cost === undefined ? data : {...data, cost}))
}

/** The reducer state in `text` (encodeGroupData); throws naming the group when it is damaged or of another shape. */
export function decodeGroupData(text: string, groupId: string): StoredData {
  let d: StoredData
  try {
    d = untag(JSON.parse(text)) as StoredData
  } catch (error) {
    throw new Error(`the state of group ${JSON.stringify(groupId)} is damaged (${(error as Error).message})`)
  }
  if (!d || typeof d !== 'object' || !stateFits(d.state, groupId) || !Array.isArray(d.skipped) || !Array.isArray(d.recent)) {
    throw new Error(`the state of group ${JSON.stringify(groupId)} is damaged (fields missing or of the wrong type)`)
  }
  return d
}

/**
 * The checkpoint as the texts of its files. The header holds where the read stopped, each group's cached entry, and
 * the state of every group without one (rebuilt every run) or changed since the states file was written; the states
 * file holds the states of the groups with a cached entry, needed only when they get new records. A quiet partition
 * is resumed from the header alone, and a changed one rewrites only its header, until the states kept in the header
 * for cached groups outgrow half the states file (or 256 KiB): then `states` is the new states file, of `generation`,
 * to be written before the header. `states` undefined: the existing states file stays. A header always names the
 * generation of the states file it refers to: after a crash between the two writes it refers to one that is gone.
 *
 * A group's line is [groupId, entry, stateText | null] where entry is null (none), {"deleted": true}, or the facts
 * of a cached row (stored-row.ts Facts) followed by a tab and the row's JSON: the row is read back as that text and
 * parsed only if something needs it whole (a tab never occurs raw in JSON text). The first line's xxh64 (a 64-bit
 * xxHash, as a decimal string, its last member) covers that line's other fields and every byte after it: a row's
 * text goes to --json as read, and the header's counters are carried into every later run, so neither a line nor a
 * counter damaged on disk may be taken for one (v4 files covered only the lines: a v5 reader reads them in full once).
 */
export function encodeCheckpoint(cp: PartitionCheckpoint, generation: string): {header: Uint8Array[]; states: string | undefined; statesFile: StatesFile} {
  const {groups, statesFile, ...rest} = cp
  let inline = 0
  for (const [, g] of groups) if (g.row !== null && typeof g.data === 'string') inline += g.data.length
  const compact = !statesFile || inline > Math.max(statesFile.bytes / 2, 256 * 1024)
  const cold: Array<[string, string]> = []
  const lines = groups.map(([id, g]) => {
    if (g.row === null) return groupLine(id, null, stateText(id, g))
    if (compact) {
      cold.push([id, stateText(id, g)])
      return groupLine(id, g.row, null)
    }
    // kept where it is: in the states file (not read this run), or in the header (changed since it was written)
    return wasRead(g) ? g : groupLine(id, g.row, typeof g.data === 'string' ? g.data : null)
  })
  const states = compact ? JSON.stringify({schema: STATES_SCHEMA, generation, groups: cold}) : undefined
  const file: StatesFile = states === undefined ? statesFile! : {generation, bytes: states.length, xxh64: xxh64(Buffer.from(states, 'utf8')).toString()}
  // the file's bytes in pieces, written one after the other: joining them first cost a copy of the whole file
  const body = coalesce(lines)
  // the groups' texts are strings already: only the header's own fields are tagged
  const fields = JSON.stringify({schema: CHECKPOINT_SCHEMA, ...(tag(rest) as object), statesFile: file, groups: lines.length})
  // the sum covers the first line's own fields too (its text without the sum: see firstLineSum), then the lines
  const sum = new Xxh64()
  sum.update(Buffer.from(`${fields}\n`, 'utf8'))
  for (const piece of body) sum.update(piece)
  const first = `${fields.slice(0, -1)},"xxh64":"${sum.digest().toString()}"}`
  return {header: [Buffer.from(`${first}\n`, 'utf8'), ...body], states, statesFile: file}
}

const NEWLINE = Buffer.from('\n')

/** A group's line: [id, entry, state], and for a cached row its facts in place of the entry, a tab and its JSON. */
function groupLine(id: string, entry: CachedEntry | null, state: string | null): Uint8Array {
  if (entry === null || entry.deleted) return Buffer.from(`${JSON.stringify([id, entry === null ? null : {deleted: true}, state])}\n`, 'utf8')
  const head = `${JSON.stringify([id, factsOf(entry.type, entry.row), state])}\t`
  const row = entry.row
  // a row read back is written back as read
  if (row instanceof StoredRow) return Buffer.concat([Buffer.from(head, 'utf8'), row.text, NEWLINE])
  return Buffer.from(`${head}${JSON.stringify(row)}\n`, 'utf8')
}

/**
 * The lines in as few views as they allow: lines written back as read are consecutive slices of the file read, taken
 * as one view per run of them (no view per line: a run keeps thousands of lines as they were).
 */
function coalesce(parts: ReadonlyArray<Uint8Array | ReadLine>): Uint8Array[] {
  const out: Uint8Array[] = []
  // the run being joined: bytes [start, end) of `buffer` (an encoded line is a run of its own)
  let buffer: ArrayBufferLike | undefined
  let start = 0
  let end = 0
  for (const p of parts) {
    const b = p instanceof Uint8Array ? p.buffer : p.lineIn.buffer
    const from = p instanceof Uint8Array ? p.byteOffset : p.lineIn.byteOffset + p.lineStart
    const to = p instanceof Uint8Array ? p.byteOffset + p.byteLength : p.lineIn.byteOffset + p.lineEnd
    if (buffer === b && end === from) end = to
    else {
      if (buffer) out.push(new Uint8Array(buffer, start, end - start))
      buffer = b
      start = from
      end = to
    }
  }
  if (buffer) out.push(new Uint8Array(buffer, start, end - start))
  return out
}

export const STATES_SCHEMA = 'rebalance-doctor/audit-checkpoint-states-v1'

/**
 * The checkpoint in `header`, or a reason it cannot be used (another schema, damaged). `states()` gives the second
 * file's text: called at most once, when a group kept there is first needed; a states file that is missing,
 * damaged or of another generation makes that group's state throw (the partition is then read in full).
 * Each group's line is parsed up to its row's text (kept as bytes: stored-row.ts).
 */
export function decodeCheckpoint(header: Uint8Array | string, states: () => string): PartitionCheckpoint | {error: string} {
  const bytes = typeof header === 'string' ? Buffer.from(header, 'utf8') : Buffer.from(header.buffer, header.byteOffset, header.byteLength)
  const firstEnd = bytes.indexOf(0x0a)
  if (firstEnd < 0) return {error: 'damaged (its last line is incomplete)'}
  let doc: Record<string, unknown>
  try {
    doc = JSON.parse(bytes.toString('utf8', 0, firstEnd))
  } catch (error) {
    return {error: `not JSON lines (${(error as Error).message})`}
  }
  if (!doc || typeof doc !== 'object' || doc.schema !== CHECKPOINT_SCHEMA) return {error: `not a ${CHECKPOINT_SCHEMA} file`}
  if (bytes[bytes.length - 1] !== 0x0a) return {error: 'damaged (its last line is incomplete)'}
  const {groups: count, schema: _, statesFile, xxh64: sum, ...rest} = doc
  // (xxHash, already loaded for topic hashes: zlib's crc32 cost ~18 ms to set up on its first call)
  if (sum !== checkpointSum(bytes, firstEnd)) return {error: 'damaged (its checksum does not match its lines)'}
  let cp: Omit<PartitionCheckpoint, 'groups'>
  try {
    cp = untag(rest) as Omit<PartitionCheckpoint, 'groups'>
  } catch (error) {
    return {error: `damaged (${(error as Error).message})`}
  }
  const ok =
    typeof cp.clusterId === 'string' &&
    Number.isInteger(cp.partition) &&
    Number.isInteger(cp.keepEpochs) &&
    typeof cp.nextOffset === 'bigint' &&
    typeof cp.logStartOffset === 'bigint' &&
    !!statesFile &&
    typeof statesFile === 'object' &&
    typeof (statesFile as StatesFile).generation === 'string' &&
    Number.isInteger((statesFile as StatesFile).bytes) &&
    typeof (statesFile as StatesFile).xxh64 === 'string' &&
    (cp.lastBatch === null ||
      (typeof cp.lastBatch?.baseOffset === 'bigint' && typeof cp.lastBatch.lastOffset === 'bigint' && Number.isInteger(cp.lastBatch.leaderEpoch))) &&
    cp.counters !== null &&
    typeof cp.counters === 'object' &&
    (cp.rowsKey === null || typeof cp.rowsKey === 'string')
  if (!ok) return {error: 'damaged (fields missing or of the wrong type)'}
  const {generation, xxh64: statesSum} = statesFile as StatesFile
  let cold: Map<string, string> | undefined
  const coldState = (id: string): string => {
    if (!cold) {
      let d: {schema?: unknown; generation?: unknown; groups?: unknown}
      try {
        const text = states()
        if (xxh64(Buffer.from(text, 'utf8')).toString() !== statesSum) throw new Error('its checksum does not match')
        d = JSON.parse(text)
      } catch (error) {
        throw new Error(`its states file cannot be read (${(error as Error).message})`)
      }
      if (d?.schema !== STATES_SCHEMA || d.generation !== generation || !Array.isArray(d.groups))
        throw new Error('its states file is damaged or of another write')
      cold = new Map((d.groups as unknown[]).filter((g): g is [string, string] => Array.isArray(g) && typeof g[0] === 'string' && typeof g[1] === 'string'))
    }
    const text = cold.get(id)
    if (text === undefined) throw new Error(`the state of group ${JSON.stringify(id)} is not in its states file`)
    return text
  }
  const groups: Array<readonly [string, StoredGroup]> = []
  const pool = new FactsPool()
  // the next tab at or after a line's start (-1: none left): found once per row, not once per line
  let tab = -2
  for (let at = firstEnd + 1; at < bytes.length; ) {
    const nl = bytes.indexOf(0x0a, at)
    if (tab !== -1 && tab < at) tab = bytes.indexOf(0x09, at)
    const end = tab !== -1 && tab < nl ? tab : nl
    let g: unknown
    try {
      g = JSON.parse(bytes.toString('utf8', at, end))
    } catch (error) {
      return {error: `not JSON lines (${(error as Error).message})`}
    }
    // [id, entry, state]: a state, an entry, or both (no state: it is in the states file); each state is checked
    // when it is parsed (decodeGroupData), each row's facts here (stored-row.ts), its text by the checksum
    if (!Array.isArray(g) || g.length !== 3 || typeof g[0] !== 'string' || (g[2] !== null && typeof g[2] !== 'string') || (g[1] === null && g[2] === null))
      return {error: 'damaged (a group line of the wrong shape)'}
    const [id, entry, data] = g as [string, unknown, string | null]
    let row: CachedEntry | null
    if (Array.isArray(entry)) {
      const stored = end < nl ? StoredRow.of(id, entry, bytes, end + 1, nl, pool) : undefined
      if (!stored) return {error: `damaged (the cached row of group ${JSON.stringify(id)} is of the wrong shape)`}
      row = {type: stored.entryType, row: stored}
    } else if (end < nl || (entry !== null && (typeof entry !== 'object' || (entry as {deleted?: unknown}).deleted !== true))) {
      return {error: 'damaged (a group line of the wrong shape)'}
    } else row = entry as CachedEntry | null
    groups.push([id, {data, cold: coldState, row, lineIn: bytes, lineStart: at, lineEnd: nl + 1}] as const)
    at = nl + 1
  }
  if (count !== groups.length) return {error: `damaged (${groups.length} group lines, its first line says ${String(count)})`}
  return {...cp, statesFile: statesFile as StatesFile, groups}
}

/**
 * The xxh64 of a header file as encodeCheckpoint computes it: its first line's text without the `"xxh64"` member it
 * ends with, then every byte after it (from the newline). Undefined when the first line does not end with one.
 * Covering the first line matters: its counters (decodeErrors, recordsScanned) are carried into every later run.
 */
function checkpointSum(bytes: Buffer, firstEnd: number): string | undefined {
  const first = bytes.toString('utf8', 0, firstEnd)
  const at = first.lastIndexOf(',"xxh64":"')
  if (at < 0 || !/^,"xxh64":"\d+"\}$/.test(first.slice(at))) return undefined
  const sum = new Xxh64()
  sum.update(Buffer.from(`${first.slice(0, at)}}`, 'utf8'))
  sum.update(bytes.subarray(firstEnd))
  return sum.digest().toString()
}

/** A group state's skeleton: its id, each section null or an object (the modern ones with their maps). */
function stateFits(state: unknown, groupId: string): boolean {
  if (!state || typeof state !== 'object') return false
  const s = state as Record<string, unknown>
  const section = (k: string, modern: boolean) => {
    const v = s[k]
    if (v === null) return true
    if (!v || typeof v !== 'object') return false
    const o = v as Record<string, unknown>
    return !modern || (o.members instanceof Map && typeof o.metadataHash === 'bigint')
  }
  return (
    s.groupId === groupId &&
    s.offsets instanceof Map &&
    section('consumer', true) &&
    section('share', true) &&
    section('streams', true) &&
    section('classic', false)
  )
}

/** Why `cp` cannot be resumed against the partition as it is now, or undefined when it fits (before reading). */
export function checkpointMisfit(cp: PartitionCheckpoint, now: {clusterId: string; partition: number; keepEpochs: number}): string | undefined {
  if (cp.clusterId !== now.clusterId) return `it was made on another cluster (${cp.clusterId})`
  if (cp.partition !== now.partition) return `it belongs to partition ${cp.partition}`
  if (cp.keepEpochs !== now.keepEpochs) return `it keeps ${cp.keepEpochs} bumps per group, not ${now.keepEpochs}`
  return undefined
}

/** Where to read from to resume `cp`: its last batch again (to check it is still the same), else its next offset. */
export function resumeOffset(cp: PartitionCheckpoint): bigint {
  return cp.lastBatch?.baseOffset ?? cp.nextOffset
}

/** The first batch of a read from resumeOffset(cp): why it does not continue the checkpoint, or undefined. */
export function firstBatchMisfit(cp: PartitionCheckpoint, got: BatchMark): string | undefined {
  const want = cp.lastBatch
  if (want === null) return got.baseOffset < cp.nextOffset ? `a batch at ${got.baseOffset} is below the checkpoint (${cp.nextOffset})` : undefined
  if (got.baseOffset !== want.baseOffset || got.lastOffset !== want.lastOffset || got.leaderEpoch !== want.leaderEpoch) {
    return `the batch at offset ${want.baseOffset} is not the one read before (offsets ${got.baseOffset}..${got.lastOffset}, leader epoch ${got.leaderEpoch}; was ${want.baseOffset}..${want.lastOffset}, leader epoch ${want.leaderEpoch}): the log start moved past it or the log diverged`
  }
  return undefined
}

/** After the read: why it does not continue the checkpoint, or undefined when it does. */
export function readMisfit(cp: PartitionCheckpoint, read: {logStartOffset: bigint; endOffset: bigint; firstBatch: BatchMark | undefined}): string | undefined {
  if (read.logStartOffset > cp.nextOffset) return `the log start offset (${read.logStartOffset}) moved past the checkpoint (${cp.nextOffset})`
  if (read.endOffset < cp.nextOffset) return `the log ends at ${read.endOffset}, before the checkpoint (${cp.nextOffset}): truncated`
  if (cp.lastBatch !== null && read.firstBatch === undefined) return `the checkpoint's last batch (offset ${cp.lastBatch.baseOffset}) is gone`
  return undefined
}
