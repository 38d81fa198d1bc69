/**
 * Evidence: what one source knows of one cause of one bump. Each source (the hash search, the audit history, the
 * KRaft metadata log) is a pure function from the bumps to evidence; settle.ts decides each cause from all of it.
 */
import type {Attribution} from './hash-search.js'
import type {CauseAnnotations, CauseView} from '../report/causes.js'
import type {ExactChange} from './exact-changes.js'
import type {EpochChange} from '../../replay/index.js'

/** Every source, in the order settle.ts ranks them (first wins). */
// describes: two polls of a describe-only watch (describes.ts); they never meet the records in one explanation
export const EVIDENCE_SOURCES = ['metadata-log', 'history', 'describes', 'records', 'hash-search'] as const
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number]

/** The causes a source other than the records can speak of: the records show that something changed, not what. */
export type AttributableKind = 'metadata-hash-changed' | 'classic-metadata-rejoin'

export interface CauseEvidence {
  /** The bump: the offset of its epoch record (decimal). */
  offset: string
  kind: AttributableKind
  source: EvidenceSource
  /** What the source adds to the cause's details whether it settles the cause or not. */
  annotations: Pick<CauseAnnotations, 'history' | 'classicHistory' | 'metadataLog'>
  /** The source saw the change: what the cause then says (every field describes what this source saw). */
  exact?: {message: string; changes?: ExactChange[]}
  /** The hash search: what the stored hashes alone suggest, while nothing exact is known. */
  inferred?: Attribution
}

/** A bump as the evidence functions see it: the replayed epoch change and the causes its records show. */
export interface BumpInput {
  change: EpochChange
  causes: readonly CauseView[]
}

export const hasCause = (b: BumpInput, kind: AttributableKind): boolean => b.causes.some(c => c.kind === kind)

/** The key settle.ts matches evidence to a cause with. */
export const evidenceKey = (offset: string, kind: string): string => `${offset}:${kind}`
