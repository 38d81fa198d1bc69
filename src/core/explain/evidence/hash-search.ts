/**
 * Metadata bumps attributed from live metadata: the walk back from today through each bump (hypotheses.ts tests
 * the changes), and the reassignment finding. Pure.
 */
import {TopicHasher} from '../../hash.js'
import type {ClusterMetadata, TopicMetadata} from '../../metadata.js'
import {
  type BumpCause,
  classifyBump,
  collectTopicIds,
  type EpochChange,
  type GroupSummary,
  internalTopics,
  metadataHashBefore,
  type ReplayResult,
  subscribedTopicsOf,
} from '../../replay/index.js'
import {uuidToString} from '../../uuid.js'
import {
  applyHypothesis,
  cachedGroupHash,
  type Confidence,
  confidenceOf,
  type Hypothesis,
  type ReassignmentInFlight,
  searchHypotheses,
} from '../search/hypotheses.js'
import type {Evident} from '../report/causes.js'
import type {ExplainOptions, Finding} from '../report/report.js'
import type {BumpInput, CauseEvidence} from './types.js'
import {by} from '../../order.js'
export interface Attribution {
  matches: Hypothesis[]
  alternatives: Hypothesis[]
  confidence: Confidence
  note: string
  /** evident: the deleted topics and the ids the records hold for them; partitions the assignment shows added. */
  evident?: Evident
}

export const unexplained = (note: string): Attribution => ({matches: [], alternatives: [], confidence: 'unexplained', note})

/**
 * REASSIGNMENT_IN_FLIGHT: subscribed topics with partitions under reassignment. Their replica lists are the wider
 * list (adding + removing) now; the group bumps when that list's racks enter the hash, and again when the
 * reassignment completes if the rack lists without the removing replicas differ.
 */
export function reassignmentFinding(
  topics: readonly string[],
  live: ClusterMetadata,
  reassignments: readonly ReassignmentInFlight[],
  hasher: TopicHasher,
  inSync: boolean | null,
): Extract<Finding, {code: 'REASSIGNMENT_IN_FLIGHT'}> | undefined {
  const mine = reassignments.filter(r => topics.includes(r.topic))
  if (mine.length === 0) return undefined
  const byTopic = new Map<string, ReassignmentInFlight[]>()
  for (const r of mine) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r])
  const perTopic = [...byTopic].map(([topic, rs]) => {
    const t = hasher.topic(topic)
    let bumpOnCompletion = false
    if (t) {
      const after = new Map(rs.map(r => [r.partition, r.replicas.filter(b => !r.removingReplicas.includes(b))]))
      const done: ClusterMetadata = {
        ...live,
        topics: [{...t, partitions: t.partitions.map(p => (after.has(p.partition) ? {...p, replicas: after.get(p.partition)!} : p))}],
      }
      bumpOnCompletion = new TopicHasher(done).topicHash(topic) !== hasher.topicHash(topic)
    }
    return {
      topic,
      partitions: rs.map(r => ({
        partition: r.partition,
        replicas: [...r.replicas],
        addingReplicas: [...r.addingReplicas],
        removingReplicas: [...r.removingReplicas],
      })),
      bumpOnCompletion,
    }
  })
  const expectedBumps = (inSync === false ? 1 : 0) + perTopic.filter(t => t.bumpOnCompletion).length
  const text = perTopic.map(
    t =>
      `${t.topic} partition${t.partitions.length === 1 ? '' : 's'} ${t.partitions.map(p => `${p.partition} (adding ${p.addingReplicas.join(',') || 'none'}, removing ${p.removingReplicas.join(',') || 'none'})`).join(', ')}`,
  )
  const completing = perTopic.filter(t => t.bumpOnCompletion).map(t => t.topic)
  return {
    code: 'REASSIGNMENT_IN_FLIGHT',
    message: `partition reassignment in flight on subscribed topics: ${text.join('; ')}. ${inSync === false ? 'The live replica lists (adding + removing) are not in the stored hash yet: the group bumps on its next heartbeat. ' : 'The wider replica lists (adding + removing) are in the stored hash already. '}${completing.length ? `Expect one more bump when it completes (the removing replicas leave and the rack lists of ${completing.join(', ')} change)` : 'No further bump is expected when it completes (the rack lists stay the same without the removing replicas)'}`,
    details: {topics: perTopic, expectedFurtherBumps: expectedBumps},
  }
}

