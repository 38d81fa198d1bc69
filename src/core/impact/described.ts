/**
 * `impact` read describe-only (READ on `__consumer_offsets` refused, or --describe-only): the prediction from the
 * groups' describes and the live metadata. Without the records the stored metadata hash is not known, so each group
 * is simulated from the hash the coordinator would compute now from the live metadata — as if in sync today: a
 * planned change to one of its topics' partitions, replicas or racks changes that topic's hash, and every non-empty
 * group subscribed to it bumps. What only the stored hash says (already pending or stale, so the change folds into
 * that bump or adds one; Kafka 4.0's rules) is named in `reading` with the grant. Pure.
 */
import type {Denial, GroupRefusal} from '../errors.js'
import {describeOnlyReading, explainDescribed} from '../explain/explain.js'
import {type DescribedGroup, describedTopics} from '../explain/report/described.js'
import type {Reading} from '../explain/report/report.js'
import type {ClusterMetadata} from '../metadata.js'
import {by} from '../order.js'
import {describeChange, type PlannedChange} from './changes.js'
import {bumpsOf, type GroupImpact, type ImpactOptions, type ImpactReport, type Prediction, predictionOf, regexPicks, summarize} from './predict.js'

export function predictDescribedImpact(
  md: ClusterMetadata,
  groups: readonly DescribedGroup[],
  changes: readonly PlannedChange[],
  options: ImpactOptions & {denial?: Denial; refused?: readonly GroupRefusal[]} = {},
): ImpactReport {
  const ctx = predictionOf(md, changes, options)
  const out: GroupImpact[] = []
  const pending = new Set<string>()
  let total = 0
  let classic = 0
  for (const d of groups) {
    if (d.type === 'classic') {
      classic++
      continue
    }
    total++
    const verdict = explainDescribed(d.group, d, {live: md, hasher: ctx.base, now: options.now}).verdict
    if (verdict.pending) pending.add(d.group)
    const impact = predictDescribedGroup(ctx, d, verdict.code)
    if (impact) out.push(impact)
  }
  out.sort(by(x => x.group))
  return {
    changes: changes.map(describeChange),
    phases: ctx.phases.map(p => ({phase: p.kind, when: p.when, transient: p.transient, topics: [...p.changed].sort()})),
    groups: out,
    classicGroups: [],
    summary: summarize(out, [], {total, classicSkipped: classic, classicTotal: 0}, options.failOnRebalance ?? null, g => pending.has(g.group)),
    reading: describedImpactReading(options.denial, classic),
    ...(options.refused?.length ? {refused: [...options.refused]} : {}),
  }
}

/** One described consumer, share or streams group; undefined when the plan touches none of its topics. */
function predictDescribedGroup(ctx: Prediction, d: DescribedGroup, today: string): GroupImpact | undefined {
  const topics = describedTopics(d)
  const notes: string[] = []
  const picked = regexPicks(
    ctx,
    d.members.map(m => m.subscribedTopicRegex),
    topics,
    notes,
  )
  const touched = [...new Set([...topics.filter(t => ctx.touchedAnywhere.has(t)), ...picked])].sort()
  if (touched.length === 0) return undefined
  const type = d.type as GroupImpact['type']
  const b = bumpsOf(ctx, topics, picked, ctx.base.groupHash(topics), {share: type === 'share', empty: d.members.length === 0}, notes)
  return {
    group: d.group,
    type,
    groupEpoch: d.groupEpoch ?? 0,
    storedMetadataHash: null,
    rules: null,
    members: d.members.length,
    assignedPartitions: assignedOf(d),
    touchedTopics: touched,
    today,
    ...b,
    notes,
  }
}

/** Partitions assigned to the members now; null for streams groups (the describe gives tasks, not partitions). */
function assignedOf(d: DescribedGroup): number | null {
  if (d.type === 'streams') return null
  return d.members.reduce((n, m) => n + (m.assignment ?? []).reduce((k, tp) => k + tp.partitions.length, 0), 0)
}

/** What the records would add to a describe-only prediction, each with READ on __consumer_offsets and the grant. */
function describedImpactReading(denial: Denial | undefined, classic: number): Reading {
  const reading = describeOnlyReading(
    denial,
    'stored metadata hash (whether a group is already stale today: the change then folds into that bump, and a change that leaves the hash as it is now, such as a reassignment ending on the same racks, still bumps such a group once)',
  )
  const [first] = reading.missing
  const more = [
    "groups' rules (under Kafka 4.0's, no hash is kept and only topic ids and partition counts count, so replica, rack and broker changes bump nothing; the prediction applies 4.1+'s)",
    ...(classic > 0 ? [classicMissing(classic)] : []),
  ]
  return {...reading, missing: [first, ...more.map(what => ({...first, what}))]}
}

/**
 * Classic groups keep no metadata hash, so none is predicted to bump from one: what is known is how they rebalance
 * (their leader rejoins when a metadata refresh shows a subscribed topic's partition count, or with client.rack its
 * replicas' racks, changed), and which topics each subscribes to is read from its records.
 */
function classicMissing(n: number): string {
  return (
    `subscriptions of ${n} classic group(s), so whether the plan rebalances them (not predicted): a classic group keeps no metadata hash; ` +
    "its leader rejoins (a new generation) when a metadata refresh shows a subscribed topic's partition count, or with client.rack its replicas' racks, changed"
  )
}
