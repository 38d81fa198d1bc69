/**
 * Where a recorded source (the audit history, the KRaft metadata log) saw the metadata before and after a bump,
 * its cause becomes exact. One walk over the report's metadata bumps and one way to mark a cause exact for both.
 */
import {metadataHashBefore, type ReplayResult, subscribedTopicsOf} from '../replay/index.js'
import type {CauseView} from './causes.js'
import type {ExactChange} from './exact-changes.js'
import type {ExplainReport} from './explain.js'

export interface MetadataBump {
  topicsBefore: string[]
  topicsAfter: string[]
  previousHash: bigint
  hash: bigint
  timestamp: number
}

/** What a source knows exactly of a bump: its sentence, and the changes it saw (details.changes from then on). */
export interface ExactAttribution {
  message: string
  changes: ExactChange[]
}

/**
 * Calls `attribute` for each metadata-hash-changed cause (matched to its bump by the epoch record's offset); when
 * it answers, the cause becomes `exact`: its message and `details.changes` are the source's, and what the hashes
 * alone said (message, confidence, alternatives, changes, evident) is kept only in `details.inferred` (a second
 * source, e.g. the metadata log after the history, replaces the changes but keeps the first inference). Returns
 * how many causes became exact.
 */
export function markExactCauses(
  report: ExplainReport,
  replay: ReplayResult,
  attribute: (bump: MetadataBump, cause: CauseView) => ExactAttribution | undefined,
): number {
  const byOffset = new Map(replay.timeline.map(e => [e.offset.toString(), e]))
  let n = 0
  for (const entry of report.timeline) {
    const e = byOffset.get(entry.offset)
    if (!e || e.groupType === 'classic' || e.metadataHash === undefined || e.previousMetadataHash === undefined) continue
    for (const cause of entry.causes) {
      if (cause.kind !== 'metadata-hash-changed') continue
      const bump = {
        topicsBefore: subscribedTopicsOf(e.groupType, e.before),
        topicsAfter: subscribedTopicsOf(e.groupType, e.after),
        previousHash: metadataHashBefore(e)!,
        hash: e.metadataHash,
        timestamp: e.timestamp,
      }
      const exact = attribute(bump, cause)
      if (exact === undefined) continue
      const d = cause.details
      if (cause.confidence !== 'exact') {
        d.inferred = {
          message: cause.message,
          confidence: cause.confidence,
          alternatives: cause.alternatives,
          ...(d.changes ? {changes: d.changes} : {}),
          ...(d.evident ? {evident: d.evident} : {}),
        }
      }
      delete d.nextStep
      delete d.evident
      d.changes = exact.changes
      cause.confidence = 'exact'
      cause.alternatives = []
      cause.message = exact.message
      n++
    }
  }
  return n
}
