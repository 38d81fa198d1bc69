/**
 * `audit`: every group of the cluster in one pass. Pure: replayed groups and one live metadata snapshot in,
 * one row per group and a summary out. Topic hashes are computed once per topic (a shared TopicHasher); only
 * groups whose stored hash differs from the live one go through explain's hypothesis search (which has to
 * re-hash candidates anyway). The row is made from explain's own parts: the group's facts (facts.ts) and the
 * verdict for now (verdict.ts); past bumps are not explained here (the watch explains new ones).
 */
import type {GroupRefusal} from '../errors.js'
import type {Reading, StuckAfter, Verdict} from '../explain/explain.js'
import {groupFacts} from '../explain/report/facts.js'
import {judge} from '../explain/report/verdict.js'
import type {Hypothesis, HypothesisResult, ReassignmentInFlight} from '../explain/search/hypotheses.js'
import {TopicHasher} from '../hash.js'
import type {ClusterMetadata} from '../metadata.js'
import type {GroupRules, GroupSummary, GroupType, ReplayResult} from '../replay/index.js'
import type {LogAttribution} from '../metadata-log/attribute.js'
import type {MigrationReadiness} from '../explain/report/migration.js'
import {migrationReadiness} from '../explain/report/migration.js'
import type {GroupLag} from './lag.js'
import {StoredRow} from './stored-row.js'
import {type AuditCost, noCost} from './cost.js'

/** What can make `audit` exit 3 (`--fail-on`). */
export const FINDING_KINDS = ['drift', 'pending', 'stuck', 'missing-topics', 'unknown-records', 'reassignment'] as const
export type FindingKind = (typeof FINDING_KINDS)[number]
/** Kinds that need the records: a describe-only audit (described.ts) never has them, --fail-on on them cannot fire. */
export const RECORDS_ONLY_FINDINGS: readonly FindingKind[] = ['drift', 'stuck', 'unknown-records', 'reassignment']

export interface GroupAudit {
  group: string
  type: GroupType | null
  /** explain's verdict code (IN_SYNC, REBALANCE_PENDING, STALE_COORDINATOR_CACHE, HASH_DIFFERS, ASSIGNMENT_PENDING, HASH_ZEROED_BY_FENCE, RECONCILING, EMPTY_GROUP, CLASSIC_GROUP, GROUP_DELETED, NOT_FOUND). */
  verdict: Verdict
  groupEpoch: number | null
  assignmentEpoch: number | null
  /** 64-bit hashes as decimal strings; null for classic or deleted groups, and under Kafka 4.0's rules (no hash kept). */
  storedMetadataHash: string | null
  liveMetadataHash: string | null
  /** Whose rules wrote the group's records: `4.0` (subscription metadata, compared field by field) or `4.1+` (hash). */
  rules?: GroupRules | null
  /** null when there is no hash to compare (classic, deleted). */
  inSync: boolean | null
  /** The topic/broker change(s) that reproduce the stored hash from live metadata, when stored ≠ live; under 4.0
   * rules, the exact differences between the stored subscription metadata and live metadata. */
  drift: Array<Pick<Hypothesis, 'kind' | 'then' | 'now' | 'description'> & {topic: string | null; broker: number | null}>
  topics: string[]
  missingTopics: string[]
  members: number
  membersReconciling: number
  /** Members reconciling longer than stuckAfter. */
  /** With the client, its host, the members it waits on and those waiting on it (the one blocking the rest). */
  stuckMembers: StuckMember[]
  /** The stuck threshold of this group and where it came from (the flag, its members' rebalance timeout, the default). */
  stuckAfter: StuckAfter
  assignmentPending: boolean
  unknownRecords: number
  /** REASSIGNMENT_IN_FLIGHT: subscribed topics with partitions under reassignment (finding kind `reassignment`). */
  reassignments: Array<{
    topic: string
    partitions: Array<{partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[]}>
    bumpOnCompletion: boolean
  }>
  /** Time of the last group epoch record (ISO-8601), when seen. */
  lastEpochTime: string | null
  /** The kinds of finding this group has (FINDING_KINDS order). */
  findings: FindingKind[]
  /** With --metadata-log, when stored ≠ live: the log's changes since the stored hash (exact), or why not. */
  driftFromLog?: LogAttribution
  /**
   * Streams: the stored hash is the 0 a Kafka 4.1 coordinator writes when it fences a member (4.1.0–4.1.2): the
   * fence's epoch and the hash stored before it, which live metadata is compared with (drift only if they differ).
   */
  hashZeroedByFence?: {fenceEpoch: number; hashBefore: string; sameAsLive: boolean}
  /** Classic groups: the road to KIP-848 (explain/migration.ts; the metadata hash over today's metadata). */
  migration?: MigrationReadiness
  /** The group's lag at the time of the audit (lag.ts; its last field): null for share groups, with --no-lag, or when
   * it could not be read (a warning says why). Absent only from rows before output. */
  lag?: GroupLag | null
  /** Read describe-only (described.ts): the refusal or the flag, and the grant that gives what the records would. */
  reading?: Reading
  /** What its rebalances cost (cost.ts): the last bump's, the hour before it, every bump read; or null and why. */
  cost: AuditCost
}

