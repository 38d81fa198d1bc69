/**
 * A cached audit row as an incremental audit reads it back from its checkpoint: the row's JSON text, kept as the
 * bytes read (never parsed unless something needs the whole row), and beside it the few facts the audit reads of
 * every row: its reuse check (row-cache.ts), the summary, the history, the Prometheus series and the table's
 * filter. --json writes the text as it is (json-stream.ts: the same bytes JSON.stringify of the row gives); the
 * table and --metadata-log parse the rows they show. Decoding the checkpoints of 10,400 groups (rows of ~610 bytes)
 * went from 210-240 ms to 120-130 ms in a fresh process (mostly GC of the objects each group becomes).
 * Only rows row-cache.ts caches are kept so: in sync or without a hash, no member reconciling (so none stuck), no
 * reassignment. Pure.
 */
import {FINDING_KINDS, type FindingKind, type GroupAudit, type RowFacts} from './audit.js'
import type {GroupType} from '../replay/index.js'
import type {GroupLag} from './lag.js'

/** An audit row: computed this run, or read back from a checkpoint. */
export type AuditRow = GroupAudit | StoredRow

const NONE: readonly never[] = Object.freeze([])
const verdicts = new Map<string, {readonly code: string}>()

/**
 * The facts of a row as a checkpoint line keeps them, in this order:
 * [entry type (the --type filter's), type, verdict code, findings, topics, missing topics, live metadata hash,
 *  stored metadata hash, group epoch, assignment epoch, in sync, assignment pending, members, unknown records].
 */
export type Facts = readonly [
  GroupType | null,
  GroupType | null,
  string,
  FindingKind[],
  string[],
  string[],
  string | null,
  string | null,
  number | null,
  number | null,
  boolean | null,
  boolean,
  number,
  number,
]

export class StoredRow implements RowFacts {
  /** The row's JSON is bytes [start, end) of `file` (UTF-8, as JSON.stringify wrote it): offsets, not a view per row. */
  private constructor(
    readonly group: string,
    readonly facts: Facts,
    private readonly file: Buffer,
    private readonly start: number,
    private readonly end: number,
    /** Read this run, never cached (lag.ts withLag): in the JSON text as its last field when set. */
    readonly lag: GroupLag | null = null,
  ) {}

  /** This row with this run's lag as its last JSON field (`"lag":…`, as {...row, lag} would write it). */
  withLag(lag: GroupLag | null): StoredRow {
    const head = this.file.subarray(this.start, this.end - 1)
    const text = Buffer.concat([head, Buffer.from(`,"lag":${JSON.stringify(lag)}}`)])
    return new StoredRow(this.group, this.facts, text, 0, text.length, lag)
  }

  /** The row of `group` from a checkpoint line's facts (untrusted: undefined when they are not of the right shape) and the text at [start, end) of `file`. */
  static of(group: string, facts: unknown, file: Buffer, start: number, end: number, pool?: FactsPool): StoredRow | undefined {
    if (!factsFit(facts) || end - start <= 2 || file[start] !== 0x7b) return undefined
    return new StoredRow(group, pool ? pooled(facts, pool) : facts, file, start, end)
  }

  /** The row's JSON as bytes. */
  get text(): Uint8Array {
    return this.file.subarray(this.start, this.end)
  }

  get entryType(): GroupType | null {
    return this.facts[0]
  }
  get type(): GroupType | null {
    return this.facts[1]
  }
  get verdict(): {readonly code: string} {
    const code = this.facts[2]
    let v = verdicts.get(code)
    if (!v) verdicts.set(code, (v = Object.freeze({code})))
    return v
  }
  get findings(): FindingKind[] {
    return this.facts[3]
  }
  get topics(): string[] {
    return this.facts[4]
  }
  get missingTopics(): string[] {
    return this.facts[5]
  }
  get liveMetadataHash(): string | null {
    return this.facts[6]
  }
  get storedMetadataHash(): string | null {
    return this.facts[7]
  }
  get groupEpoch(): number | null {
    return this.facts[8]
  }
  get assignmentEpoch(): number | null {
    return this.facts[9]
  }
  get inSync(): boolean | null {
    return this.facts[10]
  }
  get assignmentPending(): boolean {
    return this.facts[11]
  }
  get members(): number {
    return this.facts[12]
  }
  get unknownRecords(): number {
    return this.facts[13]
  }
  // what a cached row cannot have (row-cache.ts cacheEntry)
  get membersReconciling(): 0 {
    return 0
  }
  get stuckMembers(): readonly never[] {
    return NONE
  }
  get reassignments(): readonly never[] {
    return NONE
  }

  /** The row's JSON text. */
  jsonText(): string {
    return this.file.toString('utf8', this.start, this.end)
  }

