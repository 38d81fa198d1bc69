/**
 * What a picture can show for each group type, in the page's words: what a bump is called, what a lane holds,
 * whether a time without an owner is measured, what a release mark means, and what the records cannot tell.
 */
import type {GroupType} from '../../core/replay/index.js'

export interface TypeWords {
  /** A bump: a group epoch (KIP-848 groups) or a generation (classic). */
  readonly bump: 'epoch' | 'generation'
  readonly unit: 'partition' | 'task'
  /** Whether the records give a time without an owner (released, then held again). */
  readonly gaps: boolean
  /** A release mark, in the legend; null: the records give no release time. */
  readonly release: string | null
  /** The slowest member of a bump is measured. */
  readonly slowest: boolean
  /** What the lanes show for this type and what its records cannot tell. */
  readonly shows: string
}

const CONSUMER: TypeWords = {
  bump: 'epoch',
  unit: 'partition',
  gaps: true,
  release: 'a member released partitions (revoked, or the member was removed)',
  slowest: true,
  shows:
    'Each lane: the partitions a member held (assigned or pending revocation), from the record that gave them to the record without them. A consumer stops processing a partition inside onPartitionsRevoked, between two of its records: that moment is not in the records.',
}

export const TYPE_WORDS: Record<GroupType, TypeWords> = {
  consumer: CONSUMER,
  share: {
    ...CONSUMER,
    gaps: false,
    release: "a member's assignment no longer held partitions (share groups have no revocation step)",
    slowest: false,
    shows:
      'Share group: each lane shows the partitions assigned to a member, as its records give them. Share groups have no revocation step and a partition can be assigned to several members at once, so no time without an owner, time to converge or slowest member is measured: only the assignment changes are shown.',
  },
  streams: {
    ...CONSUMER,
    unit: 'task',
    release: 'a member released active tasks (revoked, or the member was removed)',
    shows:
      'Streams group: each lane shows the active tasks a member held (full height) and its standby and warm-up tasks (the thin strip under it), tasks named subtopology_partition. Only active tasks have a time without an owner: standby and warm-up tasks do not stop processing when they move.',
  },
  classic: {
    bump: 'generation',
    unit: 'partition',
    gaps: false,
    release: null,
    slowest: false,
    shows:
      "Classic group: the coordinator writes one record per generation, when its SyncGroup completes; each lane changes at that record. The records carry no start time of a rebalance and no time a member gave up or took a partition, so no duration, time without an owner or slowest member is drawn (eager protocols give up every partition at the rebalance's start; the bumps' protocol is in their cost).",
  },
}

/** The words of a report's type (unknown: as a consumer group, the records' default). */
export const wordsOf = (type: GroupType | null): TypeWords => TYPE_WORDS[type ?? 'consumer']
