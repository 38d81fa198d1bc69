/** `impact`: planned changes → which groups will bump, how often, when, with which hash. */
export * from './changes.js'
export {buildPhases, type Phase, type PhaseKind, PHASE_WHEN} from './phases.js'
export {predictImpact, type GroupImpact, type ImpactReport, type ImpactStep, type ImpactSummary, type ImpactOptions} from './predict.js'
export {re2jMatches, type RegexVerdict} from './regex.js'
export {predictDescribedImpact} from './described.js'
