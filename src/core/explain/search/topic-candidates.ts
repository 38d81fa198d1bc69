/**
 * Candidate generators for topic-level changes, one per kind of change: each gives the changes of that kind to one
 * topic, in the order the search tries them. A candidate's layout then and its hypothesis are built only when needed
 * (a cache miss, a match: most candidates are hashed and dropped). Pure.
 */
import type {BrokerMetadata, PartitionMetadata, TopicMetadata} from '../../metadata.js'
import {uuidToString} from '../../uuid.js'
import type {TopicCandidate} from './hash-patcher.js'
import {type Hypothesis, type ReassignmentInFlight, s_} from './hypothesis-types.js'
import {parseUuid, partitionsText, placementHypothesis, placementVariants} from './placements.js'

/** "The topic did not exist then (created since)", naming the id it has now. */
export function topicAbsentHypothesis(name: string, topic: TopicMetadata): Hypothesis {
  const id = uuidToString(topic.topicId)
  return {kind: 'topic-absent', topic: name, then: 'absent', now: id, description: `topic ${name} did not exist then (created since, id ${id})`}
}

/** The topic did not exist then. */
export function topicAbsent(name: string, topic: TopicMetadata): TopicCandidate {
  return {topic: name, base: topic, variant: 'absent', then: undefined, h: () => topicAbsentHypothesis(name, topic)}
}

/** The topic had fewer partitions then: every count below today's, the most first. */
export function partitionCounts(name: string, topic: TopicMetadata): TopicCandidate[] {
  const out: TopicCandidate[] = []
  for (let n = topic.partitions.length - 1; n >= 1; n--) {
    out.push({
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
  return out
}

/** The topic had another id then, one seen in the records (deleted and recreated since). */
export function topicIds(name: string, topic: TopicMetadata, known: readonly string[]): TopicCandidate[] {
  const id = uuidToString(topic.topicId)
  return known.flatMap(other => {
    const uuid = other === id ? undefined : parseUuid(other)
    if (!uuid) return []
    return [
      {
        topic: name,
        base: topic,
        variant: `id${other}`,
        then: () => ({...topic, topicId: uuid}),
        h: () => ({
          kind: 'topic-id' as const,
          topic: name,
          then: other,
          now: id,
          description: `topic ${name} had id ${other} then: it was deleted and recreated (id ${id} now)`,
        }),
      },
    ]
  })
}

/** Every topic-level change to a topic that exists today, in the order tried: absent, fewer partitions, another id. */
export function topicChanges(name: string, topic: TopicMetadata, knownIds: readonly string[]): TopicCandidate[] {
  return [topicAbsent(name, topic), ...partitionCounts(name, topic), ...topicIds(name, topic, knownIds)]
}

/** A subscribed topic absent today existed then, under an id seen in the records, with the layout of `template`. */
export function topicDeleted(name: string, template: TopicMetadata, known: readonly string[]): TopicCandidate[] {
  return known.flatMap(other => {
    const uuid = parseUuid(other)
    if (!uuid) return []
    return [
      {
        topic: name,
        base: template,
        variant: `deleted:${name}:${other}`,
        then: () => ({...template, name, topicId: uuid}),
        h: () => ({
          kind: 'topic-deleted' as const,
          topic: name,
          then: other,
          now: 'absent',
          description: `topic ${name} existed then with id ${other} (${s_(template.partitions.length, 'partition')}): it was deleted since`,
        }),
      },
    ]
  })
}

/** The reassignments in flight of one topic had not started: its partitions' original replicas (without the adding ones), all at once. */
export function reassignmentStarted(name: string, topic: TopicMetadata, rs: readonly ReassignmentInFlight[]): TopicCandidate {
  const original = new Map(rs.map(r => [r.partition, r.replicas.filter(b => !r.addingReplicas.includes(b))]))
  const then: TopicMetadata = {
    ...topic,
    partitions: topic.partitions.map(p => (original.has(p.partition) ? {...p, replicas: original.get(p.partition)!} : p)),
  }
  const parts = rs.map(r => r.partition).sort((a, b) => a - b)
  return {
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
  }
}

/**
 * One partition's replicas one step away then (placementVariants: one replica on another rack, one more replica, one
 * fewer). Not cached: each variant is hashed once.
 */
export function replicaPlacements(
  name: string,
  topic: TopicMetadata,
  p: PartitionMetadata,
  brokers: readonly BrokerMetadata[],
  brokerRack: ReadonlyMap<number, string | null>,
): TopicCandidate[] {
  return placementVariants(p.replicas, brokers, brokerRack).map(replicas => ({
    topic: name,
    base: topic,
    variant: undefined,
    then: () => ({...topic, partitions: topic.partitions.map(x => (x.partition === p.partition ? {...x, replicas} : x))}),
    h: () => placementHypothesis(name, [{partition: p.partition, now: p.replicas, then: replicas}], brokerRack),
  }))
}
