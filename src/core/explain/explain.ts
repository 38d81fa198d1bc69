/**
 * `group explain`: the one pipeline every explain flow goes through (one group, many, the watch, the audit's bumps).
 *
 *   sources → evidence → settle → report → views
 *
 * The records' own diff gives each bump's causes; the hash search, the audit history and the KRaft metadata log each
 * give evidence about the causes the records cannot name (evidence/*.ts, pure functions); settle.ts decides every
 * cause once, with the precedence written there; the report is built once from the settled timeline, the group's
 * facts (facts.ts), the verdict for now (verdict.ts) and what the live read adds (brokers, offsets, releases).
 * Windowing and churn are a view over the report (window.ts). Pure.
 */
import type {ClusterReleases} from '../broker-release.js'
import {type Denial, grantCommand} from '../errors.js'
import type {GroupSummary, GroupType, ReplayResult} from '../replay/index.js'
import {brokerHealth} from './report/brokers.js'
import {withCosts} from './evidence/cost.js'
import {type DescribeObservation, describesEvidence, observedEntry} from './evidence/describes.js'
import {hashSearchEvidence} from './evidence/hash-search.js'
import {historyEvidence} from './evidence/history.js'
import {HISTORY_UNKNOWN, type RecordedEpochs, recordedObservations, recordedTopicChanges, riseEntry, riseEvidence} from './evidence/history-epochs.js'
import {metadataLogEvidence} from './evidence/metadata-log.js'
import {recordsTimeline} from './evidence/records.js'
import type {BumpInput, CauseEvidence} from './evidence/types.js'
import type {DescribedGroup} from './report/described.js'
import {describedFacts, type GroupFacts, groupFacts} from './report/facts.js'
import type {GroupOffsets} from './report/offsets.js'
import type {ExplainOptions, ExplainReport, Reading, TimelineEntry, TopicStatus} from './report/report.js'
import {type Settled, settle} from './settle.js'
import {type Judgement, judge, judgeDescribed} from './report/verdict.js'
import type {HistoryView} from '../history/view.js'
import {isoTime} from '../time.js'

export * from './report/report.js'
export {reassignmentFinding} from './evidence/hash-search.js'
export {inSyncVerdict} from './report/verdict.js'

/** What a live read adds to a report (group explain): merged once, when the report is built. */
export interface LiveExtras {
  /** Brokers up, fenced, and unregistered ones still named as replicas of the group's topics (from `live`). */
  brokers?: boolean
  offsets?: GroupOffsets | null
  releases?: ClusterReleases
}

/**
 * A full replay, or (audit) a group's summary: then `timeline: false` is implied, and the bumps the verdict reads
 * ("since when") are the summary's last ones.
 */
export function explainGroup(groupId: string, replay: ReplayResult | GroupSummary, options: ExplainOptions & {extras?: LiveExtras} = {}): ExplainReport {
  const facts = groupFacts(groupId, replay, options)
  const now = judge(facts, replay, options)
  const settled = explainTimeline(replay, facts.fields.type, options)
  return reportOf(facts, now, settled, options)
}

/**
 * The same report from the group's describe instead of its records (READ on __consumer_offsets refused, or
 * --describe-only): no timeline, no stored hash; `reading` says what that leaves unknown and the grant. `denial`:
 * the refusal that made it so (absent when asked).
 */
export function explainDescribed(
  groupId: string,
  described: DescribedGroup | null,
  options: ExplainOptions & {extras?: LiveExtras; denial?: Denial},
): ExplainReport {
  const facts = describedFacts(groupId, described, options)
  const now = judgeDescribed(facts, described, options)
  const history = options.history
    ? recordedEpochs(
        options.history.view,
        groupId,
        facts.fields.type,
        now.topics.map(t => t.name),
      )
    : undefined
  return {...reportOf(facts, now, settle([], []), options), reading: describeOnlyReading(options.denial), ...(history ? {history} : {})}
}

/**
 * The epochs the history recorded for the group (the last ones), and each rise between two of them with the changes
 * of `topics` recorded in that interval, settled as one bump's causes are (evidence/history-epochs.ts).
 */
