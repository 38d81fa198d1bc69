/** Sentences for bump causes, in Kafka's words. Details stay structured for --json. */
import type {LogAttribution} from '../../metadata-log/attribute.js'
import type {ClassicHistoryEvidence, HistoryAttribution} from '../evidence/recorded.js'
import type {BumpCause} from '../../replay/index.js'
import {type JsonSafe, toJsonSafe} from '../../records/json.js'
import type {Confidence, Hypothesis} from '../search/hypotheses.js'
import type {LeaveReason} from './members.js'

/**
 * What the group's records show of a metadata change whose old hash cannot be rebuilt: subscribed topics gone whose
 * ids the assignment records hold (deleted), and partitions the target assignment covered before and after the bump
 * (added; the counts from the records, not from a hash).
 */
export interface Evident {
  deletedTopics: string[]
  topicIds: string[]
  partitionsAdded?: Array<{topic: string; then: number; now: number}>
}

/** What the steps after classification add to a cause's details, all optional. */
export interface CauseAnnotations {
  /** group explain with an audit history: the exact change between two recorded audits (src/history). */
  history?: HistoryAttribution
  /** classic-metadata-rejoin: the partition counts the audit history recorded. */
  classicHistory?: ClassicHistoryEvidence
  /** The member's client.id (causes naming a member). */
  clientId?: string
  /**
   * metadata-hash-changed: the changes to today's metadata that reproduce the hash before the bump (inferred), or,
   * once the cause is exact, the changes the history or the metadata log saw (with their time: exact-changes.ts).
   */
  changes?: Array<Hypothesis & {time?: string; offset?: string}>
  /** evident: what the group's records show although the old hash cannot be rebuilt (Evident). */
  evident?: Evident
  /** How to pin down an ambiguous or unexplained cause. */
  nextStep?: string
  /** What the hashes alone said, kept when a cause became exact (its changes and evident fields too). */
  inferred?: {
    message: string
    confidence: Confidence
    alternatives: Hypothesis[]
    changes?: Hypothesis[]
    evident?: Evident
  }
  /** group explain --metadata-log: the attribution from the cluster's metadata log (exact or not). */
  metadataLog?: LogAttribution
  source?: 'metadata-log'
  /** member-left: why it left, as far as the records tell (see LeaveReason in members.ts). */
  leave?: LeaveReason
}

/** One cause kind's view: its fields from the records (JSON-safe) and the annotations. */
export type CauseViewOf<C extends BumpCause> = {
  kind: C['kind']
  message: string
  /**
   * How the cause is known: read from the records (member joined, …) or seen by history is `exact`; a metadata
   * change reconstructed from the hashes is `inferred-unique` or `inferred-ambiguous`; see Confidence.
   */
  confidence: Confidence
  /** inferred-ambiguous: the other changes that reproduce the same hash. */
  alternatives: Hypothesis[]
  details: JsonSafe<Omit<C, 'kind'>> & CauseAnnotations
}

/** A cause of a group epoch bump as --json prints it, discriminated by `kind`. */
export type CauseView = BumpCause extends infer C ? (C extends BumpCause ? CauseViewOf<C> : never) : never

const list = (xs: readonly string[]) => (xs.length === 0 ? 'nothing' : xs.join(', '))

export function causeView(c: BumpCause): CauseView {
  const {kind, ...rest} = c
  // a metadata change is unexplained until attributed; every other cause is read from the records
  const confidence: Confidence = kind === 'unexplained' || kind === 'metadata-hash-changed' ? 'unexplained' : classicConfidence(c)
  // (TypeScript cannot follow the kind through the rest spread: the pairing is the one classifyBump made)
  return {kind, message: describeCause(c), confidence, alternatives: [], details: toJsonSafe(rest)} as CauseView
}

