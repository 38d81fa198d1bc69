/**
 * Reads a metadata file (or stdin for "-") into the cluster metadata model. The file is untrusted: its size is
 * bounded before it is read, its bytes must be UTF-8 (a BOM is allowed), and every file system failure is an
 * input error naming the file.
 */
import {byteLimitFromEnv} from '../config/limits.js'
import {open} from 'node:fs/promises'
import {isUtf8} from 'node:buffer'
import {type ErrorCode, InputError} from '../core/errors.js'
import {type ClusterMetadata, parseMetadataJson} from '../core/metadata.js'

export const MAX_METADATA_BYTES_ENV = 'REBALANCE_DOCTOR_MAX_METADATA_BYTES'
/** 256 MiB: about 5 million partitions with three replicas each, far beyond any real cluster. */
export const DEFAULT_MAX_METADATA_BYTES = 256 * 1024 * 1024

export function maxMetadataBytes(env: NodeJS.ProcessEnv = process.env): number {
  const n = byteLimitFromEnv(MAX_METADATA_BYTES_ENV, DEFAULT_MAX_METADATA_BYTES, env, {min: 1, max: Number.MAX_SAFE_INTEGER})
  // a JS string cannot hold more than ~2^29 UTF-16 units on every Node we support
  return Math.min(n, 512 * 1024 * 1024)
}

export async function readMetadataFile(path: string, stdin: AsyncIterable<Buffer | string> = process.stdin): Promise<ClusterMetadata> {
  const source = path === '-' ? 'stdin' : path
  const limit = maxMetadataBytes()
  const tooBig = () =>
    new InputError(
      `${path === '-' ? 'stdin' : `metadata file ${path}`} is larger than ${limit} bytes`,
      `A metadata file of a real cluster is far smaller; if this one is genuine, raise the bound with $${MAX_METADATA_BYTES_ENV}=BYTES.`,
      'METADATA_TOO_LARGE',
    )
  const bytes = await readInput(path, stdin, limit, tooBig, error => fileError(error, path))
  return parseMetadataBytes(bytes, source)
}

/** The bytes of a metadata file (already bounded) to the model: strict UTF-8, then JSON, then validation. */
export function parseMetadataBytes(bytes: Buffer, source: string): ClusterMetadata {
  return parseMetadataJson(decodeUtf8(bytes, source), source)
}

function fileError(error: unknown, path: string): InputError {
  const code = (error as NodeJS.ErrnoException).code
  const hint = 'Give the path of a JSON metadata file, e.g. one written by `rebalance-doctor cluster snapshot --output FILE`.'
  const why: Record<string, string> = {
    ENOENT: 'does not exist',
    EISDIR: 'is a directory',
    ENOTDIR: 'cannot be read: a part of its path is not a directory',
    EACCES: 'cannot be read (permission denied)',
    EPERM: 'cannot be read (operation not permitted)',
    ENAMETOOLONG: 'cannot be read: the path is too long',
    ELOOP: 'cannot be read: too many symbolic links',
  }
  if (code === 'ENOENT')
    return new InputError(`metadata file ${path} does not exist`, 'Check the path, or write one with `rebalance-doctor cluster snapshot --output FILE`.')
  return new InputError(`metadata file ${path} ${why[code ?? ''] ?? `cannot be read (${code ?? (error as Error).message})`}`, hint)
}

/**
 * The bytes of the file at `path`, or of stdin for "-", at most `limit` (past it `tooBig()` is thrown); any other
 * failure to read becomes the input error `unreadable` makes of it.
 */
export async function readInput(
  path: string,
  stdin: AsyncIterable<Buffer | string>,
  limit: number,
  tooBig: () => InputError,
  unreadable: (error: unknown) => InputError,
): Promise<Buffer> {
  try {
    return path === '-' ? await readStdin(stdin, limit, tooBig) : await readBounded(path, limit, tooBig)
  } catch (error) {
    if (error instanceof InputError) throw error
    throw unreadable(error)
  }
}

/** The bytes of the file at `path`, at most `limit`: `tooBig()` is thrown before more than limit + 1 bytes are held. */
export async function readBounded(path: string, limit: number, tooBig: () => Error): Promise<Buffer> {
  const fh = await open(path, 'r')
  try {
    const st = await fh.stat()
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), {code: 'EISDIR'})
    if (st.size > limit) throw tooBig()
    // read up to limit + 1 whatever stat said: a FIFO or /proc file reports size 0, a growing file more
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, limit + 1 - total))
      const {bytesRead} = await fh.read(buf, 0, buf.length, null)
      if (bytesRead === 0) break
      chunks.push(buf.subarray(0, bytesRead))
      total += bytesRead
      if (total > limit) throw tooBig()
    }
    return Buffer.concat(chunks, total)
  } finally {
    await fh.close()
  }
}

export async function readStdin(stdin: AsyncIterable<Buffer | string>, limit: number, tooBig: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    total += b.length
    if (total > limit) throw tooBig()
    chunks.push(b)
  }
  return Buffer.concat(chunks, total)
}

/** Strict UTF-8: a bad byte would silently become U+FFFD and hash a name that does not exist. */
export function decodeUtf8(
  bytes: Buffer,
  source: string,
  hint = 'Save the file as UTF-8 (JSON is UTF-8); `rebalance-doctor cluster snapshot` writes a valid file.',
  code: ErrorCode = 'BAD_METADATA',
): string {
  if (!isUtf8(bytes)) throw new InputError(`${source}: not valid UTF-8 at byte offset ${firstInvalidUtf8(bytes)}`, hint, code)
  const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  return bytes.toString('utf8', start)
}

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence (RFC 3629). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0
  while (i < b.length) {
    const c = b[i]
    let n: number
    let lo = 0x80
    let hi = 0xbf
    if (c < 0x80) {
      i++
      continue
    } else if (c >= 0xc2 && c <= 0xdf) n = 1
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2
      if (c === 0xe0) lo = 0xa0
      if (c === 0xed) hi = 0x9f
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3
      if (c === 0xf0) lo = 0x90
      if (c === 0xf4) hi = 0x8f
    } else return i
    for (let k = 1; k <= n; k++) {
      const d = b[i + k]
      if (d === undefined) return i
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return i
    }
    i += n + 1
  }
  return -1
}
