/**
 * Candidate generators for broker changes. A broker change keeps every topic's partitions and id but changes the
 * rack lists of every partition with a replica on that broker, so each candidate is the broker list then, and the
 * search re-hashes only the topics with a replica on the broker. Pure.
 */
import type {BrokerMetadata, ClusterMetadata, TopicMetadata} from '../../metadata.js'
import {replicaBrokersOf} from './hash-patcher.js'
import {type Hypothesis, rackText} from './hypothesis-types.js'

/** The brokers as they were if the hypothesis holds. */
export interface BrokerCandidate {
  brokers: BrokerMetadata[]
  h: Hypothesis
}

/** Per broker id holding a replica, the named topics with a replica on it (in the order of `names`). */
export function topicsByReplicaBroker(byName: ReadonlyMap<string, TopicMetadata>, names: readonly string[]): Map<number, string[]> {
  const onBroker = new Map<number, string[]>()
  for (const n of names) {
    for (const id of replicaBrokersOf(byName.get(n)!)) {
      const list = onBroker.get(id)
      if (list) list.push(n)
      else onBroker.set(id, [n])
    }
  }
  return onBroker
}

/** A registered broker had another rack then, or none: every rack in `racks` but its own. */
export function brokerRacks(b: BrokerMetadata, others: BrokerMetadata[], racks: ReadonlyArray<string | null>): BrokerCandidate[] {
  return racks
    .filter(rack => rack !== b.rack)
    .map(rack => ({
      brokers: [...others, {...b, rack}],
      h: {
        kind: 'broker-rack',
        broker: b.id,
        then: rack ?? 'no rack',
        now: b.rack ?? 'no rack',
        description: `broker ${b.id} had ${rackText(rack)} then (${rackText(b.rack)} now)`,
      },
    }))
}

/** A registered broker was not registered then; only for a broker with a rack (a rackless one hashes alike either way). */
export function brokerUnregistered(b: BrokerMetadata, others: BrokerMetadata[]): BrokerCandidate[] {
  if (b.rack === null) return []
  return [
    {
      brokers: others,
      h: {
        kind: 'broker-unregistered',
        broker: b.id,
        then: 'not registered',
        now: `registered, rack ${b.rack}`,
        description: `broker ${b.id} was not registered then (registered now with rack ${b.rack})`,
      },
    },
  ]
}

/** A broker id that is a replica but unregistered now was registered then, with one of the known racks. */
export function brokerRegistered(id: number, brokers: readonly BrokerMetadata[], rackNames: readonly string[]): BrokerCandidate[] {
  return rackNames.map(rack => ({
    brokers: [...brokers, {id, rack, fenced: false}],
    h: {
      kind: 'broker-registered',
      broker: id,
      then: `registered, rack ${rack}`,
      now: 'not registered',
      description: `broker ${id} was registered with rack ${rack} then (unregistered now, but still a replica)`,
    },
  }))
}

/**
 * Every broker change to try, replica brokers in id order: the racks tried are today's and `extraRacks` (a rack no
 * broker has today can only be tried when its name is known), then none.
 */
export function brokerChanges(
  metadata: ClusterMetadata,
  replicaBrokers: Iterable<number>,
  rackNamesToday: readonly string[],
  extraRacks: readonly string[] = [],
): BrokerCandidate[] {
  const rackNames = [...new Set([...rackNamesToday, ...extraRacks])].sort()
  const racks: Array<string | null> = [...rackNames, null]
  const byId = new Map(metadata.brokers.map(b => [b.id, b]))
  return [...replicaBrokers]
    .sort((a, b) => a - b)
    .flatMap(id => {
      const b = byId.get(id)
      if (!b) return brokerRegistered(id, metadata.brokers, rackNames)
      const others = metadata.brokers.filter(x => x.id !== id)
      return [...brokerRacks(b, others, racks), ...brokerUnregistered(b, others)]
    })
}
