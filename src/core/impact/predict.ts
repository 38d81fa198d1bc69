/**
 * `impact`: which groups a planned operation will make bump their group epoch, how many times, when, and the
 * metadata hash each bump will store. Pure: metadata, replayed groups and planned changes in, a report out.
 *
 * Per group, the coordinator's behaviour is simulated over the phases (phases.ts): it keeps a cached hash per
 * topic; a phase that changes one of the group's topics evicts it and flags the group, whose next heartbeat
 * recomputes the group hash from the cache and bumps when it differs from the stored one. A transient phase (a
 * reassignment's copy, the gap between a deletion and a re-creation) is seen only when a heartbeat falls in it, so
 * every path with and without the transient phases is evaluated: that gives the fewest and the most bumps.
 */
import {auditContext, auditGroup} from '../audit/audit.js'
import {TopicHasher} from '../hash.js'
import type {ClusterMetadata} from '../metadata.js'
import type {GroupRefusal} from '../errors.js'
import {
  diffSubscriptionMetadata,
  type GroupRules,
  type GroupSummary,
  type GroupType,
  groupTypeOf,
  type ReplayResult,
  rulesOf,
  storedSubscriptionMetadata,
  subscribedTopicsOf,
  subscriptionMetadataFromLive,
  subscriptionMetadataFromRecord,
  type TopicSubscriptionMetadata,
} from '../replay/index.js'
import type {ConsumerGroupState, ModernGroupState} from '../replay/state.js'
import {describeChange, type PlannedChange} from './changes.js'
import {buildPhases, type Phase, type PhaseKind} from './phases.js'
import {type ClassicImpact, predictClassic} from './classic.js'
import {re2jMatches} from './regex.js'
import {assigned, decide, simulate, simulate40} from './simulate.js'
import {by} from '../order.js'
import type {Reading} from '../explain/report/report.js'

export interface ImpactStep {
  phase: PhaseKind | 'share-initialization'
  when: string
  /** The hash the bump stores (decimal string), or null when it cannot be known (see hashUnknown). */
  metadataHash: string | null
  hashUnknown: string | null
  /**
   * yes: a bump on every path; no: recomputed, same hash; if-seen: a bump only on the paths where a heartbeat comes
   * during a transient phase (this one, or an earlier one whose hash this step leaves again).
   */
  bump: 'yes' | 'no' | 'if-seen'
  /** The bump waits for a topic change or a coordinator move (the stale-cache case). */
  deferred: boolean
  /** Reassignment start with several partitions moving: the hash while all of them are still copying. */
  allCopyingHash?: string
}

export interface GroupImpact {
  group: string
  type: Exclude<GroupType, 'classic'>
  groupEpoch: number
  /** null under Kafka 4.0's rules (no hash kept: the bumps are predicted from the subscription metadata), and read describe-only. */
  storedMetadataHash: string | null
  /** Whose rules the group's records were written under (see group explain): `4.0` or `4.1+`; null read describe-only. */
  rules: GroupRules | null
  /** Members now, and partitions assigned to them (streams: active task partitions; null read describe-only). */
  members: number
  assignedPartitions: number | null
  /** The group's topics the plan touches. */
  touchedTopics: string[]
  /** Today, before the operation: IN_SYNC, or the pending/stale verdict (the operation folds into that bump). */
  today: string
  bumps: {min: number; max: number}
  /** Bumps that stay hidden until a topic change or a coordinator move. */
  deferredBumps: number
  /** What decides the number of bumps, when it is not fixed. */
  decides: string | null
  steps: ImpactStep[]
  notes: string[]
}

export interface ImpactSummary {
  /** Consumer, share and streams groups. */
  groups: number
  /** Classic groups of the consumer protocol (predicted from their leader's metadata comparison: classic.ts). */
  classicGroups: number
  /** Classic groups of other protocols (connect, …): their clients' rules are not the consumer's; not predicted. */
  classicGroupsSkipped: number
  touched: number
  /** Groups that bump at least once on some path, or later (deferred). */
  rebalancing: number
  certain: number
  possible: number
  deferred: number
  alreadyPending: number
  emptyTouched: number
  failOnRebalance: number | null
  exitCode: 0 | 3
}

