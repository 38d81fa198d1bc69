/**
 * What happens when standard output cannot be written. A reader that closes the pipe early (`| head -1`) is not an
 * error: the run ends quietly, as `git log | head` does, with the exit code it had. Any other failure (a full disk
 * under `> /dev/full`, an I/O error) is one line on stderr and exit 1, never a stack trace.
 *
 * Into a pipe the failure comes as the stream's 'error' event; into a file node writes synchronously and the write
 * throws, from wherever the write was made (a command, oclif's help): such an error is marked here so that the
 * command's error handling passes it on to bin/run.js untouched (isOutputFailure).
 */
import type {Writable} from 'node:stream'

/**
 * The one printer for standard output outside oclif's own log: documents, NDJSON lines, completion scripts, watch
 * lines. One place, so that a failed write ends the run the same way wherever it came from (guardStdout).
 */
export function print(text: string | Uint8Array): void {
  process.stdout.write(text)
}

const MARK = Symbol.for('rebalance-doctor.stdout-failure')

export interface OutputFailure extends Error {
  code?: string
  [MARK]?: true
}

/** True for an error a write to standard output threw (marked by guardStdout). */
export function isOutputFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as OutputFailure)[MARK] === true
}

/** The line for stderr and the exit code of a failed write to stdout; no line for a closed pipe. */
export function outputFailure(error: {code?: string; message?: string}, exitCode: number | string | undefined): {line?: string; exitCode: number} {
  if (error.code === 'EPIPE') return {exitCode: Number(exitCode ?? 0) || 0}
  const what = (error.message ?? String(error)).replace(/\s+/g, ' ').trim()
  return {line: `Error: cannot write to standard output: ${what}`, exitCode: 1}
}

interface Io {
  readonly stderr: {write(text: string): unknown}
  readonly exit: (code: number) => void
  readonly exitCode: () => number | string | undefined
}

const processIo: Io = {
  stderr: process.stderr,
  exit: code => process.exit(code),
  exitCode: () => process.exitCode ?? undefined,
}

/** Ends the run on a failed write to `out`, as the header says. Call once, before anything is printed. */
export function guardStdout(out: Writable = process.stdout, io: Io = processIo): void {
  out.on('error', (error: NodeJS.ErrnoException) => {
    const {line, exitCode} = outputFailure(error, io.exitCode())
    if (line) io.stderr.write(`${line}\n`)
    io.exit(exitCode)
  })
  const write = out.write
  out.write = function (this: Writable, ...args: Parameters<Writable['write']>) {
    try {
      return write.apply(this, args)
    } catch (error) {
      if (typeof error === 'object' && error !== null) (error as OutputFailure)[MARK] = true
      throw error
    }
  } as Writable['write']
}

/** bin/run.js: the end of a run that failed on a write to stdout (true), or false for any other error. */
export function endOnOutputFailure(error: unknown, io: Io = processIo): boolean {
  if (!isOutputFailure(error)) return false
  const {line, exitCode} = outputFailure(error as OutputFailure, io.exitCode())
  if (line) io.stderr.write(`${line}\n`)
  io.exit(exitCode)
  return true
}
