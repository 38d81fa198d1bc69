/**
 * A group's records from the live `__consumer_offsets`: finds the group's partition (Java String.hashCode,
 * Kafka's Utils.abs, modulo the topic's real partition count), streams that partition from its log start to the
 * last stable offset (ListOffsets + Fetch only: no group joined, nothing committed), drops aborted transactions
 * and control batches, and keeps only the group's records (matched on the raw key bytes, so other groups' records
 * are never decoded), so memory follows the group, not the partition. With onRecord the records are streamed to
 * the caller (a GroupReplay) and not kept here.
 */
import {AuthorizationDenied} from '../core/errors.js'
import {CommittedFilter} from '../core/log/committed.js'
import {partitionForGroup, type RecordDecodeError} from '../core/records/index.js'
import {decodeBatch, groupKeyMatcher, groupKeyMatcherAt, type LoggedRecord} from '../core/replay/index.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'
import {OFFSETS_TOPIC, offsetsPartitionCount} from './offsets-topic.js'

export {OFFSETS_TOPIC, offsetsPartitionCount}

/**
 * The broker refused to let this principal read `__consumer_offsets` (Fetch needs READ on the topic): what an
 * operation catches to answer from the describes alone. DESCRIBE refused (Metadata, ListOffsets) is not this.
 */
export function offsetsReadDenied(error: unknown): error is AuthorizationDenied {
  return error instanceof AuthorizationDenied && error.operation === 'READ' && error.resourceType === 'topic' && error.resourceName === OFFSETS_TOPIC
}

export interface GroupLog {
  groupId: string
  partition: number
  partitionCount: number
  leader: number
  logStartOffset: bigint
  endOffset: bigint
  /** The group's committed records in log order, decoded (known, unknown or legacy types); empty with onRecord. */
  records: LoggedRecord[]
  /** The group's records read (kept or streamed). */
  groupRecords: number
  /** Records of the partition looked at (all groups), committed or not. */
  recordsScanned: number
  batches: number
  aborted: {batches: number; records: number}
  /** Malformed records of the group: reported and skipped. */
  decodeErrors: RecordDecodeError[]
}

export interface GroupLogOptions {
  /** Progress: records scanned so far and the offset reached. */
  onProgress?: (scanned: number, offset: bigint, endOffset: bigint | undefined) => void
  /** Each of the group's records in log order, as it is read; then `records` stays empty. */
  onRecord?: (record: LoggedRecord) => void
  /** Read from this offset, not the log start (--watch: where the last read ended). */
  fromOffset?: bigint
}

/**
 * Fetch size for streamed `__consumer_offsets` reads (the reader's default is 8 MiB). A fetch's records are
 * parsed together and stay alive while its batches are handled; at 8 MiB that is ~100,000 record objects,
 * which outlive V8's young-generation GCs and let the old space grow to several times the live heap: `group
 * explain` on a 1 M-record partition peaked at 362 MB RSS with 8 MiB and 139 MB with 1 MiB, also in less CPU.
 * A larger batch is still read whole (the broker returns it; the reader doubles the size if it must).
 */
export const OFFSETS_FETCH_BYTES = 1 << 20

export async function readGroupLog(client: ClusterReader, groupId: string, options: GroupLogOptions = {}): Promise<GroupLog> {
  const partitionCount = await offsetsPartitionCount(client)
  const partition = partitionForGroup(groupId, partitionCount)
  const filter = new CommittedFilter()
  const records: LoggedRecord[] = []
  const matchKey = groupKeyMatcher(groupId)
  const emit = options.onRecord ?? ((r: LoggedRecord) => void records.push(r))
  let groupRecords = 0
  const decodeErrors: RecordDecodeError[] = []
  let recordsScanned = 0
  let batches = 0
  const read = await client.readPartition({
    topic: OFFSETS_TOPIC,
    partition,
    isolation: 'read_committed',
    maxBytes: OFFSETS_FETCH_BYTES,
    // the other groups' records are stepped over in the batch parser: no record objects, no key/value views
    keepKey: groupKeyMatcherAt(groupId),
    fromOffset: options.fromOffset,
    onAborted: list => filter.addAborted(list),
    onBatch: batch => {
      // a batch the last read already had (the broker returns the whole batch holding fromOffset)
      if (options.fromOffset !== undefined && batch.lastOffset < options.fromOffset) return
      batches++
      recordsScanned += batch.recordCount
      const committed = filter.accept(batch)
      if (committed.length > 0) {
        for (const r of decodeBatch({baseOffset: batch.baseOffset, records: committed}, {matchKey, errors: decodeErrors})) {
          groupRecords++
          emit(r)
        }
      }
      options.onProgress?.(recordsScanned, batch.lastOffset, undefined)
    },
  })
  return {
    groupId,
    partition,
    partitionCount,
    leader: read.leader,
    logStartOffset: read.logStartOffset,
    endOffset: read.endOffset,
    records,
    groupRecords,
    recordsScanned,
    batches,
    aborted: {batches: filter.stats.abortedBatches, records: filter.stats.abortedRecords},
    decodeErrors,
  }
}
