/** Sentences for bump causes, in Kafka's words. Details stay structured for --json. */
import type {BumpCause} from '../replay/index.js'
import {toJsonSafe} from '../records/index.js'
import type {Confidence, Hypothesis} from './hypotheses.js'

export interface CauseView {
  kind: string
  message: string
  /**
   * How the cause is known: read from the records (member joined, …) or seen by history is `exact`; a metadata
   * change reconstructed from the hashes is `inferred-unique` or `inferred-ambiguous`; see Confidence.
   */
  confidence: Confidence
  /** inferred-ambiguous: the other changes that reproduce the same hash. */
  alternatives: Hypothesis[]
  details: Record<string, unknown>
}

const list = (xs: readonly string[]) => (xs.length === 0 ? 'nothing' : xs.join(', '))

export function causeView(c: BumpCause): CauseView {
  const {kind, ...rest} = c
  // a metadata change is unexplained until attributed; every other cause is read from the records
  const confidence: Confidence = kind === 'unexplained' || kind === 'metadata-hash-changed' ? 'unexplained' : 'exact'
  return {kind, message: describeCause(c), confidence, alternatives: [], details: toJsonSafe(rest) as Record<string, unknown>}
}

export function describeCause(c: BumpCause): string {
  switch (c.kind) {
    case 'group-created':
      return 'group created'
    case 'converted-from-classic':
      return `converted from a classic group${c.generation === undefined ? '' : ` at generation ${c.generation}`} (online upgrade to the consumer protocol)`
    case 'converted-from-consumer':
      return 'converted from a consumer group to a classic group (online downgrade)'
    case 'history-starts':
      return 'earliest epoch in the log (older records were compacted away)'
    case 'member-joined':
      return `member ${c.memberId}${c.instanceId ? ` (instance ${c.instanceId})` : ''} joined${
        c.subscribedTopicNames.length ? `, subscribed to ${list(c.subscribedTopicNames)}` : ''}${c.subscribedTopicRegex ? `, regex ${c.subscribedTopicRegex}` : ''}`
    case 'member-left':
      return `member ${c.memberId}${c.instanceId ? ` (instance ${c.instanceId})` : ''} left or was fenced (leave, session or rebalance timeout)${
        c.lastMemberEpoch === -2 ? '; it was a static member that had left temporarily and did not rejoin in time' : ''}`
    case 'subscription-changed':
      return `member ${c.memberId} changed its subscription: added ${list(c.added)}, removed ${list(c.removed)}`
    case 'regex-changed':
      return `member ${c.memberId} changed its regex from ${c.before ?? 'none'} to ${c.after ?? 'none'}`
    case 'regex-resolution-changed':
      return `regex ${c.regex} now resolves to more or fewer topics: added ${list(c.added)}, removed ${list(c.removed)}`
    case 'metadata-hash-changed':
      return `metadata of the subscribed topics changed (hash ${c.before} → ${c.after})`
    case 'upgrade-from-4.0':
      return 'first heartbeat after the upgrade from Kafka 4.0: the coordinator computed the metadata hash for the first time'
    case 'assignor-changed':
      return `preferred server assignor changed from ${c.before ?? 'the broker default'} to ${c.after ?? 'the broker default'}`
    case 'share-initialization':
      return `share-partition state initialized for ${list(c.topics.map(t => `${t.TopicName} [${t.Partitions.join(',')}]`))}: the target assignment must cover them`
    case 'streams-topology-changed':
      return `streams topology ${c.epochBefore === undefined ? 'initialized' : 'changed'} (topology epoch ${c.epochBefore ?? '-'} → ${c.epochAfter ?? '-'})${
        c.topicsAdded.length || c.topicsRemoved.length ? `; required topics added ${list(c.topicsAdded)}, removed ${list(c.topicsRemoved)}` : ''}`
    case 'streams-topology-validated':
      return `streams topology validated (validated topology epoch ${c.before} → ${c.after}): its internal topics exist`
    case 'streams-assignment-configs-changed':
      return `streams assignment configs changed: ${c.changes.map(x => x.field).join(', ')}`
    case 'streams-member-changed':
      return `streams member ${c.memberId} changed ${c.fields.join(', ')}`
    case 'static-member-replaced':
      return `static member ${c.instanceId} rejoined as ${c.memberId} (was ${c.previousMemberId})`
    case 'classic-rebalance':
      return `classic rebalance completed, generation ${c.generation}${c.membersAdded.length ? `; joined ${list(c.membersAdded)}` : ''}${
        c.membersRemoved.length ? `; left ${list(c.membersRemoved)}` : ''}`
    case 'unexplained':
      return 'no change in the records explains this bump'
  }
}
