/**
 * Which change to today's cluster metadata reproduces a metadata hash the coordinator stored earlier?
 * `__consumer_offsets` keeps only the group hash, not its inputs, so we test hypotheses: "topic X had N
 * partitions", "topic Y did not exist", "topic Z had another id", "broker B had rack R / was not registered",
 * "partition P of topic T had its replicas on other racks (a reassignment, or its temporary wider list)", and,
 * when no single change fits, one topic change together with one broker change.
 *
 * A hash only sees each partition's rack list, so different changes can hash alike: a broker's rack and a
 * replica move that give the same rack lists are indistinguishable. Every broker hypothesis that matches is
 * therefore checked against the equivalent replica placement (`alternatives`), and callers say how a cause is
 * known (`Confidence`) instead of stating the first match as fact.
 *
 * Hashing is cheap: one topic hash per candidate, and the group hash is re-hashed from a pre-sorted buffer with
 * one 8-byte slot patched, so tens of thousands of candidates over a thousand topics cost well under a second.
 */
import type {RackTable} from '../../hash.js'
import type {BrokerMetadata, TopicMetadata} from '../../metadata.js'
import {uuidToString} from '../../uuid.js'
import {cachedGroupHash, GroupHashPatcher, liveTopicHashes, rackTable, replicaBrokersOf, type TopicCandidate, topicHash} from './hash-patcher.js'
import type {Confidence, Hypothesis, HypothesisResult, HypothesisSearch, ReassignmentInFlight} from './hypothesis-types.js'
import {rackText, s_} from './hypothesis-types.js'
import {assignedCountsMatch} from './assigned-counts.js'
import {
  applyHypothesis,
  isBrokerChange,
  parseUuid,
  partitionsText,
  placementEquivalent,
  placementHypothesis,
  placementKey,
  placementVariants,
} from './placements.js'

export * from './hypothesis-types.js'
export {applyHypothesis, cachedGroupHash, isBrokerChange, placementEquivalent}

