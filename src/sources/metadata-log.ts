/**
 * Reads a KRaft metadata log directory (`__cluster_metadata-0`, or a directory holding it) given by the user:
 * `<offset>.log` segments and `<offset>-<epoch>.checkpoint` snapshots, both record batches (magic v2). Strictly
 * read-only (every file is opened with 'r'), streamed in bounded chunks (a batch that claims more bytes than
 * the last segment still holds is a partial last batch of a live file: tolerated and reported). Starts from a
 * snapshot (or from offset 0 when the log still has it) and replays the segments after it into a MetadataReplay.
 * Every batch's CRC-32C is checked; damage (a CRC mismatch, a batch length that cannot be, an undecodable batch or
 * record, an incomplete batch before the last segment's end) or a gap in the offsets stops the replay there: what
 * was read before it is exact, and `damage` says where and why nothing after it is.
 */
import {basename} from 'node:path'
import {InputError} from '../core/errors.js'
import type {LogDamage, MetadataLogSource} from '../core/explain/evidence/recorded.js'
import type {LogBatch} from '../core/log/batch.js'
import type {MetadataLogView} from '../core/metadata-log/attribute.js'
import {MetadataReplay, type ReplayOptions} from '../core/metadata-log/replay.js'
import {
  type FileReadInfo,
  isRemoved,
  listMetadataLog,
  type MetadataLogFiles,
  assertMetadataBatch,
  READ_ATTEMPTS,
  readBatchFile,
  removedOnEveryAttempt,
  type SnapshotFile,
  snapshotHeaderTimestamp,
  snapshotTimestamp,
} from './metadata-log-files.js'

// Listing and reading the files moved to ./metadata-log-files.ts; importers keep these names from here.
export {
  type FileReadInfo,
  isDirectory,
  listMetadataLog,
  METADATA_PARTITION_DIR,
  type MetadataLogFiles,
  readBatchFile,
  type SegmentFile,
  type SnapshotFile,
} from './metadata-log-files.js'

export type {LogDamage, MetadataLogSource} from '../core/explain/evidence/recorded.js'

export interface MetadataLogReplay {
  replay: MetadataReplay
  files: MetadataLogFiles
  /** The snapshot the image started from, or null when replayed from offset 0. */
  snapshot: SnapshotFile | null
  /** Where exact history begins: changes before it are not in this log. */
  historyStart: {offset: string; timestamp: number | null}
  segmentsRead: FileReadInfo[]
  partialTailBytes: number
  /** An incomplete batch at the end of the last segment (a live file copied mid-write): history ends before it. */
  partialTail: {file: string; byte: number; bytes: number} | null
  /** Damage or a gap: exact history ends before `damage.offset`; null when the log was read to its end (or the until bound). */
  damage: LogDamage | null
  /** Files removed while the directory was read (it was listed and read again): one line, for stderr and the JSON warnings. */
  notes: string[]
}

export interface ReadMetadataLogOptions extends ReplayOptions {
  /** 'earliest': the longest exact history (default); 'latest': the newest snapshot at or before the until bound. */
  start?: 'earliest' | 'latest'
}

async function readSnapshot(dir: string, snapshot: SnapshotFile): Promise<LogBatch[]> {
  const batches: LogBatch[] = []
  const info: FileReadInfo = {path: snapshot.path, bytes: 0, partialTailBytes: 0}
  for await (const chunk of readBatchFile(snapshot.path, info)) {
    for (const b of chunk) {
      assertMetadataBatch(dir, snapshot.path, b)
      batches.push(b)
    }
  }
  // A snapshot is written whole before it is named *.checkpoint: any damage leaves no exact image to start from.
  const bad =
    info.damage ??
    (info.partialTailBytes > 0 ? {byte: info.partialTailAt!, reason: `the last ${info.partialTailBytes} bytes are not a complete batch`} : undefined)
  if (bad)
    throw new InputError(
      `${snapshot.path}: the snapshot is damaged at byte ${bad.byte}: ${bad.reason}`,
      'Copy the directory again from a healthy broker or controller, or move this *.checkpoint out of the copy so that an older snapshot (or offset 0) is used.',
      'METADATA_LOG_CORRUPT',
    )
  return batches
}

/**
 * Replays the directory. A listed snapshot or segment removed before it is opened (a live directory: Kafka deletes
 * old ones as its log start advances) makes it list and read the directory again, from the oldest snapshot there
 * then; the last of READ_ATTEMPTS reads starts at the newest snapshot, which that cleanup never removes.
 */
export async function replayMetadataLog(dirArg: string, opts: ReadMetadataLogOptions = {}): Promise<MetadataLogReplay> {
  const removed: string[] = []
  for (let attempt = 1; ; attempt++) {
    const last = attempt === READ_ATTEMPTS
    try {
      const r = await replayOnce(dirArg, opts, last && removed.length > 0)
      return {...r, notes: removedNotes(r, removed, last)}
    } catch (error) {
      if (!isRemoved(error)) throw error
      if (last) throw removedOnEveryAttempt(dirArg, error.path)
      removed.push(error.path)
    }
  }
}

