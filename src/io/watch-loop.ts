/**
 * The `--watch` loop: a cycle every interval until stopped. A cycle that throws is reported and the next one
 * runs at the next interval (a broker restart or a coordinator move must not end the watch). A stop (SIGINT or
 * SIGTERM) never interrupts a cycle: it ends the sleep, or the loop after the running cycle has finished its
 * writes. Clock, sleep and signals are injected so the loop is tested without time or processes.
 */
import {type BumpEvent, type BumpRevision, bumpDocument, delayUntilNextCycle, revisionDocument, type StuckEvent, stuckDocument} from '../core/audit/watch.js'
import {forTerminal, terminalSafeJson} from '../render/terminal.js'
import {bumpLine, revisionLine, stuckLine} from '../render/watch.js'
import {print} from './stdout.js'

export interface WatchLoopOptions {
  intervalMs: number
  /** One cycle (n counts from 1). */
  cycle: (n: number) => Promise<void>
  /** A cycle failed: report it (the loop goes on). */
  onError: (error: unknown, n: number) => void
  /** Aborted: stop after the running cycle (or now, when sleeping). */
  stop: AbortSignal
  now?: () => number
  sleep?: (ms: number, stop: AbortSignal) => Promise<void>
}

/** Resolves after `ms`, or as soon as `stop` aborts. */
export function sleepUnlessStopped(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    if (stop.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      stop.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    stop.addEventListener('abort', done, {once: true})
  })
}

/** Runs cycles until `stop` aborts; returns the number of cycles run. */
export async function watchLoop(o: WatchLoopOptions): Promise<number> {
  const now = o.now ?? Date.now
  const sleep = o.sleep ?? sleepUnlessStopped
  let n = 0
  while (!o.stop.aborted) {
    n++
    const started = now()
    try {
      await o.cycle(n)
    } catch (error) {
      o.onError(error, n)
    }
    if (o.stop.aborted) break
    await sleep(delayUntilNextCycle(o.intervalMs, started, now()), o.stop)
  }
  return n
}

/**
 * SIGINT and SIGTERM abort the returned controller (the loop then finishes its cycle and returns); a second
 * signal while that cycle is still running exits at once (130), for a cycle stuck on an unreachable cluster.
 * Call the returned `dispose` when the loop has ended.
 */
export function stopOnSignals(
  onStop?: (signal: string) => void,
  proc: Pick<NodeJS.Process, 'on' | 'off' | 'exit'> = process,
): {controller: AbortController; dispose: () => void} {
  const controller = new AbortController()
  const handler = (signal: string) => {
    if (controller.signal.aborted) proc.exit(130)
    onStop?.(signal)
    controller.abort()
  }
  proc.on('SIGINT', handler)
  proc.on('SIGTERM', handler)
  return {
    controller,
    dispose: () => {
      proc.off('SIGINT', handler)
      proc.off('SIGTERM', handler)
    },
  }
}

/**
 * Aborts `controller` when a write to `out` finds its reader gone (EPIPE: `| head -1` has exited), as `tail -f | head`
 * ends: nobody reads the bumps any more. (oclif swallows stdout's EPIPE for every command, so without this a watch
 * would go on for ever, writing nowhere.) Returns the function that removes the listener.
 */
export function stopWhenOutputGone(out: Pick<NodeJS.WritableStream, 'on' | 'off'>, controller: AbortController): () => void {
  const onError = (error: NodeJS.ErrnoException) => {
    if (error?.code === 'EPIPE' || error?.code === 'ERR_STREAM_DESTROYED') controller.abort()
  }
  out.on('error', onError)
  return () => out.off('error', onError)
}

/**
 * The scaffolding both `--watch` commands share: signals stop the loop after the running cycle, a failed cycle is
 * reported on stderr and retried at the next interval, and the signal handlers are removed at the end. A closed
 * stdout (its reader has exited) stops the loop after the running cycle too, silently; the command then exits 0,
 * as after SIGINT. `unit` names a cycle in those messages ("cycle" for audit, "read" for group explain).
 */
export async function runWatch(o: {
  /** The --watch flag's value: its text (for messages) and milliseconds. */
  interval: {text: string; ms: number}
  unit: string
  cycle: (n: number) => Promise<void>
  out?: Pick<NodeJS.WritableStream, 'on' | 'off'>
}): Promise<void> {
  const {controller, dispose} = stopOnSignals(signal => process.stderr.write(`${signal}: stopping after this ${o.unit}\n`))
  const disposeOut = stopWhenOutputGone(o.out ?? process.stdout, controller)
  try {
    await watchLoop({
      intervalMs: o.interval.ms,
      stop: controller.signal,
      onError: (error, n) =>
        process.stderr.write(
          forTerminal(`Error: --watch ${o.unit} ${n} failed (retrying in ${o.interval.text}): ${(error as Error)?.message ?? String(error)}\n`),
        ),
      cycle: o.cycle,
    })
  } finally {
    disposeOut()
    dispose()
  }
}

/** New bumps on stdout: one NDJSON `rebalance-doctor/bump` document or one text line each. */
export function printBumps(events: BumpEvent[], ndjson: boolean): void {
  if (ndjson) print(events.map(e => `${terminalSafeJson(JSON.stringify(bumpDocument(e)))}\n`).join(''))
  else for (const e of events) print(`${bumpLine(e)}\n`)
}

/** Revisions of bumps printed before: one NDJSON `rebalance-doctor/bump-revision` document or one text line each. */
export function printRevisions(events: BumpRevision[], ndjson: boolean): void {
  if (ndjson) print(events.map(e => `${terminalSafeJson(JSON.stringify(revisionDocument(e)))}\n`).join(''))
  else for (const e of events) print(`${revisionLine(e)}\n`)
}

/** Members newly stuck on stdout: one NDJSON `rebalance-doctor/stuck-member` document or one text line each. */
export function printStuck(events: StuckEvent[], ndjson: boolean, now: number): void {
  if (ndjson) print(events.map(e => `${terminalSafeJson(JSON.stringify(stuckDocument(e)))}\n`).join(''))
  else for (const e of events) print(`${stuckLine(e, now)}\n`)
}