export interface ImpactReport {
  changes: string[]
  phases: Array<{phase: PhaseKind; when: string; transient: boolean; topics: string[]}>
  groups: GroupImpact[]
  /** Classic consumer groups whose topics the plan touches (or that a created topic may concern). */
  classicGroups: ClassicGroupImpact[]
  summary: ImpactSummary
  /** Read describe-only (READ on __consumer_offsets refused, or --describe-only): what that leaves unknown; else absent. */
  reading?: Reading
  /** Read describe-only: the listed groups whose describe was refused (not predicted; the command exits 1); else absent. */
  refused?: GroupRefusal[]
}

export type ClassicGroupImpact = ClassicImpact & {group: string; type: 'classic'}

export interface ImpactOptions {
  /** Exit 3 when more than this many groups would rebalance. */
  failOnRebalance?: number
  now?: number
}

export function predictImpact(
  md: ClusterMetadata,
  groups: Iterable<[string, ReplayResult | GroupSummary]>,
  changes: readonly PlannedChange[],
  options: ImpactOptions = {},
): ImpactReport {
  const ctx = predictionOf(md, changes, options)
  const {phases} = ctx
  const out: GroupImpact[] = []
  const counts = {total: 0, classicSkipped: 0, classicTotal: 0}
  const classicOut: ClassicGroupImpact[] = []
  for (const [id, replay] of groups) {
    const type = groupTypeOf(replay.state)
    if (!type) continue
    if (type === 'classic') {
      const v = replay.state.classic?.value
      if (!v || v.protocolType !== 'consumer') {
        counts.classicSkipped++
        continue
      }
      counts.classicTotal++
      const c = predictClassic(v, md, phases)
      if (c) classicOut.push({group: id, type: 'classic', ...c})
      continue
    }
    const g = replay.state[type] as ModernGroupState<unknown, unknown, unknown> | null
    if (!g || g.epoch === undefined) continue
    counts.total++
    const impact = predictGroup(ctx, id, replay, type, g, g.epoch)
    if (impact) out.push(impact)
  }
  out.sort(by(x => x.group))
  classicOut.sort(by(x => x.group))
  return {
    changes: changes.map(describeChange),
    phases: phases.map(p => ({phase: p.kind, when: p.when, transient: p.transient, topics: [...p.changed].sort()})),
    groups: out,
    classicGroups: classicOut,
    summary: summarize(out, classicOut, counts, options.failOnRebalance ?? null),
  }
}

/** The phases of the plan over the metadata, and their hashers: built once for every group. */
export function predictionOf(md: ClusterMetadata, changes: readonly PlannedChange[], options: ImpactOptions): Prediction {
  const phases = buildPhases(md, changes)
  return {
    md,
    phases,
    hashers: phases.map(p => new TopicHasher(p.metadata)),
    base: new TopicHasher(md),
    touchedAnywhere: new Set(phases.flatMap(p => [...p.changed])),
    created: new Set(phases.flatMap(p => [...p.created])),
    now: options.now,
    audit: undefined,
  }
}

/** What every group's prediction shares: the phases, their hashers, and the audit context once one is needed. */
export interface Prediction {
  readonly md: ClusterMetadata
  readonly phases: readonly Phase[]
  readonly hashers: readonly TopicHasher[]
  readonly base: TopicHasher
  /** Topics some phase changes. */
  readonly touchedAnywhere: ReadonlySet<string>
  /** Topics some phase creates. */
  readonly created: ReadonlySet<string>
  readonly now: number | undefined
  audit: ReturnType<typeof auditContext> | undefined
}

type ModernType = Exclude<GroupType, 'classic'>
type ModernGroup = ModernGroupState<unknown, unknown, unknown>

/** One consumer, share or streams group's impact; undefined when the changes touch none of its topics. */
function predictGroup(
  ctx: Prediction,
  id: string,
  replay: ReplayResult | GroupSummary,
  type: ModernType,
  g: ModernGroup,
  epoch: number,
): GroupImpact | undefined {
  const topics = subscribedTopicsOf(type, replay.state)
  const notes: string[] = []
  const regexes = type === 'consumer' ? [...(g as unknown as ConsumerGroupState).members.values()].map(m => m.SubscribedTopicRegex) : []
  const picked = regexPicks(ctx, regexes, topics, notes)
  const touched = [...new Set([...topics.filter(t => ctx.touchedAnywhere.has(t)), ...picked])].sort()
  if (touched.length === 0) return undefined

  const rules = rulesOf(type, replay.state) ?? '4.1+'
  const stored40 = rules === '4.0' ? subscriptionMetadataFromRecord(storedSubscriptionMetadata(type, replay.state)) : undefined
  const today = todayOf(ctx, id, replay, topics, g, stored40, notes)
  const empty = g.members.size === 0
  const b = bumpsOf(ctx, topics, picked, stored40 ?? g.metadataHash, {share: type === 'share', empty}, notes)
  return {
    group: id,
    type,
    groupEpoch: epoch,
    storedMetadataHash: stored40 ? null : g.metadataHash.toString(),
    rules,
    members: g.members.size,
    assignedPartitions: assigned(type, g),
    touchedTopics: touched,
    today,
    ...b,
    notes,
  }
}

