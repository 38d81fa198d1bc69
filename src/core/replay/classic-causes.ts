/**
 * Causes of a classic group's generation bump, from two consecutive GroupMetadata values (the coordinator writes
 * one when a generation's SyncGroup completes and when the group becomes empty) and the group's offset commits.
 * The coordinator records no reason for a rebalance: a member that is gone may have sent LeaveGroup, expired its
 * session, or (Java client) left after its poll timeout. The commit times of its partitions tell them apart: a clean
 * close commits right before leaving; a crashed member's last commit is at least about a session timeout before
 * the coordinator expires it; a poll-timed-out member stopped committing a rebalance timeout before it left. All
 * three are inferences and are said to be.
 */
import type {BumpCause} from './classify.js'
import {classicMemberTopics} from './classic-topics.js'
import type * as V from './values.js'

/** A clean leave: its partitions were committed within this share of its session timeout before the new generation. */
const LEAVE_SHARE = 1 / 3
/** A session timeout: its last commit is at least this share of its session timeout before the new generation. */
const EXPIRY_SHARE = 2 / 3

export interface ClassicLeave {
  /** leave: LeaveGroup (clean close); session-timeout; poll-timeout: max.poll.interval.ms (the rebalance timeout) passed. */
  kind: 'leave' | 'session-timeout' | 'poll-timeout' | 'unknown'
  /** Always true: the coordinator does not record why a member went. */
  inferred: true
  reason: string
  /** From the last commit of the partitions it was assigned to this generation's write (null: no commit known). */
  msSinceLastCommit: number | null
  sessionTimeoutMs: number
  rebalanceTimeoutMs: number | null
}

export interface PartitionCountSeen {
  topic: string
  before: number
  after: number
}

interface TopicPartitionList {
  Topic: string
  Partitions: readonly number[]
}

