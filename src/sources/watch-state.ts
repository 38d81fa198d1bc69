/**
 * Where a `--watch` keeps what it printed (core/audit/restart.ts): <history dir>/<cluster id>/watch/<kind>-<xxh64 of
 * its filters>.json, audit-….json for `audit --watch` (its --group/--type as it says them), group-explain-….json for
 * `group explain GROUP --watch` (the group id): watches of other filters side by side keep their own states. A
 * describe-only watch keeps its last polls beside it, in <kind>-<xxh64>.described.json (core/audit/described-restart.ts).
 * Written atomically and fsynced after each print that moved it.
 */
import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {xxh64} from '@node-rs/xxhash'
import {type DescribedWatchState, decodeDescribedWatchState, encodeDescribedWatchState} from '../core/audit/described-restart.js'
import {decodeWatchState, encodeWatchState, type WatchKind, type WatchState} from '../core/audit/restart.js'
import {clusterDir} from '../history/store.js'
import {describeWriteError, writeFileAtomic} from '../io/atomic-file.js'

export interface StateStore<T> {
  readonly file: string
  /** undefined when there is none; {error} when it cannot be read or used. */
  load(): T | {error: string} | undefined
  /** Writes `state`; an error's message when it could not be written. */
  save(state: T): string | undefined
}

export type WatchStateStore = StateStore<WatchState>

export function watchStateStore(historyRoot: string, clusterId: string, kind: WatchKind, filters: string): WatchStateStore {
  return stateStore(watchFile(historyRoot, clusterId, kind, filters, '.json'), decodeWatchState, encodeWatchState)
}

export function describedWatchStateStore(historyRoot: string, clusterId: string, kind: WatchKind, filters: string): StateStore<DescribedWatchState> {
  return stateStore(watchFile(historyRoot, clusterId, kind, filters, '.described.json'), decodeDescribedWatchState, encodeDescribedWatchState)
}

const watchFile = (historyRoot: string, clusterId: string, kind: WatchKind, filters: string, suffix: string) =>
  join(clusterDir(historyRoot, clusterId), 'watch', `${kind}-${xxh64(Buffer.from(filters, 'utf8')).toString(16)}${suffix}`)

function stateStore<T>(file: string, decode: (text: string) => T | {error: string}, encode: (state: T) => string): StateStore<T> {
  return {
    file,
    load() {
      let text: string
      try {
        text = readFileSync(file, 'utf8')
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
        return {error: `${file} cannot be read (${describeWriteError(error)})`}
      }
      return decode(text)
    },
    save(state) {
      try {
        mkdirSync(join(file, '..'), {recursive: true})
        writeFileAtomic(file, encode(state))
        return undefined
      } catch (error) {
        return describeWriteError(error)
      }
    },
  }
}