  /**
   * The row's JSON as the bytes read when they are printable ASCII only (nearly always: ids with other characters
   * are rare), else undefined: then nothing in them is for a terminal-safe mapping to escape, so --json can write
   * them without decoding them (jsonPieces).
   */
  jsonBytes(): Uint8Array | undefined {
    const f = this.file
    for (let i = this.start; i < this.end; i++) {
      const c = f[i]
      if (c < 0x20 || c > 0x7e) return undefined
    }
    return f.subarray(this.start, this.end)
  }

  /** Its JSON for --json (src/render/json-stream.ts OwnJson): the bytes read when they are printable ASCII, else the text. */
  jsonPieces(): Array<string | Uint8Array> {
    return [this.jsonBytes() ?? this.jsonText()]
  }

  /** The whole row, parsed (each call a new object); throws when the text is not this group's row. */
  row(): GroupAudit {
    let r: GroupAudit
    try {
      r = JSON.parse(this.jsonText()) as GroupAudit
    } catch (error) {
      throw new Error(`the cached audit row of group ${JSON.stringify(this.group)} is damaged (${(error as Error).message})`)
    }
    if (!r || typeof r !== 'object' || r.group !== this.group)
      throw new Error(`the cached audit row of group ${JSON.stringify(this.group)} is of another group`)
    return r
  }

  /** JSON.stringify(storedRow) is the row's JSON. */
  toJSON(): GroupAudit {
    return this.row()
  }
}

/** The whole row (parsed when it was read back from a checkpoint). */
export const fullRow = (r: AuditRow): GroupAudit => (r instanceof StoredRow ? r.row() : r)

/** The facts a checkpoint keeps of a cacheable row computed this run (`entryType`: its cached entry's type). */
export function factsOf(entryType: GroupType | null, r: GroupAudit | StoredRow): Facts {
  if (r instanceof StoredRow) return r.facts
  return [
    entryType,
    r.type,
    r.verdict.code,
    r.findings,
    r.topics,
    r.missingTopics,
    r.liveMetadataHash,
    r.storedMetadataHash,
    r.groupEpoch,
    r.assignmentEpoch,
    r.inSync,
    r.assignmentPending,
    r.members,
    r.unknownRecords,
  ]
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every(x => typeof x === 'string')
const kinds = (v: unknown): v is FindingKind[] => Array.isArray(v) && v.every(x => (FINDING_KINDS as readonly unknown[]).includes(x))
const typeOrNull = (v: unknown) => v === null || v === 'consumer' || v === 'share' || v === 'streams' || v === 'classic'
const intOrNull = (v: unknown) => v === null || Number.isSafeInteger(v)
const hashOrNull = (v: unknown) => v === null || (typeof v === 'string' && /^-?\d{1,20}$/.test(v))

/**
 * The values that repeat across a checkpoint's rows (types, verdict codes, hashes, topic lists, empty lists), one
 * of each per file read: each row's facts then keep the pooled value and its freshly parsed copy dies young. A
 * fresh process copies every value it keeps from one young-generation GC to the next; this halves what 10,000 rows
 * keep (~700 to ~400 bytes a row).
 */
export class FactsPool {
  readonly strings = new Map<string, string>()
  readonly lists = new Map<string, readonly string[]>()
}

function pooledString(s: string, pool: FactsPool): string {
  const had = pool.strings.get(s)
  if (had !== undefined) return had
  pool.strings.set(s, s)
  return s
}

/** A list of strings as pooled (frozen: shared by rows; nothing writes to a row's lists). */
function pooledList<T extends string>(list: T[], pool: FactsPool): T[] {
  if (list.length === 0) return NONE as never
  // (a one-element list by its element unless that could be another list's JSON)
  const key = list.length === 1 && list[0][0] !== '[' ? list[0] : JSON.stringify(list)
  const had = pool.lists.get(key)
  if (had !== undefined) return had as T[]
  pool.lists.set(key, Object.freeze(list))
  return list
}

function pooled(f: Facts, pool: FactsPool): Facts {
  const str = (v: string | null) => (v === null ? v : pooledString(v, pool))
  return [
    str(f[0]) as GroupType | null,
    str(f[1]) as GroupType | null,
    pooledString(f[2], pool),
    pooledList(f[3], pool),
    pooledList(f[4], pool),
    pooledList(f[5], pool),
    str(f[6]),
    str(f[7]),
    f[8],
    f[9],
    f[10],
    f[11],
    f[12],
    f[13],
  ]
}

function factsFit(f: unknown): f is Facts {
  return (
    Array.isArray(f) &&
    f.length === 14 &&
    typeOrNull(f[0]) &&
    typeOrNull(f[1]) &&
    typeof f[2] === 'string' &&
    kinds(f[3]) &&
    strings(f[4]) &&
    strings(f[5]) &&
    hashOrNull(f[6]) &&
    hashOrNull(f[7]) &&
    intOrNull(f[8]) &&
    intOrNull(f[9]) &&
    (f[10] === null || typeof f[10] === 'boolean') &&
    typeof f[11] === 'boolean' &&
    Number.isSafeInteger(f[12]) &&
    Number.isSafeInteger(f[13])
  )
}
