/**
 * The --prometheus file of a failed audit: written atomically like a good run's, with the cluster id of the run
 * when it got that far, else the one of the file it replaces (same label set across runs), else "".
 */
import * as fs from 'node:fs'
import {type AuditFailure, previousClusterId, prometheusFailureText, type SeriesOptions} from '../core/audit/output.js'
import {describeWriteError, writeOutputFile} from './atomic-file.js'

/** The first bytes of a file (the cluster id is on its first sample line); undefined when it cannot be read. */
function head(file: string, max = 64 * 1024): string | undefined {
  let fd: number | undefined
  try {
    // a FIFO (or stdout, a device) is not read back: opening a FIFO to read waits for a writer
    if (file === '-' || !fs.statSync(file).isFile()) return undefined
    fd = fs.openSync(file, 'r')
    const buf = Buffer.alloc(max)
    const n = fs.readSync(fd, buf, 0, max, 0)
    return buf.subarray(0, n).toString('utf8')
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** The exit code and error code of an error thrown by a command (RdError, oclif's CLIError, anything else). */
export function failureOf(error: unknown): {exitCode: number; errorCode: string} {
  const e = error as {exitCode?: unknown; code?: unknown; oclif?: {exit?: unknown}}
  const exit = typeof e?.exitCode === 'number' ? e.exitCode : typeof e?.oclif?.exit === 'number' ? e.oclif.exit : 1
  const code = typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(e.code) ? e.code : 'UNEXPECTED'
  return {exitCode: exit === 0 ? 1 : exit, errorCode: code}
}

/** Writes the failure; returns the write error's description, or undefined when written. */
export function writeFailureFile(
  file: string,
  f: Omit<AuditFailure, 'clusterId'> & {clusterId: string | null | undefined},
  series: SeriesOptions = {},
): string | undefined {
  const clusterId = f.clusterId ?? previousClusterId(head(file) ?? '') ?? null
  try {
    writeOutputFile(file, prometheusFailureText({...f, clusterId}, series))
    return undefined
  } catch (error) {
    return describeWriteError(error)
  }
}
