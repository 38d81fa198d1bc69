/**
 * A describe-only watch (`audit --watch` or `group explain --watch` without READ on `__consumer_offsets`, or with
 * --describe-only): each poll's describes and live metadata as snapshots, and what changed between a group's last
 * two polls when its epoch moved. A group first seen is the baseline (nothing before it to compare); a group gone
 * from a poll is forgotten. Pure.
 */
import type {DescribeObservation, DescribeSnapshot, PolledTopic} from '../explain/evidence/describes.js'
import {observeBetween} from '../explain/evidence/describes.js'
import {type DescribedGroup, describedTopics} from '../explain/report/described.js'
import type {TopicHasher} from '../hash.js'
import {uuidToString} from '../uuid.js'
import type {GroupObservation} from '../history/format.js'

/** One group's poll: its describe and the live metadata of its topics, hashed as the coordinator hashes them. */
export function snapshotOf(group: DescribedGroup, hasher: TopicHasher, when: {requestedAt: number; at: number}): DescribeSnapshot {
  const names = describedTopics(group)
  const topics: Record<string, PolledTopic | null> = {}
  for (const name of names) {
    const t = hasher.topic(name)
    topics[name] = t ? {hash: hasher.topicHash(name).toString(), partitions: t.partitions.length, topicId: uuidToString(t.topicId)} : null
  }
  return {...when, group, metadataHash: hasher.groupHash(names).toString(), topics}
}

/**
 * Each group's polls compared from the first poll at its current epoch, not from the poll just before: the
 * coordinator bumps the epoch for a metadata change only at a member's next heartbeat, so a poll can see the new
 * metadata under the old epoch, and the poll that sees the bump would find nothing changed since. Members join,
 * leave or change their subscription only with a bump, so the longer window adds nothing else; the time bound it
 * gives is that window's.
 */
export class DescribePolls {
  private base = new Map<string, DescribeSnapshot>()

  /** `earlier`: the baseline an earlier watch left (its last polls), compared with by the first poll. */
  constructor(earlier: readonly DescribeSnapshot[] = []) {
    for (const s of earlier) this.base.set(keyOf(s), s)
  }

  /** What the next poll compares with: each group's first poll at its epoch (kept for a restart). */
  baseline(): DescribeSnapshot[] {
    return [...this.base.values()]
  }

  /** The observations of this poll's groups whose epoch moved since their first poll at the epoch before. */
  next(snapshots: readonly DescribeSnapshot[]): DescribeObservation[] {
    const seen = new Map<string, DescribeSnapshot>()
    const out: DescribeObservation[] = []
    for (const s of snapshots) {
      const key = keyOf(s)
      const before = this.base.get(key)
      const o = before && observeBetween(before, s)
      if (o) out.push(o)
      seen.set(key, before && !o && sameEpoch(before, s) ? before : s)
    }
    this.base = seen
    return out
  }
}

const keyOf = (s: DescribeSnapshot) => `${s.group.group}\u0000${s.group.type}`

const sameEpoch = (a: DescribeSnapshot, b: DescribeSnapshot) => a.group.groupEpoch !== null && a.group.groupEpoch === b.group.groupEpoch

/** What the history records of a describe-only poll: each group's epoch, no stored hash (null). */
export function describedHistoryGroups(groups: readonly DescribedGroup[]): Map<string, GroupObservation> {
  const out = new Map<string, GroupObservation>()
  for (const g of groups) if (g.groupEpoch !== null) out.set(g.group, {type: g.type, epoch: g.groupEpoch, hash: null})
  return out
}
