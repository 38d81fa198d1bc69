/**
 * A `--watch` started again (a deploy, a host reboot, systemd's Restart=) after an earlier watch of the same cluster:
 * what it prints first. Pure: the watch state's text in and out (written atomically by src/sources/watch-state.ts).
 *
 * The watch state says what the earlier watch printed: per `__consumer_offsets` partition, the offset before which
 * every bump of its groups was printed (`audit --watch`: every partition it read; `group explain --watch`: the
 * group's partition). It is written after each bump printed (printedSoFar) and where each read ended, so a bump
 * printed before a kill has an offset below it and is not printed again (but the one whose print the kill fell
 * between: that one is printed again, at least once, never lost); the bumps at or after it (stored while the watch was down, or read by a pass killed before it
 * printed) are printed once by the first pass of the next watch, marked `afterRestart`, within a bound (age, count).
 * A state of another cluster, kind or filters is not this watch's: the watch starts as a first start (quiet).
 *
 * File: one JSON document {schema, clusterId, kind, filters, at, printedThrough: {"<partition>": "<offset>"}}.
 */

export const WATCH_STATE_SCHEMA = 'rebalance-doctor/watch-state-v1'

export type WatchKind = 'audit' | 'group-explain'

export interface WatchState {
  readonly clusterId: string
  readonly kind: WatchKind
  /** What the watch follows: audit's filters as its notice reads them ("--group orders-*"), explain's group id. */
  readonly filters: string
  /** When the last print was recorded (epoch ms). */
  readonly at: number
  /** Per partition: every bump at an offset below this one was printed (or skipped past the bound). */
  readonly printedThrough: ReadonlyMap<number, bigint>
}

export function encodeWatchState(s: WatchState): string {
  const printedThrough = Object.fromEntries([...s.printedThrough].sort(([a], [b]) => a - b).map(([p, o]) => [String(p), o.toString()]))
  return `${JSON.stringify({schema: WATCH_STATE_SCHEMA, clusterId: s.clusterId, kind: s.kind, filters: s.filters, at: s.at, printedThrough})}\n`
}

/**
 * The fields every watch state starts with (schema, clusterId, kind, filters, at) read from `text`: the document, or
 * why it cannot be used (another schema, damaged).
 */
export function watchStateDocument(text: string, schema: string): Record<string, unknown> | {error: string} {
  let d: Record<string, unknown>
  try {
    d = JSON.parse(text)
  } catch (error) {
    return {error: `damaged (${(error as Error).message})`}
  }
  if (!d || typeof d !== 'object' || d.schema !== schema) return {error: `not a ${schema} file`}
  const ok = typeof d.clusterId === 'string' && (d.kind === 'audit' || d.kind === 'group-explain') && typeof d.filters === 'string' && Number.isFinite(d.at)
  return ok ? d : DAMAGED
}

export const DAMAGED = {error: 'damaged (fields missing or of the wrong type)'} as const

/** The state in `text`, or why it cannot be used (another schema, damaged). */
export function decodeWatchState(text: string): WatchState | {error: string} {
  const d = watchStateDocument(text, WATCH_STATE_SCHEMA)
  if ('error' in d) return d as {error: string}
  const through = d.printedThrough
  const ok = !!through && typeof through === 'object' && Object.entries(through).every(([p, o]) => /^\d+$/.test(p) && typeof o === 'string' && /^\d+$/.test(o))
  if (!ok) return DAMAGED
  const printedThrough = new Map(Object.entries(through as Record<string, string>).map(([p, o]) => [Number(p), BigInt(o)]))
  return {clusterId: d.clusterId as string, kind: d.kind as WatchKind, filters: d.filters as string, at: d.at as number, printedThrough}
}

/** What the watch starting now is: a restart of the watch that wrote `state`, or a first start (and why, when a state was there). */
export type WatchStart = {restart: WatchState} | {firstStart: true; why?: string}

export function watchStart(
  state: WatchState | {error: string} | undefined,
  now: {clusterId: string; kind: WatchKind; filters: string},
  describe: (filters: string) => string = f => f || '(every group)',
): WatchStart {
  if (state === undefined) return {firstStart: true}
  if ('error' in state) return {firstStart: true, why: `its watch state cannot be used: ${state.error}`}
  if (state.clusterId !== now.clusterId) return {firstStart: true, why: `the watch state found is of another cluster (${state.clusterId})`}
  if (state.kind !== now.kind) return {firstStart: true, why: `the watch state found is of ${state.kind} --watch`}
  if (state.filters !== now.filters)
    return {firstStart: true, why: `the watch state found is of a watch of ${describe(state.filters)}, not ${describe(now.filters)}`}
  return {restart: state}
}

