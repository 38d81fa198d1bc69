/**
 * The metadata log's changes as rows (`cluster history`, and the changes an exact cause names): those that can move a group hash, coalesced the way an operator made them
 * (a topic created with its partitions, partitions added in one request), filtered, as stable JSON rows.
 */
import {isoTime} from '../time.js'
import {describeChange, type MetadataChange} from './image.js'

export interface ChangeFilter {
  topics?: ReadonlySet<string>
  brokers?: ReadonlySet<number>
  since?: number
  until?: number
}

export interface ChangeRow {
  offset: string
  timestamp: number
  time: string
  kind: MetadataChange['kind']
  /** False for fencing: a fenced broker stays registered and its rack still counts in the topic hash. */
  movesHash: boolean
  description: string
  topic?: string
  topicId?: string
  partition?: number
  partitions?: number
  previousPartitions?: number
  replicas?: number[]
  previousReplicas?: number[]
  addingReplicas?: number[]
  removingReplicas?: number[]
  broker?: number
  rack?: string | null
  previousRack?: string | null
  topicsOnBroker?: string[]
}

/** Merges a topic's creation with its partitions, and partitions added in one batch, into one change. */
export function coalesceChanges(changes: readonly MetadataChange[]): MetadataChange[] {
  const out: MetadataChange[] = []
  for (const c of changes) {
    const last = out[out.length - 1]
    if (
      last &&
      c.kind === 'partitions-added' &&
      last.topicId === c.topicId &&
      last.timestamp === c.timestamp &&
      (last.kind === 'topic-created' || last.kind === 'partitions-added')
    ) {
      out[out.length - 1] = {
        ...last,
        partitions: c.partitions,
        offset: c.offset,
        ...(last.kind === 'partitions-added' ? {partition: undefined, replicas: undefined} : {}),
      }
      continue
    }
    out.push(c)
  }
  return out
}

export function changeRows(changes: readonly MetadataChange[], f: ChangeFilter = {}): ChangeRow[] {
  const rows: ChangeRow[] = []
  for (const c of coalesceChanges(changes)) {
    if (f.since !== undefined && c.timestamp < f.since) continue
    if (f.until !== undefined && c.timestamp > f.until) continue
    if (f.topics || f.brokers) {
      const byTopic = f.topics && ((c.topic !== undefined && f.topics.has(c.topic)) || (c.topicsOnBroker ?? []).some(t => f.topics!.has(t)))
      const byBroker =
        f.brokers &&
        ((c.broker !== undefined && f.brokers.has(c.broker)) || [...(c.replicas ?? []), ...(c.previousReplicas ?? [])].some(b => f.brokers!.has(b)))
      if (!byTopic && !byBroker) continue
    }
    rows.push(changeRow(c))
  }
  return rows
}

export function changeRow(c: MetadataChange): ChangeRow {
  const row: ChangeRow = {
    offset: c.offset.toString(),
    timestamp: c.timestamp,
    time: isoTime(c.timestamp),
    kind: c.kind,
    movesHash: c.movesHash,
    description: describeChange(c),
  }
  if (c.topic !== undefined) row.topic = c.topic
  if (c.topicId !== undefined) row.topicId = c.topicId
  if (c.partition !== undefined) row.partition = c.partition
  if (c.partitions !== undefined) row.partitions = c.partitions
  if (c.previousPartitions !== undefined) row.previousPartitions = c.previousPartitions
  if (c.replicas !== undefined) row.replicas = [...c.replicas]
  if (c.previousReplicas !== undefined) row.previousReplicas = [...c.previousReplicas]
  if (c.kind === 'replicas-changed') {
    row.addingReplicas = [...(c.adding ?? [])]
    row.removingReplicas = [...(c.removing ?? [])]
  }
  if (c.broker !== undefined) row.broker = c.broker
  if (c.rack !== undefined) row.rack = c.rack
  if (c.previousRack !== undefined) row.previousRack = c.previousRack
  if (c.topicsOnBroker !== undefined) row.topicsOnBroker = [...c.topicsOnBroker]
  return row
}
