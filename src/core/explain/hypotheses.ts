/**
 * Which single change to today's cluster metadata reproduces a metadata hash the coordinator stored earlier?
 * `__consumer_offsets` keeps only the group hash, not its inputs, so we test hypotheses: "topic X had N
 * partitions", "topic Y did not exist", "topic Z had another id", "broker B had rack R / was not registered".
 * Hashing is cheap (millions of partitions per second), so thousands of candidates cost milliseconds.
 */
import {computeGroupHash, computeTopicHash, RackTable} from '../hash.js'
import type {BrokerMetadata, ClusterMetadata, TopicMetadata} from '../metadata.js'
import {type Uuid, uuidFromString, uuidToString} from '../uuid.js'

export type HypothesisKind =
  | 'partition-count' // the topic had fewer partitions
  | 'topic-absent' // the topic did not exist (created since)
  | 'topic-id' // the topic had another id (deleted and recreated since)
  | 'topic-deleted' // the topic existed then, under an id seen in the records (deleted since)
  | 'broker-rack' // a broker had another rack (or none)
  | 'broker-unregistered' // a broker registered now was not registered then
  | 'broker-registered' // a broker id that is a replica but unregistered now was registered then, with a rack

export interface Hypothesis {
  kind: HypothesisKind
  topic?: string
  broker?: number
  /** The value then (what reproduces the stored hash). */
  then: string
  /** The value now. */
  now: string
  /** One sentence, Kafka words. */
  description: string
}

export interface HypothesisSearch {
  /** The stored group hash to reproduce. */
  target: bigint
  /** The group's topic set at that time (subscribed names and resolved regex topics). */
  topics: readonly string[]
  /** Live metadata (today). */
  metadata: ClusterMetadata
  /** Topic ids seen in the group's records (assignments), per topic name, to test recreation. */
  knownTopicIds?: ReadonlyMap<string, readonly string[]>
  /**
   * Rack names known from elsewhere (members' RackId in the records, history): a rack that no registered
   * broker has today can only be tested if we know its name.
   */
  extraRacks?: readonly string[]
  /**
   * Layouts (partitions and replicas) to try for subscribed topics absent from `metadata`, with the ids of
   * knownTopicIds: "it existed then and was deleted since". Typically today's layout of a topic re-created later.
   */
  absentTemplates?: ReadonlyMap<string, TopicMetadata>
  /** Upper bound on candidates tried (default 100,000). */
  maxCandidates?: number
}

export interface HypothesisResult {
  /** The live group hash (no change). */
  liveHash: bigint
  /** True when the live metadata already reproduces the target. */
  unchanged: boolean
  matches: Hypothesis[]
  tried: number
  /** True when the search stopped at maxCandidates. */
  truncated: boolean
}

