/**
 * Exact attribution of past metadata-hash bumps from the audit history (pure). The history holds each topic's
 * hash as audits saw it, so the group hash at any recorded moment is computed exactly (as the coordinator
 * does: topics that did not exist are left out). For a bump stored hash H0 → H1 at time T, we look for the
 * last recorded moment whose group hash over the old topic set is H0 and the first later one whose hash over
 * the new topic set is H1: the topics that differ between those two moments are the change, with their old
 * and new partition counts, ids and racks: also when several topics changed at once, which hypothesis testing
 * on live metadata cannot separate.
 */
import {computeGroupHash} from '../../hash.js'
import type {Moment, HistoryView} from '../../history/view.js'
import {isoTime} from '../../time.js'
import type {ExactChange} from './exact-changes.js'
import {metadataBump} from './bump.js'
import {classicHistoryEvidence} from './history-classic.js'
import type {HistoryAttribution, PartitionChange, TopicChange, TopicObservation} from './recorded.js'
import type {BumpInput, CauseEvidence} from './types.js'

function groupHashAt(m: Moment, topics: readonly string[]): bigint {
  const hashes = new Map<string, bigint>()
  for (const t of new Set(topics)) {
    const o = m.topics.get(t)
    if (o) hashes.set(t, BigInt(o.hash))
  }
  return computeGroupHash(hashes)
}

/**
 * The change behind a bump, from history, or undefined when history does not hold both sides exactly
 * (no recorded moment reproduces the old or the new hash).
 */
export function attributeBump(
  view: HistoryView,
  bump: {topicsBefore: readonly string[]; topicsAfter: readonly string[]; previousHash: bigint; hash: bigint; timestamp: number},
): HistoryAttribution | undefined {
  const ms = view.moments
  let before = -1
  for (let i = 0; i < ms.length; i++) {
    if (ms[i].at > bump.timestamp) break
    if (groupHashAt(ms[i], bump.topicsBefore) === bump.previousHash) before = i
  }
  // The old state may only have been recorded after the change (audit between change and bump is impossible:
  // the bump follows the change on the next heartbeat), so require before ≤ T.
  if (before < 0) return undefined
  let after = -1
  for (let i = before + 1; i < ms.length; i++) {
    if (groupHashAt(ms[i], bump.topicsAfter) === bump.hash) {
      after = i
      break
    }
  }
  if (after < 0) return undefined
  // the last moment still showing the old value for each changed topic narrows "first seen"
  const a = ms[before]
  const b = ms[after]
  const names = [...new Set([...bump.topicsBefore, ...bump.topicsAfter])].sort()
  const changes: TopicChange[] = []
  const ba = new Map((a.brokers ?? []).map(x => [x.id, x.rack]))
  const bb = new Map((b.brokers ?? []).map(x => [x.id, x.rack]))
  for (const name of names) {
    const x = a.topics.get(name) ?? null
    const y = b.topics.get(name) ?? null
    if (x?.hash === y?.hash) continue
    // when did the new value first appear (between the two moments)?
    let first = after
    for (let i = before + 1; i < after; i++) {
      const o = ms[i].topics.get(name) ?? null
      if (o?.hash === y?.hash) {
        first = i
        break
      }
    }
    let last = before
    for (let i = before + 1; i < first; i++) if ((ms[i].topics.get(name) ?? null)?.hash === x?.hash) last = i
    changes.push(describeTopicChange(name, x, y, isoTime(ms[last].at), isoTime(ms[first].at), {before: ba, after: bb}))
  }
  const brokers: HistoryAttribution['brokers'] = []
  for (const id of [...new Set([...ba.keys(), ...bb.keys()])].sort((p, q) => p - q)) {
    const r0 = ba.has(id) ? ba.get(id)! : 'absent'
    const r1 = bb.has(id) ? bb.get(id)! : 'absent'
    if (r0 !== r1) brokers.push({id, before: r0, after: r1})
  }
  const brokerText = brokers.map(
    x =>
      `broker ${x.id}: ${x.before === null ? 'no rack' : x.before === 'absent' ? 'not registered' : `rack ${x.before}`} → ${x.after === null ? 'no rack' : x.after === 'absent' ? 'not registered' : `rack ${x.after}`}`,
  )
  return {
    source: 'history',
    changes,
    brokers,
    lastSeenBefore: isoTime(a.at),
    firstSeenAfter: isoTime(b.at),
    message: `from recorded history: ${[...changes.map(c => c.description), ...brokerText].join('; ') || 'no topic change recorded (coordinator cache effect)'}`,
  }
}

