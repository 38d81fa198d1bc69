/**
 * One `__consumer_offsets` partition streamed into per-group summaries (GroupReducer: state, skipped records,
 * the last `keepEpochs` bumps without snapshots), with memory bounded by the partition's live groups and
 * members and a window of records, not by its records: batches are filtered (read_committed), their records held
 * as bytes in a window (record-window.ts) and applied group by group when it is full (or asked for), each group's
 * in log order (the groups' states are independent: the same as in log order, and values die young); offset
 * commits (record types 0 and 1, the bulk of the log) are skipped by their key prefix without decoding. Pure: the
 * network reader calls onAborted/onBatch.
 */
import {CommittedFilter} from '../log/committed.js'
import type {AbortedTransaction, LogBatch, LogRecord} from '../log/batch.js'
import {decodeRecord, groupIdOfKey, RecordDecodeError} from '../records/index.js'
import {CostTracker} from '../cost/index.js'
import {modernRole} from '../cost/modern.js'
import {RECORD_TYPE} from '../records/index.js'
import {AUDIT_COST_WINDOW_MS, type AuditCost, auditCost, noCost} from './cost.js'
import {GroupReducer, GroupReplay, type GroupSummary, type LoggedRecord, type ReplayResult} from '../replay/index.js'
import {decodeGroupData, encodeGroupData, type ScanCounters, stateText, type StoredData, type StoredGroup} from './checkpoint.js'
import type {CachedEntry} from './row-cache.js'
import {RecordWindow} from './record-window.js'

export interface PartitionScanOptions {
  /** Bumps kept per group (default 3: the audit only needs the recent ones, "reconciling since"). */
  keepEpochs?: number
  /** Only groups this accepts are replayed (their records still count as scanned). */
  acceptGroup?: (groupId: string) => boolean
  /** Tracked groups (trackFrom) also get what each bump cost, from their records (complete when tracked from 0). */
  costs?: boolean
  /**
   * Every group first seen in this scan (not resumed from a checkpoint) also gets what its bumps cost, for its
   * audit row (costOf); cheap: a fold over the records the scan decodes anyway, and none is kept.
   */
  rowCosts?: boolean
  /** Bytes of records held before they are applied (record-window.ts; default WINDOW_BYTES); 0: each batch's at its end. */
  windowBytes?: number
}

/** A tracked group's replay, and the costs of its bumps when asked (finished by the caller, with topic names). */
export type TrackedReplay = ReplayResult & {costs?: CostTracker}

/** A group of a finished scan, for the audit: its summary, and its cached audit entry when it had no new records. */
export interface ScannedGroup {
  readonly id: string
  /** The audit entry the checkpoint keeps for this group's state (row-cache.ts); null when it has new records or none. */
  readonly cached: CachedEntry | null
  /** Its summary; a group without new records is parsed from its checkpoint text here (throws when damaged). A method: call it on the group. */
  summary(): GroupSummary
  /** Set by the audit: the entry to keep for the next run (row-cache.ts cacheEntry), null for none. */
  entry: CachedEntry | null
  /** With rowCosts: what its bumps cost, for its row (or why not). */
  readonly cost?: AuditCost
}

const GROUP_METADATA = RECORD_TYPE.GroupMetadata

/**
 * The bytes of records a scan holds before it applies them (record-window.ts): a 100,000-group partition's member
 * and assignment records (~13 MB) in one window, so each group's values die young; and a bound on the memory held.
 */
const WINDOW_BYTES = 16 * 1024 * 1024

/** A deep copy of a group's state (plain data, Maps, bigints, bytes): a replay continued from it cannot change the reducer's. */
const cloneState = <T>(v: T): T => structuredClone(v)

/**
 * For a reader that can step over records by key (parseRecordBatches keepKey): keeps every record but offset
 * commits (key version 0 or 1), which PartitionScan skips anyway; a key too short to tell is kept (a decode error).
 */
export function auditKeyFilter(buf: Uint8Array, start: number, length: number): boolean {
  if (length < 2) return true
  const type = ((buf[start] << 24) >> 16) | buf[start + 1]
  return type !== 0 && type !== 1
}

/**
 * Two keys (of at least 2 bytes) hold the same group id bytes: their group field (after the int16 type, an int16
 * length and its bytes) is the same, so groupIdOfKey reads the same string from both (undefined from both when the
 * length is negative or longer than the key: compared as bytes all the same).
 */
