/**
 * Full replays (timelines with snapshots, for causes) of every group a matcher accepts, for `group explain PATTERN`
 * and `--all`: every `__consumer_offsets` partition read once (a glob can match groups in any of them), through
 * audit's scan with each accepted group replayed from its first record. Groups whose records end in their deletion
 * are left out, as audit leaves them out.
 */
import {isDeleted} from '../../core/audit/audit.js'
import type {TrackedReplay} from '../../core/audit/scan.js'
import type {ClusterReader} from '../../kafka/cluster-reader.js'
import {scanOffsets} from '../../sources/audit-scan.js'
import {compare} from '../../core/order.js'

export async function replayMatchingGroups(
  client: ClusterReader,
  accept: (groupId: string) => boolean,
  options: {concurrency?: number; onProgress?: (done: number, total: number, records: number) => void} = {},
): Promise<{groups: Map<string, TrackedReplay>; deletedSkipped: number; partitions: number}> {
  const groups = new Map<string, TrackedReplay>()
  let deletedSkipped = 0
  const scan = await scanOffsets(client, {
    acceptGroup: accept,
    concurrency: options.concurrency,
    onProgress: options.onProgress,
    // from offset 0: every record of an accepted group is replayed in full (the same replay `group explain` makes)
    trackFrom: () => 0n,
    // and every bump's cost, from the same records
    costs: true,
    onPartition: (_partition, _summaries, replays) => {
      for (const [id, replay] of replays) {
        if (isDeleted(replay)) deletedSkipped++
        else groups.set(id, replay)
      }
    },
  })
  const sorted = new Map([...groups].sort(([a], [b]) => compare(a, b)))
  return {groups: sorted, deletedSkipped, partitions: scan.partitions}
}
