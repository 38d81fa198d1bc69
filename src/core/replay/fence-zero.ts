/**
 * Kafka 4.1's streams fence: `streamsGroupFenceMember` in 4.1.0–4.1.2 writes the new group epoch with metadata hash 0
 * (4.2.0 writes the group's hash). The 0 is not a metadata state: it stays stored until the coordinator next
 * recomputes the hash (a change to one of the group's topics, a topology update, a coordinator reload), and that
 * recomputation bumps the epoch whatever the metadata. GroupReplay and GroupReducer both mark it, per write.
 */
import type {GroupState} from './state.js'

export interface StreamsBeforeWrite {
  readonly hash: bigint
  readonly members: ReadonlySet<string>
}

/** The streams section's stored hash and member ids before a write (undefined without a streams epoch). */
export function streamsBeforeWrite(s: GroupState): StreamsBeforeWrite | undefined {
  const g = s.streams
  return g?.epoch === undefined ? undefined : {hash: g.metadataHash, members: new Set(g.members.keys())}
}

/**
 * After a write that bumped the streams epoch: a non-zero hash replaced by 0 in a write that removed members and
 * added none is the 4.1 fence. Marks it in the state (hashZeroedByFence) and says whether it did.
 */
export function noteFenceZero(s: GroupState, before: StreamsBeforeWrite | undefined): boolean {
  const g = s.streams
  if (!before || !g || g.epoch === undefined || before.hash === 0n || g.metadataHash !== 0n) return false
  const removed = [...before.members].some(m => !g.members.has(m))
  const added = [...g.members.keys()].some(m => !before.members.has(m))
  if (!removed || added) return false
  g.hashZeroedByFence = {epoch: g.epoch, hashBefore: before.hash}
  return true
}
