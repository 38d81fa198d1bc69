/**
 * A classic group's generations: the partitions whose owner differs between consecutive GroupMetadata records (read
 * from the consumer protocol's assignments), and the protocol the chosen assignor implies. The records carry no
 * start time of a rebalance (only the generation's record), so no duration is derived.
 */
import type {LoggedRecord} from '../replay/index.js'
import type * as V from '../replay/values.js'
import type {MemberRef} from './types.js'
import {unitKey} from './units.js'

export interface ClassicMove {
  readonly unit: string
  readonly from: MemberRef | null
  readonly to: MemberRef | null
}

export interface ClassicDraft {
  readonly epoch: number
  readonly previousEpoch: number | null
  readonly offset: bigint
  readonly timestamp: number
  readonly assignor: string | null
  readonly moves: readonly ClassicMove[]
}

/**
 * Kafka's built-in consumer assignors: `cooperative-sticky` (CooperativeStickyAssignor) rebalances incrementally;
 * `range`, `roundrobin` and `sticky` are eager (every member revokes everything when a rebalance starts). Any other
 * name is a custom or non-consumer assignor (e.g. Kafka Streams' `stream`) and is not guessed.
 */
export function classicProtocol(assignor: string | null): 'eager' | 'cooperative' | 'unknown' {
  if (assignor === 'cooperative-sticky') return 'cooperative'
  if (assignor === 'range' || assignor === 'roundrobin' || assignor === 'sticky') return 'eager'
  return 'unknown'
}

function ownersOf(v: V.GroupMetadataValue): Map<string, MemberRef> {
  const out = new Map<string, MemberRef>()
  for (const m of v.members) {
    const a = m.assignmentDecoded as {ok?: boolean; value?: {AssignedPartitions?: readonly {Topic: string; Partitions: readonly number[]}[]}} | undefined
    if (!a?.ok) continue
    const ref = {memberId: m.memberId, clientId: m.clientId}
    for (const tp of a.value?.AssignedPartitions ?? []) for (const p of tp.Partitions) out.set(unitKey('partition', tp.Topic, p), ref)
  }
  return out
}

export class ClassicCostFold {
  readonly drafts: ClassicDraft[] = []
  private generation: number | undefined
  private owners = new Map<string, MemberRef>()
  /** Units a generation left without an owner, with their last owner: a cooperative move completes a generation later. */
  private readonly released = new Map<string, MemberRef>()

  /** Each member's partitions in the last generation read. */
  holdings(): Array<{member: MemberRef; units: readonly string[]}> {
    const by = new Map<string, {member: MemberRef; units: string[]}>()
    for (const [u, m] of this.owners) {
      let h = by.get(m.memberId)
      if (!h) by.set(m.memberId, (h = {member: m, units: []}))
      h.units.push(u)
    }
    return [...by.values()]
  }

  push(lr: LoggedRecord): void {
    const r = lr.record
    if (r.kind !== 'record' || r.value === null) return
    const v = r.value as unknown as V.GroupMetadataValue
    if (v.generation === this.generation) return
    const owners = ownersOf(v)
    const moves: ClassicMove[] = []
    for (const [u, from] of this.owners) {
      const to = owners.get(u)
      if (to?.memberId === from.memberId) continue
      moves.push({unit: u, from, to: to ?? null})
      if (!to) this.released.set(u, from)
    }
    for (const [u, to] of owners) {
      if (this.owners.has(u)) continue
      moves.push({unit: u, from: this.released.get(u) ?? null, to})
      this.released.delete(u)
    }
    this.drafts.push({
      epoch: v.generation,
      previousEpoch: this.generation ?? null,
      offset: lr.offset,
      timestamp: lr.timestamp,
      assignor: v.protocol,
      moves,
    })
    this.generation = v.generation
    this.owners = owners
  }
}