/**
 * Walks the timeline backwards from today's metadata: at each bump whose hash changed with the same topic set,
 * finds the change that turns the metadata after the bump into the metadata before it, and carries that
 * reconstructed metadata to the older bumps. Stops attributing where no change fits or the change is ambiguous
 * in a way that matters for older bumps.
 */
export function attributeMetadataChanges(
  timeline: readonly EpochChange[],
  live: ClusterMetadata,
  replay: ReplayResult,
  options: ExplainOptions,
): Map<EpochChange, Attribution> {
  const out = new Map<EpochChange, Attribution>()
  let md: ClusterMetadata | undefined = live
  /** The group epoch of the bump where the walk back stopped (its change could not be reconstructed). */
  let stoppedAt: number | undefined
  // racks of today's brokers too: the metadata reconstructed for older bumps may have lost a broker with its rack
  const extraRacks = [...new Set([...knownRacks(replay, options), ...live.brokers.flatMap(b => (b.rack === null ? [] : [b.rack]))])]
  const reassignments = options.reassignments
  // a topic deleted before a bump and re-created later: try today's layout under the ids the records saw
  const absentTemplates = new Map(live.topics.map(t => [t.name, t]))
  // Matches that hash alike (a broker with no rack and an unregistered one both add nothing) are the same step back.
  const allTopics = [...new Set(timeline.flatMap(e => [...subscribedTopicsOf(e.groupType, e.before), ...subscribedTopicsOf(e.groupType, e.after)]))]
  const stepBack = stepBackOver(absentTemplates, allTopics)
  const firstSeen = topicIdsFirstSeen(replay)
  const liveIds = new Set(live.topics.map(t => uuidToString(t.topicId)))
  // ids in the records that no live topic has: ids of deleted topics (the same walk as knownTopicIds, done once)
  const deadIds = [...firstSeen.keys()].filter(id => !liveIds.has(id))
  for (let i = timeline.length - 1; i >= 0; i--) {
    const e = timeline[i]
    const hashBefore = metadataHashBefore(e)
    if (e.metadataHash === undefined || hashBefore === undefined || e.metadataHash === hashBefore) continue
    const causes = classifyBump(e)
    if (!causes.some((c: BumpCause) => c.kind === 'metadata-hash-changed')) continue
    if (!md) {
      // (the walk goes back in time: what stopped it is a LATER change); what the records show stays known
      const why = `the later metadata change at group epoch ${stoppedAt ?? '?'} could not be reconstructed, so the metadata before it (and this bump's) cannot be rebuilt from live metadata`
      out.set(e, fromAssignment(e, live, why) ?? unexplained(why))
      continue
    }
    const topicsAfter = subscribedTopicsOf(e.groupType, e.after)
    const topicsBefore = subscribedTopicsOf(e.groupType, e.before)
    const ids = new Map(topicsBefore.map(t => [t, deadIds]))
    // Bring md to "just after this bump" if a later, unrecorded change happened since.
    if (cachedGroupHash(md, topicsAfter) !== e.metadataHash) {
      const later = searchHypotheses({
        target: e.metadataHash,
        topics: topicsAfter,
        metadata: md,
        knownTopicIds: ids,
        extraRacks,
        absentTemplates,
        reassignments,
      })
      md = stepBack(md, later.matches)
      if (!md) {
        stoppedAt = e.epoch
        out.set(e, unexplained('the metadata changed again later in ways the hashes cannot separate'))
        continue
      }
    }
    const r = searchHypotheses({
      target: hashBefore,
      topics: topicsBefore,
      absentTogether: e.groupType === 'streams' ? internalTopics(e.before.streams?.topology ?? null) : undefined,
      metadata: md,
      knownTopicIds: ids,
      extraRacks,
      absentTemplates,
      reassignments,
      priorityTopics: assignmentChanged(e, md, live),
      assignedPartitionsBefore: assignedPartitionCounts(e, md),
    })
    if (r.matches.length === 0) {
      out.set(e, nothingReproduces(e, r, {md, live, firstSeen, liveIds}))
      md = undefined
      stoppedAt = e.epoch
      continue
    }
    out.set(e, {matches: r.matches, alternatives: r.alternatives, confidence: confidenceOf(r), note: ''})
    md = stepBack(md, r.matches)
    if (!md) stoppedAt = e.epoch
  }
  return out
}

