/**
 * What a hypothesis search may spend and what it spent. Three limits: single-change candidates (one group hash each;
 * a replica placement is one too, so it counts in both), replica placements, and pairs of changes. A search that
 * stops at a limit says so (`truncated`) rather than answer as if it had tried everything. Pure.
 */
import type {HypothesisSearch} from './hypothesis-types.js'

export interface SearchLimits {
  candidates: number
  pairs: number
  placements: number
}

/** The defaults of `HypothesisSearch.maxCandidates`, `maxPairs` and `maxPlacements`. */
export const DEFAULT_LIMITS: Readonly<SearchLimits> = {candidates: 100_000, pairs: 20_000, placements: 40_000}

export class SearchBudget {
  tried = 0
  pairsTried = 0
  placementsTried = 0
  truncated = false

  constructor(readonly limits: Readonly<SearchLimits>) {}

  static of(s: Pick<HypothesisSearch, 'maxCandidates' | 'maxPairs' | 'maxPlacements'>): SearchBudget {
    return new SearchBudget({
      candidates: s.maxCandidates ?? DEFAULT_LIMITS.candidates,
      pairs: s.maxPairs ?? DEFAULT_LIMITS.pairs,
      placements: s.maxPlacements ?? DEFAULT_LIMITS.placements,
    })
  }

  /** Takes one single-change candidate; false, and the search truncated, when they are spent. */
  candidate(): boolean {
    if (this.tried >= this.limits.candidates) return this.spent()
    this.tried++
    return true
  }

  /** Takes one replica placement (its hash then takes a candidate too); false, and truncated, when they are spent. */
  placement(): boolean {
    if (this.placementsTried >= this.limits.placements) return this.spent()
    this.placementsTried++
    return true
  }

  /** Takes one pair of changes; false, and truncated, when they are spent. */
  pair(): boolean {
    if (this.pairsTried >= this.limits.pairs) return this.spent()
    this.pairsTried++
    return true
  }

  /**
   * Takes a candidate for one of the group-wide tests that close the search (one hash each) when one is left; none
   * left skips the test without marking the search truncated.
   */
  closing(): boolean {
    if (this.tried >= this.limits.candidates) return false
    this.tried++
    return true
  }

  /** Pairs are searched at all (a pair limit of 0 turns them off without truncating the search). */
  get pairsAllowed(): boolean {
    return this.limits.pairs > 0
  }

  private spent(): false {
    this.truncated = true
    return false
  }
}
