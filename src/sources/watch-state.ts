/**
 * Where a `--watch` keeps what it printed (core/audit/restart.ts): <history dir>/<cluster id>/watch/<kind>-<xxh64 of
 * its filters>.json, audit-….json for `audit --watch` (its --group/--type as it says them), group-explain-….json for
 * `group explain GROUP --watch` (the group id): watches of other filters side by side keep their own states. Written
 * atomically and fsynced after each print that moved it.
 */
import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {xxh64} from '@node-rs/xxhash'
import {decodeWatchState, encodeWatchState, type WatchKind, type WatchState} from '../core/audit/restart.js'
import {clusterDir} from '../history/store.js'
import {describeWriteError, writeFileAtomic} from '../io/atomic-file.js'

export interface WatchStateStore {
  readonly file: string
  /** undefined when there is none; {error} when it cannot be read or used. */
  load(): WatchState | {error: string} | undefined
  /** Writes `state`; an error's message when it could not be written. */
  save(state: WatchState): string | undefined
}

export function watchStateStore(historyRoot: string, clusterId: string, kind: WatchKind, filters: string): WatchStateStore {
  const dir = join(clusterDir(historyRoot, clusterId), 'watch')
  const file = join(dir, `${kind}-${xxh64(Buffer.from(filters, 'utf8')).toString(16)}.json`)
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
      return decodeWatchState(text)
    },
    save(state) {
      try {
        mkdirSync(dir, {recursive: true})
        writeFileAtomic(file, encodeWatchState(state))
        return undefined
      } catch (error) {
        return describeWriteError(error)
      }
    },
  }
}
