/** What an output descriptor is: a pipe or a socket takes a chunk's parts in one writev (src/base-command.ts). */
import {fstatSync} from 'node:fs'

/** True when `fd` is a pipe or a socket; false for a file, a terminal, or one that cannot be examined. */
export function isPipeOrSocket(fd: number): boolean {
  try {
    const s = fstatSync(fd)
    return s.isFIFO() || s.isSocket()
  } catch {
    return false
  }
}
