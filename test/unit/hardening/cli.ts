/**
 * Runs the built CLI in a child process (as an operator would), with a heap bound and a generous wall-clock
 * bound (a hang, not a speed check: the machine may be loaded). Files using it raise vitest's test timeout.
 */
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {ROOT} from '../helpers.js'

export interface CliResult {
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
}

export function cli(args: string[], opts: {input?: string | Buffer; env?: NodeJS.ProcessEnv; heapMb?: number; timeoutMs?: number} = {}): CliResult {
  const started = Date.now()
  const r = spawnSync(process.execPath, [`--max-old-space-size=${opts.heapMb ?? 256}`, join(ROOT, 'bin', 'run.js'), ...args], {
    input: opts.input ?? '',
    env: {...process.env, NODE_OPTIONS: '', ...opts.env},
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 150_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  return {status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ms: Date.now() - started}
}