export function sameGroupIdBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length < 4 || b.length < 4) return false
  if (a[2] !== b[2] || a[3] !== b[3]) return false
  const end = 4 + (((a[2] << 24) >> 16) | a[3])
  if (end < 4 || end > a.length || end > b.length) return false
  for (let i = 4; i < end; i++) if (a[i] !== b[i]) return false
  return true
}

export class PartitionScan {
  readonly filter = new CommittedFilter()
  /** Groups with records in this scan (or rebuilt from their checkpoint text to take them), taken at their first record. */
  private readonly reducers = new Map<string, GroupReducer>()
  /** Records read and not applied yet (record-window.ts). */
  private readonly window = new RecordWindow()
  private readonly windowBytes: number
  /** Groups of the checkpoint resumed that have had no record yet: kept as text, parsed only when needed. */
  private readonly stored = new Map<string, StoredGroup>()
  recordsScanned = 0
  offsetCommitsSkipped = 0
  decodeErrors = 0
  batches = 0
  private readonly keep: number
  private readonly accept: (groupId: string) => boolean
  private readonly rejected = new Set<string>()
  /** watch: records at or after this offset are also replayed in full per group, to name their bumps' causes. */
  private readonly trackFrom: bigint | undefined
  private readonly tracked = new Map<string, GroupReplay>()
  private readonly costs = new Map<string, CostTracker>()
  private readonly withCosts: boolean
  /** rowCosts: the groups first seen in this scan, each with its fold from its first record. */
  private readonly rowCosts: Map<string, CostTracker> | undefined

  /** `from`: resume an earlier scan of the partition (a checkpoint's groups and totals). */
  constructor(options: PartitionScanOptions = {}, from?: {groups: Iterable<readonly [string, StoredGroup]>; counters: ScanCounters}, trackFrom?: bigint) {
    this.keep = options.keepEpochs ?? 3
    this.windowBytes = options.windowBytes ?? WINDOW_BYTES
    this.trackFrom = trackFrom
    this.accept = options.acceptGroup ?? (() => true)
    this.withCosts = options.costs === true
    this.rowCosts = options.rowCosts ? new Map() : undefined
    if (from) {
      for (const [id, g] of from.groups) this.stored.set(id, g)
      ;({
        recordsScanned: this.recordsScanned,
        offsetCommitsSkipped: this.offsetCommitsSkipped,
        decodeErrors: this.decodeErrors,
        batches: this.batches,
      } = from.counters)
    }
  }

  get keepEpochs(): number {
    return this.keep
  }

  get counters(): ScanCounters {
    return {recordsScanned: this.recordsScanned, offsetCommitsSkipped: this.offsetCommitsSkipped, decodeErrors: this.decodeErrors, batches: this.batches}
  }

