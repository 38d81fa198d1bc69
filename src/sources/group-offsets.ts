/**
 * The log end offsets the offsets table of `group explain` needs (ListOffsets LATEST, read uncommitted, like
 * `kafka-consumer-groups --describe`; read-only), joined with the committed offsets the replay holds.
 */
import {type GroupOffsets, groupOffsets, type LogEnd, offsetPartitionsOf} from '../core/explain/report/offsets.js'
import type {ClusterMetadata} from '../core/metadata.js'
import type {GroupState} from '../core/replay/index.js'
import {type Denial, denialNeeds} from '../core/errors.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'

/** What the refused ones need, once per topic: "; ListOffsets needs DESCRIBE on topic orders (grant: kafka-acls …)". */
function deniedNote(failed: ReadonlyArray<{readonly denied?: Denial}>): string {
  const byTopic = new Map<string, Denial>()
  for (const f of failed) if (f.denied) byTopic.set(f.denied.resourceName ?? '', f.denied)
  return [...byTopic.values()].map(d => `; ${d.request} needs ${denialNeeds(d)} (grant: ${d.grant})`).join('')
}

export async function readGroupOffsets(
  client: ClusterReader,
  state: GroupState,
  live: ClusterMetadata,
  warn: (message: string) => void,
): Promise<GroupOffsets | null> {
  const wanted = offsetPartitionsOf(state, live)
  const logEnd = new Map<string, LogEnd>()
  if (wanted.length > 0) {
    const listed = await client.listOffsets(wanted)
    for (const l of listed) logEnd.set(`${l.topic}:${l.partition}`, {offset: l.offset, error: l.error})
    const failed = listed.filter(l => l.offset === null)
    if (failed.length > 0) {
      warn(
        `log end offset unknown for ${failed.length} partition(s) (${failed
          .slice(0, 5)
          .map(l => `${l.topic}-${l.partition}: ${l.error}`)
          .join(', ')}${failed.length > 5 ? ', …' : ''}): their lag is shown as -${deniedNote(failed)}`,
      )
    }
  }
  return groupOffsets(state, live, logEnd)
}