export function recordedEpochs(view: HistoryView, group: string, type: string | null, topics: readonly string[]): RecordedEpochs | undefined {
  const seen = recordedObservations(view, group, type)
  if (!seen) return undefined
  const rises: RecordedEpochs['rises'] = []
  for (const [i, o] of seen.shown.entries()) {
    const p = seen.shown[i - 1]
    if (!p || o.epoch <= p.epoch) continue
    const changes = recordedTopicChanges(view, p.moment, o.moment, topics)
    const entry = riseEntry(view, p, o, changes, topics)
    const {causes} = settle([entry], riseEvidence(entry, changes)).timeline[0]
    rises.push({previousTime: isoTime(p.at), time: entry.time, previousEpoch: p.epoch, epoch: o.epoch, bumps: o.epoch - p.epoch, causes})
  }
  const observations = seen.shown.map(o => ({time: isoTime(o.at), epoch: o.epoch}))
  return {recorded: seen.recorded, observations, rises, unknown: HISTORY_UNKNOWN}
}

/**
 * A describe-only watch's bump: what two polls of the group's describe and the live metadata saw change between
 * them, settled with the describes' evidence (a metadata change exact only when one change lies between the polls).
 */
export function explainObserved(o: DescribeObservation): TimelineEntry {
  const entry = observedEntry(o)
  return settle([entry], describesEvidence(o, entry)).timeline[0]
}

/**
 * How a describe-only report was read: the refusal (or the flag), and what the records would have given (`what`:
 * explain's by default; the audit names its own) with the grant that gives it.
 */
export function describeOnlyReading(denial: Denial | undefined, what = 'stored metadata hash and the cause of each bump'): Reading {
  const needs = {resourceType: 'topic', resourceName: OFFSETS_TOPIC, operation: 'READ'} as const
  return {
    mode: 'describe-only',
    reason: denial ? `${denial.request} of ${OFFSETS_TOPIC} refused: ${denial.errorName}` : '--describe-only given',
    missing: [{what, needs, grant: denial?.grant ?? grantCommand({...needs, principal: null})}],
  }
}

const OFFSETS_TOPIC = '__consumer_offsets'

/** The report, built once from the facts, the verdict, the settled timeline and the live extras. */
function reportOf(facts: GroupFacts, now: Judgement, settled: Settled, options: ExplainOptions & {extras?: LiveExtras}): ExplainReport {
  const f = facts.fields
  return {
    group: f.group,
    type: f.type,
    groupEpoch: f.groupEpoch,
    assignmentEpoch: f.assignmentEpoch,
    storedMetadataHash: f.storedMetadataHash,
    liveMetadataHash: now.liveMetadataHash,
    rules: f.rules,
    inSync: now.inSync,
    verdict: now.verdict,
    findings: [...f.findings, ...now.findings],
    topics: now.topics,
    members: f.members,
    timeline: withCosts(settled.timeline, options.costs),
    skippedRecords: f.skippedRecords,
    stuckAfter: f.stuckAfter,
    ...(f.migration ? {migration: f.migration} : {}),
    ...(f.downgrade ? {downgrade: f.downgrade} : {}),
    ...liveExtras(options, now.topics),
    ...(options.metadataLog ? {metadataLog: {...options.metadataLog.source, attributed: settled.exactBy['metadata-log']}} : {}),
  }
}

function liveExtras(options: ExplainOptions & {extras?: LiveExtras}, topics: readonly TopicStatus[]): Partial<ExplainReport> {
  const x = options.extras
  if (!x) return {}
  return {
    ...(x.brokers && options.live
      ? {
          brokers: brokerHealth(
            options.live,
            topics.map(t => t.name),
          ),
        }
      : {}),
    ...(x.offsets !== undefined ? {offsets: x.offsets} : {}),
    ...(x.releases ? {releases: x.releases} : {}),
  }
}

/** The group's bumps with their causes settled from every source's evidence. */
function explainTimeline(replay: ReplayResult | GroupSummary, type: GroupType | null, options: ExplainOptions): Settled {
  const changes = 'timeline' in replay && options.timeline !== false ? replay.timeline.filter(e => e.groupType === type) : []
  const entries = recordsTimeline(changes)
  const bumps = changes.map((change, i) => ({change, causes: entries[i].causes}))
  return settle(entries, evidenceFor(bumps, replay as ReplayResult, type, options))
}

/** Every source's evidence; their order here does not matter: settle.ts ranks the sources. */
function evidenceFor(bumps: readonly BumpInput[], replay: ReplayResult, type: GroupType | null, options: ExplainOptions): CauseEvidence[] {
  if (bumps.length === 0) return []
  return [
    ...(options.live && type !== 'classic' ? hashSearchEvidence(bumps, options.live, replay, options) : []),
    ...(options.history ? historyEvidence(bumps, options.history.view) : []),
    ...(options.metadataLog ? metadataLogEvidence(bumps, options.metadataLog.view) : []),
  ]
}
