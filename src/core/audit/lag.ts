/**
 * Per-group lag for `audit`: the committed offsets the coordinator answers (OffsetFetch, as `kafka-consumer-groups
 * --describe` reads them) against the log end offsets (ListOffsets LATEST, read uncommitted, as the tool shows
 * LOG-END-OFFSET). Pure: both come in, one summary per group goes out. The sum is kafka-consumer-groups' LAG column
 * added up over the partitions that have both offsets (a committed -1 is no position, as there).
 */
import type {LogEnd} from '../explain/report/offsets.js'
import type {GroupAudit} from './audit.js'
import {type AuditRow, StoredRow} from './stored-row.js'

export interface GroupLag {
  /** The sum of log end − committed over the partitions with both known (decimal string). */
  totalLag: string
  /** Partitions the group has a committed offset for. */
  partitions: number
  /** Of those, partitions whose log end offset (or committed offset) could not be read: not in totalLag. */
  partitionsUnknown: number
  /** The group's error from OffsetFetch (an error name, e.g. GROUP_AUTHORIZATION_FAILED), else null: then nothing was read. */
  error: string | null
}

/** What OffsetFetch answered for one partition (offset -1: none committed). */
export interface CommittedPartition {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint
  readonly errorCode: number
}

export const logEndKey = (topic: string, partition: number) => `${topic}:${partition}`

/** The partitions whose log end offset a group's lag needs. */
export function lagPartitions(committed: readonly CommittedPartition[]): Array<{topic: string; partition: number}> {
  return committed.filter(c => c.errorCode === 0 && c.offset >= 0n).map(c => ({topic: c.topic, partition: c.partition}))
}

export function groupLag(committed: readonly CommittedPartition[], logEnd: ReadonlyMap<string, LogEnd>): GroupLag {
  let total = 0n
  let partitions = 0
  let unknown = 0
  for (const c of committed) {
    // a partition asked about without an offset answers -1; with Topics null Kafka lists only committed ones
    if (c.errorCode === 0 && c.offset < 0n) continue
    partitions++
    const end = c.errorCode === 0 ? logEnd.get(logEndKey(c.topic, c.partition))?.offset : undefined
    if (end === undefined || end === null) unknown++
    else total += end - c.offset
  }
  return {totalLag: total.toString(), partitions, partitionsUnknown: unknown, error: null}
}

/** A group whose offsets could not be read at all. */
export const lagError = (error: string): GroupLag => ({totalLag: '0', partitions: 0, partitionsUnknown: 0, error})

/**
 * Rows with this run's lag as their last field (null: not read, e.g. a share group or --no-lag). New objects: the
 * rows an incremental audit caches (and the checkpoints' text) never hold a lag, which is stale by the next run.
 */
export function withLag(rows: readonly AuditRow[], lags: ReadonlyMap<string, GroupLag> | undefined): AuditRow[] {
  return rows.map(r => {
    const lag = lags?.get(r.group) ?? null
    return r instanceof StoredRow ? r.withLag(lag) : ({...r, lag} satisfies GroupAudit)
  })
}
