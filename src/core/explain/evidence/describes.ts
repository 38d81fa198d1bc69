/**
 * A describe-only watch's evidence: what two polls of a group's describe and the live metadata show changed between
 * them. The describes list every member, so joins, leaves and subscription changes are seen exactly; the live
 * metadata of the subscribed topics is seen at each poll, so a metadata change is exact only when one change of one
 * topic lies between the two polls. Everything between two polls is one observation: an epoch that moved by 2 is two
 * bumps whose order and individual causes the polls cannot tell apart, and a member that joined and left between
 * them is never seen. Pure.
 */
import type {BumpCause} from '../../replay/index.js'
import {isoTime} from '../../time.js'
import {causeView} from '../report/causes.js'
import type {DescribedGroup, DescribedMember} from '../report/described.js'
import type {PollWindow, TimelineEntry} from '../report/report.js'
import type {ExactChange} from './exact-changes.js'
import type {CauseEvidence} from './types.js'

/** A topic's live metadata at a poll: its topic hash (decimal) and partition count; null when it does not exist. */
export interface PolledTopic {
  hash: string
  partitions: number
  topicId: string
}

/** One poll of one group: its describe and the live metadata of its topics. */
export interface DescribeSnapshot {
  /** When the poll's requests were sent, and when its describes were answered: a change seen first by the next poll lies after `requestedAt` of this one. */
  requestedAt: number
  at: number
  group: DescribedGroup
  /** The live metadata hash of the group's topics (decimal), as the coordinator would compute it now. */
  metadataHash: string
  topics: Record<string, PolledTopic | null>
}

export interface TopicChange {
  topic: string
  before: PolledTopic | null
  after: PolledTopic | null
}

/** What changed between two polls of a group whose epoch moved. */
export interface DescribeObservation {
  previous: DescribeSnapshot
  current: DescribeSnapshot
  /** How many bumps lie between the polls (the epoch's move): above 1, they are seen as one observation. */
  bumps: number
  joined: DescribedMember[]
  left: DescribedMember[]
  subscriptions: Array<{memberId: string; added: string[]; removed: string[]}>
  regexes: Array<{memberId: string; before: string | null; after: string | null}>
  /** Topics of the group whose live metadata differs between the polls. */
  topics: TopicChange[]
}

/** The observation between two polls of the same group, or undefined when its epoch did not move (or is not known). */
export function observeBetween(previous: DescribeSnapshot, current: DescribeSnapshot): DescribeObservation | undefined {
  const from = previous.group.groupEpoch
  const to = current.group.groupEpoch
  if (from === null || to === null || to <= from || previous.group.type !== current.group.type) return undefined
  const before = new Map(previous.group.members.map(m => [m.memberId, m]))
  const after = new Map(current.group.members.map(m => [m.memberId, m]))
  const both = current.group.members.filter(m => before.has(m.memberId))
  return {
    previous,
    current,
    bumps: to - from,
    joined: current.group.members.filter(m => !before.has(m.memberId)),
    left: previous.group.members.filter(m => !after.has(m.memberId)),
    subscriptions: both.flatMap(m => subscriptionChange(before.get(m.memberId)!, m)),
    regexes: both.flatMap(m => {
      const was = before.get(m.memberId)!.subscribedTopicRegex
      return was === m.subscribedTopicRegex ? [] : [{memberId: m.memberId, before: was, after: m.subscribedTopicRegex}]
    }),
    topics: topicChanges(previous, current),
  }
}

function subscriptionChange(was: DescribedMember, now: DescribedMember): DescribeObservation['subscriptions'] {
  const added = now.subscribedTopicNames.filter(t => !was.subscribedTopicNames.includes(t)).sort()
  const removed = was.subscribedTopicNames.filter(t => !now.subscribedTopicNames.includes(t)).sort()
  return added.length + removed.length === 0 ? [] : [{memberId: now.memberId, added, removed}]
}

/** Topics polled both times whose hash moved (a topic subscribed at only one poll is a subscription change). */
function topicChanges(previous: DescribeSnapshot, current: DescribeSnapshot): TopicChange[] {
  const out: TopicChange[] = []
  for (const topic of Object.keys(current.topics).sort()) {
    if (!(topic in previous.topics)) continue
    const before = previous.topics[topic]
    const after = current.topics[topic]
    if ((before?.hash ?? null) !== (after?.hash ?? null)) out.push({topic, before, after})
  }
  return out
}

