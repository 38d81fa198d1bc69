/**
 * Durable file writes that never take a full disk for success. `writeFileAtomic`: temp file in the same
 * directory, every byte written (short writes continued, a write of 0 bytes is an error), fsync, rename, fsync of
 * the directory; on any failure the temp file is removed and the old file is untouched. `appendDurably`: one
 * append, fsynced, and on failure the file is cut back to its old length so no torn line is left.
 * The fs functions are injectable so tests can play a full disk (root ignores a read-only chmod).
 */
import * as fs from 'node:fs'
import {randomBytes} from 'node:crypto'
import {basename, dirname, join, resolve} from 'node:path'
import {print} from './stdout.js'

export interface FileOps {
  openSync: typeof fs.openSync
  writeSync: (fd: number, buffer: Uint8Array, offset?: number, length?: number, position?: number | null) => number
  fsyncSync: typeof fs.fsyncSync
  closeSync: typeof fs.closeSync
  renameSync: typeof fs.renameSync
  unlinkSync: typeof fs.unlinkSync
  ftruncateSync: typeof fs.ftruncateSync
  fstatSync: (fd: number) => {size: number}
}

export const nodeFileOps: FileOps = {
  openSync: fs.openSync,
  writeSync: (fd, buffer, offset, length, position) => fs.writeSync(fd, buffer, offset, length, position),
  fsyncSync: fs.fsyncSync,
  closeSync: fs.closeSync,
  renameSync: fs.renameSync,
  unlinkSync: fs.unlinkSync,
  ftruncateSync: fs.ftruncateSync,
  fstatSync: fd => fs.fstatSync(fd),
}

/** Writes every byte of `data` at the file position (or `position`), continuing short writes. */
export function writeFully(fd: number, data: Uint8Array, ops: FileOps = nodeFileOps, position?: number): void {
  let off = 0
  while (off < data.length) {
    const n = ops.writeSync(fd, data, off, data.length - off, position === undefined ? null : position + off)
    if (!(n > 0)) throw Object.assign(new Error(`short write: ${off} of ${data.length} bytes written (disk full?)`), {code: 'ENOSPC'})
    off += n
  }
}

/** fsync a directory so a rename or unlink in it is durable (not supported everywhere; the rename is atomic anyway). */
export function fsyncDir(dir: string, ops: FileOps = nodeFileOps): void {
  let fd: number | undefined
  try {
    fd = ops.openSync(dir, 'r')
    ops.fsyncSync(fd)
  } catch {
    // EISDIR/EINVAL/EPERM on some platforms
  } finally {
    if (fd !== undefined) ops.closeSync(fd)
  }
}

export interface AtomicWriteOptions {
  mode?: number
  ops?: FileOps
  /**
   * false: no fsync (of the file or the directory), for files that are a cache of something else: still never
   * torn for a reader, but a crash may lose the new file or leave it empty, which the reader must detect.
   */
  durable?: boolean
}