function removedNotes(r: Omit<MetadataLogReplay, 'notes'>, removed: readonly string[], fromNewest: boolean): string[] {
  if (removed.length === 0) return []
  const start = fromNewest
    ? `read again from the newest snapshot (${r.snapshot ? basename(r.snapshot.path) : 'none'}): history starts at offset ${r.historyStart.offset}, nothing before it was read`
    : `read again: history starts at offset ${r.historyStart.offset}`
  return [
    `${removed.map(p => basename(p)).join(', ')}: removed from ${r.files.dir} after it was listed (Kafka deletes old snapshots and segments as its log start advances); the directory was listed and ${start}.`,
  ]
}

async function replayOnce(dirArg: string, opts: ReadMetadataLogOptions, fromNewest: boolean): Promise<Omit<MetadataLogReplay, 'notes'>> {
  const files = await listMetadataLog(dirArg)
  const snapshot = await startingSnapshot(files, opts, fromNewest)
  const replay = new MetadataReplay(opts)
  if (snapshot) {
    const batches = await readSnapshot(files.dir, snapshot)
    // (the timestamp from the batches read, not a second open: the file may be removed by now)
    replay.loadSnapshot(batches, snapshot.endOffset, snapshotHeaderTimestamp(batches) ?? 0)
    const bad = replay.stats.decodeErrors[0]
    if (bad)
      throw new InputError(
        `${snapshot.path}: the snapshot's record at offset ${bad.offset} does not decode: ${bad.message}`,
        'Copy the directory again from a healthy broker or controller, or move this *.checkpoint out of the copy so that an older snapshot (or offset 0) is used.',
        'METADATA_LOG_CORRUPT',
      )
  }
  const from = snapshot?.endOffset ?? 0n
  const historyStart = {offset: from.toString(), timestamp: snapshot ? (replay.lastTimestamp ?? null) : null}
  const read = await replaySegments(files, replay, from)
  if (!snapshot) historyStart.timestamp = replay.firstTimestamp ?? null
  return {replay, files, snapshot, historyStart, ...read}
}

/**
 * The snapshot the replay starts from (null: offset 0); throws when the log does not start at 0 and none is there.
 * `newest`: the newest usable one, not the oldest (a directory whose older files are being removed while read).
 */
async function startingSnapshot(files: MetadataLogFiles, opts: ReadMetadataLogOptions, newest = false): Promise<SnapshotFile | null> {
  const logStart = files.segments[0]?.baseOffset
  // A snapshot is usable when the segments continue from it.
  const usable = files.snapshots.filter(s => logStart !== undefined && s.endOffset >= logStart)
  const fromZero = logStart === 0n
  let snapshot: SnapshotFile | null = null
  if (opts.start === 'latest' && (opts.untilOffset !== undefined || opts.untilTime !== undefined)) {
    for (const s of [...usable].reverse()) {
      if (opts.untilOffset !== undefined && s.endOffset > opts.untilOffset + 1n) continue
      if (opts.untilTime !== undefined) {
        const t = await snapshotTimestamp(s.path)
        if (t === undefined || t > opts.untilTime) continue
      }
      snapshot = s
      break
    }
  } else if (newest) {
    snapshot = usable[usable.length - 1] ?? null
  } else if (!fromZero) {
    snapshot = usable[0] ?? null
  }
  if (!snapshot && !fromZero) {
    // No segments continue from any snapshot: the newest snapshot alone is the image (no history).
    snapshot = files.snapshots[files.snapshots.length - 1] ?? null
    if (!snapshot)
      throw new InputError(
        `${files.dir}: the log starts at offset ${logStart} and there is no snapshot to start from`,
        'Copy the whole directory, including its *.checkpoint files.',
        'METADATA_LOG_INCOMPLETE',
      )
  }
  return snapshot
}

type SegmentsRead = Pick<MetadataLogReplay, 'segmentsRead' | 'partialTailBytes' | 'partialTail' | 'damage'>

/**
 * The segments' batches from `from` on, into the replay, until the replay is done, the log ends, or damage (a gap,
 * offsets going back, a record that does not decode, an incomplete batch before another segment) stops it.
 */
