/**
 * `audit`'s per-group lag: committed offsets by OffsetFetch at each group's coordinator, in batches, and the log end
 * offsets of the partitions they name by ListOffsets (each partition asked once per run). Read-only. Groups without
 * offsets (share groups) are not asked.
 */
import {type CommittedPartition, type GroupLag, groupLag, lagError, lagPartitions, logEndKey} from '../core/audit/lag.js'
import {type Denial, denialWarnings} from '../core/errors.js'
import type {LogEnd} from '../core/explain/report/offsets.js'
import type {GroupType} from '../core/replay/index.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'

/** Group types that commit offsets. */
const WITH_OFFSETS: ReadonlySet<GroupType> = new Set(['consumer', 'classic', 'streams'])
/** Groups whose offsets are held at once: memory follows this, not the cluster's groups. */
const CHUNK = 2000

export async function readGroupLags(
  client: ClusterReader,
  groups: ReadonlyArray<{readonly group: string; readonly type: GroupType | null}>,
  onProgress: (done: number, total: number) => void = () => {},
  warn: (message: string) => void = () => {},
): Promise<Map<string, GroupLag>> {
  const ids = groups.filter(g => g.type !== null && WITH_OFFSETS.has(g.type)).map(g => g.group)
  const out = new Map<string, GroupLag>()
  const logEnd = new Map<string, LogEnd>()
  // refusals (OffsetFetch without DESCRIBE on a group, ListOffsets on a topic): the lag goes on without them
  const denied: Denial[] = []
  for (let i = 0; i < ids.length; i += CHUNK) {
    onProgress(i, ids.length)
    const fetched = await client.committedOffsets(ids.slice(i, i + CHUNK))
    const wanted = new Map<string, {topic: string; partition: number}>()
    for (const g of fetched) {
      if (g.errorCode !== 0) continue
      for (const p of lagPartitions(g.offsets)) if (!logEnd.has(logEndKey(p.topic, p.partition))) wanted.set(logEndKey(p.topic, p.partition), p)
    }
    if (wanted.size > 0)
      for (const l of await client.listOffsets([...wanted.values()])) {
        logEnd.set(logEndKey(l.topic, l.partition), {offset: l.offset, error: l.error})
        if (l.denied) denied.push(l.denied)
      }
    for (const g of fetched) {
      out.set(g.groupId, g.errorCode !== 0 ? lagError(g.errorName) : groupLag(g.offsets as readonly CommittedPartition[], logEnd))
      if (g.denied) denied.push(g.denied)
    }
  }
  for (const w of denialWarnings(denied)) warn(`lag not read where refused: ${w}`)
  return out
}
