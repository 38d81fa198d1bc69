/** The JSON/table view of a group's decoded records (what `group records` prints). */
import {RECORD_TYPES, toJsonSafe} from './records/index.js'
import type {LoggedRecord} from './replay/index.js'
import {InputError} from './errors.js'
import {isoTime} from './time.js'

export interface RecordView {
  offset: string
  /** ms since the epoch, and the same as ISO-8601. */
  timestamp: number
  time: string
  batchBaseOffset?: string
  type: number
  /** Kafka's record name without Key/Value, e.g. ConsumerGroupMetadata; absent for unknown types. */
  name?: string
  /** Value version; absent for tombstones. */
  version?: number
  key: Record<string, unknown> | null
  /** null for a tombstone. */
  value: unknown
  tombstone: boolean
  /** Set for records this tool does not decode: "unknown-type" or "unknown-version" (reported, skipped). */
  unknown?: string
  /** Set for legacy types (0, 9, 18): why they can be there. */
  legacy?: string
}

/** What `group records` reports. */
export interface GroupRecordsResult {
  group: string
  /** The __consumer_offsets partition holding the group, of partitionCount. */
  partition: number
  partitionCount: number
  leader: number
  logStartOffset: string
  endOffset: string
  /** Records of that partition read (all groups). */
  recordsScanned: number
  abortedTransactionalRecords: number
  /** The group's records (after --type/--since/--until/--last), in log order. */
  records: RecordView[]
  /** Malformed records of the group: reported and skipped. */
  decodeErrors: Array<{offset: string | null; message: string}>
}

export function recordView(r: LoggedRecord): RecordView {
  const d = r.record
  const base = {
    offset: r.offset.toString(),
    timestamp: r.timestamp,
    time: isoTime(r.timestamp),
    ...(r.batchBaseOffset === undefined ? {} : {batchBaseOffset: r.batchBaseOffset.toString()}),
    type: d.type,
  }
  if (d.kind === 'unknown') {
    return {
      ...base,
      ...(d.name ? {name: d.name} : {}),
      ...(d.version === undefined ? {} : {version: d.version}),
      key: d.key ? (toJsonSafe(d.key) as Record<string, unknown>) : d.groupId ? {groupId: d.groupId} : null,
      value: null,
      tombstone: false,
      unknown: d.reason,
    }
  }
  return {
    ...base,
    name: d.name,
    ...(d.version === undefined ? {} : {version: d.version}),
    key: toJsonSafe(d.key) as Record<string, unknown>,
    value: d.value === null ? null : toJsonSafe(d.value),
    tombstone: d.value === null,
    ...(d.legacy ? {legacy: d.legacy} : {}),
  }
}

/** Resolves --type values (ids or names, case-insensitive; "Key"/"Value" suffixes allowed) to type ids. */
export function parseRecordTypes(values: readonly string[]): Set<number> {
  const byName = new Map(RECORD_TYPES.map(t => [t.name.toLowerCase(), t.type]))
  const out = new Set<number>()
  for (const v of values.flatMap(x => x.split(','))) {
    const s = v.trim()
    if (/^\d+$/.test(s)) {
      out.add(Number(s))
      continue
    }
    const id = byName.get(s.toLowerCase().replace(/(key|value)$/, ''))
    if (id === undefined) {
      throw new InputError(`--type "${s}" is not a coordinator record type`, `Use an id 0-23 or a name: ${RECORD_TYPES.map(t => t.name).join(', ')}.`)
    }
    out.add(id)
  }
  return out
}
