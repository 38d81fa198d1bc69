/** A metadata bump as the recorded sources test it: the topic sets and the stored hashes on both sides. Pure. */
import {metadataHashBefore, subscribedTopicsOf} from '../../replay/index.js'
import {type BumpInput, hasCause} from './types.js'

export interface MetadataBump {
  topicsBefore: string[]
  topicsAfter: string[]
  previousHash: bigint
  hash: bigint
  timestamp: number
}

/** The bump's hashes and topic sets, when it has a metadata-hash-changed cause and both hashes are stored. */
export function metadataBump(b: BumpInput): MetadataBump | undefined {
  const e = b.change
  if (e.groupType === 'classic' || e.metadataHash === undefined || e.previousMetadataHash === undefined) return undefined
  if (!hasCause(b, 'metadata-hash-changed')) return undefined
  return {
    topicsBefore: subscribedTopicsOf(e.groupType, e.before),
    topicsAfter: subscribedTopicsOf(e.groupType, e.after),
    previousHash: metadataHashBefore(e)!,
    hash: e.metadataHash,
    timestamp: e.timestamp,
  }
}

/** Each classic bump with the time of the classic bump before it (null for the first). */
export function classicBumps(bumps: readonly BumpInput[]): Array<{bump: BumpInput; since: number | null}> {
  const classic = bumps.filter(b => b.change.groupType === 'classic')
  return classic.map((bump, i) => ({bump, since: i > 0 ? classic[i - 1].change.timestamp : null}))
}