/** Classic causes read from the values are exact; how a member went and why the leader rejoined are inferred. */
function classicConfidence(c: BumpCause): Confidence {
  if (c.kind === 'classic-member-left') return c.how.kind === 'unknown' ? 'inferred-ambiguous' : 'inferred-unique'
  if (c.kind === 'classic-pattern-match') return 'inferred-unique'
  if (c.kind === 'classic-metadata-rejoin') return c.partitionCounts.length ? 'inferred-unique' : 'unexplained'
  return 'exact'
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
        c.subscribedTopicNames.length ? `, subscribed to ${list(c.subscribedTopicNames)}` : ''
      }${c.subscribedTopicRegex ? `, regex ${c.subscribedTopicRegex}` : ''}`
    case 'member-left':
      return `member ${c.memberId}${c.instanceId ? ` (instance ${c.instanceId})` : ''} left or was fenced (leave, session or rebalance timeout)${
        c.lastMemberEpoch === -2 ? '; it was a static member that had left temporarily and did not rejoin in time' : ''
      }`
    case 'subscription-changed':
      return `member ${c.memberId} changed its subscription: added ${list(c.added)}, removed ${list(c.removed)}`
    case 'regex-changed':
      return `member ${c.memberId} changed its regex from ${c.before ?? 'none'} to ${c.after ?? 'none'}`
    case 'regex-resolution-changed':
      return `regex ${c.regex} now resolves to more or fewer topics: added ${list(c.added)}, removed ${list(c.removed)}`
    case 'regex-resolution-deleted':
      return `no member subscribes to regex ${c.regex} any more: the coordinator deleted its resolution (${list(c.topics)}; the topics themselves did not change)`
    case 'metadata-hash-changed':
      return `metadata of the subscribed topics changed (hash ${c.before} → ${c.after})`
    case 'subscription-metadata-changed':
      return `subscription metadata changed (Kafka 4.0 rules, read from the group's records): ${c.changes.map(x => x.description).join('; ')}`
    case 'upgrade-from-4.0':
      return 'first heartbeat after the upgrade from Kafka 4.0: the coordinator computed the metadata hash for the first time'
    case 'streams-hash-zeroed':
      return `the coordinator stored metadata hash 0 in place of ${c.before} when it removed the member: Kafka 4.1.0–4.1.2 do so when a streams member leaves or is fenced (fixed in 4.2.0); no topic changed, and the coordinator's next recomputation of the hash bumps the epoch once more`
    case 'streams-hash-recomputed':
      return c.sameAsBefore
        ? `the coordinator recomputed the metadata hash that the Kafka 4.1 fence at group epoch ${c.fenceEpoch} had stored as 0; it equals the hash stored before that fence (${c.before}), so no topic changed: the bump is that fence's consequence`
        : `the coordinator recomputed the metadata hash that the Kafka 4.1 fence at group epoch ${c.fenceEpoch} had stored as 0; it differs from the hash stored before that fence (${c.before} → ${c.after}), so the metadata also changed since`
    case 'assignor-changed':
      return `preferred server assignor changed from ${c.before ?? 'the broker default'} to ${c.after ?? 'the broker default'}`
    case 'share-initialization':
      return `share-partition state initialized for ${list(c.topics.map(t => `${t.TopicName} [${t.Partitions.join(',')}]`))}: the target assignment must cover them`
    case 'streams-topology-changed':
      return `streams topology ${c.epochBefore === undefined ? 'initialized' : 'changed'} (topology epoch ${c.epochBefore ?? '-'} → ${c.epochAfter ?? '-'})${
        c.topicsAdded.length || c.topicsRemoved.length ? `; required topics added ${list(c.topicsAdded)}, removed ${list(c.topicsRemoved)}` : ''
      }`
    case 'streams-topology-validated':
      return `streams topology validated (validated topology epoch ${c.before} → ${c.after}): its internal topics exist`
    case 'streams-upgrade-from-4.1':
      return `first epoch written by a Kafka 4.2+ coordinator (an upgrade from 4.1): 4.1 stored neither the validated topology epoch nor the assignment configs, and 4.2+ bumps once when it first records them (validated topology epoch -1 → ${c.validatedTopologyEpoch}; configs ${c.assignmentConfigs.map(x => `${x.field}=${x.after}`).join(', ')}); the topology did not change, and whether the configs differ from those 4.1 used cannot be told from the records`
    case 'streams-assignment-configs-changed':
      return `streams assignment configs changed: ${c.changes.map(x => x.field).join(', ')}`
    case 'streams-member-changed':
      return `streams member ${c.memberId} changed ${c.fields.join(', ')}`
    case 'static-member-replaced':
      return `static member ${c.instanceId} rejoined as ${c.memberId} (was ${c.previousMemberId})`
    case 'classic-rebalance':
      return `classic rebalance completed, generation ${c.generation}${c.membersAdded.length ? `; joined ${list(c.membersAdded)}` : ''}${
        c.membersRemoved.length ? `; left ${list(c.membersRemoved)}` : ''
      }`
    case 'classic-member-left':
      return `member ${c.memberId}${c.clientId ? ` (client ${c.clientId})` : ''}${c.instanceId ? ` (instance ${c.instanceId})` : ''} left: ${c.how.reason}`
    case 'classic-pattern-match':
      return `every member's subscription now lists ${list(c.topics)}: a pattern subscription matching new topics (inferred; the records keep the matched topics, not the pattern)`
    case 'classic-assignor-changed':
      return `assignor (classic protocol) changed from ${c.before ?? 'none'} to ${c.after ?? 'none'}`
    case 'classic-metadata-rejoin':
      return c.partitionCounts.length
        ? `the leader rejoined after a metadata change: ${c.partitionCounts.map(p => `${p.topic} ${p.before} → ${p.after} partitions`).join(', ')} (inferred: the assignments cover that many partitions)`
        : 'same members, subscriptions and assignor: a member (the Java client: the leader, after a metadata change of a subscribed topic such as racks) rejoined; the records do not say why'
    case 'unexplained':
      return 'no change in the records explains this bump'
  }
}
