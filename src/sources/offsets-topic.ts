/**
 * `__consumer_offsets` as the cluster has it: its name and its partition count (Metadata, read-only). A module of
 * its own so that what needs only the count (`group list`'s partition column) does not load the record reader.
 */
import {RuntimeError} from '../core/errors.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'

export const OFFSETS_TOPIC = '__consumer_offsets'

export async function offsetsPartitionCount(client: ClusterReader): Promise<number> {
  const topics = await client.topics({topics: [OFFSETS_TOPIC]})
  const t = topics.find(x => x.name === OFFSETS_TOPIC)
  if (!t) {
    throw new RuntimeError(
      `the cluster has no ${OFFSETS_TOPIC} topic yet`,
      'The broker creates it when the first group finds its coordinator; no group has stored anything.',
      'NO_OFFSETS_TOPIC',
    )
  }
  return t.partitions.length
}