export function searchHypotheses(s: HypothesisSearch): HypothesisResult {
  const max = s.maxCandidates ?? 100_000
  const maxPairs = s.maxPairs ?? 20_000
  const rt = rackTable(s.metadata.brokers)
  const table = rt.table
  const byName = new Map(s.metadata.topics.map(t => [t.name, t]))
  const topicSet = [...new Set(s.topics)]
  const existing = topicSet.filter(t => byName.has(t))
  const patcher = new GroupHashPatcher(liveTopicHashes(byName, existing, rt))
  const liveHash = patcher.hash()
  const result: HypothesisResult = {
    liveHash,
    unchanged: liveHash === s.target,
    matches: [],
    alternatives: [],
    tried: 0,
    pairsTried: 0,
    placementsTried: 0,
    truncated: false,
  }
  if (result.unchanged) return result

  const test = (hash: () => bigint, h: () => Hypothesis) => {
    if (result.tried >= max) {
      result.truncated = true
      return
    }
    result.tried++
    if (hash() === s.target) result.matches.push(h())
  }

  // ---- broker changes first: each alters every topic with a replica on that broker
  const rackNames = [...new Set([...table.racks, ...(s.extraRacks ?? [])])].sort()
  const racks: Array<string | null> = [...rackNames, null]
  const onBroker = new Map<number, string[]>()
  for (const n of existing) {
    for (const id of replicaBrokersOf(byName.get(n)!)) {
      const list = onBroker.get(id)
      if (list) list.push(n)
      else onBroker.set(id, [n])
    }
  }
  const replicaBrokers = new Set(onBroker.keys())
  const brokers = new Map(s.metadata.brokers.map(b => [b.id, b]))
  const brokerCandidates: Array<{brokers: BrokerMetadata[]; h: Hypothesis}> = []
  for (const id of [...replicaBrokers].sort((a, b) => a - b)) {
    const b = brokers.get(id)
    const others = s.metadata.brokers.filter(x => x.id !== id)
    if (b) {
      for (const rack of racks) {
        if (rack === b.rack) continue
        brokerCandidates.push({
          brokers: [...others, {...b, rack}],
          h: {
            kind: 'broker-rack',
            broker: id,
            then: rack ?? 'no rack',
            now: b.rack ?? 'no rack',
            description: `broker ${id} had ${rackText(rack)} then (${rackText(b.rack)} now)`,
          },
        })
      }
      if (b.rack !== null) {
        brokerCandidates.push({
          brokers: others,
          h: {
            kind: 'broker-unregistered',
            broker: id,
            then: 'not registered',
            now: `registered, rack ${b.rack}`,
            description: `broker ${id} was not registered then (registered now with rack ${b.rack})`,
          },
        })
      }
    } else {
      for (const rack of rackNames) {
        brokerCandidates.push({
          brokers: [...s.metadata.brokers, {id, rack, fenced: false}],
          h: {
            kind: 'broker-registered',
            broker: id,
            then: `registered, rack ${rack}`,
            now: 'not registered',
            description: `broker ${id} was registered with rack ${rack} then (unregistered now, but still a replica)`,
          },
        })
      }
    }
  }
  const underBrokers = new Map<Hypothesis, {rt: {table: RackTable; key: number}; patcher: GroupHashPatcher}>()
  const brokerState = (c: {brokers: BrokerMetadata[]; h: Hypothesis}) => {
    let x = underBrokers.get(c.h)
    if (!x) {
      const t = rackTable(c.brokers)
      // only topics with a replica on the broker change
      const touched = c.h.broker === undefined ? existing : (onBroker.get(c.h.broker) ?? [])
      x = {rt: t, patcher: patcher.derive(liveTopicHashes(byName, touched, t))}
      underBrokers.set(c.h, x)
    }
    return x
  }

  // ---- topic changes (kept for the pairs below; placements are tried alone only, to bound the pairs)
  const topicCandidates: TopicCandidate[] = []
  // Two different changes to one topic give two different topic hashes, hence two different group hashes (but
  // for a 64-bit collision): once one topic change matches, no other can, and the rest are not tried. The same
  // holds between a partition-count, absence or id change and any broker change (a broker change keeps every
  // topic's partitions and id): whichever kind matches first rules the other out. Placements (the same
  // partitions and id) can hash like a broker change, so they are tried regardless.
  let topicMatched = false
  const tryTopic = (c: TopicCandidate, pairable = true, placementLike = false) => {
    if (pairable) topicCandidates.push(c)
    if (topicMatched && !placementLike) return
    const before = result.matches.length
    test(() => patcher.with(c.topic, topicHash(c, rt)), c.h)
    if (result.matches.length > before) topicMatched = true
  }
  // The topics whose assignment changed in the bump come first, then the broker changes (each re-hashes every topic
  // with a replica on the broker: the costliest candidates, skipped when a priority topic's change matched), then
  // the other topics.
  const prio = s.priorityTopics
  const first = prio ? existing.filter(n => prio.has(n)) : []
  const brokersAt = first.length
  const ordered = [...first, ...(prio ? existing.filter(n => !prio.has(n)) : existing)]
  let brokersTried = false
  const tryBrokers = () => {
    brokersTried = true
    if (topicMatched) return
    for (const c of brokerCandidates)
      test(
        () => brokerState(c).patcher.hash(),
        () => c.h,
      )
    if (result.matches.length > 0) topicMatched = true
  }
  for (const [i, name] of ordered.entries()) {
    if (i === brokersAt) tryBrokers()
    // once a change matched, no further topic change can (above) and the pairs are not searched: stop building them
    if (topicMatched) break
    const topic = byName.get(name)!
    const id = uuidToString(topic.topicId)
    tryTopic({
      topic: name,
      base: topic,
      variant: 'absent',
      then: undefined,
      h: () => ({kind: 'topic-absent', topic: name, then: 'absent', now: id, description: `topic ${name} did not exist then (created since, id ${id})`}),
    })
    for (let n = topic.partitions.length - 1; n >= 1; n--) {
      tryTopic({
        topic: name,
        base: topic,
        variant: `n${n}`,
        then: () => ({...topic, partitions: topic.partitions.slice(0, n)}),
        h: () => ({
          kind: 'partition-count',
          topic: name,
          then: String(n),
          now: String(topic.partitions.length),
          description: `topic ${name} had ${s_(n, 'partition')} then (${topic.partitions.length} now)`,
        }),
      })
    }
    for (const other of s.knownTopicIds?.get(name) ?? []) {
      if (other === id) continue
      const uuid = parseUuid(other)
      if (!uuid) continue
      tryTopic({
        topic: name,
        base: topic,
        variant: `id${other}`,
        then: () => ({...topic, topicId: uuid}),
        h: () => ({
          kind: 'topic-id',
          topic: name,
          then: other,
          now: id,
          description: `topic ${name} had id ${other} then: it was deleted and recreated (id ${id} now)`,
        }),
      })
    }
  }
  if (!brokersTried) tryBrokers()
  for (const name of topicSet.filter(t => !byName.has(t))) {
    const template = s.absentTemplates?.get(name)
    if (!template) continue
    for (const other of s.knownTopicIds?.get(name) ?? []) {
      const uuid = parseUuid(other)
      if (!uuid) continue
      tryTopic({
        topic: name,
        base: template,
        variant: `deleted:${name}:${other}`,
        then: () => ({...template, name, topicId: uuid}),
        h: () => ({
          kind: 'topic-deleted',
          topic: name,
          then: other,
          now: 'absent',
          description: `topic ${name} existed then with id ${other} (${s_(template.partitions.length, 'partition')}): it was deleted since`,
        }),
      })
    }
  }
  // reassignments in flight: the original replicas (before the adding ones joined), all partitions of a topic at once
  const inFlight = new Map<string, ReassignmentInFlight[]>()
  for (const r of s.reassignments ?? []) if (byName.has(r.topic) && existing.includes(r.topic)) inFlight.set(r.topic, [...(inFlight.get(r.topic) ?? []), r])
  for (const [name, rs] of inFlight) {
    const topic = byName.get(name)!
    const original = new Map(rs.map(r => [r.partition, r.replicas.filter(b => !r.addingReplicas.includes(b))]))
    const then: TopicMetadata = {
      ...topic,
      partitions: topic.partitions.map(p => (original.has(p.partition) ? {...p, replicas: original.get(p.partition)!} : p)),
    }
    const parts = rs.map(r => r.partition).sort((a, b) => a - b)
    tryTopic(
      {
        topic: name,
        base: topic,
        variant: `rs${JSON.stringify([...original])}`,
        then: () => then,
        h: () => ({
          kind: 'reassignment-started',
          topic: name,
          partitions: parts,
          then: 'original replicas',
          now: 'reassignment in flight',
          replicasThen: parts.map(p => ({partition: p, replicas: original.get(p)!})),
          description: `the reassignment in flight of ${partitionsText(name, parts)} had not started then (replicas ${rs.map(r => `[${original.get(r.partition)!.join(',')}]`).join(' ')} then, [${rs.map(r => r.replicas.join(',')).join('] [')}] now with the adding replicas)`,
        }),
      },
      true,
      true,
    )
  }

  // ---- replica placements, only when no other change fits: a placement that hashes like a broker change is found
  // from the broker change (alternatives below), and no topic-level change hashes like a placement (they change the
  // partition count or the id). After the broker changes, so a big topic's variants cannot use up their budget.
  // Per partition: one replica on another rack, one more replica (the wider list of a reassignment in flight
  // then), or one fewer (a reassignment in flight now).
  const brokerRack = new Map(s.metadata.brokers.map(b => [b.id, b.rack]))
  const maxPlacements = s.maxPlacements ?? 40_000
  const placementOrder = [...existing].sort((a, b) => Number(inFlight.has(b)) - Number(inFlight.has(a)))
  if (result.matches.length === 0)
    placements: for (const name of placementOrder) {
      const topic = byName.get(name)!
      for (const p of topic.partitions) {
        // one placement matched: any other placement gives another topic hash or another topic, so none can
        if (topicMatched) break placements
        for (const replicas of placementVariants(p.replicas, s.metadata.brokers, brokerRack)) {
          if (result.placementsTried >= maxPlacements) {
            result.truncated = true
            break placements
          }
          result.placementsTried++
          tryTopic(
            {
              topic: name,
              base: topic,
              variant: undefined,
              then: () => ({...topic, partitions: topic.partitions.map(x => (x.partition === p.partition ? {...x, replicas} : x))}),
              h: () => placementHypothesis(name, [{partition: p.partition, now: p.replicas, then: replicas}], brokerRack),
            },
            false,
          )
        }
      }
    }

  // ---- one topic change and one broker change in the same bump (e.g. a broker change the coordinator's cache
  // hid, then partitions added): only when no single change fits
  if (result.matches.length === 0 && maxPairs > 0) {
    outer: for (const b of brokerCandidates) {
      const {rt: t, patcher: p} = brokerState(b)
      for (const c of topicCandidates) {
        if (result.pairsTried >= maxPairs) {
          result.truncated = true
          break outer
        }
        result.pairsTried++
        if (p.with(c.topic, topicHash(c, t)) === s.target) {
          const h = c.h()
          result.matches.push({
            kind: 'combined',
            topic: c.topic,
            broker: b.h.broker,
            then: `${h.then}; ${b.h.then}`,
            now: `${h.now}; ${b.h.now}`,
            description: `${h.description}, and ${b.h.description}`,
            parts: [h, b.h],
          })
        }
      }
    }
  }

  // ---- two topics changed in the same bump (a script that alters several topics, within one heartbeat): only when
  // nothing above fits; the topics whose assignment changed come first (topicCandidates keeps the search order)
  if (result.matches.length === 0 && maxPairs > 0) {
    const hashes = topicCandidates.map(c => topicHash(c, rt))
    outer: for (let i = 0; i < topicCandidates.length; i++) {
      const a = topicCandidates[i]
      for (let j = i + 1; j < topicCandidates.length; j++) {
        const b = topicCandidates[j]
        if (b.topic === a.topic) continue
        if (result.pairsTried >= maxPairs) {
          result.truncated = true
          break outer
        }
        result.pairsTried++
        const [ha, hb] = [hashes[i], hashes[j]]
        // (a patcher sets hashes; "absent" leaves a topic out: set the other one first)
        const group =
          ha !== undefined
            ? patcher.derive(new Map([[a.topic, ha]])).with(b.topic, hb)
            : hb !== undefined
              ? patcher.derive(new Map([[b.topic, hb]])).with(a.topic, undefined)
              : patcher.without([a.topic, b.topic])
        if (group !== s.target) continue
        const [x, y] = [a.h(), b.h()]
        result.matches.push({
          kind: 'combined',
          topic: x.topic,
          then: `${x.then}; ${y.then}`,
          now: `${x.now}; ${y.now}`,
          description: `${x.description}, and ${y.description}`,
          parts: [x, y],
        })
      }
    }
  }

  // ---- several topics' partitions added in one bump (assigned-counts.ts)
  if (result.matches.length === 0 && s.assignedPartitionsBefore && result.tried < max) {
    result.tried++
    const m = assignedCountsMatch(s.assignedPartitionsBefore, existing, byName, rt, patcher, s.target)
    if (m) result.matches.push(m)
  }

  // ---- several topics created together (a streams topology's internal topics)
  const together = (s.absentTogether ?? []).filter(n => byName.has(n))
  if (result.matches.length === 0 && together.length > 2 && result.tried < max) {
    result.tried++
    if (patcher.without(together) === s.target) {
      const parts = together.map(name => {
        const id = uuidToString(byName.get(name)!.topicId)
        return {kind: 'topic-absent' as const, topic: name, then: 'absent', now: id, description: `topic ${name} did not exist then (created since, id ${id})`}
      })
      result.matches.push({
        kind: 'combined',
        topic: together[0],
        then: parts.map(p => p.then).join('; '),
        now: parts.map(p => p.now).join('; '),
        description: `topics ${together.join(', ')} did not exist then (created since)`,
        parts,
      })
    }
  }

  // ---- a broker change hashes like the replica placement that gives the same rack lists
  const seen = new Set(result.matches.filter(m => m.kind === 'replica-placement').map(placementKey))
  for (const m of result.matches) {
    if (!isBrokerChange(m)) continue
    const alt = placementEquivalent(applyHypothesis(s.metadata, m), s.metadata, existing)
    if (alt && !seen.has(placementKey(alt))) {
      seen.add(placementKey(alt))
      result.alternatives.push(alt)
    }
  }
  return result
}

/**
 * The confidence of an attribution from a search (not from history): unique when one change explains it,
 * ambiguous when several do (the first match is listed first, the rest are alternatives).
 */
export function confidenceOf(r: Pick<HypothesisResult, 'matches' | 'alternatives'>): Confidence {
  const n = r.matches.length + r.alternatives.length
  return n === 0 ? 'unexplained' : n === 1 ? 'inferred-unique' : 'inferred-ambiguous'
}

/** How to make an inferred-ambiguous or unexplained metadata cause exact. */
export const PIN_DOWN_STEP =
  'to answer it: record history with `audit` at an interval shorter than the time between metadata changes (e.g. every 5 minutes from cron), or give a copy of the metadata log (`--metadata-log`; `rebalance-doctor cluster metadata-log` says where each broker keeps it)'