/**
 * What the audit reads of every row besides --json (the summary, the history, the Prometheus series, the table's
 * filter, the reuse of cached rows): all a row read back from a checkpoint has without being parsed (stored-row.ts).
 */
export type RowFacts = Pick<
  GroupAudit,
  | 'group'
  | 'type'
  | 'groupEpoch'
  | 'assignmentEpoch'
  | 'storedMetadataHash'
  | 'liveMetadataHash'
  | 'inSync'
  | 'topics'
  | 'missingTopics'
  | 'members'
  | 'membersReconciling'
  | 'assignmentPending'
  | 'unknownRecords'
  | 'findings'
> & {
  readonly verdict: {readonly code: string}
  readonly stuckMembers: readonly unknown[]
  readonly reassignments: readonly unknown[]
  readonly lag?: GroupLag | null
  readonly reading?: Reading
}

export interface StuckMember {
  memberId: string
  clientId: string | null
  clientHost: string | null
  since: string | null
  memberEpoch: number | null
  state: string | null
  /** Members owning partitions this one is to be assigned (it waits for them to revoke). */
  waitingOn: string[]
  /** Members waiting for this one to revoke partitions: it blocks them. */
  blocking: string[]
}

export interface AuditContext {
  live: ClusterMetadata
  /** Shared across groups: each topic is hashed once per audit. */
  hasher: TopicHasher
  now: number
  /** --stuck-after for every group; undefined: per group, half the smallest rebalance timeout its members declared
   * (5 minutes when none did), as `group explain` (stuckAfterOf). */
  stuckAfterMs: number | undefined
  /** Partition reassignments in flight (ListPartitionReassignments). */
  reassignments: readonly ReassignmentInFlight[]
  /** The hypothesis searches of the groups audited so far (ExplainOptions.searches). */
  searches: Map<string, HypothesisResult>
}

export function auditContext(
  live: ClusterMetadata,
  now = Date.now(),
  stuckAfterMs: number | undefined = undefined,
  reassignments: readonly ReassignmentInFlight[] = [],
): AuditContext {
  return {live, hasher: new TopicHasher(live), now, stuckAfterMs, reassignments, searches: new Map()}
}

/**
 * A group whose records end in its deletion (every section tombstoned, e.g. an empty group the coordinator
 * cleaned up): nothing to audit. A group with records of unknown types is never skipped.
 */
export function isDeleted(replay: ReplayResult | GroupSummary): boolean {
  const s = replay.state
  const live = (['consumer', 'share', 'streams'] as const).some(t => s[t]?.epoch !== undefined)
  return !live && !s.classic?.value && replay.skipped.length === 0
}

