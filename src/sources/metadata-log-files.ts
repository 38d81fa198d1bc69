/**
 * The files of a KRaft metadata log directory: listing its segments and snapshots (refusing what is not a regular
 * file or not a metadata log) and streaming one file's complete batches in bounded chunks. Moved out of
 * ./metadata-log.ts (which replays them and re-exports what was public here); strictly read-only.
 */
import {constants} from 'node:fs'
import {lstat, open, readdir, stat} from 'node:fs/promises'
import {basename, join} from 'node:path'
import {InputError, RuntimeError} from '../core/errors.js'
import type {LogBatch} from '../core/log/batch.js'
import {DecompressionLimitError, MAX_BATCH_ENV} from '../kafka/decompress.js'
import {loadDecompressor} from '../kafka/codecs.js'
import {type Decompress, type KeyFilter, recordBatches} from '../kafka/record-batch.js'
import {compare} from '../core/order.js'

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

/**
 * How many times a listing, or a read of what was listed, is done again when a listed file is removed before it is
 * opened: Kafka renames an old snapshot or segment to *.deleted (then deletes it) once its log start passes it, at
 * any moment of a live directory's life.
 */
export const READ_ATTEMPTS = 3

/** An open or stat that found no file where the listing had one (removed since, or renamed to *.deleted). */
export function isRemoved(error: unknown): error is NodeJS.ErrnoException & {path: string} {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' && typeof (error as NodeJS.ErrnoException).path === 'string'
}

/** The run ends (exit 1, not a usage error) when a listed file is removed on every attempt: the directory is changing. */
export function removedOnEveryAttempt(dir: string, path: string): RuntimeError {
  return new RuntimeError(
    `${path} was removed from ${dir} after it was listed, on each of ${READ_ATTEMPTS} attempts to read the directory`,
    'The directory changed faster than it could be read (Kafka deletes old snapshots and segments as its log start advances): run again, or read a copy of it.',
    'METADATA_LOG_CHANGING',
  )
}

/**
 * The segments and snapshots of a metadata log directory, each checked to be a regular file and the oldest read far
 * enough to refuse another topic's directory. A file removed between the listing and its check is Kafka's cleanup
 * of a live directory: the directory is listed again (at most READ_ATTEMPTS times).
 */
export async function listMetadataLog(dirArg: string): Promise<MetadataLogFiles> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await listOnce(dirArg)
    } catch (error) {
      if (!isRemoved(error)) throw error
      if (attempt === READ_ATTEMPTS) throw removedOnEveryAttempt(dirArg, error.path)
    }
  }
}

async function listOnce(dirArg: string): Promise<MetadataLogFiles> {
  const {dir, names} = await readLogDir(dirArg)
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
  const cmp = compare<bigint>
  segments.sort((a, b) => cmp(a.baseOffset, b.baseOffset))
  snapshots.sort((a, b) => cmp(a.endOffset, b.endOffset) || a.epoch - b.epoch)
  const files = {dir, segments, snapshots}
  await probeMetadataLog(files)
  return files
}

/** The directory's names; the `__cluster_metadata-0` in it when given the log dir holding it. */
async function readLogDir(dirArg: string): Promise<{dir: string; names: string[]}> {
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
  return {dir, names}
}

function notMetadataLog(dir: string, why: string): InputError {
  return new InputError(
    `${dir} is not a KRaft metadata log: ${why}`,
    `Give the ${METADATA_PARTITION_DIR} directory from a broker's or controller's metadata.log.dir (or first log.dirs entry); for __consumer_offsets segments use --offsets-segment.`,
    'NO_METADATA_LOG',
  )
}

/**
 * Refuses (exit 2, naming the file) what is not a regular file: a FIFO, socket, device, directory, dangling link, link
 * loop. A file no longer there at all (removed since the listing) is thrown as it is, for the listing to be done again.
 */
async function assertRegularFile(path: string): Promise<void> {
  let st
  try {
    st = await stat(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // (no link left either: removed since the listing, not a link to nothing)
    if (code === 'ENOENT' && (await lstat(path).catch(() => undefined)) === undefined) throw error
    const why =
      code === 'ENOENT'
        ? 'a symbolic link to nothing'
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
export async function snapshotTimestamp(path: string): Promise<number | undefined> {
  for await (const batches of readBatchFile(path)) return snapshotHeaderTimestamp(batches)
  return undefined
}

/** LastContainedLogTimestamp from a snapshot's first batches (its header control record first), if readable. */
export function snapshotHeaderTimestamp(batches: readonly LogBatch[]): number | undefined {
  const r = batches[0]?.records[0]
  if (batches[0]?.isControl && r?.key && r.key.length >= 4 && ((r.key[2] << 8) | r.key[3]) === 3 && r.value && r.value.length >= 10) {
    return Number(Buffer.from(r.value.buffer, r.value.byteOffset, r.value.length).readBigInt64BE(2))
  }
  return undefined
}

/** A metadata log's data records have no key: a keyed one means another topic's log (__consumer_offsets, ...). */
export function assertMetadataBatch(dir: string, file: string, b: LogBatch): void {
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

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}
