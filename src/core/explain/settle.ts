/**
 * Settle: one decision per cause from all the evidence about it, with the precedence written here. The records'
 * own cause is the start; the hash search's inference refines a metadata change; an exact source replaces both,
 * the metadata log before the audit history (it is read from the cluster itself, at every change, not only at
 * audit times). What an exact cause said before stays under `details.inferred`, so every other field of an exact
 * cause is what the winning source saw. Pure: new cause objects, the inputs untouched.
 */
import type {CauseView} from './report/causes.js'
import {type CauseEvidence, EVIDENCE_SOURCES, type EvidenceSource, evidenceKey} from './evidence/types.js'
import {consistentWith, PIN_DOWN_STEP} from './search/hypotheses.js'
import type {TimelineEntry} from './report/report.js'

/** Higher first: the first source with exact evidence decides the cause. */
export const PRECEDENCE: readonly EvidenceSource[] = EVIDENCE_SOURCES

export interface Settled {
  timeline: TimelineEntry[]
  /** Causes each source decided exactly. */
  exactBy: Record<EvidenceSource, number>
}

export function settle(entries: readonly TimelineEntry[], evidence: readonly CauseEvidence[]): Settled {
  const byCause = new Map<string, CauseEvidence[]>()
  for (const e of evidence) {
    const k = evidenceKey(e.offset, e.kind)
    byCause.set(k, [...(byCause.get(k) ?? []), e])
  }
  const exactBy = Object.fromEntries(EVIDENCE_SOURCES.map(s => [s, 0])) as Record<EvidenceSource, number>
  const timeline = entries.map(entry => ({
    ...entry,
    causes: entry.causes.map(cause => {
      const found = byCause.get(evidenceKey(entry.offset, cause.kind)) ?? []
      const settled = settleCause(cause, found)
      if (settled.by) exactBy[settled.by]++
      return settled.cause
    }),
  }))
  return {timeline, exactBy}
}

function settleCause(records: CauseView, evidence: readonly CauseEvidence[]): {cause: CauseView; by?: EvidenceSource} {
  const inference = evidence.find(e => e.source === 'hash-search')?.inferred
  let cause = records.kind === 'metadata-hash-changed' ? withInference(records, inference) : copy(records)
  // every source's notes stay in the details, the lower ranked first
  for (const source of [...PRECEDENCE].reverse())
    for (const e of evidence) if (e.source === source) cause.details = {...cause.details, ...e.annotations} as CauseView['details']
  const winner = PRECEDENCE.map(s => evidence.find(e => e.source === s && e.exact)).find(e => e !== undefined)
  if (!winner?.exact) return {cause}
  cause = promote(cause, winner.exact)
  if (winner.source === 'metadata-log') cause.details.source = 'metadata-log'
  return {cause, by: winner.source}
}

const copy = (c: CauseView): CauseView => ({...c, alternatives: [...c.alternatives], details: {...c.details}}) as CauseView

/** A metadata change as the hash search left it: the changes that reproduce the stored hash, or why none does. */
function withInference(c: CauseView, a: CauseEvidence['inferred']): CauseView {
  const view = copy(c)
  const d = view.details
  if (a) {
    d.changes = a.matches
    view.confidence = a.confidence
    view.alternatives = a.alternatives
    if (a.evident) d.evident = a.evident
    view.message =
      a.confidence === 'evident'
        ? `metadata changed: ${a.note}`
        : a.matches.length > 0
          ? `metadata changed, ${consistentWith(a)}`
          : `${view.message}; ${a.note}`
  }
  if (view.confidence === 'inferred-ambiguous' || view.confidence === 'unexplained') {
    d.nextStep = PIN_DOWN_STEP
    view.message += `; ${PIN_DOWN_STEP}`
  }
  return view
}

/** The one place a cause becomes exact: the source's words and changes; what was said before kept as `inferred`. */
function promote(c: CauseView, exact: NonNullable<CauseEvidence['exact']>): CauseView {
  const d = {...c.details}
  if (c.confidence !== 'exact') {
    d.inferred = {
      message: c.message,
      confidence: c.confidence,
      alternatives: c.alternatives,
      ...(d.changes ? {changes: d.changes} : {}),
      ...(d.evident ? {evident: d.evident} : {}),
    }
  }
  delete d.nextStep
  delete d.evident
  if (exact.changes) d.changes = exact.changes
  return {...c, confidence: 'exact', alternatives: [], message: exact.message, details: d} as CauseView
}