/** One group's audit row: the group's facts from its records, and the verdict against the live metadata, once each. */
export function auditGroup(groupId: string, replay: ReplayResult | GroupSummary, ctx: AuditContext, cost: AuditCost = noCost('not-measured')): GroupAudit {
  const facts = groupFacts(groupId, replay, {now: ctx.now, stuckAfterMs: ctx.stuckAfterMs})
  const base = facts.fields
  const type = base.type
  const rules = base.rules
  const now = judge(facts, replay, {
    live: ctx.live,
    hasher: ctx.hasher,
    now: ctx.now,
    stuckAfterMs: ctx.stuckAfterMs,
    reassignments: ctx.reassignments,
    searches: ctx.searches,
  })
  const g = type && type !== 'classic' ? replay.state[type] : null
  const {inSync, verdict, missing} = now
  const topics = now.topics.map(t => t.name)
  const zeroed = now.findings.find(f => f.code === 'HASH_ZEROED_BY_FENCE')?.details
  const empty = g ? g.members.size === 0 : true
  const change = now.findings.find(f => f.code === 'REBALANCE_PENDING' || f.code === 'STALE_COORDINATOR_CACHE' || f.code === 'HASH_DIFFERS')
  const matches = change?.details.changes ?? []
  // (an empty group's changes are named only in explain's verdict message; its drift list stays empty)
  const driftMatches = inSync === false ? matches : []
  const reconciling = base.members.filter(m => m.reconciling)
  const stuck: StuckMember[] = base.findings
    .flatMap(f => (f.code === 'MEMBER_RECONCILING' && f.details.stuck ? [f.details] : []))
    .map(d => {
      const m = base.members.find(x => x.memberId === d.memberId)
      const blocking = base.members
        .filter(x => x.partitions?.waitingOn.includes(d.memberId))
        .map(x => x.memberId)
        .sort()
      return {
        memberId: d.memberId,
        clientId: d.clientId,
        clientHost: m?.clientHost ?? null,
        since: d.since,
        memberEpoch: d.memberEpoch,
        state: d.state,
        waitingOn: m?.partitions?.waitingOn ?? [],
        blocking,
      }
    })
  const assignmentPending = base.findings.some(f => f.code === 'ASSIGNMENT_PENDING')
  const unknownRecords = base.skippedRecords.filter(s => s.reason !== 'legacy').length
  const findings: FindingKind[] = []
  // an empty group's drift rebalances nothing until a member joins: reported, not a finding
  // (a 4.1 streams fence's 0 whose hash before equals the live one: no topic changed, the verdict says what follows)
  if (inSync === false && !empty && !zeroed?.sameAsLive) findings.push('drift')
  if (assignmentPending) findings.push('pending')
  if (stuck.length > 0) findings.push('stuck')
  if (missing.length > 0) findings.push('missing-topics')
  if (unknownRecords > 0) findings.push('unknown-records')
  // (replicas do not count under 4.0 rules: a reassignment bumps nothing there, and the verdict names none)
  const inFlight = now.findings.find(f => f.code === 'REASSIGNMENT_IN_FLIGHT')
  const reassignments: GroupAudit['reassignments'] = inFlight?.details.topics ?? []
  if (reassignments.length > 0) findings.push('reassignment')
  return {
    group: groupId,
    type,
    verdict,
    groupEpoch: base.groupEpoch,
    assignmentEpoch: base.assignmentEpoch,
    storedMetadataHash: base.storedMetadataHash,
    liveMetadataHash: now.liveMetadataHash,
    rules,
    inSync,
    drift: driftMatches.map(h => ({kind: h.kind, topic: h.topic ?? null, broker: h.broker ?? null, then: h.then, now: h.now, description: h.description})),
    topics,
    missingTopics: missing,
    // classic groups: the members their stored GroupMetadata value lists
    members: g ? g.members.size : base.members.length,
    membersReconciling: reconciling.length,
    stuckMembers: stuck,
    stuckAfter: base.stuckAfter,
    assignmentPending,
    unknownRecords,
    reassignments,
    // from the records alone (no hash over live metadata: a classic row is reused from the incremental cache while
    // its records do not change, and the hash would go stale; group explain gives it)
    ...(type === 'classic' && replay.state.classic?.value ? {migration: migrationReadiness(replay.state.classic.value)} : {}),
    lastEpochTime: g?.epochAt ? new Date(g.epochAt.timestamp).toISOString() : null,
    findings,
    ...(zeroed ? {hashZeroedByFence: zeroed} : {}),
    cost,
  }
}

// ---------------------------------------------------------------- summary and exit code

export type AuditExitCode = 0 | 1 | 3 | 4 | 5

