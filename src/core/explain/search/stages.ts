/**
 * The order of the hypothesis search, as a list walked first to last. Single changes first, cheapest and likeliest
 * first: the topics whose assignment changed in the bump, then the broker changes (each re-hashes every topic with a
 * replica on the broker: the costliest single candidates, skipped when a priority topic's change matched), then the
 * other topics, deleted topics and reassignments in flight. Then, only while nothing matched, the wider searches:
 * single replica placements, pairs of changes, and the group-wide tests of several topics at once. Pure.
 */
import {assignedCountsMatch} from './assigned-counts.js'
import {absentTogetherMatch, topicAndBrokerPairs, topicPairs} from './combined.js'
import type {SearchState} from './state.js'
import {reassignmentStarted, replicaPlacements, topicChanges, topicDeleted} from './topic-candidates.js'

export interface SearchStage {
  readonly name: string
  /** Run only while no earlier stage found a match. */
  readonly onlyIfUnmatched: boolean
  run(st: SearchState): void
}

export const SEARCH_STAGES: readonly SearchStage[] = [
  {name: 'priority-topics', onlyIfUnmatched: false, run: st => topicStage(st, priorityTopics(st, true))},
  {name: 'broker-changes', onlyIfUnmatched: false, run: brokerStage},
  {name: 'other-topics', onlyIfUnmatched: false, run: st => topicStage(st, priorityTopics(st, false))},
  {name: 'deleted-topics', onlyIfUnmatched: false, run: deletedTopicStage},
  {name: 'reassignments-in-flight', onlyIfUnmatched: false, run: reassignmentStage},
  {name: 'replica-placements', onlyIfUnmatched: true, run: placementStage},
  {name: 'topic-and-broker-pairs', onlyIfUnmatched: true, run: topicAndBrokerPairs},
  {name: 'topic-pairs', onlyIfUnmatched: true, run: topicPairs},
  {name: 'assigned-partition-counts', onlyIfUnmatched: true, run: assignedCountsStage},
  {name: 'absent-together', onlyIfUnmatched: true, run: absentTogetherMatch},
]

/** Walks the stages in order. */
export function runStages(st: SearchState, stages: readonly SearchStage[] = SEARCH_STAGES): void {
  for (const stage of stages) if (!stage.onlyIfUnmatched || st.matches.length === 0) stage.run(st)
}

/** The existing topics that are priority topics (`inPriority`), or the others; with no priority set, every one is "other". */
function priorityTopics(st: SearchState, inPriority: boolean): readonly string[] {
  const prio = st.s.priorityTopics
  if (!prio) return inPriority ? [] : st.existing
  return st.existing.filter(n => prio.has(n) === inPriority)
}

/** Each topic's changes (topic-candidates.ts), topic by topic until one matches. */
function topicStage(st: SearchState, names: readonly string[]): void {
  for (const name of names) {
    // once a change matched, no further topic change can (state.ts) and the pairs are not searched: stop building them
    if (st.settled) return
    for (const c of topicChanges(name, st.byName.get(name)!, st.s.knownTopicIds?.get(name) ?? [])) st.tryTopic(c)
  }
}

/** Every broker change (several may match: a rack change and an unregistration can hash alike). */
function brokerStage(st: SearchState): void {
  if (st.settled) return
  let matched = false
  for (const c of st.brokerChanges) {
    if (
      st.test(
        () => st.underBroker(c).patcher.hash(),
        () => c.h,
      )
    )
      matched = true
  }
  if (matched) st.settled = true
}

/** Subscribed topics absent today that existed then, for those with a layout to try. */
function deletedTopicStage(st: SearchState): void {
  for (const name of st.topicSet.filter(t => !st.byName.has(t))) {
    const template = st.s.absentTemplates?.get(name)
    if (!template) continue
    for (const c of topicDeleted(name, template, st.s.knownTopicIds?.get(name) ?? [])) st.tryTopic(c)
  }
}

/** Reassignments in flight, not started then: tried even after a match, as they change only replica lists. */
function reassignmentStage(st: SearchState): void {
  for (const [name, rs] of st.inFlight) st.tryTopic(reassignmentStarted(name, st.byName.get(name)!, rs), {evenIfSettled: true})
}

/**
 * One partition's replica placement, only when no other change fits: a placement that hashes like a broker change is
 * found from the broker change (its alternative), and no topic-level change hashes like a placement (they change the
 * partition count or the id). After the broker changes, so a big topic's variants cannot use up their budget; topics
 * under reassignment first.
 */
function placementStage(st: SearchState): void {
  const brokers = st.s.metadata.brokers
  const brokerRack = new Map(brokers.map(b => [b.id, b.rack]))
  const order = [...st.existing].sort((a, b) => Number(st.inFlight.has(b)) - Number(st.inFlight.has(a)))
  for (const name of order) {
    const topic = st.byName.get(name)!
    for (const p of topic.partitions) {
      // one placement matched: any other placement gives another topic hash or another topic, so none can
      if (st.settled) return
      for (const c of replicaPlacements(name, topic, p, brokers, brokerRack)) {
        if (!st.budget.placement()) return
        st.tryTopic(c, {pairable: false})
      }
    }
  }
}

/** Several topics' partitions added in one bump (assigned-counts.ts). */
function assignedCountsStage(st: SearchState): void {
  const before = st.s.assignedPartitionsBefore
  if (!before || !st.budget.closing()) return
  const m = assignedCountsMatch(before, st.existing, st.byName, st.rt, st.patcher, st.s.target)
  if (m) st.matches.push(m)
}
