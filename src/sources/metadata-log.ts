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
import {constants} from 'node:fs'
import {open, readdir, stat} from 'node:fs/promises'
import {basename, join} from 'node:path'
import {InputError, RuntimeError} from '../core/errors.js'
import type {LogBatch} from '../core/log/batch.js'
import type {MetadataLogView} from '../core/metadata-log/attribute.js'
import {MetadataReplay, type ReplayOptions} from '../core/metadata-log/replay.js'
import {DecompressionLimitError, MAX_BATCH_ENV} from '../kafka/decompress.js'
import {loadDecompressor} from '../kafka/codecs.js'
import {type Decompress, type KeyFilter, recordBatches} from '../kafka/record-batch.js'

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
    if (code === 'ENOENT')
      throw new InputError(
        `metadata log directory ${dirArg} does not exist`,
        `Give the ${METADATA_PARTITION_DIR} directory from a broker's or controller's metadata.log.dir (or first log.dirs entry), or a copy of it.`,
        'NO_METADATA_LOG',
      )
    if (code === 'ENOTDIR')
      throw new InputError(`${dirArg} is not a directory`, `Give the ${METADATA_PARTITION_DIR} directory, not a file in it.`, 'NO_METADATA_LOG')
    if (code === 'EACCES')
      throw new InputError(
        `metadata log directory ${dirArg} cannot be read (permission denied)`,
        'Run as a user that can read it, or copy the directory.',
        'NO_METADATA_LOG',
      )
    if (code === 'ELOOP')
      throw new InputError(
        `metadata log directory ${dirArg} is a symbolic link loop`,
        `Give the ${METADATA_PARTITION_DIR} directory itself.`,
        'NO_METADATA_LOG',
      )
    throw error
  }
  const other = /^(__consumer_offsets|__transaction_state|__share_group_state)-\d+$/.exec(basename(dir))
  if (other) throw notMetadataLog(dir, `it is a partition directory of ${other[1]}`)
  const segments: SegmentFile[] = []
  const snapshots: SnapshotFile[] = []
  for (const n of names) {
    let m = /^(\d{20})\.log$/.exec(n)
    if (m) segments.push({path: join(dir, n), baseOffset: BigInt(m[1])})
    m = /^(\d{20})-(\d{10})\.checkpoint$/.exec(n)
    if (m) snapshots.push({path: join(dir, n), endOffset: BigInt(m[1]), epoch: Number(m[2])})
  }
  // Every file read must be a regular file (or a link to one): a FIFO would block the read forever, a directory,
  // a dangling link or a link loop cannot be read. Checked here, before anything is read.
  for (const f of [...segments, ...snapshots]) await assertRegularFile(f.path)
  if (segments.length === 0 && snapshots.length === 0) {
    throw new InputError(
      `${dirArg} holds no metadata log segments (*.log) or snapshots (*.checkpoint)`,
      `Give the ${METADATA_PARTITION_DIR} directory from a broker's or controller's metadata.log.dir.`,
      'NO_METADATA_LOG',
    )
  }
  const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0)
  segments.sort((a, b) => cmp(a.baseOffset, b.baseOffset))
  snapshots.sort((a, b) => cmp(a.endOffset, b.endOffset) || a.epoch - b.epoch)
  const files = {dir, segments, snapshots}
  await probeMetadataLog(files)
  return files
}

function notMetadataLog(dir: string, why: string): InputError {
  return new InputError(
    `${dir} is not a KRaft metadata log: ${why}`,
    `Give the ${METADATA_PARTITION_DIR} directory from a broker's or controller's metadata.log.dir (or first log.dirs entry); for __consumer_offsets segments use --offsets-segment.`,
    'NO_METADATA_LOG',
  )
}