/** How far back a restarted watch prints what it finds: older bumps, and the oldest past the count, are skipped (counted). */
export interface RestartBound {
  readonly maxAgeMs: number
  readonly maxBumps: number
}

export const RESTART_BOUND: RestartBound = {maxAgeMs: 24 * 3600_000, maxBumps: 1000}

export interface BoundedBumps<T> {
  /** The bumps to print, oldest first. */
  readonly kept: T[]
  /** Stored before now - maxAgeMs. */
  readonly tooOld: number
  /** Within the age but older than the newest maxBumps. */
  readonly overCount: number
}

/** The bumps found after a restart (oldest first) within `bound` at `now`: the newest ones kept, the rest counted. */
export function boundAfterRestart<T extends {timestamp: number}>(events: readonly T[], now: number, bound: RestartBound = RESTART_BOUND): BoundedBumps<T> {
  const recent = events.filter(e => e.timestamp >= now - bound.maxAgeMs)
  const overCount = Math.max(0, recent.length - bound.maxBumps)
  return {kept: recent.slice(overCount), tooOld: events.length - recent.length, overCount}
}

/** The stderr line for a restart's first pass: how many bumps were found since the last print, and those skipped past the bound. */
export function restartNotice(kind: WatchKind, found: BoundedBumps<unknown>, since: number, bound: RestartBound = RESTART_BOUND): string {
  const total = found.kept.length + found.tooOld + found.overCount
  const skipped = [
    found.tooOld ? `${found.tooOld} stored more than ${Math.round(bound.maxAgeMs / 3600_000)} h ago` : '',
    found.overCount ? `${found.overCount} older than the newest ${bound.maxBumps}` : '',
  ].filter(Boolean)
  return (
    `${kind} --watch restarted: ${total} bump${total === 1 ? '' : 's'} stored since the last print of the earlier watch (${new Date(since).toISOString()})` +
    `${total ? `, ${found.kept.length} printed (marked after restart)` : ''}${skipped.length ? `; skipped past the bound: ${skipped.join(', ')}` : ''}`
  )
}

/** The offset every bump below which the watch has printed, per partition: where each read ended (what was printed then). */
export function printedThrough(partitions: number, nextOffset: (partition: number) => bigint | undefined): Map<number, bigint> {
  const out = new Map<number, bigint>()
  for (let p = 0; p < partitions; p++) {
    const o = nextOffset(p)
    if (o !== undefined) out.set(p, o)
  }
  return out
}

/**
 * What is printed once the first `count` of a read's bumps (in print order) are: per partition holding one of them,
 * the offset of its first bump not printed yet, else one past its last printed one; other partitions as `before`.
 */
export function printedSoFar(
  before: ReadonlyMap<number, bigint>,
  bumps: ReadonlyArray<{partition: number; offset: bigint}>,
  count: number,
): Map<number, bigint> {
  const out = new Map(before)
  const pending = new Map<number, bigint>()
  for (const {partition, offset} of bumps.slice(count)) {
    const first = pending.get(partition)
    if (first === undefined || offset < first) pending.set(partition, offset)
  }
  for (const {partition, offset} of bumps.slice(0, count)) {
    const through = out.get(partition)
    if (!pending.has(partition) && (through === undefined || offset >= through)) out.set(partition, offset + 1n)
  }
  for (const [partition, offset] of pending) out.set(partition, offset)
  return out
}

/** Two states' printed offsets alike: nothing new to write. */
export function samePrinted(a: ReadonlyMap<number, bigint> | undefined, b: ReadonlyMap<number, bigint>): boolean {
  return a !== undefined && a.size === b.size && [...b].every(([p, o]) => a.get(p) === o)
}

/** Timeline entries of a group read in full that the earlier watch did not print: at or after `from` (the offset it printed through). */
export function storedSince<T extends {offset: string}>(timeline: readonly T[], from: bigint): T[] {
  return timeline.filter(e => BigInt(e.offset) >= from)
}