  /** A group from the checkpoint rebuilt to take new records. */
  #restore(id: string, stored: StoredGroup): GroupReducer {
    const data = decodeStored(id, stored)
    const g = new GroupReducer(id, this.keep, data)
    // its cost fold goes on from the checkpoint's (none kept: its costs are not measured, costOf says so)
    const costs = this.rowCosts && CostTracker.restore(id, data.cost)
    if (costs) this.rowCosts!.set(id, costs)
    this.stored.delete(id)
    this.reducers.set(id, g)
    return g
  }

  /**
   * Every group as a checkpoint keeps it, to resume from (call at a batch boundary); `entries`: their audit entries,
   * as set on the groups scanned() gave (in its order). Unchanged groups keep their text as it was read (no parse,
   * no re-encoding), or their place in the checkpoint's states file when it was not read.
   */
  data(entries?: readonly ScannedGroup[]): Array<[string, StoredGroup]> {
    this.#applyWindow()
    const out: Array<[string, StoredGroup]> = []
    let i = 0
    const entryOf = (id: string): CachedEntry | null => {
      const g = entries![i++]
      if (g?.id !== id) throw new Error(`unreachable: the scanned groups are not this scan's (${JSON.stringify(g?.id)} for ${JSON.stringify(id)})`)
      return g.entry
    }
    for (const [id, g] of this.reducers)
      out.push([id, {data: encodeGroupData(g.data(), this.rowCosts?.get(id)?.save(AUDIT_COST_WINDOW_MS)), row: entries ? entryOf(id) : null}])
    for (const [id, s] of this.stored) {
      const row = entries ? entryOf(id) : s.row
      // the same state and entry as read: kept as read (its checkpoint line is written back as it was)
      out.push([id, row === s.row ? s : {data: s.data, cold: s.cold, row}])
    }
    if (entries && i !== entries.length) throw new Error("unreachable: the scanned groups are not this scan's")
    return out
  }

  /** The reducer of a group, taken now if new (or restored from the checkpoint); undefined when acceptGroup refuses it. */
  #take(gid: string): GroupReducer | undefined {
    // (a group taken is never rejected: one lookup for nearly every group)
    const g = this.reducers.get(gid)
    if (g) return g
    if (this.rejected.has(gid)) return undefined
    const stored = this.stored.get(gid)
    if (stored) return this.#restore(gid, stored)
    if (!this.accept(gid)) {
      this.rejected.add(gid)
      return undefined
    }
    const taken = new GroupReducer(gid, this.keep)
    this.reducers.set(gid, taken)
    this.rowCosts?.set(gid, new CostTracker(gid).keepFiguresOnly())
    return taken
  }

  onAborted(list: readonly AbortedTransaction[]): void {
    this.filter.addAborted(list)
  }

  onBatch(batch: LogBatch): void {
    this.batches++
    const count = batch.recordCount ?? batch.records.length
    this.recordsScanned += count
    const accepted = this.filter.accept(batch)
    // offset commits the reader already stepped over (auditKeyFilter) are skipped all the same
    if (accepted === batch.records) this.offsetCommitsSkipped += count - batch.records.length
    let started = false
    // a coordinator write is one batch of one group: a record whose key holds the group id of the record before
    // takes its id (no string decoded, and the same string object: its hash is computed once for the lookups)
    let lastKey: Uint8Array | undefined
    let lastGid: string | undefined
    for (const r of accepted) {
      const key = r.key
      if (key === null || key.length < 2) {
        this.decodeErrors++
        continue
      }
      // key version = record type for types 0 and 1 (offset commits): no value decoding, no group state
      const type = ((key[0] << 24) >> 16) | key[1]
      if (type === 0 || type === 1) {
        this.offsetCommitsSkipped++
        continue
      }
      let gid: string | undefined
      if (lastKey !== undefined && sameGroupIdBytes(lastKey, key)) gid = lastGid
      else {
        gid = groupIdOfKey(key)
        if (gid === undefined || !this.reducers.has(gid)) {
          if (!this.#takeFirst(r)) continue
        }
        lastKey = key
        lastGid = gid
      }
      if (!started) this.window.startBatch(batch.baseOffset)
      started = true
      this.window.add(gid!, r.offset, Number(r.timestamp), key, r.value)
    }
    // watch: applied batch by batch, so the replays of new records start in the order their groups' records come
    if (this.trackFrom !== undefined || this.window.bytes >= this.windowBytes) this.#applyWindow()
  }

  /**
   * The first record of a group not taken yet (or of none: a key without a group id) is decoded now, as every
   * record was before windows: a group is taken at its first record that decodes, in the order of those records,
   * and every record of a group refused (acceptGroup) or of none is decoded only to count it if it does not.
   * True when its group is taken: the record is then held like the others (and decoded again in its turn).
   */
  #takeFirst(r: LogRecord): boolean {
    let record
    try {
      record = decodeRecord(r.key, r.value, r.offset)
    } catch (e) {
      if (!(e instanceof RecordDecodeError)) throw e
      this.decodeErrors++
      return false
    }
    // (a decoded key's group id is the one groupIdOfKey reads: every key starts with it)
    return record.groupId !== undefined && this.#take(record.groupId) !== undefined
  }

  /** Applies the window's records, group by group (each group's in log order), and empties it. */
  #applyWindow(): void {
    const w = this.window
    const ids = w.groups
    for (let n = 0; n < ids.length; n++) {
      const gid = ids[n]
      const g = this.reducers.get(gid)!
      const costs = this.rowCosts?.get(gid)
      for (let i = w.first(n); i >= 0; i = w.next(i)) {
        const offset = w.offset(i)
        let record
        try {
          record = w.decode(i)
        } catch (e) {
          if (!(e instanceof RecordDecodeError)) throw e
          this.decodeErrors++
          continue
        }
        const lr = {offset, timestamp: w.timestamp(i), batchBaseOffset: w.batchBaseOffset(i), record}
        // (only the record types the fold reads: target assignments of members are a third of a group's records)
        if (costs && (record.type === GROUP_METADATA || modernRole(record.type))) costs.push(lr)
        if (this.trackFrom !== undefined && offset >= this.trackFrom) this.#track(gid, g, lr)
        g.push(lr)
      }
      // its last write is complete: the window ends at a batch boundary
      g.endWrite()
    }
    w.clear()
  }

  /** watch: a record at or after trackFrom, also replayed in full (and its cost, with `costs`). */
  #track(gid: string, g: GroupReducer, lr: LoggedRecord): void {
    let t = this.tracked.get(gid)
    // seeded with the group as it stood before its first new record (data() applies the earlier writes:
    // trackFrom is a batch boundary, so they are complete)
    if (!t) this.tracked.set(gid, (t = new GroupReplay(gid, {initialState: cloneState(g.data().state)})))
    t.push(lr)
    if (this.withCosts) {
      let c = this.costs.get(gid)
      // from the group as it stood (its members' holdings), as the replay is seeded
      if (!c) this.costs.set(gid, (c = new CostTracker(gid))), c.seed(g.data().state)
      c.push(lr)
    }
  }

  /**
   * watch: the groups that had records at or after trackFrom, each replayed from its state just before them;
   * their timelines hold exactly the bumps of those records (with snapshots, diffs and records: causes).
   */
  newBumps(): Map<string, TrackedReplay> {
    this.#applyWindow()
    const out = new Map<string, TrackedReplay>()
    for (const [id, t] of this.tracked) {
      const costs = this.costs.get(id)
      out.set(id, costs ? {...t.finish(), costs} : t.finish())
    }
    this.tracked.clear()
    this.costs.clear()
    return out
  }

  /** Every group's summary; the scan should be dropped after this. */
  finish(): Map<string, GroupSummary> {
    this.#applyWindow()
    const out = new Map<string, GroupSummary>()
    for (const [id, g] of this.reducers) out.set(id, g.finish())
    for (const [id, s] of this.stored) out.set(id, new GroupReducer(id, this.keep, decodeStored(id, s)).finish())
    return out
  }

  /**
   * With rowCosts, what the bumps of a group cost, for its audit row: from its fold, which went on from the
   * checkpoint's for a group resumed from one (a checkpoint without it: not measured).
   */
  costOf(id: string): AuditCost | undefined {
    if (!this.rowCosts) return undefined
    const t = this.rowCosts.get(id)
    return t ? auditCost(t.figures(AUDIT_COST_WINDOW_MS)) : noCost('resumed-from-checkpoint')
  }

  /** Every group for the audit, a group without new records with its cached entry and its summary parsed on demand. */
  scanned(): ScannedGroup[] {
    this.#applyWindow()
    const out: ScannedGroup[] = []
    for (const [id, g] of this.reducers) {
      const summary = g.finish()
      out.push({id, cached: null, summary: () => summary, entry: null, cost: this.costOf(id)})
    }
    for (const [id, s] of this.stored) out.push(new StoredScanned(id, s, this.keep, this.rowCosts !== undefined))
    return out
  }
}

