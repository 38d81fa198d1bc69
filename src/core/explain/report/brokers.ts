/**
 * Which brokers are up, fenced or gone, as the live metadata says, and which of the group's topics have replicas on
 * those that are not up: the first question of an incident that involves a broker. Pure.
 */
import type {ClusterMetadata} from '../../metadata.js'

export interface BrokerHealth {
  /** Registered and not fenced. */
  up: number[]
  /** Registered but fenced (stopped, or lost its controller session): with the group's topics they host a replica of. */
  fenced: Array<{id: number; rack: string | null; topics: string[]}>
  /** Not registered, yet named as a replica of one of the group's topics. */
  unregistered: Array<{id: number; topics: string[]}>
}

export function brokerHealth(live: Pick<ClusterMetadata, 'brokers' | 'topics'>, groupTopics: readonly string[]): BrokerHealth {
  const mine = new Set(groupTopics)
  const hosting = new Map<number, Set<string>>()
  for (const t of live.topics) {
    if (!mine.has(t.name)) continue
    for (const p of t.partitions) for (const r of p.replicas) (hosting.get(r) ?? hosting.set(r, new Set()).get(r)!).add(t.name)
  }
  const topicsOn = (id: number) => [...(hosting.get(id) ?? [])].sort()
  const registered = new Set(live.brokers.map(b => b.id))
  const byId = [...live.brokers].sort((a, b) => a.id - b.id)
  return {
    up: byId.filter(b => !b.fenced).map(b => b.id),
    fenced: byId.filter(b => b.fenced).map(b => ({id: b.id, rack: b.rack, topics: topicsOn(b.id)})),
    unregistered: [...hosting.keys()]
      .filter(id => !registered.has(id))
      .sort((a, b) => a - b)
      .map(id => ({id, topics: topicsOn(id)})),
  }
}

/** "brokers: 1, 2 up; 3 fenced (rack rack-b; replicas of orders); 4 not registered (replicas of orders)". */
export function brokerHealthText(h: BrokerHealth): string {
  const parts = [h.up.length ? `${h.up.join(', ')} up` : 'none up']
  for (const b of h.fenced)
    parts.push(`${b.id} FENCED (down${b.rack ? `, rack ${b.rack}` : ''}${b.topics.length ? `; replicas of ${b.topics.join(', ')}` : ''})`)
  for (const b of h.unregistered) parts.push(`${b.id} NOT REGISTERED (replicas of ${b.topics.join(', ')})`)
  return `brokers: ${parts.join('; ')}`
}