export interface AuditSummary {
  clusterId: string | null
  /** ISO-8601 time the audit started. */
  time: string
  groups: number
  byType: Record<string, number>
  byVerdict: Record<string, number>
  /** Groups with each kind of finding. */
  findings: Record<FindingKind, number>
  groupsWithFindings: number
  /** Classic groups by their road to KIP-848 (explain/migration.ts: possible, blocked, replaced). */
  classicMigration: Record<'possible' | 'blocked' | 'replaced', number>
  partitions: number
  recordsScanned: number
  /** Records of __consumer_offsets that could not be decoded at all (corrupt), all groups. */
  decodeErrors: number
  /** Groups whose records say they were deleted (tombstones only): not audited, not in `groups`. */
  deletedGroupsSkipped: number
  durationMs: number
  /** The finding kinds that make the exit code 3 (--fail-on). */
  failOn: FindingKind[]
  /** 0 none, 3 findings (per --fail-on), 4 --group/--type matched no group, 1 a group's describe refused (describe-only);
   * the command sets 5 when only the history could not be written, 1 when the --prometheus file could not be. */
  exitCode: AuditExitCode
  /** A describe-only pass (described.ts): why, and what READ on __consumer_offsets would add, with the grant. */
  reading?: Reading
  /** A describe-only pass: the listed groups whose describe (or FindCoordinator) was refused, left out (exit 1); else absent. */
  refused?: GroupRefusal[]
}

export interface ScanStats {
  partitions: number
  recordsScanned: number
  decodeErrors: number
  durationMs: number
  deletedGroupsSkipped?: number
}

export function summarize(
  groups: readonly RowFacts[],
  stats: ScanStats,
  failOn: readonly FindingKind[],
  clusterId: string | null,
  startedAt: number,
): AuditSummary {
  const byType: Record<string, number> = {}
  const byVerdict: Record<string, number> = {}
  const findings = Object.fromEntries(FINDING_KINDS.map(k => [k, 0])) as Record<FindingKind, number>
  let withFindings = 0
  const classicMigration = {possible: 0, blocked: 0, replaced: 0}
  for (const g of groups) {
    const t = g.type ?? 'unknown'
    // (a classic row read back from a checkpoint is parsed for it: classic rows only)
    if (g.type === 'classic') {
      const m = ('migration' in g ? (g as GroupAudit).migration : g instanceof StoredRow ? g.row().migration : undefined)?.upgrade
      if (m) classicMigration[m]++
    }
    byType[t] = (byType[t] ?? 0) + 1
    byVerdict[g.verdict.code] = (byVerdict[g.verdict.code] ?? 0) + 1
    for (const f of g.findings) findings[f]++
    if (g.findings.length > 0) withFindings++
  }
  const summary: AuditSummary = {
    clusterId,
    time: new Date(startedAt).toISOString(),
    groups: groups.length,
    byType,
    byVerdict,
    findings,
    groupsWithFindings: withFindings,
    classicMigration,
    partitions: stats.partitions,
    recordsScanned: stats.recordsScanned,
    decodeErrors: stats.decodeErrors,
    deletedGroupsSkipped: stats.deletedGroupsSkipped ?? 0,
    durationMs: stats.durationMs,
    failOn: [...failOn],
    exitCode: 0,
  }
  summary.exitCode = exitCodeFor(summary, failOn)
  return summary
}

/** 3 when any group has a finding of a kind in failOn (undecodable records count as unknown-records), else 0. */
export function exitCodeFor(s: Pick<AuditSummary, 'findings' | 'decodeErrors'>, failOn: readonly FindingKind[]): 0 | 3 {
  for (const k of failOn) {
    if (s.findings[k] > 0) return 3
    if (k === 'unknown-records' && s.decodeErrors > 0) return 3
  }
  return 0
}

/** `--fail-on drift,pending` → kinds; `none` → []; `all` → every kind. Throws a message naming the bad value. */
export function parseFailOn(text: string): FindingKind[] {
  const parts = text
    .split(',')
    .map(s => s.trim())
    .filter(Boolean)
  if (parts.length === 1 && parts[0] === 'none') return []
  if (parts.length === 1 && parts[0] === 'all') return [...FINDING_KINDS]
  const bad = parts.filter(p => !(FINDING_KINDS as readonly string[]).includes(p))
  if (bad.length > 0 || parts.length === 0)
    throw new Error(
      `--fail-on "${text}": unknown ${bad.length ? bad.map(b => `"${b}"`).join(', ') : 'empty value'}; use none, all, or a comma list of ${FINDING_KINDS.join(', ')}`,
    )
  return FINDING_KINDS.filter(k => parts.includes(k))
}
