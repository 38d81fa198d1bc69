/**
 * The changes a recorded source saw, in the shape `details.changes` has (Hypothesis): when a cause becomes exact,
 * every field of it describes what happened, not what the hashes alone suggested (that moves to details.inferred).
 * From the KRaft metadata log's rows (one per partition, replica list, broker registration). Pure.
 */
import type {ChangeRow} from '../../metadata-log/changes.js'
import type {Hypothesis} from '../search/hypotheses.js'

const list = (l: readonly number[] | undefined) => `[${(l ?? []).join(',')}]`
const rack = (r: string | null | undefined) => (r === null || r === undefined ? 'no rack' : r)

/** An exact change: a Hypothesis with when and where the source saw it. */
export type ExactChange = Hypothesis & {time: string; offset?: string}

export function exactChangesFromLog(rows: readonly ChangeRow[]): ExactChange[] {
  const out: ExactChange[] = []
  for (const r of rows) {
    if (!r.movesHash) continue
    const at = {time: r.time, offset: r.offset, description: r.description}
    switch (r.kind) {
      case 'partitions-added':
        out.push({kind: 'partition-count', topic: r.topic, then: String(r.previousPartitions ?? 0), now: String(r.partitions ?? 0), ...at})
        break
      case 'topic-created':
        out.push({kind: 'topic-absent', topic: r.topic, then: 'absent', now: `id ${r.topicId}`, ...at})
        break
      case 'topic-deleted':
        out.push({kind: 'topic-deleted', topic: r.topic, then: `id ${r.topicId}`, now: 'absent', ...at})
        break
      case 'replicas-changed': {
        const moving = (r.addingReplicas?.length ?? 0) + (r.removingReplicas?.length ?? 0) > 0
        out.push({
          kind: moving ? 'reassignment-started' : 'replica-placement',
          topic: r.topic,
          partitions: [r.partition!],
          then: list(r.previousReplicas),
          now: list(r.replicas),
          replicasThen: [{partition: r.partition!, replicas: r.previousReplicas ?? []}],
          ...at,
        })
        break
      }
      case 'broker-registered':
        out.push({
          kind: r.previousRack === undefined ? 'broker-unregistered' : 'broker-rack',
          broker: r.broker,
          then: r.previousRack === undefined ? 'absent' : rack(r.previousRack),
          now: rack(r.rack),
          ...at,
        })
        break
      case 'broker-unregistered':
        out.push({kind: 'broker-registered', broker: r.broker, then: rack(r.rack), now: 'absent', ...at})
        break
      default:
        break
    }
  }
  return out
}
