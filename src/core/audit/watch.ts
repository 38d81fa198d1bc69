/**
 * `audit --watch` and `group explain --watch`: what is new since the last cycle. Pure.
 *
 * A cycle replays in full only the records after the offset the last cycle reached (per partition, see
 * PartitionScan's trackFrom), so an explain report of that replay has exactly the new bumps in its timeline.
 * They become bump events; a bounded set of those already printed keeps a bump from being printed twice when a
 * partition is read again (a checkpoint that no longer fits, a log truncated after a broker restart).
 *
 * NDJSON line (schema {name: "rebalance-doctor/bump", version: 1}; hashes and offsets as decimal strings):
 *   {schema, clusterId, group, type, epoch, previousEpoch, time, timestamp, offset, metadataHash,
 *    previousMetadataHash, assignmentEpoch, causes: [{kind, message, confidence, alternatives, details}], cost, warnings: []}
 *   (cost: the bump's RebalanceCost as of the read that printed it, measured from the group as the last read left it),
 *   and afterRestart: true on a bump found by the first pass of a watch started again (core/audit/restart.ts)
 * A bump printed with a cause not known exactly stays open (OpenBumps); when a later pass names that cause exactly
 * (history recorded since, by this watch or another audit) a revision is printed, once per improvement
 * (schema {name: "rebalance-doctor/bump-revision", version: 1}): the bump's fields with the new causes, plus
 *   revises: {epoch, offset}, revision (1, 2, …), previousCauses: [{kind, confidence, message}]
 * audit --watch also prints each member newly stuck, once (schema {name: "rebalance-doctor/stuck-member", version: 1}):
 *   {schema, clusterId, group, type, stuckAfterMs, memberId, clientId, clientHost, since, memberEpoch, state, waitingOn,
 *    blocking, warnings: []}
 */
import {type Document, SCHEMAS, toDocument} from '../documents.js'
import type {ExplainReport, TimelineEntry} from '../explain/explain.js'
import type {GroupType, ReplayResult} from '../replay/index.js'
import type {GroupAudit, StuckMember} from './audit.js'
import {compare} from '../order.js'

export interface BumpEvent extends TimelineEntry {
  clusterId: string | null
  group: string
  type: GroupType | null
  /** Found by the first pass of a watch started again: stored while no watch ran, or read but not printed before it stopped (core/audit/restart.ts). Absent otherwise. */
  afterRestart?: true
}

export type BumpDocument = Document<BumpEvent>

/**
 * Keys of bumps already printed, the oldest forgotten past `limit`: memory stays flat however long the watch
 * runs. A key is group, type, epoch and offset (a group deleted and created again starts again at epoch 1).
 */
export class PrintedBumps {
  private readonly keys = new Set<string>()

  constructor(readonly limit = 10_000) {
    if (!(limit >= 1)) throw new Error('PrintedBumps: limit must be at least 1')
  }

  get size(): number {
    return this.keys.size
  }

  /** true the first time `key` is offered (then it is remembered), false after. */
  firstTime(key: string): boolean {
    if (this.keys.has(key)) return false
    this.keys.add(key)
    // a Set iterates in insertion order: the first key is the oldest
    if (this.keys.size > this.limit) this.keys.delete(this.keys.values().next().value!)
    return true
  }
}

export function bumpKey(group: string, type: GroupType | null, epoch: number, offset: string): string {
  return `${group}\u0000${type ?? ''}\u0000${epoch}\u0000${offset}`
}

/** The bumps of `report`'s timeline not printed yet (marked printed now), oldest first. */
export function newBumpEvents(report: Pick<ExplainReport, 'group' | 'type' | 'timeline'>, clusterId: string | null, printed: PrintedBumps): BumpEvent[] {
  const out: BumpEvent[] = []
  for (const e of report.timeline) {
    if (!printed.firstTime(bumpKey(report.group, report.type, e.epoch, e.offset))) continue
    out.push({clusterId, group: report.group, type: report.type, ...e})
  }
  return out
}

/** Bumps of several groups in the order they happened (time, then group id). */
export function orderBumps(events: BumpEvent[]): BumpEvent[] {
  return events.sort((a, b) => a.timestamp - b.timestamp || compare(a.group, b.group) || a.epoch - b.epoch)
}

export function bumpDocument(e: BumpEvent): BumpDocument {
  return toDocument(SCHEMAS.bump, e)
}

/** How long to sleep after a cycle that started at `startedAt`: the rest of the interval, never negative. */
export function delayUntilNextCycle(intervalMs: number, startedAt: number, now: number): number {
  return Math.max(0, startedAt + intervalMs - now)
}

/** A member newly found stuck by a --watch pass (reconciling longer than its group's --stuck-after). */
export interface StuckEvent extends StuckMember {
  clusterId: string | null
  group: string
  type: GroupType | null
  /** The threshold it passed (ms). */
  stuckAfterMs: number
}