/** Refuses (exit 2, naming the file) what is not a regular file: a FIFO, socket, device, directory, dangling link, link loop. */
async function assertRegularFile(path: string): Promise<void> {
  let st
  try {
    st = await stat(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? 'a symbolic link to nothing (or removed while read)'
        : code === 'ELOOP'
          ? 'a symbolic link loop'
          : code === 'EACCES'
            ? 'not readable (permission denied)'
            : (error as Error).message
    throw new InputError(
      `${path} cannot be read: ${why}`,
      'Remove it from the directory (or copy the directory again with cp -L), then retry.',
      'NO_METADATA_LOG',
    )
  }
  if (!st.isFile())
    throw new InputError(
      `${path} is not a regular file (${fileKind(st)})`,
      'Remove it from the directory: a metadata log holds only regular *.log and *.checkpoint files.',
      'NO_METADATA_LOG',
    )
}

function fileKind(st: import('node:fs').Stats): string {
  return st.isDirectory()
    ? 'a directory'
    : st.isFIFO()
      ? 'a named pipe'
      : st.isSocket()
        ? 'a socket'
        : st.isCharacterDevice() || st.isBlockDevice()
          ? 'a device'
          : 'not a file'
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
  /** Bytes of an incomplete last batch (a live file being appended to, or damage): not read. */
  partialTailBytes: number
  /** Where that incomplete batch starts. */
  partialTailAt?: number
  /** The file byte of each batch of the chunk last yielded. */
  positions?: number[]
  /** Set when a batch is damaged (CRC, length, undecodable): the file is read up to it, not past it. */
  damage?: {byte: number; reason: string}
}

/** The batches of a chunk (their file bytes in `positions`), up to a damaged one, which sets `info.damage`. */
function parseBatches(info: FileReadInfo, at: number, chunk: Buffer, decompress: Decompress, keepKey?: KeyFilter): LogBatch[] {
  const out: LogBatch[] = []
  const positions: number[] = []
  info.positions = positions
  let pos = 0
  try {
    for (const b of recordBatches(chunk, decompress, keepKey)) {
      out.push(b)
      positions.push(at + pos)
      pos += 12 + chunk.readInt32BE(pos + 8)
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (error instanceof DecompressionLimitError) {
      throw new RuntimeError(
        `${info.path}: the batch at byte ${at + pos}: ${message}`,
        `Raise ${MAX_BATCH_ENV} if the file is trusted and the batch really is that large.`,
        'METADATA_LOG_COMPRESSION',
      )
    }
    info.damage = {byte: at + pos, reason: message}
  }
  return out
}

/** Streams the complete batches of one file, one chunk at a time (`keepKey`: only those data records). */
export async function* readBatchFile(path: string, infoArg?: FileReadInfo, keepKey?: KeyFilter): AsyncGenerator<LogBatch[]> {
  const info: FileReadInfo = infoArg ?? {path, bytes: 0, partialTailBytes: 0}
  // Non-blocking: a FIFO put in place of the file must not block the open; it is refused below.
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const st = await fh.stat()
    if (!st.isFile())
      throw new InputError(
        `${path} is not a regular file (${fileKind(st)})`,
        'Remove it from the directory: a metadata log holds only regular *.log and *.checkpoint files.',
        'NO_METADATA_LOG',
      )
    const size = st.size
    info.bytes = size
    const decompress = await batchDecompressor()
    let buf = Buffer.allocUnsafe(CHUNK)
    let filled = 0
    let filePos = 0
    let damagedAt: {byte: number; reason: string} | undefined
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
        if (len < 49 || len > MAX_BATCH) {
          damagedAt = {
            byte: filePos - filled + end,
            reason: `the batch there claims length ${len}, ${len < 49 ? 'less than a batch header' : `more than any metadata batch (${MAX_BATCH} bytes)`}`,
          }
          break
        }
        if (end + 12 + len > filled) break
        end += 12 + len
      }
      if (end > 0) {
        // Parsed a slice of at most SLICE bytes at a time: the records of a whole chunk, alive together while the
        // caller works through them, would outlive young-generation GCs and pile up in the old space as garbage.
        for (let from = 0; from < end; ) {
          let to = from + 12 + buf.readInt32BE(from + 8)
          while (to < end && to + 12 + buf.readInt32BE(to + 8) - from <= SLICE) to += 12 + buf.readInt32BE(to + 8)
          const batches = parseBatches(info, filePos - filled + from, buf.subarray(from, to), decompress, keepKey)
          if (batches.length > 0) yield batches
          if (info.damage) return
          from = to
        }
        if (damagedAt) {
          info.damage = damagedAt
          return
        }
        // A new buffer, not a copy within this one: the records yielded are views into it, and a caller may keep
        // them (a snapshot's batches are all kept until it is loaded).
        const next = Buffer.allocUnsafe(buf.length)
        buf.copy(next, 0, end, filled)
        buf = next
        filled -= end
        continue
      }
      if (damagedAt) {
        info.damage = damagedAt
        return
      }
      if (filePos >= size) break
      // One batch larger than the buffer: grow to it, unless it claims more than the file holds.
      const need = 12 + buf.readInt32BE(8)
      if (filled >= 12 && need > buf.length) {
        if (need - filled > size - filePos) break
        const bigger = Buffer.allocUnsafe(need)
        buf.copy(bigger, 0, 0, filled)
        buf = bigger
      }
    }
    info.partialTailBytes = filled
    if (filled > 0) info.partialTailAt = filePos - filled
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

/** Where the log stops being readable exactly: nothing from `offset` on is replayed. */
export interface LogDamage {
  /** The file, and the byte of it, where the damage is (a gap: the file after the missing offsets). */
  file: string
  byte: number
  /** The first offset not read exactly. */
  offset: string
  reason: string
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
  /** An incomplete batch at the end of the last segment (a live file copied mid-write): history ends before it. */
  partialTail: {file: string; byte: number; bytes: number} | null
  /** Damage or a gap: exact history ends before `damage.offset`; null when the log was read to its end (or the until bound). */
  damage: LogDamage | null
}

export interface ReadMetadataLogOptions extends ReplayOptions {
  /** 'earliest': the longest exact history (default); 'latest': the newest snapshot at or before the until bound. */
  start?: 'earliest' | 'latest'
}

/** A metadata log's data records have no key: a keyed one means another topic's log (__consumer_offsets, ...). */
function assertMetadataBatch(dir: string, file: string, b: LogBatch): void {
  if (b.isControl) return
  const keyed = b.records.find(r => r.key !== null)
  if (keyed)
    throw notMetadataLog(dir, `${file}: the record at offset ${keyed.offset} has a key, and metadata records have none (is it another topic's partition?)`)
}

/** Reads the first batches of the oldest file: a directory of another topic is refused before anything else is done. */
async function probeMetadataLog(files: MetadataLogFiles): Promise<void> {
  const first = files.segments[0] ?? files.snapshots[0]
  if (!first) return
  const info: FileReadInfo = {path: first.path, bytes: 0, partialTailBytes: 0}
  for await (const chunk of readBatchFile(first.path, info)) {
    for (const b of chunk) assertMetadataBatch(files.dir, first.path, b)
    return
  }
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
    if (!snapshot)
      throw new InputError(
        `${files.dir}: the log starts at offset ${logStart} and there is no snapshot to start from`,
        'Copy the whole directory, including its *.checkpoint files.',
        'METADATA_LOG_INCOMPLETE',
      )
  }
  const replay = new MetadataReplay(opts)
  if (snapshot) {
    const batches = await readSnapshot(files.dir, snapshot)
    replay.loadSnapshot(batches, snapshot.endOffset, (await snapshotTimestamp(snapshot.path)) ?? 0)
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
  const segmentsRead: FileReadInfo[] = []
  let partialTailBytes = 0
  let partialTail: MetadataLogReplay['partialTail'] = null
  let damage: LogDamage | null = null
  // The next offset the log must hold: a batch past it is a gap, one before it offsets going back.
  let expected = from
  const segs = files.segments
  segments: for (let i = 0; i < segs.length && !replay.done; i++) {
    if (i + 1 < segs.length && segs[i + 1].baseOffset <= from) continue
    const seg = segs[i]
    if (seg.baseOffset > expected) {
      damage = {
        file: seg.path,
        byte: 0,
        offset: expected.toString(),
        reason: `offsets ${expected} to ${seg.baseOffset - 1n} are missing: this segment starts at ${seg.baseOffset}`,
      }
      break
    }
    const info: FileReadInfo = {path: seg.path, bytes: 0, partialTailBytes: 0}
    segmentsRead.push(info)
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
          damage = {file: seg.path, byte, offset: expected.toString(), reason}
          break segments
        }
        const batch = b.baseOffset < from ? {...b, records: b.records.filter(r => r.offset >= from)} : b
        const applied = replay.applyBatch(batch)
        if (replay.damage) {
          damage = {file: seg.path, byte, offset: replay.damage.offset.toString(), reason: `a record does not decode: ${replay.damage.message}`}
          break segments
        }
        if (!applied) break segments
        expected = b.lastOffset + 1n
      }
    }
    partialTailBytes += info.partialTailBytes
    if (info.damage) {
      damage = {file: seg.path, byte: info.damage.byte, offset: expected.toString(), reason: info.damage.reason}
      break
    }
    if (info.partialTailBytes > 0) {
      const tail = {file: seg.path, byte: info.partialTailAt!, bytes: info.partialTailBytes}
      // Only the last segment can be being written: an incomplete batch before another segment is damage.
      if (i + 1 < segs.length) {
        damage = {
          file: seg.path,
          byte: tail.byte,
          offset: expected.toString(),
          reason: `the last ${tail.bytes} bytes are not a complete batch (a damaged batch length?), and segment ${basename(segs[i + 1].path)} follows`,
        }
        break
      }
      partialTail = tail
    }
  }
  if (!snapshot) historyStart.timestamp = replay.firstTimestamp ?? null
  return {replay, files, snapshot, historyStart, segmentsRead, partialTailBytes, partialTail, damage}
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
  /** An incomplete last batch of the last segment (a live file copied mid-write): not read. */
  partialTail: {file: string; byte: number; bytes: number} | null
  /** Damage or a gap that ended the replay: exact history ends before `damage.offset` (at `lastOffset`). */
  damage: LogDamage | null
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
