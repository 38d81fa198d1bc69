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
  const out = listed.map((g): GroupListEntry => {
    const d = described.get(g.groupId)
    const ok = d !== undefined && d.errorName === 'NONE'
    return {
      group: g.groupId,
      type: g.type,
      protocolType: g.protocolType,
      state: ok ? d.state : g.state,
      groupEpoch: ok ? (d.groupEpoch ?? null) : null,
      assignmentEpoch: ok ? (d.assignmentEpoch ?? null) : null,
      members: ok ? d.members.length : null,
      coordinator: coordinators.get(g.groupId)?.id ?? null,
      partition: partitionOf(g.groupId),
      ...(d && !ok ? {describeError: d.errorName} : {}),
    }
  })
  return out.sort(by(x => x.group))
}

/** Nullable numbers of a row, in GroupListEntry's order. */
const NUMBERS = ['groupEpoch', 'assignmentEpoch', 'members', 'coordinator', 'partition'] as const
/** Texts of a row, in GroupListEntry's order (describeError last: absent when code 0). */
const TEXTS = ['type', 'protocolType', 'state', 'describeError'] as const

const json = (v: string | number | null) => (typeof v === 'string' ? JSON.stringify(v) : String(v))

/** JSON.stringify(e), written without its walk of an object: 1.5 million rows in ~3.8 s against ~5.2. */
export function entryJson(e: GroupListEntry): string {
  const error = e.describeError === undefined ? '' : `,"describeError":${json(e.describeError)}`
  return `{"group":${json(e.group)},"type":${json(e.type)},"protocolType":${json(e.protocolType)},"state":${json(e.state)},"groupEpoch":${json(e.groupEpoch)},"assignmentEpoch":${json(e.assignmentEpoch)},"members":${json(e.members)},"coordinator":${json(e.coordinator)},"partition":${json(e.partition)}${error}}`
}

/**
 * `group list`'s rows held as columns: a million groups' rows as objects are ~100 bytes each (the group id aside);
 * here ~45 bytes, the texts (types, states, protocol types, describe errors) kept once each. Read back row by row:
 * at(i) and iteration make each entry as it is read; the JSON writer takes the rows' texts (jsonTextAt: the rows
 * of src/render/json-stream.ts), JSON.stringify their entries (toJSON).
 */
export class GroupListRows implements Iterable<GroupListEntry> {
  readonly #ids: string[] = []
  readonly #texts: Array<string | undefined> = [undefined]
  readonly #codeOf = new Map<string | undefined, number>([[undefined, 0]])
  #codes = new Uint32Array(4 * 1024)
  #numbers = new Int32Array(5 * 1024)
  /** One bit per number: null. */
  #nulls = new Uint8Array(1024)

  get length(): number {
    return this.#ids.length
  }

  add(e: GroupListEntry): void {
    const i = this.#ids.length
    if (i === this.#nulls.length) this.#grow()
    this.#ids.push(e.group)
    TEXTS.forEach((k, j) => {
      this.#codes[4 * i + j] = this.#code(e[k])
    })
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

  /** Row `i`'s JSON text: JSON.stringify(this.at(i)). */
  jsonTextAt(i: number): string {
    return entryJson(this.at(i))
  }

  /** The rows as JSON.stringify writes them: an array of the entries. */
  toJSON(): GroupListEntry[] {
    return [...this]
  }

  #code(text: string | undefined): number {
    let c = this.#codeOf.get(text)
    if (c === undefined) {
      c = this.#texts.push(text) - 1
      this.#codeOf.set(text, c)
    }
    return c
  }

  #grow(): void {
    const n = 2 * this.#nulls.length
    const codes = new Uint32Array(4 * n)
    codes.set(this.#codes)
    const numbers = new Int32Array(5 * n)
    numbers.set(this.#numbers)
    const nulls = new Uint8Array(n)
    nulls.set(this.#nulls)
    ;[this.#codes, this.#numbers, this.#nulls] = [codes, numbers, nulls]
  }
}
