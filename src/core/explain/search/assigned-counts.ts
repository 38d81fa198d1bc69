/**
 * Several topics' partitions added in one bump (a script that altered many topics within one heartbeat): the counts
 * then are those the group's target assignment covered before the bump (the records say so), tested together as one
 * change, so any number of topics costs one hash per topic. Kept only when it reproduces the stored hash. Pure.
 */
import type {RackTable} from '../../hash.js'
import type {TopicMetadata} from '../../metadata.js'
import {type GroupHashPatcher, topicHash} from './hash-patcher.js'
import {type Hypothesis, s_} from './hypothesis-types.js'

export function assignedCountsMatch(
  assignedBefore: ReadonlyMap<string, number>,
  existing: readonly string[],
  byName: ReadonlyMap<string, TopicMetadata>,
  rt: {table: RackTable; key: number},
  patcher: GroupHashPatcher,
  target: bigint,
): Hypothesis | undefined {
  const parts = existing.flatMap(name => {
    const n = assignedBefore.get(name)
    const t = byName.get(name)!
    return n !== undefined && n >= 1 && n < t.partitions.length ? [{name, n, t}] : []
  })
  // (one topic alone is the single-change search's)
  if (parts.length < 2) return undefined
  const hashes = new Map(
    parts.map(({name, n, t}) => [name, topicHash({base: t, variant: `n${n}`, then: () => ({...t, partitions: t.partitions.slice(0, n)})}, rt)!] as const),
  )
  if (patcher.derive(hashes).hash() !== target) return undefined
  const hs: Hypothesis[] = parts.map(({name, n, t}) => ({
    kind: 'partition-count',
    topic: name,
    then: String(n),
    now: String(t.partitions.length),
    description: `topic ${name} had ${s_(n, 'partition')} then (${t.partitions.length} now)`,
  }))
  return {
    kind: 'combined',
    topic: hs[0].topic,
    then: hs.map(h => h.then).join('; '),
    now: hs.map(h => h.now).join('; '),
    description: `${hs.map(h => h.description).join(', and ')} (the counts then are those the group's assignment covered before the bump)`,
    parts: hs,
  }
}
