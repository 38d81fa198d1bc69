/**
 * `group list`: every group the brokers know (ListGroups), joined with what each group's coordinator says of it
 * (the describe APIs of KIP-848 consumer, share and streams groups) and where it lives. Like
 * `kafka-consumer-groups --list --state` plus the group epoch, assignment epoch and member count.
 */
import {by} from './order.js'

export interface ListedGroupInput {
  readonly groupId: string
  /** classic, consumer, share, streams (as ListGroups v5 reports it, lower-cased). */
  readonly type: string
  readonly protocolType: string
  readonly state: string
}

export interface DescribedGroupInput {
  readonly groupId: string
  readonly errorName: string
  readonly state: string
  /** Absent for classic groups (DescribeGroups has no generation). */
  readonly groupEpoch?: number
  readonly assignmentEpoch?: number
  readonly members: readonly unknown[]
}

export interface GroupListEntry {
  group: string
  type: string
  protocolType: string
  /** From the describe when it answered, else from ListGroups. */
  state: string
  /** null for classic groups (DescribeGroups has no generation) and when the describe failed. */
  groupEpoch: number | null
  assignmentEpoch: number | null
  members: number | null
  /** Broker id of the group coordinator, null when FindCoordinator did not answer for it. */
  coordinator: number | null
  /** The __consumer_offsets partition that holds the group's records. */
  partition: number
  /** Why the describe gave nothing (GROUP_ID_NOT_FOUND: deleted between list and describe), else absent. */
  describeError?: string
}

export function groupListing(
  listed: readonly ListedGroupInput[],
  described: ReadonlyMap<string, DescribedGroupInput>,
  coordinators: ReadonlyMap<string, {readonly id: number}>,
  partitionOf: (groupId: string) => number,
): GroupListEntry[] {
  const out = listed.map(g => listingEntry(g, described.get(g.groupId), coordinators.get(g.groupId)?.id ?? null, partitionOf(g.groupId)))
  // (ListGroups' answer comes sorted: the check spares a sort's million comparisons)
  return isSorted(out) ? out : out.sort(by(x => x.group))
}

function listingEntry(g: ListedGroupInput, d: DescribedGroupInput | undefined, coordinator: number | null, partition: number): GroupListEntry {
  const ok = d !== undefined && d.errorName === 'NONE'
  // (one literal, describeError added after: a spread into the literal made each entry a slower, larger object)
  const e: GroupListEntry = {
    group: g.groupId,
    type: g.type,
    protocolType: g.protocolType,
    state: ok ? d.state : g.state,
    groupEpoch: ok ? (d.groupEpoch ?? null) : null,
    assignmentEpoch: ok ? (d.assignmentEpoch ?? null) : null,
    members: ok ? d.members.length : null,
    coordinator,
    partition,
  }
  if (d && !ok) e.describeError = d.errorName
  return e
}

function isSorted(es: readonly GroupListEntry[]): boolean {
  for (let i = 1; i < es.length; i++) if (es[i - 1].group > es[i].group) return false
  return true
}

/** Nullable numbers of a row, in GroupListEntry's order. */
const NUMBERS = ['groupEpoch', 'assignmentEpoch', 'members', 'coordinator', 'partition'] as const
/**
 * `group list`'s rows held as columns: a million groups' rows as objects are ~100 bytes each (the group id aside);
 * here ~45 bytes, the texts (types, states, protocol types, describe errors) kept once each, with their JSON. Read
 * back row by row: at(i) and iteration make each entry as it is read; --json takes the rows' JSON text made from
 * the columns (jsonPieces: src/render/json-stream.ts OwnJson), JSON.stringify their entries (toJSON).
 */
