/**
 * The coordinator simulated over one path through the phases (moved out of ./predict.ts, which evaluates every
 * path): Kafka 4.0's subscription-metadata rule and 4.1+'s cached topic hashes; also what makes the fewest and the
 * most bumps differ (decide) and the partitions a group has assigned.
 */
import {computeGroupHash, type TopicHasher} from '../hash.js'
import {diffSubscriptionMetadata, type GroupType, subscriptionMetadataFromLive, type TopicSubscriptionMetadata} from '../replay/index.js'
import type {ModernGroupState} from '../replay/state.js'
import type {Phase} from './phases.js'
import type {ImpactStep} from './predict.js'

const UNKNOWN = Symbol('unknown')
type Cached = bigint | typeof UNKNOWN

/**
 * The phases a heartbeat sees on one path (`seen(i)` false: no heartbeat came during transient phase i), each with
 * the topics changed since the last phase seen (a skipped phase's changes are seen by the next heartbeat) and the
 * topics it creates that the group picks up.
 */
function eachSeenPhase(
  phases: readonly Phase[],
  picked: ReadonlySet<string>,
  seen: (i: number) => boolean,
  visit: (p: Phase, changed: ReadonlySet<string>, newlyPicked: readonly string[], i: number) => void,
): void {
  let carried = new Set<string>()
  phases.forEach((p, i) => {
    const changed = new Set([...carried, ...p.changed])
    if (!seen(i)) {
      carried = changed
      return
    }
    carried = new Set()
    visit(
      p,
      changed,
      [...picked].filter(t => p.created.has(t)),
      i,
    )
  })
}

/**
 * Kafka 4.0's rules on one path: each phase that changes one of the group's topics (or creates one its regex picks up)
 * makes the coordinator recompute the subscription metadata ({id, name, partition count} of each existing topic) at
 * the next heartbeat; it bumps when that differs from the stored one.
 */
export function simulate40(
  phases: readonly Phase[],
  topics: readonly string[],
  picked: ReadonlySet<string>,
  stored: ReadonlyMap<string, TopicSubscriptionMetadata>,
  seen: (i: number) => boolean,
): ImpactStep[] {
  let prev = stored
  const groupTopics = new Set(topics)
  const steps: ImpactStep[] = []
  eachSeenPhase(phases, picked, seen, (p, changed, newlyPicked) => {
    for (const t of newlyPicked) groupTopics.add(t)
    if (![...groupTopics].some(t => changed.has(t)) && newlyPicked.length === 0) return
    const now = subscriptionMetadataFromLive([...groupTopics], p.metadata)
    const changes = diffSubscriptionMetadata(prev, now)
    steps.push({
      phase: p.kind,
      when: p.when,
      metadataHash: null,
      hashUnknown:
        changes.length > 0
          ? `Kafka 4.0 rules, no hash kept: ${changes.map(c => c.description).join('; ')}`
          : 'Kafka 4.0 rules, no hash kept: the subscription metadata stays the same',
      bump: changes.length > 0 ? 'yes' : 'no',
      deferred: false,
    })
    prev = now
  })
  return steps
}

