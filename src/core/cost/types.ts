/**
 * What an epoch bump cost, as the coordinator's records show it: JSON-safe (64-bit offsets as decimal strings,
 * times as ISO-8601 strings beside millisecond numbers). Every time is a record timestamp, i.e. the coordinator's
 * clock when it appended the record; nothing here is a client-side observation. The shape is documented in
 * docs/output-cost.md.
 */
import type {GroupType} from '../replay/index.js'

export interface MemberRef {
  readonly memberId: string
  /** From the member's last metadata record; null when none was seen. */
  readonly clientId: string | null
}

/** What moved: a consumer or share partition, or a streams task (by subtopology). */
export type UnitKind = 'partition' | 'active' | 'standby' | 'warmup'

export interface MovedUnit {
  readonly kind: UnitKind
  /** Consumer and share groups: the topic id as written in the records; classic groups and tasks: null. */
  readonly topicId: string | null
  /** The topic's name (from the live metadata when given, else the topic id); tasks: null. */
  readonly topic: string | null
  /** Streams tasks only. */
  readonly subtopologyId: string | null
  readonly partition: number
  /** Who held it before (null: nobody, e.g. a new partition); who holds it after (null: nobody yet). */
  readonly from: MemberRef | null
  readonly to: MemberRef | null
  /**
   * Consumer partitions and streams active tasks: why the old owner no longer held it (`revocation`: a record of
   * its own without it; `member-removed`: its current-assignment tombstone, a leave or a fence). null otherwise.
   */
  readonly releasedBy: 'revocation' | 'member-removed' | null
  readonly releasedAt: string | null
  readonly releasedAtMs: number | null
  readonly releasedOffset: string | null
  readonly ownedAt: string | null
  readonly ownedAtMs: number | null
  readonly ownedOffset: string | null
  /** Time without an owner (releasedAt → ownedAt); null when not measured (standby/warm-up tasks, share, classic). */
  readonly unownedMs: number | null
  /** No owner at the end of the records read: unownedMs runs to `asOf` and is a lower bound. */
  readonly open: boolean
}

export interface PendingMember {
  readonly member: MemberRef
  /** null: the member has a metadata record but no current assignment yet. */
  readonly memberEpoch: number | null
  readonly state: 'stable' | 'unrevoked' | 'unreleased' | 'unknown' | 'no-assignment'
  /** Partitions (tasks) it still has to revoke: count, and the first ones. */
  readonly pendingRevocation: number
  readonly pendingUnits: readonly UnitRef[]
  /** Its revocation started (pendingRevocation > 0), else its last record. */
  readonly since: string
  readonly sinceMs: number
}

export interface UnitRef {
  readonly kind: UnitKind
  readonly topicId: string | null
  readonly topic: string | null
  readonly subtopologyId: string | null
  readonly partition: number
}

export type Convergence =
  | {
      readonly status: 'converged'
      /** The record after which every member was at the assignment epoch with nothing pending revocation. */
      readonly at: string
      readonly atMs: number
      readonly offset: string
      readonly afterMs: number
    }
  | {
      /** The next bump came first. Measured to that bump; `settled` is the group's next convergence, if any. */
      readonly status: 'superseded'
      readonly byEpoch: number
      readonly at: string
      readonly atMs: number
      readonly afterMs: number
      readonly pending: readonly PendingMember[]
      readonly settled: {readonly at: string; readonly atMs: number; readonly offset: string; readonly afterMs: number} | null
    }
  | {
      readonly status: 'not-converged'
      /** The last record read: what is pending is pending at least until then. */
      readonly asOf: string
      readonly asOfMs: number
      readonly afterMs: number
      readonly pending: readonly PendingMember[]
    }
  | {readonly status: 'not-measured'; readonly reason: 'share-group' | 'classic-group'}

export interface SlowestMember {
  readonly member: MemberRef
  /**
   * revoking: from the record that set its partitions pending revocation to the one without them (or to `asOf`);
   * not-heartbeating: no record of it from the bump (or its last record) until `toMs` (`removed`: then fenced or
   * left); joined-late: its first record came this long after the bump.
   */
  readonly doing: 'revoking' | 'not-heartbeating' | 'joined-late'
  readonly ms: number
  readonly fromMs: number
  readonly toMs: number
  readonly ongoing: boolean
  readonly removed: boolean
  /** revoking: how many partitions (tasks), and the first ones. */
  readonly units: number
  readonly unitRefs: readonly UnitRef[]
}

export interface RebalanceCost {
  readonly groupId: string
  readonly groupType: GroupType
  /** The group epoch (classic: generation) of the bump and the one before (null: the first seen). */
  readonly epoch: number
  readonly previousEpoch: number | null
  /** The record carrying the epoch. */
  readonly offset: string
  readonly at: string
  readonly atMs: number
  readonly moved: readonly MovedUnit[]
  readonly movedCount: number
  /** Sum of unownedMs over `moved` (open gaps counted to `asOf`); 0 where nothing is measured. */
  readonly unownedPartitionMs: number
  readonly convergence: Convergence
  readonly slowest: SlowestMember | null
  /** Classic groups: the protocol the assignor implies (`unknown`: a name we do not know) and the assignor name. */
  readonly protocol: 'eager' | 'cooperative' | 'unknown' | null
  readonly assignor: string | null
  /** What the records cannot tell about this bump (sentences). */
  readonly cannotTell: readonly string[]
}

export const CANNOT_TELL = {
  clock: 'Times are record timestamps: the coordinator appended the record then (its clock), not when a client acted.',
  revocation:
    "A consumer's processing stop inside onPartitionsRevoked is not observed: it lies between two records of that member (pending revocation set, then released).",
  heartbeat: 'No record of a member means no heartbeat changed its state; a heartbeat that changed nothing writes no record.',
  standby: 'Standby and warm-up tasks do not stop processing when they move: no time without an owner is measured for them.',
  share: 'Share groups have no revocation step: a partition can be assigned to several members at once, so only assignment changes are shown.',
  classic:
    'Classic group records carry no start time of a rebalance: partitions moved between generations are shown, no duration is claimed (eager: every member gives up all its partitions at the start).',
} as const

/** A bump's cost in brief (an audit row's `cost.last`): RebalanceCost's figures without its lists. */
export interface BumpBrief {
  readonly epoch: number
  readonly previousEpoch: number | null
  /** The group epoch record: when the bump was written, and where. */
  readonly at: string
  readonly atMs: number
  readonly offset: string
  /** Convergence's status (`not-measured`: share and classic groups, whose records give no duration). */
  readonly status: Convergence['status']
  /** converged: the time to converge; superseded: to the next bump; not-converged: to the last record read (`asOf`). */
  readonly afterMs: number | null
  /** not-converged: the last record read; what was pending then is `membersPending`. */
  readonly asOf: string | null
  readonly membersPending: number
  readonly partitionsMoved: number
  /** Partition-milliseconds without an owner (open gaps counted to the last record read). */
  readonly unownedPartitionMs: number
  /** Moved partitions (tasks) with no owner at the last record read. */
  readonly partitionsWithoutOwner: number
  readonly slowest: Pick<SlowestMember, 'member' | 'doing' | 'ms' | 'ongoing'> | null
}
