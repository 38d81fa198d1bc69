/**
 * Sums over bumps as the audit reports them (costTotals' figures, without building each bump's cost), and the bumps
 * a fold no longer keeps whole: once a bump can change no more (it ended and no partition it moved is still without
 * an owner), only its sums are needed, in the total and, while it may fall in the window, one tuple of its own.
 */
import type {Convergence} from './types.js'

export class BumpSums {
  bumps = 0
  partitionsMoved = 0
  unownedPartitionMs = 0
  notConverged = 0
  maxConvergeMs: number | null = null

  add(moved: number, unownedMs: number, status: Convergence['status'], afterMs: number): void {
    this.bumps++
    this.partitionsMoved += moved
    this.unownedPartitionMs += unownedMs
    if (status === 'not-converged') this.notConverged++
    else if (status === 'converged') this.maxConvergeMs = Math.max(this.maxConvergeMs ?? 0, afterMs)
  }

  merge(o: SumsData): void {
    this.bumps += o.bumps
    this.partitionsMoved += o.partitionsMoved
    this.unownedPartitionMs += o.unownedPartitionMs
    this.notConverged += o.notConverged
    if (o.maxConvergeMs !== null) this.maxConvergeMs = Math.max(this.maxConvergeMs ?? 0, o.maxConvergeMs)
  }
}

export type SumsData = Pick<BumpSums, 'bumps' | 'partitionsMoved' | 'unownedPartitionMs' | 'notConverged' | 'maxConvergeMs'>

/** One bump in brief: [atMs, partitions moved, unowned partition-ms, status, afterMs]. */
export type BumpTuple = [number, number, number, Convergence['status'], number]

/** Bumps kept as sums only (see the file's comment). */
export class DoneBumps {
  readonly total = new BumpSums()
  /** The bumps that may still fall in a window of `windowMs` before a later bump, in log order. */
  recent: BumpTuple[] = []
  /** The latest time of a bump dropped from `recent`: a window reaching back to it would miss it. */
  droppedMs = Number.NEGATIVE_INFINITY

  add(t: BumpTuple): void {
    this.total.add(t[1], t[2], t[3], t[4])
    this.recent.push(t)
  }

  /** Drops from `recent` the bumps written more than `windowMs` before `lastMs` (the last bump's time). */
  trim(lastMs: number, windowMs: number): void {
    const from = lastMs - windowMs
    const kept = this.recent.filter(t => t[0] >= from)
    for (const t of this.recent) if (t[0] < from) this.droppedMs = Math.max(this.droppedMs, t[0])
    this.recent = kept
  }

  /** Adds these bumps to `total`, and to `window` those written at `fromMs` or later (false: one dropped might be). */
  addTo(total: BumpSums, window: BumpSums, fromMs: number): boolean {
    total.merge(this.total)
    for (const t of this.recent) if (t[0] >= fromMs) window.add(t[1], t[2], t[3], t[4])
    return this.droppedMs < fromMs
  }

  save(): DoneState {
    return {total: {...this.total}, recent: this.recent, droppedMs: Number.isFinite(this.droppedMs) ? this.droppedMs : null}
  }

  static restore(s: DoneState): DoneBumps {
    const d = new DoneBumps()
    d.total.merge(s.total)
    if (!Array.isArray(s.recent) || !s.recent.every(t => Array.isArray(t) && t.length === 5)) throw new Error('recent bumps of the wrong shape')
    d.recent = s.recent
    d.droppedMs = s.droppedMs ?? Number.NEGATIVE_INFINITY
    return d
  }
}

export interface DoneState {
  readonly total: SumsData
  readonly recent: BumpTuple[]
  readonly droppedMs: number | null
}