/** What the simulation over every path gives a group: its steps, the fewest and most bumps, the hidden ones. */
export type Bumps = Pick<GroupImpact, 'bumps' | 'deferredBumps' | 'decides' | 'steps'>

/**
 * One group's bumps over every path through the phases, from its stored hash (or, under Kafka 4.0's rules, its
 * stored subscription metadata); notes on what decides them are added to `notes`. An empty group bumps nothing.
 */
export function bumpsOf(
  ctx: Prediction,
  topics: readonly string[],
  picked: ReadonlySet<string>,
  stored: bigint | ReadonlyMap<string, TopicSubscriptionMetadata>,
  g: {share: boolean; empty: boolean},
  notes: string[],
): Bumps {
  const {phases} = ctx
  const stored40 = typeof stored === 'bigint' ? undefined : stored
  if (g.empty) notes.push('no members: nothing heartbeats, so nothing bumps now; the next member to join bumps the group anyway')
  let apart = 0
  const run = (seen: (i: number) => boolean) => {
    if (stored40) return simulate40(phases, topics, picked, stored40, seen)
    const r = simulate(phases, ctx.hashers, ctx.base, topics, picked, stored as bigint, seen, g.share)
    apart = Math.max(apart, r.apart)
    return r.steps
  }
  const full = run(() => true)
  const transient = phases.map((p, i) => (p.transient ? i : -1)).filter(i => i >= 0)
  const paths = everyPath(transient, run)
  let {min, max} = paths
  // each moving partition that changes racks when it completes can be a state of its own: up to one bump each
  const start = phases.find(p => p.moving)
  const completions = start ? topics.reduce((n, t) => n + (start.moving!.get(t)?.rackChanging ?? 0), 0) : 0
  if (completions > 1 && !stored40) max += completions - 1
  // a restart evicts each topic when its own partitions' ISR change: a heartbeat between two can store a mix
  if (apart > 1 && !stored40) max += apart - 1
  const deferredBumps = full.filter(s => s.bump === 'yes' && s.deferred).length
  if (deferredBumps > 0)
    notes.push(
      "the hidden bump comes with the first partition change on one of the group's topics (a leader election or an ISR change: the controller's own preferred-leader election, every leader.imbalance.check.interval.seconds while leaders are off their preferred replica, is one) or a move of its coordinator",
    )
  // a transient phase's bump, and a bump back that only follows it (final racks equal the old ones: 0 or 2)
  for (const s of full) if (s.bump === 'yes' && !s.deferred && s.phase !== 'share-initialization' && !paths.everywhere?.has(s.phase)) s.bump = 'if-seen'
  let decides: string | null = null
  if (min !== max) decides = stored40 ? decide(phases, transient, paths.counts, 0, 0) : decide(phases, transient, paths.counts, completions, apart)
  if (g.empty) return {bumps: {min: 0, max: 0}, deferredBumps: 0, decides: null, steps: full}
  return {bumps: {min, max}, deferredBumps, decides, steps: full}
}

/**
 * Created topics a consumer group's broker-side regexes (its members' SubscribedTopicRegex) pick up at their next
 * resolution (a regex RE2/J cannot judge is a note).
 */
export function regexPicks(ctx: Prediction, regexes: ReadonlyArray<string | null | undefined>, topics: readonly string[], notes: string[]): Set<string> {
  const picked = new Set<string>()
  if (ctx.created.size === 0) return picked
  const subscribed = new Set(regexes.filter((r): r is string => !!r))
  for (const regex of subscribed) {
    for (const t of ctx.created) {
      if (topics.includes(t)) continue
      const v = re2jMatches(regex, t)
      if ('unknown' in v) notes.push(`${v.unknown}; cannot say whether it will subscribe ${t}`)
      else if (v.matches) picked.add(t)
    }
  }
  return picked
}