export class GroupListRows implements Iterable<GroupListEntry> {
  readonly #ids: string[] = []
  readonly #texts: Array<string | undefined> = [undefined]
  /** Each text's JSON (stringified once, not once a row). */
  readonly #textJson: string[] = ['']
  readonly #codeOf = new Map<string | undefined, number>([[undefined, 0]])
  /** A row's texts by their codes: type, protocol type, state, describe error (0: none). */
  #codes = new Uint32Array(0)
  #numbers = new Int32Array(0)
  /** One bit per number: null. */
  #nulls = new Uint8Array(0)

  get length(): number {
    return this.#ids.length
  }

  /** `capacity`: the rows expected (a hint: the columns grow past it). */
  constructor(capacity = 1024) {
    this.#grow(Math.max(1, capacity))
  }

  add(e: GroupListEntry): void {
    const i = this.#ids.length
    if (i === this.#nulls.length) this.#grow(2 * i)
    this.#ids.push(e.group)
    const c = 4 * i
    this.#codes[c] = this.#code(e.type)
    this.#codes[c + 1] = this.#code(e.protocolType)
    this.#codes[c + 2] = this.#code(e.state)
    this.#codes[c + 3] = this.#code(e.describeError)
    let nulls = 0
    NUMBERS.forEach((k, j) => {
      const v = e[k]
      if (v === null) nulls |= 1 << j
      else this.#numbers[5 * i + j] = v
    })
    this.#nulls[i] = nulls
  }

  /** Row `i` as the entry it was added as (the same keys in the same order). */
  at(i: number): GroupListEntry {
    const text = (j: number) => this.#texts[this.#codes[4 * i + j]]
    const num = (j: number) => ((this.#nulls[i] >> j) & 1 ? null : this.#numbers[5 * i + j])
    const describeError = text(3)
    return {
      group: this.#ids[i],
      type: text(0)!,
      protocolType: text(1)!,
      state: text(2)!,
      groupEpoch: num(0),
      assignmentEpoch: num(1),
      members: num(2),
      coordinator: num(3),
      partition: num(4)!,
      ...(describeError !== undefined ? {describeError} : {}),
    }
  }

  *[Symbol.iterator](): Iterator<GroupListEntry> {
    for (let i = 0; i < this.length; i++) yield this.at(i)
  }

  /** Row `i`'s JSON text: JSON.stringify(this.at(i)), without the entry made. */
  jsonAt(i: number): string {
    const [t, c, k] = [this.#textJson, this.#codes, 4 * i]
    const num = (j: number) => ((this.#nulls[i] >> j) & 1 ? 'null' : String(this.#numbers[5 * i + j]))
    const error = c[k + 3] === 0 ? '' : `,"describeError":${t[c[k + 3]]}`
    return `{"group":${JSON.stringify(this.#ids[i])},"type":${t[c[k]]},"protocolType":${t[c[k + 1]]},"state":${t[c[k + 2]]},"groupEpoch":${num(0)},"assignmentEpoch":${num(1)},"members":${num(2)},"coordinator":${num(3)},"partition":${num(4)}${error}}`
  }

  /** The rows' JSON, JSON.stringify(this) (an array of the entries), a row a piece. */
  *jsonPieces(): Generator<string> {
    yield '['
    for (let i = 0; i < this.length; i++) yield i === 0 ? this.jsonAt(i) : `,${this.jsonAt(i)}`
    yield ']'
  }

  /** The rows as JSON.stringify writes them: an array of the entries. */
  toJSON(): GroupListEntry[] {
    return [...this]
  }

  #code(text: string | undefined): number {
    let c = this.#codeOf.get(text)
    if (c === undefined) {
      c = this.#texts.push(text) - 1
      this.#textJson.push(JSON.stringify(text) ?? '')
      this.#codeOf.set(text, c)
    }
    return c
  }

  #grow(n: number): void {
    const codes = new Uint32Array(4 * n)
    codes.set(this.#codes)
    const numbers = new Int32Array(5 * n)
    numbers.set(this.#numbers)
    const nulls = new Uint8Array(n)
    nulls.set(this.#nulls)
    ;[this.#codes, this.#numbers, this.#nulls] = [codes, numbers, nulls]
  }
}