/** Replaces `file` with `data` (or its pieces, one after the other) atomically: readers see the old file or the whole new one, never a part. */
export function writeFileAtomic(file: string, data: string | Uint8Array | readonly Uint8Array[], options: AtomicWriteOptions = {}): void {
  const ops = options.ops ?? nodeFileOps
  const pieces = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : data instanceof Uint8Array ? [data] : data
  const dir = dirname(file)
  const tmp = join(dir, `.${basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
  let fd: number | undefined
  let created = false
  try {
    fd = ops.openSync(tmp, 'wx', options.mode ?? 0o644)
    created = true
    for (const bytes of pieces) writeFully(fd, bytes, ops)
    if (options.durable !== false) ops.fsyncSync(fd)
    ops.closeSync(fd)
    fd = undefined
    ops.renameSync(tmp, file)
    created = false
    if (options.durable !== false) fsyncDir(dir, ops)
  } catch (error) {
    if (fd !== undefined) {
      try {
        ops.closeSync(fd)
      } catch {}
    }
    if (created) {
      try {
        ops.unlinkSync(tmp)
      } catch {}
    }
    throw error
  }
}

/**
 * Where a file named by the user (`cluster snapshot -o`, `audit --prometheus`) is written: `-` is stdout; a FIFO,
 * a character device or a socket (after symlinks) is written directly, as a shell's `>` would; a link into
 * /proc/…/fd or /dev/fd (/dev/stdout) is opened as named, the kernel giving its open file; a symlink to a
 * file (a textfile-collector link) is followed to the file, which is replaced atomically in its own directory, and
 * the link stays. Anything else (a regular file, a path that does not exist yet) is replaced atomically.
 */
export type OutputTarget = {kind: 'stdout'} | {kind: 'direct'; path: string} | {kind: 'atomic'; path: string}

const MAX_LINKS = 40

export function outputTarget(file: string): OutputTarget {
  if (file === '-') return {kind: 'stdout'}
  let path = file
  for (let hops = 0; ; hops++) {
    let st: fs.Stats
    try {
      st = fs.lstatSync(path)
    } catch (error) {
      // not there yet (a dangling link's target is created, as `>` creates it)
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {kind: 'atomic', path}
      throw error
    }
    if (!st.isSymbolicLink()) return st.isFile() || st.isDirectory() ? {kind: 'atomic', path} : {kind: 'direct', path}
    if (hops >= MAX_LINKS) throw Object.assign(new Error(`too many levels of symbolic links: ${file}`), {code: 'ELOOP'})
    const to = fs.readlinkSync(path)
    // /proc/<pid>/fd/N, /proc/self/fd/N, /dev/fd/N: "pipe:[…]", "socket:[…]", "/x (deleted)" are no paths: open it as named
    if (/^\/(proc\/[^/]+\/fd|dev\/fd)\/\d+$/.test(path) || /^(\/proc\/[^/]+\/fd|\/dev\/fd)\/\d+$/.test(resolve(dirname(path), to)))
      return {kind: 'direct', path: file}
    path = resolve(dirname(path), to)
  }
}

/**
 * Writes `data` to the file a user named, as outputTarget says: stdout, directly (a FIFO without a reader is an
 * error, ENXIO, rather than a wait for ever that no signal can end), or atomically (writeFileAtomic).
 */
export function writeOutputFile(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions & {stdout?: (bytes: Uint8Array) => void} = {},
): OutputTarget {
  const target = outputTarget(file)
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  if (target.kind === 'stdout') (options.stdout ?? print)(bytes)
  else if (target.kind === 'atomic') writeFileAtomic(target.path, bytes, options)
  else {
    // A FIFO: is anybody reading? (a blocking open would wait for a reader inside a system call.) The probe stays
    // open until the blocking open has its end: closed before, it is an end of file the reader may take and leave on.
    const probe = fs.statSync(target.path).isFIFO() ? fs.openSync(target.path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK) : undefined
    let fd: number
    try {
      // (O_APPEND: a regular file behind /proc/self/fd/1 is stdout redirected: added to, as stdout would be)
      fd = fs.openSync(target.path, fs.constants.O_WRONLY | fs.constants.O_APPEND)
    } finally {
      if (probe !== undefined) fs.closeSync(probe)
    }
    try {
      writeFully(fd, bytes)
    } finally {
      fs.closeSync(fd)
    }
  }
  return target
}

/** Appends `data` with all its bytes and fsyncs; on failure cuts the file back to its old length. */
export function appendDurably(file: string, data: string | Uint8Array, ops: FileOps = nodeFileOps): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  const fd = ops.openSync(file, 'r+')
  try {
    const size = ops.fstatSync(fd).size
    try {
      writeFully(fd, bytes, ops, size)
      ops.fsyncSync(fd)
    } catch (error) {
      try {
        ops.ftruncateSync(fd, size)
        ops.fsyncSync(fd)
      } catch {}
      throw error
    }
  } finally {
    ops.closeSync(fd)
  }
}

/** A one-line description of a write failure: the errno code and what it means for the operator. */
export function describeWriteError(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  const what: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
    EROFS: 'read-only file system',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOTDIR: 'a part of the path is not a directory',
    ENOENT: 'the directory does not exist',
    EIO: 'I/O error',
    ENXIO: 'a FIFO that no process reads',
    ELOOP: 'too many levels of symbolic links',
    EISDIR: 'a directory',
  }
  return e.code && what[e.code] ? `${what[e.code]} (${e.code})` : (e.message ?? String(error))
}