/** The state of a group kept as text (throws when the text is damaged). */
const decodeStored = (id: string, stored: StoredGroup): StoredData => decodeGroupData(stateText(id, stored), id)

/** A row's cost from the fold state a checkpoint kept (none, or unreadable: not measured). */
function storedCost(id: string, cost: unknown): AuditCost {
  const t = CostTracker.restore(id, cost)
  return t ? auditCost(t.figures(AUDIT_COST_WINDOW_MS)) : noCost('resumed-from-checkpoint')
}

/** A group of the checkpoint without new records: one object (no closure), its state parsed only if its summary is asked for. */
class StoredScanned implements ScannedGroup {
  entry: CachedEntry | null = null
  /** Its state parsed, once: by summary() or the cost, whichever comes first (a row recomputed needs both). */
  #data: StoredData | undefined

  constructor(
    readonly id: string,
    private readonly stored: StoredGroup,
    private readonly keep: number,
    private readonly withCost: boolean,
  ) {}

  get cached(): CachedEntry | null {
    return this.stored.row
  }

  #decoded(): StoredData {
    return (this.#data ??= decodeStored(this.id, this.stored))
  }

  summary(): GroupSummary {
    return new GroupReducer(this.id, this.keep, this.#decoded()).finish()
  }

  /** With rowCosts: its bumps' cost as the checkpoint's fold state gives it (no new records: the same as then). */
  get cost(): AuditCost | undefined {
    return this.withCost ? storedCost(this.id, this.#decoded().cost) : undefined
  }
}
