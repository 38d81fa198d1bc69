/**
 * Reads a KRaft metadata log directory (`__cluster_metadata-0`, or a directory holding it) given by the user:
 * `<offset>.log` segments and `<offset>-<epoch>.checkpoint` snapshots, both record batches (magic v2). Strictly
 * read-only (every file is opened with 'r'), streamed in bounded chunks (a batch that claims more bytes than
 * the file still holds is a partial last batch of a live file: tolerated and reported). Starts from a snapshot
 * (or from offset 0 when the log still has it) and replays the segments after it into a MetadataReplay.
 */
import {open, readdir, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {InputError, RuntimeError} from '../core/errors.js'
import type {LogBatch} from '../core/log/batch.js'
import {MetadataReplay, type ReplayOptions} from '../core/metadata-log/replay.js'
import {DecompressionLimitError, MAX_BATCH_ENV} from '../kafka/decompress.js'
import {loadDecompressor} from '../kafka/codecs.js'
import {type Decompress, type KeyFilter, parseRecordBatches} from '../kafka/record-batch.js'

export const METADATA_PARTITION_DIR = '__cluster_metadata-0'
const CHUNK = 1 << 20
/** Bytes of batches parsed into records at a time (a batch larger than this is parsed alone). */
const SLICE = 64 << 10
/** No metadata batch comes near this (controller batches are bounded by metadata.max.batch... ~8 MiB). */
const MAX_BATCH = 64 << 20

export interface SnapshotFile {
  readonly path: string
  /** The snapshot holds every record before this offset. */
  readonly endOffset: bigint
  readonly epoch: number
}

export interface SegmentFile {
  readonly path: string
  readonly baseOffset: bigint
}

export interface MetadataLogFiles {
  readonly dir: string
  readonly segments: readonly SegmentFile[]
  readonly snapshots: readonly SnapshotFile[]
}

export async function listMetadataLog(dirArg: string): Promise<MetadataLogFiles> {
  let names: string[]
  let dir = dirArg
  try {
    names = await readdir(dir)
    if (!names.some(n => n.endsWith('.log') || n.endsWith('.checkpoint')) && names.includes(METADATA_PARTITION_DIR)) {
      dir = join(dir, METADATA_PARTITION_DIR)
      names = await readdir(dir)
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new InputError(`metadata log directory ${dirArg} does not exist`, `Give the ${METADATA_PARTITION_DIR} directory from a broker's or controller's metadata.log.dir (or first log.dirs entry), or a copy of it.`, 'NO_METADATA_LOG')
    if (code === 'ENOTDIR') throw new InputError(`${dirArg} is not a directory`, `Give the ${METADATA_PARTITION_DIR} directory, not a file in it.`, 'NO_METADATA_LOG')
    if (code === 'EACCES') throw new InputError(`metadata log directory ${dirArg} cannot be read (permission denied)`, 'Run as a user that can read it, or copy the directory.', 'NO_METADATA_LOG')
    throw error
  }
  const segments: SegmentFile[] = []
  const snapshots: SnapshotFile[] = []
  for (const n of names) {
    let m = /^(\d{20})\.log$/.exec(n)
    if (m) segments.push({path: join(dir, n), baseOffset: BigInt(m[1])})
    m = /^(\d{20})-(\d{10})\.checkpoint$/.exec(n)
    if (m) snapshots.push({path: join(dir, n), endOffset: BigInt(m[1]), epoch: Number(m[2])})
  }
  if (segments.length === 0 && snapshots.length === 0) {
    throw new InputError(`${dirArg} holds no metadata log segments (*.log) or snapshots (*.checkpoint)`, `Give the ${METADATA_PARTITION_DIR} directory from a broker's or controller's metadata.log.dir.`, 'NO_METADATA_LOG')
  }
  const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0)
  segments.sort((a, b) => cmp(a.baseOffset, b.baseOffset))
  snapshots.sort((a, b) => cmp(a.endOffset, b.endOffset) || a.epoch - b.epoch)
  return {dir, segments, snapshots}
}

/**
 * Every codec Kafka writes (KRaft writes metadata uncompressed by default, but a copied or hostile file may hold
 * any), bounded like the live reader's: a small batch cannot inflate without limit.
 */
let decompressor: Promise<Decompress> | undefined
const batchDecompressor = () => (decompressor ??= loadDecompressor())

export interface FileReadInfo {
  path: string
  bytes: number
  /** Bytes of an incomplete last batch (a live file being appended to): skipped. */
  partialTailBytes: number
}

/** The batches of a chunk; a batch that does not decompress is an error naming the file and where. */
function parseBatches(path: string, at: number, chunk: Buffer, decompress: Decompress, keepKey?: KeyFilter): LogBatch[] {
  try {
    return parseRecordBatches(chunk, decompress, keepKey).batches
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (error instanceof DecompressionLimitError) {
      throw new RuntimeError(`${path}: a batch after byte ${at}: ${message}`, `Raise ${MAX_BATCH_ENV} if the file is trusted and the batch really is that large.`, 'METADATA_LOG_COMPRESSION')
    }
    throw new RuntimeError(`${path}: a batch after byte ${at} does not decode: ${message}`, 'The file is corrupt or not a Kafka log segment.', 'METADATA_LOG_CORRUPT')
  }
}

/** Streams the complete batches of one file, one chunk at a time (`keepKey`: only those data records). */
export async function* readBatchFile(path: string, info?: FileReadInfo, keepKey?: KeyFilter): AsyncGenerator<LogBatch[]> {
  const fh = await open(path, 'r')
  try {
    const size = (await fh.stat()).size
    if (info) info.bytes = size
    const decompress = await batchDecompressor()
    let buf = Buffer.allocUnsafe(CHUNK)
    let filled = 0
    let filePos = 0
    for (;;) {
      if (filled < buf.length && filePos < size) {
        const {bytesRead} = await fh.read(buf, filled, Math.min(buf.length - filled, size - filePos), filePos)
        filled += bytesRead
        filePos += bytesRead
        if (bytesRead === 0) break
      }
      // The complete batches in the buffer.
      let end = 0
      while (filled - end >= 12) {
        const len = buf.readInt32BE(end + 8)
        if (len < 49) throw new RuntimeError(`${path}: a batch at byte ${filePos - filled + end} claims length ${len}, less than a batch header`, 'The file is corrupt or not a Kafka log segment.', 'METADATA_LOG_CORRUPT')
        if (end + 12 + len > filled) break
        end += 12 + len
      }
      if (end > 0) {
        // Parsed a slice of at most SLICE bytes at a time: the records of a whole chunk, alive together while the
        // caller works through them, would outlive young-generation GCs and pile up in the old space as garbage.
        for (let from = 0; from < end; ) {
          let to = from + 12 + buf.readInt32BE(from + 8)
          while (to < end && to + 12 + buf.readInt32BE(to + 8) - from <= SLICE) to += 12 + buf.readInt32BE(to + 8)
          yield parseBatches(path, filePos - filled + from, buf.subarray(from, to), decompress, keepKey)
          from = to
        }
        // A new buffer, not a copy within this one: the records yielded are views into it, and a caller may keep
        // them (a snapshot's batches are all kept until it is loaded).
        const next = Buffer.allocUnsafe(buf.length)
        buf.copy(next, 0, end, filled)
        buf = next
        filled -= end
        continue
      }
      if (filePos >= size) break
      // One batch larger than the buffer: grow to it, unless it claims more than the file holds.
      const need = 12 + buf.readInt32BE(8)
      if (filled >= 12 && need > buf.length) {
        if (need > MAX_BATCH || need - filled > size - filePos) break
        const bigger = Buffer.allocUnsafe(need)
        buf.copy(bigger, 0, 0, filled)
        buf = bigger
      }
    }
    if (info) info.partialTailBytes = filled
  } finally {
    await fh.close()
  }
}

/** LastContainedLogTimestamp from a snapshot's header control record (SnapshotHeaderRecord), if readable. */
async function snapshotTimestamp(path: string): Promise<number | undefined> {
  for await (const batches of readBatchFile(path)) {
    const r = batches[0]?.records[0]
    if (batches[0]?.isControl && r?.key && r.key.length >= 4 && ((r.key[2] << 8) | r.key[3]) === 3 && r.value && r.value.length >= 10) {
      return Number(Buffer.from(r.value.buffer, r.value.byteOffset, r.value.length).readBigInt64BE(2))
    }
    return undefined
  }
  return undefined
}

export interface MetadataLogReplay {
  replay: MetadataReplay
  files: MetadataLogFiles
  /** The snapshot the image started from, or null when replayed from offset 0. */
  snapshot: SnapshotFile | null
  /** Where exact history begins: changes before it are not in this log. */
  historyStart: {offset: string; timestamp: number | null}
  segmentsRead: FileReadInfo[]
  partialTailBytes: number
}

export interface ReadMetadataLogOptions extends ReplayOptions {
  /** 'earliest': the longest exact history (default); 'latest': the newest snapshot at or before the until bound. */
  start?: 'earliest' | 'latest'
}

export async function replayMetadataLog(dirArg: string, opts: ReadMetadataLogOptions = {}): Promise<MetadataLogReplay> {
  const files = await listMetadataLog(dirArg)
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
  } else if (!fromZero) {
    snapshot = usable[0] ?? null
  }
  if (!snapshot && !fromZero) {
    // No segments continue from any snapshot: the newest snapshot alone is the image (no history).
    snapshot = files.snapshots[files.snapshots.length - 1] ?? null
    if (!snapshot) throw new InputError(`${files.dir}: the log starts at offset ${logStart} and there is no snapshot to start from`, 'Copy the whole directory, including its *.checkpoint files.', 'METADATA_LOG_INCOMPLETE')
  }
  const replay = new MetadataReplay(opts)
  if (snapshot) {
    const batches: LogBatch[] = []
    for await (const chunk of readBatchFile(snapshot.path)) for (const b of chunk) batches.push(b)
    replay.loadSnapshot(batches, snapshot.endOffset, (await snapshotTimestamp(snapshot.path)) ?? 0)
  }
  const from = snapshot?.endOffset ?? 0n
  const historyStart = {offset: from.toString(), timestamp: snapshot ? replay.lastTimestamp ?? null : null}
  const segmentsRead: FileReadInfo[] = []
  let partialTailBytes = 0
  const segs = files.segments
  for (let i = 0; i < segs.length && !replay.done; i++) {
    if (i + 1 < segs.length && segs[i + 1].baseOffset <= from) continue
    const info: FileReadInfo = {path: segs[i].path, bytes: 0, partialTailBytes: 0}
    segmentsRead.push(info)
    outer: for await (const chunk of readBatchFile(segs[i].path, info)) {
      for (const b of chunk) {
        if (b.lastOffset < from) continue
        const batch = b.baseOffset < from ? {...b, records: b.records.filter(r => r.offset >= from)} : b
        if (!replay.applyBatch(batch)) break outer
      }
    }
    partialTailBytes += info.partialTailBytes
  }
  if (!snapshot) historyStart.timestamp = replay.firstTimestamp ?? null
  return {replay, files, snapshot, historyStart, segmentsRead, partialTailBytes}
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}

/** What was read, for --json outputs (`source`). */
/** Where a metadata log's history came from and how much of it was read (the `source` of `cluster history`). */
export interface MetadataLogSource {
  dir: string
  snapshot: {file: string; endOffset: string} | null
  historyStart: {offset: string; time: string | null}
  lastOffset: string | null
  lastTime: string | null
  segments: number
  records: number
  skippedRecords: Record<string, number>
  abortedTransactionRecords: number
  /** The first 100 records that could not be decoded. */
  decodeErrors: Array<{offset: string; message: string}>
  partialTailBytes: number
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
  }
}