const assigned = (m: V.ClassicMember): TopicPartitionList[] => {
  const d = m.assignmentDecoded as {ok?: boolean; value?: {AssignedPartitions?: readonly TopicPartitionList[]}} | undefined
  return d?.ok ? [...(d.value?.AssignedPartitions ?? [])] : []
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** Why `m` is gone, from the latest commit of its partitions before the write at `at` (ms). */
export function whyClassicMemberLeft(m: V.ClassicMember, at: number, lastCommits: ReadonlyMap<string, number>): ClassicLeave {
  const session = m.sessionTimeout
  const rebalance = m.rebalanceTimeout >= 0 ? m.rebalanceTimeout : null
  let last: number | null = null
  for (const tp of assigned(m))
    for (const p of tp.Partitions) {
      const t = lastCommits.get(`${tp.Topic}:${p}`)
      if (t !== undefined && (last === null || t > last)) last = t
    }
  const base = {inferred: true as const, sessionTimeoutMs: session, rebalanceTimeoutMs: rebalance}
  if (last === null)
    return {...base, kind: 'unknown', msSinceLastCommit: null, reason: 'no commit of its partitions is known: a leave, a session timeout or a poll timeout'}
  const d = Math.max(0, at - last)
  const since = `its partitions were last committed ${secs(d)} before this generation`
  if (rebalance !== null && rebalance > session && d >= rebalance)
    return {...base, kind: 'poll-timeout', msSinceLastCommit: d, reason: `likely a poll timeout: ${since} (rebalance timeout ${secs(rebalance)})`}
  if (d >= session * EXPIRY_SHARE)
    return {...base, kind: 'session-timeout', msSinceLastCommit: d, reason: `likely a session timeout: ${since} (session timeout ${secs(session)})`}
  if (d <= session * LEAVE_SHARE)
    return {...base, kind: 'leave', msSinceLastCommit: d, reason: `likely a leave (clean close): ${since}, well within its session timeout of ${secs(session)}`}
  return {
    ...base,
    kind: 'unknown',
    msSinceLastCommit: d,
    reason: `${since} (session timeout ${secs(session)}): too close to tell a leave from a session timeout`,
  }
}

/**
 * The latest commit time (ms) of each partition the members gone in this write were assigned: all a leave's
 * inference needs, so a bump keeps only these (not every partition of the group).
 */
export function departedCommitTimes(
  before: V.GroupMetadataValue | null | undefined,
  after: V.GroupMetadataValue | null | undefined,
  offsets: ReadonlyMap<string, {readonly value: V.OffsetCommitValue}>,
): Map<string, number> {
  const out = new Map<string, number>()
  const staying = new Set((after?.members ?? []).map(m => m.memberId))
  for (const m of before?.members ?? []) {
    if (staying.has(m.memberId)) continue
    for (const tp of assigned(m))
      for (const p of tp.Partitions) {
        const o = offsets.get(`${tp.Topic}:${p}`)
        if (o) out.set(`${tp.Topic}:${p}`, Number(o.value.commitTimestamp))
      }
  }
  return out
}

/** Partition count per topic that the members' assignments cover (assignors assign every partition of a subscribed topic). */
function coveredCounts(v: V.GroupMetadataValue | null | undefined): Map<string, number> {
  const out = new Map<string, Set<number>>()
  for (const m of v?.members ?? [])
    for (const tp of assigned(m)) {
      const s = out.get(tp.Topic) ?? new Set<number>()
      for (const p of tp.Partitions) s.add(p)
      out.set(tp.Topic, s)
    }
  return new Map([...out].map(([t, s]) => [t, s.size]))
}

export interface ClassicBumpInput {
  readonly before: V.GroupMetadataValue | null | undefined
  readonly after: V.GroupMetadataValue
  /** When the new generation was written (ms). */
  readonly at: number
  /** Latest commit time (ms) per "topic:partition" before the write. */
  readonly lastCommits: ReadonlyMap<string, number>
}

/** The causes after the `classic-rebalance` summary: what changed between the two values. */
export function classicCauses({before, after, at, lastCommits}: ClassicBumpInput): BumpCause[] {
  // no earlier value in the log (compacted away) past the first generation: who joined when is not known
  if (!before && after.generation > 1) return [{kind: 'history-starts'}]
  const out: BumpCause[] = []
  const b = new Map((before?.members ?? []).map(m => [m.memberId, m]))
  const a = new Map(after.members.map(m => [m.memberId, m]))
  const replacedBy = new Map<string, string>()
  for (const [id, m] of a) {
    if (b.has(id) || m.groupInstanceId === null) continue
    const old = [...b.values()].find(o => o.groupInstanceId === m.groupInstanceId && !a.has(o.memberId))
    if (old) replacedBy.set(old.memberId, id)
  }
  for (const [id, m] of b) {
    if (a.has(id)) continue
    const by = replacedBy.get(id)
    if (by) out.push({kind: 'static-member-replaced', instanceId: m.groupInstanceId!, previousMemberId: id, memberId: by})
    else
      out.push({kind: 'classic-member-left', memberId: id, instanceId: m.groupInstanceId, clientId: m.clientId, how: whyClassicMemberLeft(m, at, lastCommits)})
  }
  const replacements = new Set(replacedBy.values())
  for (const [id, m] of a) {
    if (b.has(id) || replacements.has(id)) continue
    out.push({kind: 'member-joined', memberId: id, instanceId: m.groupInstanceId, subscribedTopicNames: classicMemberTopics(m), subscribedTopicRegex: null})
  }
  // subscription changes of members in both values; the same topics added by all of them may be a pattern match
  const changes: Array<{memberId: string; added: string[]; removed: string[]}> = []
  for (const [id, m] of a) {
    const old = b.get(id)
    if (!old) continue
    const bt = new Set(classicMemberTopics(old))
    const at2 = new Set(classicMemberTopics(m))
    const added = [...at2].filter(t => !bt.has(t))
    const removed = [...bt].filter(t => !at2.has(t))
    if (added.length || removed.length) changes.push({memberId: id, added, removed})
  }
  for (const c of changes) out.push({kind: 'subscription-changed', ...c})
  const allAdded = changes.length > 0 && changes.length === [...a.keys()].filter(id => b.has(id)).length && changes.every(c => c.removed.length === 0)
  if (allAdded) {
    const common = changes[0].added.filter(t => changes.every(c => c.added.includes(t)))
    if (common.length) out.push({kind: 'classic-pattern-match', topics: common})
  }
  if (before && (before.protocol ?? null) !== (after.protocol ?? null) && after.members.length > 0 && before.members.length > 0)
    out.push({kind: 'classic-assignor-changed', before: before.protocol ?? null, after: after.protocol ?? null})
  if (out.length === 0 && before && after.members.length > 0) {
    // same members, subscriptions and assignor: a member (the Java client: the leader) rejoined on its own
    const bc = coveredCounts(before)
    const ac = coveredCounts(after)
    const counts: PartitionCountSeen[] = [...ac]
      .filter(([t, n]) => bc.has(t) && bc.get(t) !== n)
      .map(([topic, n]) => ({topic, before: bc.get(topic)!, after: n}))
      .sort((x, y) => (x.topic < y.topic ? -1 : 1))
    out.push({kind: 'classic-metadata-rejoin', leader: after.leader, partitionCounts: counts})
  }
  return out
}
