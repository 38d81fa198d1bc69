/**
 * A classic group's generations: the partitions whose owner differs between consecutive GroupMetadata records (read
 * from the consumer protocol's assignments), and the protocol the chosen assignor implies. The records carry no
 * start time of a rebalance (only the generation's record), so no duration is derived.
 */
import type {LoggedRecord} from '../replay/index.js'
import type * as V from '../replay/values.js'
import type {MemberRef} from './types.js'
import {unitKey} from './units.js'
import {DoneBumps, type DoneState} from './sums.js'

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

/** What a fold needs to go on (save/restore), as plain data. */
export interface ClassicFoldState {
  readonly generation: number | null
  readonly owners: ReadonlyMap<string, MemberRef>
  readonly released: ReadonlyMap<string, MemberRef>
  readonly drafts: readonly ClassicDraft[]
  readonly done: DoneState
}

export class ClassicCostFold {
  /** The generations kept whole (after compact(): the last one only). */
  readonly drafts: ClassicDraft[] = []
  /** The generations compact() dropped from `drafts`, as sums (no duration: not measured). */
  done = new DoneBumps()
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

  /** Keeps only the last generation whole (a classic bump never changes after its record). */
  compact(windowMs: number): void {
    const last = this.drafts.at(-1)
    if (!last) return
    for (const d of this.drafts.splice(0, this.drafts.length - 1)) this.done.add([d.timestamp, d.moves.length, 0, 'not-measured', 0])
    this.done.trim(last.timestamp, windowMs)
  }

  save(windowMs: number): ClassicFoldState {
    this.compact(windowMs)
    return {generation: this.generation ?? null, owners: this.owners, released: this.released, drafts: this.drafts, done: this.done.save()}
  }

  static restore(s: ClassicFoldState): ClassicCostFold {
    if (!(s.owners instanceof Map) || !(s.released instanceof Map) || !Array.isArray(s.drafts)) throw new Error('a cost state of the wrong shape')
    const f = new ClassicCostFold()
    f.generation = s.generation ?? undefined
    f.owners = new Map(s.owners)
    for (const [k, v] of s.released) f.released.set(k, v)
    f.drafts.push(...s.drafts)
    f.done = DoneBumps.restore(s.done)
    return f
  }
}
