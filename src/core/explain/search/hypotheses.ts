/**
 * Which change to today's cluster metadata reproduces a metadata hash the coordinator stored earlier?
 * `__consumer_offsets` keeps only the group hash, not its inputs, so we test hypotheses: "topic X had N
 * partitions", "topic Y did not exist", "topic Z had another id", "broker B had rack R / was not registered",
 * "partition P of topic T had its replicas on other racks (a reassignment, or its temporary wider list)", and,
 * when no single change fits, one topic change together with one broker change.
 *
 * A hash only sees each partition's rack list, so different changes can hash alike: a broker's rack and a
 * replica move that give the same rack lists are indistinguishable. Every broker hypothesis that matches is
 * therefore checked against the equivalent replica placement (`alternatives`), and callers say how a cause is
 * known (`Confidence`) instead of stating the first match as fact.
 *
 * Hashing is cheap: one topic hash per candidate, and the group hash is re-hashed from a pre-sorted buffer with
 * one 8-byte slot patched, so tens of thousands of candidates over a thousand topics cost well under a second.
 */
import {cachedGroupHash} from './hash-patcher.js'
import type {Confidence, HypothesisResult, HypothesisSearch} from './hypothesis-types.js'
import {applyHypothesis, isBrokerChange, placementEquivalent, placementKey} from './placements.js'
import {SearchState} from './state.js'
import {runStages} from './stages.js'

export * from './hypothesis-types.js'
export {applyHypothesis, cachedGroupHash, isBrokerChange, placementEquivalent}

/**
 * The changes that reproduce `s.target` from today's metadata: candidates from one generator per kind of change
 * (topic-candidates.ts, broker-candidates.ts, combined.ts), tried in the order of SEARCH_STAGES (stages.ts) within
 * the budget (budget.ts).
 */
export function searchHypotheses(s: HypothesisSearch): HypothesisResult {
  const st = new SearchState(s)
  if (st.unchanged) return st.result()
  runStages(st)
  addPlacementAlternatives(st)
  return st.result()
}

/** A broker change hashes like the replica placement that gives the same rack lists: that placement is an alternative. */
function addPlacementAlternatives(st: SearchState): void {
  const seen = new Set(st.matches.filter(m => m.kind === 'replica-placement').map(placementKey))
  for (const m of st.matches) {
    if (!isBrokerChange(m)) continue
    const alt = placementEquivalent(applyHypothesis(st.s.metadata, m), st.s.metadata, st.existing)
    if (alt && !seen.has(placementKey(alt))) {
      seen.add(placementKey(alt))
      st.alternatives.push(alt)
    }
  }
}

/**
 * The confidence of an attribution from a search (not from history): unique when one change explains it,
 * ambiguous when several do (the first match is listed first, the rest are alternatives).
 */
export function confidenceOf(r: Pick<HypothesisResult, 'matches' | 'alternatives'>): Confidence {
  const n = r.matches.length + r.alternatives.length
  return n === 0 ? 'unexplained' : n === 1 ? 'inferred-unique' : 'inferred-ambiguous'
}

/** How to make an inferred-ambiguous or unexplained metadata cause exact. */
export const PIN_DOWN_STEP =
  'to answer it: record history with `audit` at an interval shorter than the time between metadata changes (e.g. every 5 minutes from cron), or give a copy of the metadata log (`--metadata-log`; `rebalance-doctor cluster metadata-log` says where each broker keeps it)'

/** An inferred cause in words that say it is inferred: "consistent with X" or "consistent with any of: X; or Y". */
export function consistentWith(r: Pick<HypothesisResult, 'matches' | 'alternatives'>): string {
  const all = [...r.matches, ...r.alternatives].map(m => m.description)
  if (all.length === 0) return 'no change tried reproduces the stored hash'
  if (all.length === 1) return `consistent with: ${all[0]} (inferred from the stored hashes; no other change tried reproduces them)`
  return `consistent with any of: ${all.join('; or ')} (inferred from the stored hashes, which these changes produce alike)`
}
