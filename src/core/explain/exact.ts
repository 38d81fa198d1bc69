/**
 * Where a recorded source (the audit history, the KRaft metadata log) saw the metadata before and after a bump,
 * its cause becomes exact. One walk over the report's metadata bumps and one way to mark a cause exact for both.
 */
import {type ReplayResult, subscribedTopicsOf} from '../replay/index.js'
import type {CauseView} from './causes.js'
import type {ExplainReport} from './explain.js'

export interface MetadataBump {
  topicsBefore: string[]
  topicsAfter: string[]
  previousHash: bigint
  hash: bigint
  timestamp: number
}

/**
 * Calls `attribute` for each metadata-hash-changed cause (matched to its bump by the epoch record's offset); when
 * it returns a message, the cause becomes `exact` with that message and what the hashes alone said is kept in
 * `details.inferred`. Returns how many causes became exact.
 */
export function markExactCauses(report: ExplainReport, replay: ReplayResult, attribute: (bump: MetadataBump, cause: CauseView) => string | undefined): number {
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
        previousHash: e.previousMetadataHash,
        hash: e.metadataHash,
        timestamp: e.timestamp,
      }
      const message = attribute(bump, cause)
      if (message === undefined) continue
      cause.details.inferred = {message: cause.message, confidence: cause.confidence, alternatives: cause.alternatives}
      delete cause.details.nextStep
      cause.confidence = 'exact'
      cause.alternatives = []
      cause.message = message
      n++
    }
  }
  return n
}