export type RackMaps = {before: ReadonlyMap<number, string | null>; after: ReadonlyMap<number, string | null>}

/** At most this many partitions are named in a description (all are in `partitions`). */
const NAMED_PARTITIONS = 4

/**
 * The partitions whose replica set or sorted racks differ between two recorded moments (a reorder of the same
 * replicas moves no hash: not listed), or undefined when either moment lacks the replica lists.
 */
export function partitionChanges(x: TopicObservation, y: TopicObservation, racks: RackMaps): PartitionChange[] | undefined {
  if (!x.replicas || !y.replicas) return undefined
  const out: PartitionChange[] = []
  const rackOf = (m: ReadonlyMap<number, string | null>) => (id: number) => m.get(id) ?? null
  const key = (l: ReadonlyArray<string | number | null>) => [...l].map(String).sort().join('\u0000')
  for (let p = 0; p < Math.max(x.replicas.length, y.replicas.length); p++) {
    const r0 = x.replicas[p] ?? []
    const r1 = y.replicas[p] ?? []
    const k0 = r0.map(rackOf(racks.before))
    const k1 = r1.map(rackOf(racks.after))
    if (key(r0) === key(r1) && key(k0) === key(k1)) continue
    out.push({partition: p, replicasBefore: r0, replicasAfter: r1, racksBefore: k0, racksAfter: k1})
  }
  return out
}

const rackList = (l: ReadonlyArray<string | null>) => l.map(r => r ?? 'no rack').join(',')

/** `partition 1: replicas [1,2] on rack-a,rack-b → [2,3] on rack-b,rack-c` (or the racks alone when the replicas stayed). */
export function partitionChangeText(c: PartitionChange): string {
  const same = c.replicasBefore.join(',') === c.replicasAfter.join(',')
  return same
    ? `partition ${c.partition}: replicas [${c.replicasAfter.join(',')}] on racks ${rackList(c.racksBefore)} → ${rackList(c.racksAfter)}`
    : `partition ${c.partition}: replicas [${c.replicasBefore.join(',')}] on ${rackList(c.racksBefore)} → [${c.replicasAfter.join(',')}] on ${rackList(c.racksAfter)}`
}

function partitionsText(list: readonly PartitionChange[]): string {
  const named = list.slice(0, NAMED_PARTITIONS).map(partitionChangeText).join('; ')
  return list.length > NAMED_PARTITIONS ? `${named}; and ${list.length - NAMED_PARTITIONS} more partitions` : named
}

/** A topic's change between two recorded moments, in words, with when it was first and last seen. */
export function describeTopicChange(
  name: string,
  x: TopicObservation | null,
  y: TopicObservation | null,
  lastSeen: string,
  firstSeen: string,
  racks: RackMaps,
): TopicChange {
  const when = `first seen at ${firstSeen} (last seen before at ${lastSeen})`
  const base = {topic: name, before: x, after: y, lastSeenBefore: lastSeen, firstSeenAfter: firstSeen}
  if (!x)
    return {...base, kind: 'created', description: `${name}: created with ${y!.partitions} partition${y!.partitions === 1 ? '' : 's'} (id ${y!.id}), ${when}`}
  if (!y) return {...base, kind: 'deleted', description: `${name}: deleted (had ${x.partitions} partitions, id ${x.id}), ${when}`}
  if (x.id !== y.id)
    return {
      ...base,
      kind: 'recreated',
      description: `${name}: recreated, id ${x.id} → ${y.id}${x.partitions !== y.partitions ? `, ${x.partitions} → ${y.partitions} partitions` : ''}, ${when}`,
    }
  if (x.partitions !== y.partitions) return {...base, kind: 'partitions', description: `${name}: ${x.partitions} → ${y.partitions} partitions, ${when}`}
  const kind = x.racks.join(',') !== y.racks.join(',') ? 'racks' : 'placement'
  const partitions = partitionChanges(x, y, racks)
  if (partitions && partitions.length > 0) return {...base, kind, partitions, description: `${name}: ${partitionsText(partitions)}, ${when}`}
  if (kind === 'racks') return {...base, kind, description: `${name}: replica racks ${x.racks.join(',') || 'none'} → ${y.racks.join(',') || 'none'}, ${when}`}
  return {...base, kind, description: `${name}: replica placement or a replica broker's rack changed, ${when}`}
}

