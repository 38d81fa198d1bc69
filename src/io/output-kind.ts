/**
 * How a document's chunks go to its output (src/base-command.ts logJson). Into a pipe or a socket a chunk's parts
 * (text, and rows read back from a checkpoint as bytes) go as one writev: no copy of them (~6 MB for 10,000 rows).
 * Into anything else as one buffer: a file stream writes part by part, one write(2) each.
 */
import {fstatSync} from 'node:fs'
import type {Writable} from 'node:stream'

/** True when `fd` is a pipe or a socket; false for a file, a terminal, or one that cannot be examined. */
export function isPipeOrSocket(fd: number | undefined): boolean {
  if (fd === undefined) return false
  try {
    const s = fstatSync(fd)
    return s.isFIFO() || s.isSocket()
  } catch {
    return false
  }
}

/** Writes a chunk's parts (`bytes` in all) to `out`, gathered where it is a pipe or a socket, else joined. */
export function partsWriter(out: Writable & {fd?: number}, gather = isPipeOrSocket(out.fd)): (parts: Uint8Array[], bytes: number) => void {
  return (parts, bytes) => {
    if (!gather || parts.length === 1) {
      out.write(parts.length === 1 ? parts[0] : Buffer.concat(parts, bytes))
      return
    }
    out.cork()
    for (const p of parts) out.write(p)
    out.uncork()
  }
}