/**
 * The stuck members of `rows` not printed yet: keyed by group, member and the time it started reconciling, so a
 * member stuck again later (a new since) is printed again, and one still stuck is printed once.
 */
export function newStuckEvents(
  rows: ReadonlyArray<Pick<GroupAudit, 'group' | 'type' | 'stuckMembers' | 'stuckAfter'>>,
  clusterId: string | null,
  printed: PrintedBumps,
): StuckEvent[] {
  const out: StuckEvent[] = []
  for (const r of rows) {
    for (const m of r.stuckMembers) {
      if (printed.firstTime(`stuck\u0000${r.group}\u0000${r.type}\u0000${m.memberId}\u0000${m.since}`))
        out.push({clusterId, group: r.group, type: r.type, stuckAfterMs: r.stuckAfter.ms, ...m})
    }
  }
  return out
}

export function stuckDocument(e: StuckEvent): Document<StuckEvent> {
  return toDocument(SCHEMAS.stuckMember, e)
}

/** A bump printed before, with the causes a later pass found (exact where the first print was not). */
export interface BumpRevision extends BumpEvent {
  /** The bump it revises (with group and type: the key of the first print). */
  revises: {epoch: number; offset: string}
  /** 1 for the first revision of that bump. */
  revision: number
  previousCauses: Array<{kind: string; confidence: string; message: string}>
}

/** A cause a later look may still name exactly (history recorded later, a metadata log). */
const improvable = (e: Pick<BumpEvent, 'causes'>) => e.causes.some(c => c.confidence !== 'exact' && c.confidence !== 'evident')

/**
 * Bumps printed with a cause not known exactly, each with the replay that explained it, so that a later pass can
 * explain it again with what it has learnt since (history). Only a cause that becomes `exact` is a revision: a
 * new inference from later live metadata would not be better evidence, only different. Bounded: the oldest are
 * dropped past `limit`, and each is given up after `maxAgeMs`.
 */
export class OpenBumps {
  private readonly open = new Map<string, {event: BumpEvent; replay: ReplayResult; revision: number; since: number}>()

  constructor(
    readonly limit = 100,
    readonly maxAgeMs = 30 * 60_000,
  ) {}

  get size(): number {
    return this.open.size
  }

  /** Bumps just printed; those whose cause could still be named exactly are kept with `replay`. */
  add(events: readonly BumpEvent[], replay: (e: BumpEvent) => ReplayResult, now: number): void {
    for (const e of events) {
      if (!improvable(e)) continue
      this.open.set(bumpKey(e.group, e.type, e.epoch, e.offset), {event: e, replay: replay(e), revision: 0, since: now})
      if (this.open.size > this.limit) this.open.delete(this.open.keys().next().value!)
    }
  }

  /** The groups' replays to explain again (each once, however many of its bumps are open). */
  replays(now: number): Array<{group: string; type: GroupType | null; replay: ReplayResult}> {
    const out = new Map<ReplayResult, {group: string; type: GroupType | null; replay: ReplayResult}>()
    for (const [key, o] of this.open) {
      if (now - o.since > this.maxAgeMs) this.open.delete(key)
      else out.set(o.replay, {group: o.event.group, type: o.event.type, replay: o.replay})
    }
    return [...out.values()]
  }

  /**
   * Compares a report explaining `replay` again with the bumps printed from it: a bump with a cause now exact that
   * was not is a revision (and closes when nothing in it can improve further).
   */
  revise(report: Pick<ExplainReport, 'group' | 'type' | 'timeline'>, clusterId: string | null): BumpRevision[] {
    const out: BumpRevision[] = []
    for (const e of report.timeline) {
      const key = bumpKey(report.group, report.type, e.epoch, e.offset)
      const o = this.open.get(key)
      if (!o) continue
      const exactBefore = new Set(o.event.causes.filter(c => c.confidence === 'exact').map(c => c.kind))
      const better = e.causes.some(c => c.confidence === 'exact' && !exactBefore.has(c.kind))
      const worse = o.event.causes.some(c => c.confidence === 'exact' && !e.causes.some(n => n.kind === c.kind && n.confidence === 'exact'))
      if (!better || worse) continue
      const revision: BumpRevision = {
        clusterId,
        group: report.group,
        type: report.type,
        ...e,
        revises: {epoch: o.event.epoch, offset: o.event.offset},
        revision: o.revision + 1,
        previousCauses: o.event.causes.map(c => ({kind: c.kind, confidence: c.confidence, message: c.message})),
      }
      out.push(revision)
      if (improvable(e)) this.open.set(key, {...o, event: {clusterId, group: report.group, type: report.type, ...e}, revision: o.revision + 1})
      else this.open.delete(key)
    }
    return out
  }
}

export function revisionDocument(e: BumpRevision): Document<BumpRevision> {
  return toDocument(SCHEMAS.bumpRevision, e)
}