/** One path through the phases (`seen(i)` false: no heartbeat came during transient phase i). */
export function simulate(
  phases: readonly Phase[],
  hashers: readonly TopicHasher[],
  base: TopicHasher,
  topics: readonly string[],
  picked: ReadonlySet<string>,
  stored: bigint,
  seen: (i: number) => boolean,
  share: boolean,
): {steps: ImpactStep[]; apart: number} {
  let apart = 0
  const cache = new Map<string, Cached | null>() // null: the topic does not exist
  for (const t of topics) cache.set(t, base.topic(t) ? base.topicHash(t) : null)
  let prev: Cached = stored
  const steps: ImpactStep[] = []
  eachSeenPhase(phases, picked, seen, (p, changed, newlyPicked, i) => {
    const mine = [...cache.keys()].filter(t => changed.has(t))
    const trigger = mine.length > 0 || newlyPicked.length > 0
    if (!trigger) return
    for (const t of newlyPicked) cache.set(t, null)
    const refresh = p.reload ? [...cache.keys()] : [...mine, ...newlyPicked]
    let why: string | null = null
    let moved = false
    let changing = 0
    for (const t of refresh) {
      const old = cache.get(t)
      let v: Cached | null
      if (!hashers[i].topic(t)) v = null
      else if (p.unknown.has(t)) v = UNKNOWN
      else v = hashers[i].topicHash(t)
      // an unknown hash is a change when the topic changed here (new id or partition count)
      if (v !== old || (v === UNKNOWN && (changed.has(t) || newlyPicked.includes(t)))) {
        moved = true
        changing++
      }
      cache.set(t, v)
    }
    for (const [t, v] of cache) if (v === UNKNOWN) why ??= `${t}: ${p.unknown.get(t) ?? 'hash unknown'}`
    const present = new Map<string, bigint>()
    let unknown = false
    for (const [t, v] of cache) {
      if (v === null) continue
      if (v === UNKNOWN) unknown = true
      else present.set(t, v)
    }
    const hash: Cached = unknown ? UNKNOWN : computeGroupHash(present)
    if (p.kind === 'broker-restart') apart = Math.max(apart, changing)
    // several partitions moving: they complete one by one, so the transient list a heartbeat sees is one of many
    const movingHere = p.moving ? mine.reduce((n, t) => n + (p.moving!.get(t)?.partitions ?? 0), 0) : 0
    const shown = movingHere > 1 ? UNKNOWN : hash
    if (movingHere > 1)
      why = `${movingHere} partitions move and complete one by one: the replica lists a heartbeat sees during the copy depend on which are still copying (this is the hash while all are)`
    // an unknown hash still differs: its input (a topic id or a partition count) changed
    const bump = hash === UNKNOWN || prev === UNKNOWN ? moved : hash !== prev
    steps.push({
      phase: p.kind,
      when: newlyPicked.length > 0 && !mine.length ? `at the group's next regex resolution (within ~10 s of the creation: ${newlyPicked.join(', ')})` : p.when,
      metadataHash: shown === UNKNOWN ? null : shown.toString(),
      hashUnknown: shown === UNKNOWN ? why : null,
      ...(movingHere > 1 && hash !== UNKNOWN ? {allCopyingHash: hash.toString()} : {}),
      bump: bump ? 'yes' : 'no',
      deferred: p.kind === 'coordinator-move',
    })
    prev = hash
    // a share group bumps again, same hash, once the new share-partitions are initialized (initializedAssignmentPending)
    const fresh = share ? mine.filter(t => p.newPartitions.has(t) && hashers[i].topic(t)) : []
    if (fresh.length > 0) {
      steps.push({
        phase: 'share-initialization',
        when: `once the share-partitions of ${fresh.join(', ')} are initialized (seconds after the change)`,
        metadataHash: hash === UNKNOWN ? null : hash.toString(),
        hashUnknown: hash === UNKNOWN ? why : null,
        bump: 'yes',
        deferred: false,
      })
    }
  })
  return {steps, apart}
}

export function decide(
  phases: readonly Phase[],
  transient: readonly number[],
  counts: ReadonlyArray<{skipped: number[]; n: number}>,
  completions: number,
  apart: number,
): string {
  const parts: string[] = []
  if (apart > 1)
    parts.push(
      `${apart} of the group's topics change hash at the broker restart, each when its own partitions' ISR changes: a heartbeat between two stores a hash with some topics updated and others not (one bump more each)`,
    )
  if (completions > 1)
    parts.push(
      `the ${completions} moving partitions that change racks complete one by one: each completion a heartbeat sees apart from the others can be a bump of its own`,
    )
  for (const i of transient) {
    const withIt = counts.filter(c => !c.skipped.includes(i)).map(c => c.n)
    const without = counts.filter(c => c.skipped.includes(i)).map(c => c.n)
    if (Math.max(...withIt) === Math.max(...without) && Math.min(...withIt) === Math.min(...without)) continue
    const k = phases[i].kind
    if (k === 'reassignment-start')
      parts.push(
        "whether a heartbeat comes while the new replicas catch up: a copy longer than the members' heartbeat interval (group.consumer.heartbeat.interval.ms, default 5 s; share and streams have their own) gives the extra bump of the transient replica list, a faster one does not",
      )
    else parts.push('whether a heartbeat comes between the deletion and the re-creation of the topic (the deletion alone is then stored as a bump of its own)')
  }
  return parts.join('; ') || 'whether heartbeats fall in the transient phases'
}

export function assigned(type: Exclude<GroupType, 'classic'>, g: ModernGroupState<unknown, unknown, unknown>): number {
  let n = 0
  for (const v of g.currentAssignment.values()) {
    if (type === 'streams') for (const t of (v as {ActiveTasks: Array<{Partitions: readonly number[]}>}).ActiveTasks) n += t.Partitions.length
    else for (const t of (v as {AssignedPartitions: Array<{Partitions: readonly number[]}>}).AssignedPartitions) n += t.Partitions.length
  }
  return n
}
