/**
 * An incremental audit keeps, next to each group's state, the group's audit entry as the last run computed it, so
 * that a group without new records is not rebuilt and re-audited every run. An entry is reused only where the row
 * would come out the same: auditGroup(state, context) reads from the context only the live hash of the group's
 * topics (and which of them are missing), the clock (only for members reconciling: "stuck"), --stuck-after, and
 * reassignments in flight on its topics; drifting groups read the whole live metadata (the hypothesis search).
 * So a row is cached only when it is in sync (or has no hash), has no member reconciling and no reassignment, and
 * reused only when --stuck-after and the tool's version are the same, no reassignment touches its topics and the
 * live hash and missing topics of its topics are still those in the row. Anything else is recomputed from the
 * group's state. Pure.
 */
import type {AuditContext, GroupAudit} from './audit.js'
import type {GroupType} from '../replay/index.js'
import {type AuditRow, StoredRow} from './stored-row.js'

/** Bump when what auditGroup computes changes without a release (development builds share a version number). */
const ROW_FORMAT = 2

/** What cached entries depend on besides a group's state and live topics: the version that computed them, --stuck-after. */
export function rowCacheKey(version: string, stuckAfterMs: number | undefined): string {
  return `${version}/rows-${ROW_FORMAT};stuck-after=${stuckAfterMs ?? 'per-group'}`
}

/** A group's cached audit entry: deleted (counted, not listed), or its row (computed, or read back: stored-row.ts) and the type the --type filter reads. */
export type CachedEntry = {deleted: true} | {deleted?: undefined; type: GroupType | null; row: AuditRow}

/** The entry to keep for the next run, or null when the row depends on more than the group's state and its topics' hash. */
export function cacheEntry(entry: {deleted: true} | {type: GroupType | null; row: GroupAudit}): CachedEntry | null {
  if ('deleted' in entry) return entry
  const r = entry.row
  // under 4.0 rules the row depends on the topics' partition counts and ids, which the live hash check below does not see
  if (r.inSync === false || r.membersReconciling > 0 || r.reassignments.length > 0 || r.driftFromLog !== undefined || r.rules === '4.0') return null
  return entry
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(x => typeof x === 'string')

/** The live hash and missing topics of each topic list, once per audit (many groups share a list). */
const liveOf = new WeakMap<AuditContext, Map<string, {hash: string; missing: string[]}>>()

function live(ctx: AuditContext, topics: readonly string[]): {hash: string; missing: string[]} {
  let memo = liveOf.get(ctx)
  if (!memo) liveOf.set(ctx, (memo = new Map()))
  const key = JSON.stringify(topics)
  let v = memo.get(key)
  if (!v) {
    const d = ctx.hasher.groupHashDetail(topics)
    memo.set(key, (v = {hash: d.hash.toString(), missing: d.missing}))
  }
  return v
}

/** The cached entry (read from a file: untrusted) of `groupId` when it still holds under `ctx`, else undefined (recompute it). */
export function reuseEntry(entry: unknown, groupId: string, ctx: AuditContext): CachedEntry | undefined {
  if (!entry || typeof entry !== 'object') return undefined
  const e = entry as CachedEntry
  if (e.deleted === true) return e
  const r = e.row
  // the fields the decision reads: a damaged or edited entry is recomputed, not trusted (a row read back from a
  // checkpoint had its facts checked as it was read: stored-row.ts)
  if (
    r instanceof StoredRow
      ? r.group !== groupId || r.inSync === false
      : !r ||
        typeof r !== 'object' ||
        (e.type !== null && typeof e.type !== 'string') ||
        r.group !== groupId ||
        !isStrings(r.topics) ||
        !isStrings(r.missingTopics) ||
        r.inSync === false ||
        r.membersReconciling !== 0 ||
        !Array.isArray(r.reassignments) ||
        r.reassignments.length > 0 ||
        (r.liveMetadataHash !== null && typeof r.liveMetadataHash !== 'string')
  )
    return undefined
  if (ctx.reassignments.some(x => r.topics.includes(x.topic))) return undefined
  if (r.liveMetadataHash !== null) {
    const now = live(ctx, r.topics)
    if (now.hash !== r.liveMetadataHash || now.missing.length !== r.missingTopics.length || now.missing.some((t, i) => t !== r.missingTopics[i]))
      return undefined
  }
  return e
}
