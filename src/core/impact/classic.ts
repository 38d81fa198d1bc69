/**
 * `impact` for classic consumer groups. The classic protocol keeps no metadata hash: its leader (the member that
 * computed the assignment) compares the metadata it assigned with against each metadata refresh and rejoins when
 * they differ (the Java client's ConsumerCoordinator MetadataSnapshot): the partition count of every subscribed
 * topic, a subscribed topic gone, and — only when the leader declares client.rack (KIP-881) — the set of racks of
 * each partition's replicas. That rejoin is a rebalance (a new generation). It comes at the leader's next metadata
 * refresh, within metadata.max.age.ms (default 5 minutes) or sooner; so a transient state (replicas while a
 * reassignment copies) is seen only if a refresh falls in it. A topic created is seen only by a pattern
 * subscription, which the records do not keep (said when it could matter). Pure.
 */
import type {ClusterMetadata} from '../metadata.js'
import {classicMemberTopics} from '../replay/classic-topics.js'
import type {GroupMetadataValue} from '../replay/values.js'
import type {Phase} from './phases.js'

const WHEN = "at the leader's next metadata refresh (within metadata.max.age.ms, default 5 min, or sooner)"

export interface ClassicStep {
  phase: Phase['kind']
  when: string
  /** yes: seen on every path; if-seen: only if a refresh falls in this transient state. */
  bump: 'yes' | 'if-seen'
  /** What the leader's metadata comparison sees change. */
  why: string
}

export interface ClassicImpact {
  generation: number
  members: number
  leader: string | null
  /** The leader's client.rack (from its subscription), or null: then racks are not compared. */
  leaderRack: string | null
  touchedTopics: string[]
  steps: ClassicStep[]
  bumps: {min: number; max: number}
  notes: string[]
}

interface Snapshot {
  partitions: Map<string, number>
  racks: Map<string, string[]>
}

/** What the leader's MetadataSnapshot holds of `topics` (racks only when it has a rack). */
function snapshot(md: ClusterMetadata, topics: readonly string[], withRacks: boolean): Snapshot {
  const rackOf = new Map(md.brokers.map(b => [b.id, b.rack]))
  const partitions = new Map<string, number>()
  const racks = new Map<string, string[]>()
  for (const name of topics) {
    const t = md.topics.find(x => x.name === name)
    if (!t) continue
    partitions.set(name, t.partitions.length)
    if (withRacks)
      racks.set(
        name,
        t.partitions.map(p => [...new Set(p.replicas.map(r => rackOf.get(r) ?? null).filter((r): r is string => r !== null))].sort().join(',')),
      )
  }
  return {partitions, racks}
}

function differences(a: Snapshot, b: Snapshot, topics: readonly string[]): string[] {
  const out: string[] = []
  for (const t of topics) {
    const [x, y] = [a.partitions.get(t), b.partitions.get(t)]
    if (x !== y) out.push(x === undefined ? `${t} appears` : y === undefined ? `${t} is gone` : `${t} partitions ${x} → ${y}`)
    else if (a.racks.get(t)?.join(';') !== b.racks.get(t)?.join(';')) out.push(`${t}: the racks of a partition's replicas change`)
  }
  return out
}

/** The classic group's predicted rebalances through the phases of the plan; undefined when none of its topics is touched. */
export function predictClassic(v: GroupMetadataValue, md: ClusterMetadata, phases: readonly Phase[]): ClassicImpact | undefined {
  if (v.protocolType !== 'consumer') return undefined
  const topics = [...new Set(v.members.flatMap(classicMemberTopics))].sort()
  const touched = topics.filter(t => phases.some(p => p.changed.has(t)))
  const notes: string[] = []
  const created = phases.flatMap(p => [...p.created])
  if (created.length > 0 && v.members.length > 0)
    notes.push(
      `topics created (${created.join(', ')}): a member subscribing by pattern would pick them up and rejoin; the records keep subscribed topics, not patterns, so this cannot be told`,
    )
  // (a group none of whose topics the plan touches is not listed, even when topics are created: a pattern
  // subscription would pick those up, but the records keep no pattern)
  if (touched.length === 0) return undefined
  const leader = v.members.find(m => m.memberId === v.leader)
  const leaderRack = ((leader?.subscriptionDecoded as {ok?: boolean; value?: {RackId?: string | null}} | undefined)?.value?.RackId ?? null) || null
  const snap = (m: ClusterMetadata) => snapshot(m, topics, leaderRack !== null)
  // every phase seen (a refresh in each): the steps; transient phases skipped: what every path sees
  const steps: ClassicStep[] = []
  let prev = snap(md)
  let settled = prev
  for (const p of phases) {
    const next = snap(p.metadata)
    const diff = differences(prev, next, topics)
    // a lasting phase bumps on every path when it differs from the last lasting state, not just from a transient one
    const everyPath = !p.transient && differences(settled, next, topics).length > 0
    if (diff.length > 0) steps.push({phase: p.kind, when: WHEN, bump: everyPath ? 'yes' : 'if-seen', why: diff.join('; ')})
    prev = next
    if (!p.transient) settled = next
  }
  // rebalances along a path: each refresh that sees a state other than the last one assigned with
  const along = (seen: (p: Phase) => boolean) => {
    let last = snap(md)
    let n = 0
    for (const p of phases) {
      if (!seen(p)) continue
      const next = snap(p.metadata)
      if (differences(last, next, topics).length > 0) n++
      last = next
    }
    return n
  }
  const none = v.members.length === 0
  const [a, b] = [along(p => !p.transient), along(() => true)]
  const min = none ? 0 : Math.min(a, b)
  const max = none ? 0 : Math.max(a, b)
  if (v.members.length === 0) notes.push('no members: nobody refreshes metadata, nothing rebalances now')
  if (leaderRack === null && phases.some(p => p.kind.startsWith('reassignment') || p.kind === 'broker-restart'))
    notes.push("the leader declares no client.rack: replica and rack changes are not compared (Kafka's MetadataSnapshot), only partition counts")
  return {generation: v.generation, members: v.members.length, leader: v.leader, leaderRack, touchedTopics: touched, steps, bumps: {min, max}, notes}
}