/**
 * Steps the metadata back through a bump's matches; matches that hash alike over the group's topics (a broker
 * with no rack and an unregistered one both add nothing) are the same step back, others leave it unknown.
 */
function stepBackOver(absentTemplates: ReadonlyMap<string, TopicMetadata>, allTopics: readonly string[]) {
  return (cur: ClusterMetadata, matches: readonly Hypothesis[]): ClusterMetadata | undefined => {
    if (matches.length === 0) return undefined
    // of a rackless and an unregistered broker, the unregistered one is what usually happened
    const ordered = [...matches].sort(
      (a, b) => Number(a.kind === 'broker-rack' && a.then === 'no rack') - Number(b.kind === 'broker-rack' && b.then === 'no rack'),
    )
    const candidates = ordered.map(m => applyHypothesis(cur, m, absentTemplates))
    if (candidates.length === 1) return candidates[0]
    const key = (x: ClusterMetadata) => {
      const h = new TopicHasher(x)
      return allTopics.map(t => (h.topic(t) ? h.topicHash(t).toString() : '-')).join(',')
    }
    const first = key(candidates[0])
    return candidates.every(c => key(c) === first) ? candidates[0] : undefined
  }
}

/** No change reproduces the hash before the bump: a deleted topic the records name, partitions added, or unexplained. */
function nothingReproduces(
  e: EpochChange,
  r: {tried: number; pairsTried: number},
  o: {md: ClusterMetadata; live: ClusterMetadata; firstSeen: ReadonlyMap<string, bigint>; liveIds: ReadonlySet<string>},
): Attribution {
  const topicsBefore = subscribedTopicsOf(e.groupType, e.before)
  // a subscribed topic that is gone, whose id the records hold: deleted, even though its old hash is unknown
  const gone = topicsBefore.filter(t => !o.md.topics.some(x => x.name === t))
  // an id assigned before the bump (so a topic of the group existed then) that no topic has today
  const assignedBefore = assignedTopicIds(e)
  const deadIds = [...o.firstSeen]
    .filter(([id, offset]) => !o.liveIds.has(id) && (assignedBefore ? assignedBefore.has(id) : offset < e.offset))
    .map(([id]) => id)
  if (gone.length > 0 && deadIds.length > 0)
    return {
      matches: [],
      alternatives: [],
      confidence: 'evident',
      evident: {deletedTopics: gone, topicIds: deadIds},
      note: `${gone.length === 1 ? `topic ${gone[0]} was` : `topics ${gone.join(', ')} were`} deleted (evident: the group's assignment records hold topic id${deadIds.length === 1 ? '' : 's'} ${deadIds.join(', ')}, which no topic has today, and no topic ${gone.join(' or ')} exists); whether anything else changed in the same bump cannot be told, since the deleted topic's hash is gone`,
    }
  const why = `no single topic or broker change, nor a pair of them, reproduces the previous hash (${r.tried} candidates and ${r.pairsTried} pairs tried): several things changed, a rack name never seen, or the coordinator's cache was stale (a coordinator reload recomputes every topic)`
  return fromAssignment(e, o.live, why) ?? unexplained(why)
}