export function searchHypotheses(s: HypothesisSearch): HypothesisResult {
  const max = s.maxCandidates ?? 100_000
  const table = new RackTable(s.metadata.brokers)
  const byName = new Map(s.metadata.topics.map(t => [t.name, t]))
  const existing = [...new Set(s.topics)].filter(t => byName.has(t))
  const base = new Map(existing.map(n => [n, computeTopicHash(byName.get(n)!, table)]))
  const liveHash = computeGroupHash(base)
  const result: HypothesisResult = {liveHash, unchanged: liveHash === s.target, matches: [], tried: 0, truncated: false}
  if (result.unchanged) return result

  /** Group hash with some topic hashes replaced (undefined = topic left out). */
  const withTopics = (changes: Map<string, bigint | undefined>) => {
    const m = new Map(base)
    for (const [n, h] of changes) {
      if (h === undefined) m.delete(n)
      else m.set(n, h)
    }
    return computeGroupHash(m)
  }
  const test = (hash: () => bigint, h: Hypothesis) => {
    if (result.tried >= max) {
      result.truncated = true
      return
    }
    result.tried++
    if (hash() === s.target) result.matches.push(h)
  }

  for (const name of existing) {
    const topic = byName.get(name)!
    test(() => withTopics(new Map([[name, undefined]])), {
      kind: 'topic-absent', topic: name, then: 'absent', now: uuidToString(topic.topicId),
      description: `topic ${name} did not exist then (created since, id ${uuidToString(topic.topicId)})`,
    })
    for (let n = topic.partitions.length - 1; n >= 1; n--) {
      const then: TopicMetadata = {...topic, partitions: topic.partitions.slice(0, n)}
      test(() => withTopics(new Map([[name, computeTopicHash(then, table)]])), {
        kind: 'partition-count', topic: name, then: String(n), now: String(topic.partitions.length),
        description: `topic ${name} had ${n} partition${n === 1 ? '' : 's'} then (${topic.partitions.length} now)`,
      })
    }
    for (const id of s.knownTopicIds?.get(name) ?? []) {
      if (id === uuidToString(topic.topicId)) continue
      let uuid: Uuid
      try {
        uuid = uuidFromString(id)
      } catch {
        continue
      }
      const then: TopicMetadata = {...topic, topicId: uuid}
      test(() => withTopics(new Map([[name, computeTopicHash(then, table)]])), {
        kind: 'topic-id', topic: name, then: id, now: uuidToString(topic.topicId),
        description: `topic ${name} had id ${id} then: it was deleted and recreated (id ${uuidToString(topic.topicId)} now)`,
      })
    }
  }

  for (const name of [...new Set(s.topics)].filter(t => !byName.has(t))) {
    const template = s.absentTemplates?.get(name)
    if (!template) continue
    for (const id of s.knownTopicIds?.get(name) ?? []) {
      let uuid: Uuid
      try {
        uuid = uuidFromString(id)
      } catch {
        continue
      }
      const then: TopicMetadata = {...template, name, topicId: uuid}
      test(() => withTopics(new Map([[name, computeTopicHash(then, table)]])), {
        kind: 'topic-deleted', topic: name, then: id, now: 'absent',
        description: `topic ${name} existed then with id ${id} (${template.partitions.length} partition${template.partitions.length === 1 ? '' : 's'}): it was deleted since`,
      })
    }
  }

  // Broker changes: each alters every topic with a replica on that broker.
  const rackNames = [...new Set([...table.racks, ...(s.extraRacks ?? [])])].sort()
  const racks: Array<string | null> = [...rackNames, null]
  const replicaBrokers = new Set(existing.flatMap(n => byName.get(n)!.partitions.flatMap(p => p.replicas)))
  const brokers = new Map(s.metadata.brokers.map(b => [b.id, b]))
  const withBrokers = (list: BrokerMetadata[]) => {
    const t = new RackTable(list)
    const m = new Map<string, bigint | undefined>()
    for (const n of existing) m.set(n, computeTopicHash(byName.get(n)!, t))
    return withTopics(m)
  }
  for (const id of [...replicaBrokers].sort((a, b) => a - b)) {
    const b = brokers.get(id)
    const others = s.metadata.brokers.filter(x => x.id !== id)
    if (b) {
      for (const rack of racks) {
        if (rack === b.rack) continue
        test(() => withBrokers([...others, {...b, rack}]), {
          kind: 'broker-rack', broker: id, then: rack ?? 'no rack', now: b.rack ?? 'no rack',
          description: `broker ${id} had ${rack === null ? 'no rack' : `rack ${rack}`} then (${b.rack === null ? 'no rack' : `rack ${b.rack}`} now)`,
        })
      }
      if (b.rack !== null) {
        test(() => withBrokers(others), {
          kind: 'broker-unregistered', broker: id, then: 'not registered', now: `registered, rack ${b.rack}`,
          description: `broker ${id} was not registered then (registered now with rack ${b.rack})`,
        })
      }
    } else {
      for (const rack of rackNames) {
        test(() => withBrokers([...s.metadata.brokers, {id, rack, fenced: false}]), {
          kind: 'broker-registered', broker: id, then: `registered, rack ${rack}`, now: 'not registered',
          description: `broker ${id} was registered with rack ${rack} then (unregistered now, but still a replica)`,
        })
      }
    }
  }
  return result
}

/**
 * The metadata as it was if the hypothesis holds (the inverse of the change it names). A deleted topic comes back
 * with the layout of `absentTemplates` (as searched).
 */
export function applyHypothesis(md: ClusterMetadata, h: Hypothesis, absentTemplates?: ReadonlyMap<string, TopicMetadata>): ClusterMetadata {
  switch (h.kind) {
    case 'topic-deleted': {
      const template = absentTemplates?.get(h.topic!)
      if (!template) throw new Error(`no layout for the deleted topic ${h.topic}`)
      return {...md, topics: [...md.topics.filter(t => t.name !== h.topic), {...template, name: h.topic!, topicId: uuidFromString(h.then)}]}
    }
    case 'partition-count':
      return {...md, topics: md.topics.map(t => (t.name === h.topic ? {...t, partitions: t.partitions.slice(0, Number(h.then))} : t))}
    case 'topic-absent':
      return {...md, topics: md.topics.filter(t => t.name !== h.topic)}
    case 'topic-id':
      return {...md, topics: md.topics.map(t => (t.name === h.topic ? {...t, topicId: uuidFromString(h.then)} : t))}
    case 'broker-rack':
      return {...md, brokers: md.brokers.map(b => (b.id === h.broker ? {...b, rack: h.then === 'no rack' ? null : h.then} : b))}
    case 'broker-unregistered':
      return {...md, brokers: md.brokers.filter(b => b.id !== h.broker)}
    case 'broker-registered':
      return {...md, brokers: [...md.brokers, {id: h.broker!, rack: h.then.replace(/^registered, rack /, ''), fenced: false}]}
  }
}

/** Topic-level changes make the coordinator recompute on the next heartbeat; broker-level ones do not. */
export function isBrokerChange(h: Hypothesis): boolean {
  return h.kind === 'broker-rack' || h.kind === 'broker-unregistered' || h.kind === 'broker-registered'
}
