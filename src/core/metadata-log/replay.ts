/**
 * Replays metadata record batches into a MetadataImage: control batches (snapshot header/footer, leader
 * change, KRaft voters) are skipped, metadata transactions (Begin/End/AbortTransactionRecord) are applied at
 * their end or dropped, other record types are counted by name. A malformed record in the log is reported and
 * ends the replay there (`damage`): the state after it is not known exactly; in a snapshot, it is counted. Collects the changes a group hash can see and, for tracked topics, the sequence of distinct
 * topic hashes over time. Pure: the batches come from a source (src/sources/metadata-log.ts).
 */
import {computeTopicHash, RackTable} from '../hash.js'
import type {LogBatch} from '../log/batch.js'
import {RecordDecodeError} from '../records/errors.js'
import {decodeMetadataRecord} from './codec.js'
import {MetadataImage, type MetadataChange} from './image.js'

const BEGIN_TRANSACTION = 23
const END_TRANSACTION = 24
const ABORT_TRANSACTION = 25

export interface TopicHashPoint {
  /** First offset and time at which the topic had this hash; 0n hash = the topic did not exist. */
  readonly offset: bigint
  readonly timestamp: number
  readonly hash: bigint
  readonly topicId?: string
  readonly partitions: number
  /** The hash held at the start of the replayed history (a snapshot): it may be older than `timestamp`. */
  readonly atHistoryStart?: boolean
}

export interface ReplayStats {
  records: number
  batches: number
  controlBatches: number
  skippedByType: Record<string, number>
  decodeErrors: Array<{offset: string; message: string}>
  abortedTransactionRecords: number
}

export interface ReplayOptions {
  /** Stop before the first batch past this offset / time (inclusive bounds). */
  untilOffset?: bigint
  untilTime?: number
  /** Topics whose distinct hashes to track over time ('all' for every topic). */
  trackTopics?: ReadonlySet<string> | 'all'
  /** Keep changes (default true). */
  keepChanges?: boolean
}

interface Pending {
  name: string
  data: import('../records/codec.js').StructValue
  offset: bigint
  timestamp: number
}

export class MetadataReplay {
  readonly image = new MetadataImage()
  readonly changes: MetadataChange[] = []
  readonly hashes = new Map<string, TopicHashPoint[]>()
  readonly stats: ReplayStats = {records: 0, batches: 0, controlBatches: 0, skippedByType: {}, decodeErrors: [], abortedTransactionRecords: 0}
  /** The last offset and time applied. */
  lastOffset: bigint | undefined
  lastTimestamp: number | undefined
  firstTimestamp: number | undefined
  /** Set once a batch past the `until` bound was seen. */
  done = false
  /** The first malformed record of the log: nothing from it on is applied (lastOffset stays before it). */
  damage: {offset: bigint; message: string} | undefined
  private inSnapshot = false
  private transaction: Pending[] | undefined
  private dirty = new Set<string>()
  private racksDirty = true
  private racks: RackTable | undefined

  constructor(private readonly opts: ReplayOptions = {}) {}

  /** Starts over from a snapshot: the image is rebuilt from its records, with no changes reported for them. */
  loadSnapshot(batches: Iterable<LogBatch>, endOffset: bigint, timestamp: number): void {
    this.image.clear()
    this.inSnapshot = true
    for (const b of batches) {
      if (b.isControl) continue
      for (const r of b.records) {
        const d = this.decode(r.value, r.offset)
        if (d) this.image.apply(d.name, d.data, r.offset, Number(r.timestamp))
      }
    }
    this.inSnapshot = false
    for (const t of this.image.topicsByName.keys()) this.dirty.add(t)
    this.racksDirty = true
    this.lastOffset = endOffset - 1n
    this.lastTimestamp = timestamp
    this.firstTimestamp ??= timestamp
    this.track(true)
  }