/** The causes the describes show, as the records' causes are shown (a metadata change left for the evidence). */
export function observedCauses(o: DescribeObservation): BumpCause[] {
  const causes: BumpCause[] = [
    ...o.joined.map(m => ({
      kind: 'member-joined' as const,
      memberId: m.memberId,
      instanceId: m.instanceId,
      subscribedTopicNames: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex,
    })),
    ...o.left.map(m => ({kind: 'member-left' as const, memberId: m.memberId, instanceId: m.instanceId, lastMemberEpoch: m.memberEpoch ?? undefined})),
    ...o.subscriptions.map(s => ({kind: 'subscription-changed' as const, ...s})),
    ...o.regexes.map(r => ({kind: 'regex-changed' as const, ...r})),
  ]
  if (o.topics.length > 0 || o.previous.metadataHash !== o.current.metadataHash)
    causes.push({
      kind: 'metadata-hash-changed',
      before: BigInt(o.previous.metadataHash),
      after: BigInt(o.current.metadataHash),
      topics: o.topics.map(t => t.topic),
    })
  if (causes.length === 0) causes.push({kind: 'unexplained'})
  return causes
}

/** The observation as one timeline entry, its causes in the records' words; offset -1: no record was read. */
export function observedEntry(o: DescribeObservation): TimelineEntry & {polls: PollWindow} {
  const clientOf = new Map([...o.previous.group.members, ...o.current.group.members].map(m => [m.memberId, m.clientId]))
  const causes = observedCauses(o).map(c => {
    const view = causeView(c)
    if (c.kind === 'unexplained') view.message = UNSEEN
    if (c.kind === 'metadata-hash-changed') view.message = metadataMessage(o)
    const client = 'memberId' in c ? clientOf.get(c.memberId) : undefined
    if (client && 'memberId' in c) {
      view.details.clientId = client
      view.message = view.message.replace(`member ${c.memberId}`, `member ${c.memberId} (client ${client})`)
    }
    return view
  })
  return {
    epoch: o.current.group.groupEpoch!,
    previousEpoch: o.previous.group.groupEpoch,
    timestamp: o.current.at,
    time: isoTime(o.current.at),
    offset: '-1',
    metadataHash: null,
    previousMetadataHash: null,
    rules: null,
    assignmentEpoch: o.current.group.assignmentEpoch,
    causes,
    polls: {previousPoll: isoTime(o.previous.requestedAt), poll: isoTime(o.current.at), bumps: o.bumps},
  }
}

const UNSEEN =
  'no change the describes show explains this bump (not seen between two polls: a member that joined and left, an assignor or topology change, a metadata change undone)'

function metadataMessage(o: DescribeObservation): string {
  const what = o.topics.map(t => `${t.topic} ${topicState(t.before)} → ${topicState(t.after)}`).join(', ')
  return `live metadata of the subscribed topics changed between the polls (live hash ${o.previous.metadataHash} → ${o.current.metadataHash})${what ? `: ${what}` : ''}`
}

const topicState = (t: PolledTopic | null) => (t === null ? 'absent' : `${t.partitions} partitions`)

/**
 * The describes' evidence for the metadata change: exact when one change of one topic lies between the polls — the
 * same topic id with another partition count, a topic created, or a topic deleted — every field of it seen; a hash
 * that moved with the partition count unchanged (replicas or racks) or several topics changed stay as seen.
 */
export function describesEvidence(o: DescribeObservation, entry: TimelineEntry): CauseEvidence[] {
  if (!entry.causes.some(c => c.kind === 'metadata-hash-changed')) return []
  const change = o.topics.length === 1 ? exactChange(o.topics[0], entry.time) : undefined
  if (!change) return []
  const between = `between the polls at ${isoTime(o.previous.requestedAt)} and ${entry.time}`
  return [
    {
      offset: entry.offset,
      kind: 'metadata-hash-changed',
      source: 'describes',
      annotations: {},
      exact: {message: `metadata changed ${between}: ${change.description}`, changes: [change]},
    },
  ]
}

function exactChange(t: TopicChange, time: string): ExactChange | undefined {
  const {topic, before, after} = t
  if (before && after && before.topicId === after.topicId && before.partitions !== after.partitions)
    return {
      kind: 'partition-count',
      topic,
      then: String(before.partitions),
      now: String(after.partitions),
      time,
      description: `partitions of ${topic} ${before.partitions} → ${after.partitions}`,
    }
  if (!before && after) return {kind: 'topic-absent', topic, then: 'absent', now: `id ${after.topicId}`, time, description: `topic ${topic} created`}
  if (before && !after) return {kind: 'topic-deleted', topic, then: `id ${before.topicId}`, now: 'absent', time, description: `topic ${topic} deleted`}
  return undefined
}
