/**
 * What each epoch bump cost, from the group's records: partitions (tasks) moved and their time without an owner,
 * the time to converge, the slowest member, and what the records cannot tell.
 *
 *   LoggedRecord ─ CostTracker.push() … finish() ─▶ RebalanceCost[] ─ churnSummary(costs, windowMs) ─▶ totals
 */
export {CostTracker, rebalanceCosts, topicNamesOf, BumpSums, type CostOptions, type FinishOptions, type MemberHolding} from './tracker.js'
export {churnSummary, costTotals, clientTotals, type ChurnSummary, type CostTotals, type WindowTotals, type ClientTotals} from './totals.js'
export {classicProtocol} from './classic.js'
export {
  aggregateLanes,
  laneName,
  ownershipLanes,
  pictureRange,
  unitLabel,
  type MemberLane,
  type OwnedSpan,
  type OwnershipLanes,
  type Release,
  type SlowMark,
  type UnownedGap,
} from './lanes.js'
export {
  CANNOT_TELL,
  type RebalanceCost,
  type MovedUnit,
  type MemberRef,
  type UnitKind,
  type UnitRef,
  type Convergence,
  type PendingMember,
  type SlowestMember,
} from './types.js'
