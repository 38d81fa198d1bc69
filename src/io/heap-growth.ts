/**
 * How far V8 lets the old space grow past the live heap before a full GC. A long read (audit over every
 * `__consumer_offsets` partition) keeps a live set of ~1 KB per group (its audit row) and replaces each group's
 * decoded state at every write it reads; with V8's default growing factor (up to 4x after each full GC, at a
 * high allocation rate) the heap of 100,000 groups reached ~450 MB for ~100 MB live (peak RSS 531 MB).
 * `--heap-growing-percent` fixes the factor instead; V8 reads it at every full GC, so setting it at run time
 * works (no re-exec, no heap cap: a larger cluster still gets the heap it needs, in more frequent GCs). The audit
 * sets it when it starts reading a partition in full: a short incremental run (live set ~20 MB) paid ~30 ms of
 * extra full GCs for it.
 */
import {setFlagsFromString} from 'node:v8'

/** Old-space growth after a full GC, in percent of the live heap (V8's own factor ranges 10-300 %). */
export const AUDIT_HEAP_GROWING_PERCENT = 50

let current: number | undefined

/** Sets the growth (once per value: the audit calls it for every partition it reads in full). */
export function limitHeapGrowth(percent = AUDIT_HEAP_GROWING_PERCENT): void {
  if (current === percent) return
  current = percent
  setFlagsFromString(`--heap-growing-percent=${percent}`)
}