async function replaySegments(files: MetadataLogFiles, replay: MetadataReplay, from: bigint): Promise<SegmentsRead> {
  const out: {-readonly [K in keyof SegmentsRead]: SegmentsRead[K]} = {segmentsRead: [], partialTailBytes: 0, partialTail: null, damage: null}
  // The next offset the log must hold: a batch past it is a gap, one before it offsets going back.
  let expected = from
  const segs = files.segments
  for (let i = 0; i < segs.length && !replay.done; i++) {
    if (i + 1 < segs.length && segs[i + 1].baseOffset <= from) continue
    const seg = segs[i]
    if (seg.baseOffset > expected) {
      out.damage = {
        file: seg.path,
        byte: 0,
        offset: expected.toString(),
        reason: `offsets ${expected} to ${seg.baseOffset - 1n} are missing: this segment starts at ${seg.baseOffset}`,
      }
      break
    }
    const info: FileReadInfo = {path: seg.path, bytes: 0, partialTailBytes: 0}
    out.segmentsRead.push(info)
    for await (const chunk of readBatchFile(seg.path, info)) {
      for (let k = 0; k < chunk.length; k++) {
        const b = chunk[k]
        assertMetadataBatch(files.dir, seg.path, b)
        if (b.lastOffset < from) continue
        const byte = info.positions?.[k] ?? 0
        if (b.baseOffset > expected || (b.baseOffset < expected && b.baseOffset >= from) || b.lastOffset < b.baseOffset) {
          const reason =
            b.baseOffset > expected
              ? `offsets ${expected} to ${b.baseOffset - 1n} are missing: the batch there starts at ${b.baseOffset}`
              : `the batch there holds offsets ${b.baseOffset} to ${b.lastOffset}, not from ${expected} on`
          out.damage = {file: seg.path, byte, offset: expected.toString(), reason}
          return out
        }
        const batch = b.baseOffset < from ? {...b, records: b.records.filter(r => r.offset >= from)} : b
        const applied = replay.applyBatch(batch)
        if (replay.damage) {
          out.damage = {file: seg.path, byte, offset: replay.damage.offset.toString(), reason: `a record does not decode: ${replay.damage.message}`}
          return out
        }
        if (!applied) return out
        expected = b.lastOffset + 1n
      }
    }
    out.partialTailBytes += info.partialTailBytes
    if (info.damage) {
      out.damage = {file: seg.path, byte: info.damage.byte, offset: expected.toString(), reason: info.damage.reason}
      break
    }
    if (info.partialTailBytes > 0) {
      const tail = {file: seg.path, byte: info.partialTailAt!, bytes: info.partialTailBytes}
      // Only the last segment can be being written: an incomplete batch before another segment is damage.
      if (i + 1 < segs.length) {
        out.damage = {
          file: seg.path,
          byte: tail.byte,
          offset: expected.toString(),
          reason: `the last ${tail.bytes} bytes are not a complete batch (a damaged batch length?), and segment ${basename(segs[i + 1].path)} follows`,
        }
        break
      }
      out.partialTail = tail
    }
  }
  return out
}

export function metadataLogSourceInfo(r: MetadataLogReplay): MetadataLogSource {
  const rp = r.replay
  return {
    dir: r.files.dir,
    snapshot: r.snapshot ? {file: r.snapshot.path.slice(r.files.dir.length + 1), endOffset: r.snapshot.endOffset.toString()} : null,
    historyStart: {offset: r.historyStart.offset, time: r.historyStart.timestamp === null ? null : new Date(r.historyStart.timestamp).toISOString()},
    lastOffset: rp.lastOffset === undefined ? null : rp.lastOffset.toString(),
    lastTime: rp.lastTimestamp === undefined ? null : new Date(rp.lastTimestamp).toISOString(),
    segments: r.segmentsRead.length,
    records: rp.stats.records,
    skippedRecords: rp.stats.skippedByType,
    abortedTransactionRecords: rp.stats.abortedTransactionRecords,
    decodeErrors: rp.stats.decodeErrors,
    partialTailBytes: r.partialTailBytes,
    partialTail: r.partialTail,
    damage: r.damage,
  }
}

/** The view attribution works on: the hashes, the changes, and where exact history starts and (damage) ends. */
export function metadataLogView(r: MetadataLogReplay): MetadataLogView {
  return {
    hashes: r.replay.hashes,
    changes: r.replay.changes,
    historyStart: r.historyStart.timestamp,
    damage: r.damage && {offset: r.damage.offset, where: damageWhere(r.damage), lastTime: r.replay.lastTimestamp ?? null},
  }
}

/**
 * What a reader of the text must know about how far the log was read: damage or a gap (exact history ends there)
 * and an incomplete last batch; one line each, for stderr and the JSON warnings.
 */
export function metadataLogWarnings(s: Pick<MetadataLogSource, 'damage' | 'partialTail' | 'lastOffset' | 'lastTime'>): string[] {
  const out: string[] = []
  const end = s.lastOffset === null ? 'before its first record' : `at offset ${s.lastOffset}${s.lastTime === null ? '' : ` (${s.lastTime})`}`
  if (s.damage) {
    out.push(
      `metadata log damaged at offset ${s.damage.offset} (${damageWhere(s.damage)}): exact history ends ${end}, nothing after it was read. Try this: copy __cluster_metadata-0 again from another controller or broker (kafka-dump-log.sh --cluster-metadata-decoder shows the damage).`,
    )
  }
  if (s.partialTail) {
    out.push(
      `${s.partialTail.file}: the last ${s.partialTail.bytes} bytes (from byte ${s.partialTail.byte}) are not a complete batch (a file being written when copied, or damage): not read; history ends ${end}.`,
    )
  }
  return out
}

/** "FILE byte N: reason", for one line of text. */
export function damageWhere(d: LogDamage): string {
  return `${d.file} byte ${d.byte}: ${d.reason}`
}