/** The group's verdict today when it is already out of sync (the operation folds into that bump), else IN_SYNC. */
function todayOf(
  ctx: Prediction,
  id: string,
  replay: ReplayResult | GroupSummary,
  topics: readonly string[],
  g: ModernGroup,
  stored40: ReadonlyMap<string, TopicSubscriptionMetadata> | undefined,
  notes: string[],
): string {
  const audited = () => {
    ctx.audit ??= auditContext(ctx.md, ctx.now ?? Date.now())
    return auditGroup(id, replay, ctx.audit).verdict.code
  }
  let today = 'IN_SYNC'
  if (stored40) {
    if (diffSubscriptionMetadata(stored40, subscriptionMetadataFromLive(topics, ctx.md)).length > 0) {
      today = audited()
      notes.push(`already ${today} today: the stored subscription metadata differs from live metadata, so the operation folds into that bump`)
    }
    notes.push(
      "Kafka 4.0 rules (the group's records hold subscription metadata, no hash): only topic ids and partition counts count, so replica, rack and broker changes bump nothing; if its coordinator runs 4.1 or later now, its first recomputation bumps once more",
    )
  } else if (ctx.base.groupHash(topics) !== g.metadataHash) {
    today = audited()
    notes.push(
      `already ${today} today: the stored hash differs from the live one, so the operation folds into that bump; the hashes assume the coordinator recomputes every topic of the group`,
    )
  }
  return today
}

/**
 * Every path through the transient phases (each seen by a heartbeat or skipped): the fewest and most bumps, the
 * count per path, and the phases that bump on every path (each phase kind occurs once).
 */
function everyPath(
  transient: readonly number[],
  run: (seen: (i: number) => boolean) => ImpactStep[],
): {min: number; max: number; counts: Array<{skipped: number[]; n: number}>; everywhere: ReadonlySet<string> | undefined} {
  let min = Infinity
  let max = 0
  const counts: Array<{skipped: number[]; n: number}> = []
  let everywhere: ReadonlySet<string> | undefined
  for (let mask = 0; mask < 1 << transient.length; mask++) {
    const skipped = transient.filter((_, b) => mask & (1 << b))
    const r = run(i => !skipped.includes(i))
    const bumping = r.filter(s => s.bump === 'yes' && !s.deferred)
    const n = bumping.length
    const kinds = new Set<string>(bumping.map(s => s.phase))
    const prior: ReadonlySet<string> = everywhere ?? kinds
    everywhere = new Set([...prior].filter(k => kinds.has(k)))
    counts.push({skipped, n})
    min = Math.min(min, n)
    max = Math.max(max, n)
  }
  return {min, max, counts, everywhere}
}

/** The report's summary; `pendingToday`: a group already pending or stale today (by default: not IN_SYNC). */
export function summarize(
  out: readonly GroupImpact[],
  classicOut: readonly ClassicGroupImpact[],
  counts: {total: number; classicSkipped: number; classicTotal: number},
  limit: number | null,
  pendingToday: (g: GroupImpact) => boolean = o => o.today !== 'IN_SYNC',
): ImpactSummary {
  const classicRebalancing = classicOut.filter(o => o.bumps.max > 0)
  const rebalancing = out.filter(o => o.bumps.max > 0 || o.deferredBumps > 0).length + classicRebalancing.length
  return {
    groups: counts.total,
    classicGroups: counts.classicTotal,
    classicGroupsSkipped: counts.classicSkipped,
    touched: out.length + classicOut.filter(o => o.touchedTopics.length > 0).length,
    rebalancing,
    certain: out.filter(o => o.bumps.min > 0).length + classicOut.filter(o => o.bumps.min > 0).length,
    possible: out.filter(o => o.bumps.min === 0 && o.bumps.max > 0).length + classicOut.filter(o => o.bumps.min === 0 && o.bumps.max > 0).length,
    deferred: out.filter(o => o.bumps.max === 0 && o.deferredBumps > 0).length,
    alreadyPending: out.filter(pendingToday).length,
    emptyTouched: out.filter(o => o.members === 0).length,
    failOnRebalance: limit,
    exitCode: limit !== null && rebalancing > limit ? 3 : 0,
  }
}