  /** Applies one batch of the log; returns false (and applies nothing) once past the `until` bound or after damage. */
  applyBatch(b: LogBatch): boolean {
    if (this.done || this.damage) return false
    const ts = b.records.length > 0 ? Number(b.records[0].timestamp) : undefined
    if (
      (this.opts.untilOffset !== undefined && b.baseOffset > this.opts.untilOffset) ||
      (this.opts.untilTime !== undefined && ts !== undefined && ts > this.opts.untilTime)
    ) {
      this.done = true
      return false
    }
    this.stats.batches++
    if (b.isControl) {
      this.stats.controlBatches++
      return true
    }
    for (const r of b.records) {
      if (this.opts.untilOffset !== undefined && r.offset > this.opts.untilOffset) break
      const d = this.decode(r.value, r.offset)
      if (this.damage) break
      const timestamp = Number(r.timestamp)
      this.firstTimestamp ??= timestamp
      this.lastOffset = r.offset
      this.lastTimestamp = timestamp
      if (!d) continue
      if (this.transaction) {
        if (d.name === 'EndTransaction') {
          for (const p of this.transaction) this.applyOne(p)
          this.transaction = undefined
        } else if (d.name === 'AbortTransaction') {
          this.stats.abortedTransactionRecords += this.transaction.length
          this.transaction = undefined
        } else if (d.known) {
          this.transaction.push({name: d.name, data: d.data, offset: r.offset, timestamp})
        }
        continue
      }
      if (d.name === 'BeginTransaction') this.transaction = []
      else if (d.known) this.applyOne({name: d.name, data: d.data, offset: r.offset, timestamp})
    }
    this.track()
    return !this.damage
  }

  private decode(value: Uint8Array | null, offset: bigint): {name: string; data: import('../records/codec.js').StructValue; known: boolean} | undefined {
    if (!value) return undefined
    this.stats.records++
    try {
      const rec = decodeMetadataRecord(value, offset)
      if (rec.kind === 'record') return {name: rec.name, data: rec.data, known: true}
      const key = rec.reason === 'unknown-version' ? `${rec.name} v${rec.version}` : rec.name
      this.stats.skippedByType[key] = (this.stats.skippedByType[key] ?? 0) + 1
      if (rec.type === BEGIN_TRANSACTION) return {name: 'BeginTransaction', data: {}, known: false}
      if (rec.type === END_TRANSACTION) return {name: 'EndTransaction', data: {}, known: false}
      if (rec.type === ABORT_TRANSACTION) return {name: 'AbortTransaction', data: {}, known: false}
      return undefined
    } catch (e) {
      if (!(e instanceof RecordDecodeError)) throw e
      if (this.stats.decodeErrors.length < 100) this.stats.decodeErrors.push({offset: offset.toString(), message: e.message})
      if (!this.inSnapshot) this.damage ??= {offset, message: e.message}
      return undefined
    }
  }

  private applyOne(p: Pending): void {
    const changes = this.image.apply(p.name, p.data, p.offset, p.timestamp)
    for (const c of changes) {
      if (this.opts.keepChanges !== false) this.changes.push(c)
      if (c.topic !== undefined) this.dirty.add(c.topic)
      if (c.broker !== undefined && c.movesHash) this.racksDirty = true
    }
  }

  /** After each batch: the new hash of every tracked topic that may have changed. */
  private track(atStart = false): void {
    const track = this.opts.trackTopics
    if (!track || (this.dirty.size === 0 && !this.racksDirty)) return
    if (this.racksDirty) {
      this.racks = new RackTable(this.image.toClusterMetadata({includeInternal: true}).brokers)
      const names = track === 'all' ? [...this.image.topicsByName.keys(), ...this.hashes.keys()] : track
      for (const n of names) this.dirty.add(n)
      this.racksDirty = false
    }
    for (const name of this.dirty) {
      if (track !== 'all' && !track.has(name)) continue
      const t = this.image.topicsByName.get(name)
      const hash = t ? computeTopicHash(this.image.topicMetadata(t), this.racks!) : 0n
      let seq = this.hashes.get(name)
      if (!seq) this.hashes.set(name, (seq = []))
      const last = seq[seq.length - 1]
      if (last && last.hash === hash) continue
      if (!last && hash === 0n) continue
      seq.push({
        offset: this.lastOffset ?? 0n,
        timestamp: this.lastTimestamp ?? 0,
        hash,
        ...(atStart ? {atHistoryStart: true} : {}),
        ...(t ? {topicId: t.id} : {}),
        partitions: t?.partitions.length ?? 0,
      })
    }
    this.dirty.clear()
  }
}