/**
 * The history's evidence for each metadata bump: the change between the last recorded moment with the hash before
 * and the first with the hash after (exact); classic leader rejoins checked against the partition counts recorded.
 */
export function historyEvidence(bumps: readonly BumpInput[], view: HistoryView): CauseEvidence[] {
  if (view.moments.length === 0) return []
  const out = classicHistoryEvidence(bumps, view)
  for (const b of bumps) {
    const bump = metadataBump(b)
    const a = bump && attributeBump(view, bump)
    if (!a) continue
    out.push({
      offset: b.change.offset.toString(),
      kind: 'metadata-hash-changed',
      source: 'history',
      annotations: {history: a},
      exact: {message: `metadata changed (exact), ${a.message}`, changes: exactChangesFromHistory(a)},
    })
  }
  return out
}

const sameReplicas = (p: PartitionChange) => [...p.replicasBefore].sort().join(',') === [...p.replicasAfter].sort().join(',')
const racksText = (o: TopicObservation) => (o.racks.length > 0 ? `racks ${o.racks.join(',')}` : 'no racks')
const rackOf = (r: string | null) => (r === null ? 'no rack' : r)

/**
 * What the history saw, as details.changes: topics (partition counts, ids; a placement or rack change names its
 * partitions, replicas and racks, when both moments recorded replica lists) and brokers' racks, each at the time first seen.
 */
export function exactChangesFromHistory(a: HistoryAttribution): ExactChange[] {
  const topics = a.changes.map((c): ExactChange => {
    const [x, y] = [c.before, c.after]
    const at = {topic: c.topic, description: c.description, time: c.firstSeenAfter}
    switch (c.kind) {
      case 'created':
        return {kind: 'topic-absent', then: 'absent', now: `id ${y!.id}`, ...at}
      case 'deleted':
        return {kind: 'topic-deleted', then: `id ${x!.id}`, now: 'absent', ...at}
      case 'recreated':
        return {kind: 'topic-id', then: `id ${x!.id}`, now: `id ${y!.id}`, ...at}
      case 'partitions':
        return {kind: 'partition-count', then: String(x!.partitions), now: String(y!.partitions), ...at}
      default:
        return c.partitions
          ? {
              // the same replicas on other racks: their brokers' racks changed, no replica moved
              kind: c.partitions.every(sameReplicas) ? 'replica-racks' : 'replica-placement',
              partitions: c.partitions.map(p => p.partition),
              then: c.partitions.map(p => `${p.partition}: [${p.replicasBefore.join(',')}] on ${rackList(p.racksBefore)}`).join('; '),
              now: c.partitions.map(p => `${p.partition}: [${p.replicasAfter.join(',')}] on ${rackList(p.racksAfter)}`).join('; '),
              replicasThen: c.partitions.map(p => ({partition: p.partition, replicas: p.replicasBefore})),
              ...at,
            }
          : {kind: 'replica-placement', then: racksText(x!), now: racksText(y!), ...at}
    }
  })
  const brokers = a.brokers.map(
    (b): ExactChange => ({
      kind: b.before === 'absent' ? 'broker-unregistered' : b.after === 'absent' ? 'broker-registered' : 'broker-rack',
      broker: b.id,
      then: b.before === 'absent' ? 'absent' : rackOf(b.before),
      now: b.after === 'absent' ? 'absent' : rackOf(b.after),
      description: `broker ${b.id}: ${b.before === 'absent' ? 'absent' : rackOf(b.before)} → ${b.after === 'absent' ? 'absent' : rackOf(b.after)}`,
      time: a.firstSeenAfter,
    }),
  )
  return [...topics, ...brokers]
}
