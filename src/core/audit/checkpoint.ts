/**
 * Incremental audit: a `__consumer_offsets` partition's checkpoint is where the last audit stopped reading it
 * (the next offset, the last batch's offsets and leader epoch, the log start offset) and the reduced state of
 * its groups. The next audit resumes from it when it still fits the log: same cluster, the log start not past
 * it, the log not truncated below it, and the last batch still there with the same offsets and leader epoch
 * (else the leader epoch history diverged). Otherwise the partition is read in full and the reason reported.
 * Pure: text in, text out (the file is written atomically by src/sources/audit-checkpoint.ts).
 *
 * File (JSON): {schema, clusterId, partition, keepEpochs, nextOffset, logStartOffset, lastBatch, counters,
 * groups: [[groupId, ReducerData]]}; ReducerData in a tagged form: {"$n": "…"} a bigint, {"$b": base64} bytes,
 * {"$m": [[k, v]]} a Map, {"$o": {…}} an object with a key starting with "$".
 */
import type {ReducerData} from '../replay/index.js'

export const CHECKPOINT_SCHEMA = 'rebalance-doctor/audit-checkpoint-v1'

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
  readonly groups: ReadonlyArray<readonly [string, ReducerData]>
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

export function encodeCheckpoint(cp: PartitionCheckpoint): string {
  return JSON.stringify({schema: CHECKPOINT_SCHEMA, ...(tag(cp) as object)})
}

/** The checkpoint in `text`, or a reason it cannot be used (another schema, damaged). */
export function decodeCheckpoint(text: string): PartitionCheckpoint | {error: string} {
  let doc: Record<string, unknown>
  try {
    doc = JSON.parse(text)
  } catch (error) {
    return {error: `not JSON (${(error as Error).message})`}
  }
  if (!doc || typeof doc !== 'object' || doc.schema !== CHECKPOINT_SCHEMA) return {error: `not a ${CHECKPOINT_SCHEMA} file`}
  let cp: PartitionCheckpoint & {schema?: string}
  try {
    cp = untag(doc) as PartitionCheckpoint & {schema?: string}
  } catch (error) {
    return {error: `damaged (${(error as Error).message})`}
  }
  delete cp.schema
  const ok = typeof cp.clusterId === 'string' && Number.isInteger(cp.partition) && Number.isInteger(cp.keepEpochs)
    && typeof cp.nextOffset === 'bigint' && typeof cp.logStartOffset === 'bigint' && Array.isArray(cp.groups)
    && (cp.lastBatch === null || (typeof cp.lastBatch?.baseOffset === 'bigint' && typeof cp.lastBatch.lastOffset === 'bigint' && Number.isInteger(cp.lastBatch.leaderEpoch)))
    && cp.counters !== null && typeof cp.counters === 'object'
    && cp.groups.every(g => Array.isArray(g) && typeof g[0] === 'string' && g[1] && typeof g[1] === 'object' && stateFits(g[1].state, g[0]) && Array.isArray(g[1].skipped) && Array.isArray(g[1].recent))
  return ok ? cp : {error: 'damaged (fields missing or of the wrong type)'}
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
  return s.groupId === groupId && s.offsets instanceof Map && section('consumer', true) && section('share', true) && section('streams', true) && section('classic', false)
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
