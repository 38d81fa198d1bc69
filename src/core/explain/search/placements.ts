import type {BrokerMetadata, ClusterMetadata, TopicMetadata} from '../../metadata.js'
import {type Uuid, uuidFromString} from '../../uuid.js'
import type {Hypothesis} from './hypothesis-types.js'
export function parseUuid(id: string): Uuid | undefined {
  try {
    return uuidFromString(id)
  } catch {
    return undefined
  }
}

export function partitionsText(topic: string, ps: readonly number[]): string {
  return `${ps.length === 1 ? 'partition' : 'partitions'} ${ps.join(', ')} of ${topic}`
}

export const racksOf = (replicas: readonly number[], rack: ReadonlyMap<number, string | null>) =>
  replicas
    .map(b => rack.get(b) ?? null)
    .filter((r): r is string => r !== null)
    .sort()

/**
 * Replica lists one step from `replicas` whose rack lists differ (only those change the hash): one replica on a
 * broker of another rack, one more replica, one fewer. One list per distinct rack list.
 */
export function placementVariants(replicas: readonly number[], brokers: readonly BrokerMetadata[], rack: ReadonlyMap<number, string | null>): number[][] {
  const out: number[][] = []
  const seen = new Set([racksOf(replicas, rack).join('\u0000')])
  const add = (list: number[]) => {
    const k = racksOf(list, rack).join('\u0000')
    if (seen.has(k)) return
    seen.add(k)
    out.push(list)
  }
  const free = brokers.filter(b => !replicas.includes(b.id))
  for (let i = 0; i < replicas.length; i++) {
    for (const b of free) if (b.rack !== (rack.get(replicas[i]) ?? null)) add(replicas.map((x, j) => (j === i ? b.id : x)))
  }
  for (const b of free) if (b.rack !== null) add([...replicas, b.id])
  if (replicas.length > 1) for (let i = 0; i < replicas.length; i++) add(replicas.filter((_, j) => j !== i))
  return out
}

export function placementHypothesis(
  topic: string,
  changed: Array<{partition: number; now: readonly number[]; then: number[]}>,
  rack: ReadonlyMap<number, string | null>,
): Hypothesis {
  const parts = changed.map(c => c.partition)
  const shown = changed.slice(0, 3).map(c => {
    const r = (l: readonly number[]) => racksOf(l, rack).join(', ') || 'none'
    return `${changed.length > 1 ? `partition ${c.partition}: ` : ''}racks ${r(c.then)} then, e.g. brokers ${c.then.join(', ')} (now ${r(c.now)} on ${c.now.join(', ')})`
  })
  const kind = changed.every(c => c.then.length > c.now.length)
    ? 'a reassignment in flight then (its wider replica list)'
    : changed.every(c => c.then.length < c.now.length)
      ? 'a reassignment in flight now, or replicas added'
      : 'a reassignment'
  return {
    kind: 'replica-placement',
    topic,
    partitions: parts,
    then: changed.map(c => `${c.partition}:[${c.then.join(',')}]`).join(' '),
    now: changed.map(c => `${c.partition}:[${c.now.join(',')}]`).join(' '),
    replicasThen: changed.map(c => ({partition: c.partition, replicas: c.then})),
    description: `${partitionsText(topic, parts)} had replicas on other racks then (${kind}: ${shown.join('; ')}${changed.length > 3 ? `; and ${changed.length - 3} more` : ''})`,
  }
}

export function placementKey(h: Hypothesis): string {
  return `${h.topic}|${h.then}`
}

/**
 * The replica placement, with today's brokers and racks, that gives every topic in `topics` the per-partition rack
 * lists it has under `then` (another broker set or racks). Undefined when no placement of today's brokers does,
 * or when more than one topic would have to change (then it is not "one topic's placement").
 */
export function placementEquivalent(then: ClusterMetadata, now: ClusterMetadata, topics: readonly string[]): Hypothesis | undefined {
  const rackNow = new Map(now.brokers.map(b => [b.id, b.rack]))
  const rackThen = new Map(then.brokers.map(b => [b.id, b.rack]))
  const byRack = new Map<string | null, number[]>()
  for (const b of now.brokers) byRack.set(b.rack, [...(byRack.get(b.rack) ?? []), b.id])
  const changes: Array<{topic: string; partition: number; now: readonly number[]; then: number[]}> = []
  for (const t of now.topics) {
    if (!topics.includes(t.name)) continue
    for (const p of t.partitions) {
      const want = racksOf(p.replicas, rackThen)
      if (want.join('\u0000') === racksOf(p.replicas, rackNow).join('\u0000')) continue
      // keep what still fits, fill the rest from brokers of the wanted racks (replica count unchanged)
      const need = [...want]
      const kept: number[] = []
      for (const b of p.replicas) {
        const r = rackNow.get(b) ?? null
        const i = r === null ? -1 : need.indexOf(r)
        if (i >= 0) {
          need.splice(i, 1)
          kept.push(b)
        }
      }
      const list = [...kept]
      for (const r of need) {
        const b = (byRack.get(r) ?? []).find(x => !list.includes(x))
        if (b === undefined) return undefined
        list.push(b)
      }
      // the rest on rackless brokers; without any, fewer replicas then (e.g. before a reassignment added one)
      while (list.length < p.replicas.length) {
        const b = (byRack.get(null) ?? []).find(x => !list.includes(x))
        if (b === undefined) break
        list.push(b)
      }
      changes.push({topic: t.name, partition: p.partition, now: p.replicas, then: list})
    }
  }
  const names = new Set(changes.map(c => c.topic))
  if (names.size !== 1) return undefined
  return placementHypothesis([...names][0], changes, rackNow)
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
    case 'replica-placement':
    case 'reassignment-started': {
      const lists = new Map((h.replicasThen ?? []).map(x => [x.partition, x.replicas]))
      return {
        ...md,
        topics: md.topics.map(t =>
          t.name === h.topic ? {...t, partitions: t.partitions.map(p => (lists.has(p.partition) ? {...p, replicas: lists.get(p.partition)!} : p))} : t,
        ),
      }
    }
    case 'combined':
      return (h.parts ?? []).reduce((m, p) => applyHypothesis(m, p, absentTemplates), md)
    case 'replica-racks':
      // seen in recorded history, never searched: the broker-rack change beside it is what the metadata undoes
      throw new Error('a replica-racks change is recorded, not a hypothesis to apply')
  }
}

/** Topic-level changes make the coordinator recompute on the next heartbeat; broker-level ones do not. */
export function isBrokerChange(h: Hypothesis): boolean {
  return h.kind === 'broker-rack' || h.kind === 'broker-unregistered' || h.kind === 'broker-registered'
}