/**
 * A bump whose old hash cannot be rebuilt, where the target assignment covered more partitions of a subscribed topic
 * after it than before: those partitions were added (evident from the records), whatever else changed with them.
 */
function fromAssignment(e: EpochChange, live: ClusterMetadata, why: string): Attribution | undefined {
  const [before, after] = [partitionsCovered(e, 'before'), partitionsCovered(e, 'after')]
  const names = new Map(live.topics.map(t => [uuidToString(t.topicId), t.name]))
  const subscribed = new Set(subscribedTopicsOf(e.groupType, e.before))
  const added: NonNullable<Evident['partitionsAdded']> = []
  for (const [id, now] of after) {
    const then = before.get(id)
    const topic = names.get(id)
    if (then !== undefined && now > then && topic !== undefined && subscribed.has(topic)) added.push({topic, then, now})
  }
  if (added.length === 0) return undefined
  added.sort(by(x => x.topic))
  const matches: Hypothesis[] = added.map(a => ({
    kind: 'partition-count',
    topic: a.topic,
    then: String(a.then),
    now: String(a.now),
    description: `topic ${a.topic}: ${a.then} → ${a.now} partitions`,
  }))
  return {
    matches,
    alternatives: [],
    confidence: 'evident',
    evident: {deletedTopics: [], topicIds: [], partitionsAdded: added},
    note: `${matches.map(m => m.description).join(', ')} (evident: the group's target assignment covered those partitions after this bump and not before); whether anything else changed in the same bump cannot be told: ${why}`,
  }
}

/**
 * Topics whose assigned partitions (the union of the members' target assignments) differ before and after the bump:
 * partitions added, a topic created or deleted show there. A hint for the search order only.
 */
export function assignmentChanged(e: EpochChange, md: ClusterMetadata, live: ClusterMetadata): Set<string> {
  if (e.groupType === 'classic' || e.groupType === 'streams') return new Set()
  const union = (s: EpochChange['before']) => {
    const out = new Map<string, number>()
    for (const v of (s[e.groupType as 'consumer' | 'share']?.targetAssignment.values() ?? []) as Iterable<{
      TopicPartitions?: Array<{TopicId: string; Partitions: number[]}>
    }>) {
      for (const tp of v.TopicPartitions ?? []) out.set(tp.TopicId, (out.get(tp.TopicId) ?? 0) + tp.Partitions.length)
    }
    return out
  }
  const a = union(e.before)
  const b = union(e.after)
  const names = new Map([...live.topics, ...md.topics].map(t => [uuidToString(t.topicId), t.name]))
  const out = new Set<string>()
  for (const id of new Set([...a.keys(), ...b.keys()])) if (a.get(id) !== b.get(id) && names.has(id)) out.add(names.get(id)!)
  return out
}

/**
 * Per topic (by name, from `md`'s ids), the partitions the target assignment covered before the bump: the highest
 * assigned partition + 1 (consumer and share groups). The partition count then while the group had members (every
 * partition of a subscribed topic is assigned); a candidate only, kept when it reproduces the stored hash.
 */
export function assignedPartitionCounts(e: EpochChange, md: ClusterMetadata): Map<string, number> | undefined {
  if (e.groupType !== 'consumer' && e.groupType !== 'share') return undefined
  const byId = partitionsCovered(e, 'before')
  const out = new Map<string, number>()
  for (const t of md.topics) {
    const n = byId.get(uuidToString(t.topicId))
    if (n !== undefined) out.set(t.name, n)
  }
  return out
}

/** Per topic id, the highest partition the target assignment covers + 1, before or after the bump (consumer, share). */
function partitionsCovered(e: EpochChange, side: 'before' | 'after'): Map<string, number> {
  const out = new Map<string, number>()
  if (e.groupType !== 'consumer' && e.groupType !== 'share') return out
  for (const v of (e[side][e.groupType]?.targetAssignment.values() ?? []) as Iterable<{TopicPartitions?: Array<{TopicId: string; Partitions: number[]}>}>) {
    for (const tp of v.TopicPartitions ?? []) for (const p of tp.Partitions) out.set(tp.TopicId, Math.max(out.get(tp.TopicId) ?? 0, p + 1))
  }
  return out
}

