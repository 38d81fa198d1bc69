/**
 * The KRaft metadata log's evidence for each metadata bump: the combination of the log's topic hashes that gives
 * the stored hash before and after it, and the log's changes between them (core/metadata-log/attribute.ts);
 * classic leader rejoins from the changes between two generations (metadata-log-classic.ts).
 */
import {attributeFromLog, type MetadataLogView} from '../../metadata-log/attribute.js'
import {metadataBump} from './bump.js'
import {exactChangesFromLog} from './exact-changes.js'
import {classicLogEvidence} from './metadata-log-classic.js'
import type {BumpInput, CauseEvidence} from './types.js'

export function metadataLogEvidence(bumps: readonly BumpInput[], view: MetadataLogView): CauseEvidence[] {
  const out = classicLogEvidence(bumps, view)
  for (const b of bumps) {
    const bump = metadataBump(b)
    if (!bump) continue
    const a = attributeFromLog(view, bump)
    out.push({
      offset: b.change.offset.toString(),
      kind: 'metadata-hash-changed',
      source: 'metadata-log',
      annotations: {metadataLog: a},
      ...(a.exact ? {exact: {message: a.message, changes: exactChangesFromLog(a.changes ?? [])}} : {}),
    })
  }
  return out
}