/** Topic ids in the members' target assignments before the bump (consumer and share groups; else undefined). */
export function assignedTopicIds(e: EpochChange): Set<string> | undefined {
  if (e.groupType !== 'consumer' && e.groupType !== 'share') return undefined
  const out = new Set<string>()
  for (const v of (e.before[e.groupType]?.targetAssignment.values() ?? []) as Iterable<{TopicPartitions?: Array<{TopicId: string}>}>) {
    for (const tp of v.TopicPartitions ?? []) out.add(tp.TopicId)
  }
  return out
}

/** Every topic id in the group's records, with the offset of the first record that holds it. */
export function topicIdsFirstSeen(replay: ReplayResult): Map<string, bigint> {
  const seen = new Map<string, bigint>()
  const walk = (v: unknown, offset: bigint): void => {
    if (Array.isArray(v)) for (const x of v) walk(x, offset)
    else if (v && typeof v === 'object' && !(v instanceof Uint8Array)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'TopicId' && typeof x === 'string') {
          if (!seen.has(x)) seen.set(x, offset)
        } else walk(x, offset)
      }
    }
  }
  for (const e of replay.timeline) for (const r of e.records) if (r.record.kind === 'record' && r.record.value) walk(r.record.value, r.offset)
  return seen
}

/** Rack names to try: members' RackId in the records, and racks from other sources (history). */
export function knownRacks(replay: ReplayResult | GroupSummary, options: ExplainOptions): string[] {
  return [...new Set([...memberRacks(replay), ...(options.history?.racks ?? [])])]
}

/** Topic ids the group's assignment records mention that are not live topic ids: ids of deleted topics. */
export function knownTopicIds(replay: ReplayResult | GroupSummary, live: ClusterMetadata, topics: readonly string[]): Map<string, string[]> {
  const liveIds = new Set(live.topics.map(t => uuidToString(t.topicId)))
  const seen = new Set<string>('timeline' in replay ? [] : replay.topicIds)
  if ('timeline' in replay)
    for (const e of replay.timeline) for (const r of e.records) if (r.record.kind === 'record' && r.record.value) collectTopicIds(r.record.value, seen)
  for (const type of ['consumer', 'share'] as const) {
    const g = replay.state[type]
    if (g) for (const m of [...g.targetAssignment.values(), ...g.currentAssignment.values()]) collectTopicIds(m, seen)
  }
  const dead = [...seen].filter(id => !liveIds.has(id))
  return new Map(topics.map(t => [t, dead]))
}

/** Rack ids members reported: names of racks that may no longer exist on any broker. */
export function memberRacks(replay: ReplayResult | GroupSummary): string[] {
  if (!('timeline' in replay)) return [...replay.racks]
  const racks = new Set<string>()
  for (const e of replay.timeline) {
    for (const s of [e.before, e.after]) {
      for (const type of ['consumer', 'share', 'streams'] as const) {
        for (const m of (s[type]?.members.values() ?? []) as Iterable<{RackId?: string | null}>) if (m.RackId) racks.add(m.RackId)
      }
    }
  }
  return [...racks]
}

/** The hash search's evidence: for each metadata bump, the changes to today's metadata that reproduce its hashes. */
export function hashSearchEvidence(bumps: readonly BumpInput[], live: ClusterMetadata, replay: ReplayResult, options: ExplainOptions): CauseEvidence[] {
  const attributed = attributeMetadataChanges(
    bumps.map(b => b.change),
    live,
    replay,
    options,
  )
  return bumps.flatMap(b => {
    const inferred = attributed.get(b.change)
    return inferred
      ? [{offset: b.change.offset.toString(), kind: 'metadata-hash-changed' as const, source: 'hash-search' as const, annotations: {}, inferred}]
      : []
  })
}
