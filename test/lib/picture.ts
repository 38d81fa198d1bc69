/**
 * Groups for the `group explain --html` tests: a consumer group's records in the coordinator's order (m1 alone; m2
 * joins and m1 revokes three partitions; m3 joins, m2 gives one up at once and m1 takes 6 s to revoke another),
 * run through the replay, the cost tracker and the report as `group explain` does; and synthetic lanes and bumps of
 * any size for the aggregation and size checks.
 */
import {CostTracker, type OwnershipLanes, ownershipLanes, pictureRange, type RebalanceCost} from '../../src/core/cost/index.js'
import {explainGroup, type ExplainReport} from '../../src/core/explain/explain.js'
import type {TimelineEntry} from '../../src/core/explain/report/report.js'
import {windowed} from '../../src/core/explain/report/window.js'
import {replayGroup} from '../../src/core/replay/index.js'
import {current, UNRELEASED, UNREVOKED} from '../unit/cost/records.js'
import {consumer, Log, T1} from './records.js'

export interface PictureNames {
  readonly group: string
  /** The three member ids (their client ids are `client-` + the id). */
  readonly members: readonly [string, string, string]
  readonly topic: string
}

export const PLAIN: PictureNames = {group: 'orders-app', members: ['m1', 'm2', 'm3'], topic: 'orders'}

/** Names a hostile client can give: tags, quotes, a terminal escape, a bidi override. */
export const HOSTILE: PictureNames = {
  group: 'g<script>alert("group")</script>\u001b[31m',
  members: ['m1<script>alert(1)</script>', 'm2"\'><img onerror=alert(2)>', 'm3\u001b]0;owned\u0007\u202e'],
  topic: 'orders<script>alert("topic")</script>',
}

export interface Times {
  readonly bump3Ms: number
  readonly m1PendingMs: number
  readonly m1ReleaseMs: number
  readonly m2ReleaseMs: number
  readonly endMs: number
}

/** m1 and m2 share six partitions at epoch 2; m3 joins at epoch 3 and takes 2 (from slow m1) and 5 (from m2). */
export function pictureLog(n: PictureNames): {log: Log; t: Times} {
  const [m1, m2, m3] = n.members
  const g = n.group
  const all: [string, number[]][] = [[T1, [0, 1, 2, 3, 4, 5]]]
  const log = new Log()
  log.write([
    consumer.member(g, m1),
    consumer.metadata(g, 1),
    consumer.target(g, m1, all),
    consumer.targetMetadata(g, 1),
    current(g, m1, {epoch: 1, assigned: all}),
  ])
  log.write([consumer.member(g, m2), consumer.metadata(g, 2), consumer.targetMetadata(g, 2), current(g, m2, {epoch: 2, state: UNRELEASED})], {gap: 5000})
  log.write([current(g, m1, {epoch: 1, previous: 1, state: UNREVOKED, assigned: [[T1, [0, 1, 2]]], pending: [[T1, [3, 4, 5]]]})])
  log.write([current(g, m1, {epoch: 2, previous: 1, assigned: [[T1, [0, 1, 2]]]})], {gap: 200})
  log.write([current(g, m2, {epoch: 2, assigned: [[T1, [3, 4, 5]]]})], {gap: 300})
  log.write([consumer.member(g, m3), consumer.metadata(g, 3), consumer.targetMetadata(g, 3), current(g, m3, {epoch: 3, previous: 0, state: UNRELEASED})], {
    gap: 10_000,
  })
  const bump3Ms = log.time
  log.write([current(g, m2, {epoch: 2, previous: 2, state: UNREVOKED, assigned: [[T1, [3, 4]]], pending: [[T1, [5]]]})], {gap: 1000})
  log.write([current(g, m1, {epoch: 2, previous: 2, state: UNREVOKED, assigned: [[T1, [0, 1]]], pending: [[T1, [2]]]})], {gap: 500})
  const m1PendingMs = log.time
  log.write([current(g, m2, {epoch: 3, previous: 2, assigned: [[T1, [3, 4]]]})], {gap: 500})
  const m2ReleaseMs = log.time
  log.write([current(g, m3, {epoch: 3, previous: 3, state: UNRELEASED, assigned: [[T1, [5]]]})], {gap: 300})
  log.write([current(g, m1, {epoch: 3, previous: 2, assigned: [[T1, [0, 1]]]})], {gap: 5200})
  const m1ReleaseMs = log.time
  log.write([current(g, m3, {epoch: 3, previous: 3, assigned: [[T1, [2, 5]]]})], {gap: 700})
  return {log, t: {bump3Ms, m1PendingMs, m1ReleaseMs, m2ReleaseMs, endMs: log.time}}
}

/** The report and lanes `group explain --html` makes of pictureLog, with the window asked (--since ms, --last). */
export function picture(n: PictureNames = PLAIN, window: {since?: number; last?: number} = {}): {report: ExplainReport; lanes: OwnershipLanes; t: Times} {
  const {log, t} = pictureLog(n)
  return {...recordsPicture(n.group, log.records, {topicNames: new Map([[T1, n.topic]]), now: t.endMs + 1000, ...window}), t}
}

/** The report and lanes `group explain --html` makes of any group's records (consumer, share, streams, classic). */
export function recordsPicture(
  group: string,
  records: Log['records'],
  o: {topicNames?: ReadonlyMap<string, string>; now: number; since?: number; last?: number},
): {report: ExplainReport; lanes: OwnershipLanes} {
  const tracker = new CostTracker(group)
  const replay = replayGroup(group, records, {onRecord: r => tracker.push(r)})
  const costs = tracker.finish({topicNames: o.topicNames})
  const report = windowed(explainGroup(group, replay, {costs, now: o.now}), o)
  const lanes = ownershipLanes(costs, tracker.holdings(), pictureRange(report.timeline[0]?.timestamp, tracker.lastRecordMs))
  return {report, lanes}
}

/**
 * `members` members and `bumps` bumps without records: each bump moves one partition of 2 × members from one member
 * to the next after a 50 ms gap; the report has only what the page reads (timeline with costs, members, verdict).
 */
export function syntheticPicture(members: number, bumps: number): {report: ExplainReport; lanes: OwnershipLanes} {
  const start = 1_700_000_000_000
  const ref = (i: number) => ({memberId: `member-${i % members}-${'x'.repeat(14)}`, clientId: `client-${i % members}`})
  const timeline: TimelineEntry[] = []
  for (let b = 0; b < bumps; b++) {
    const atMs = start + b * 30_000
    const unit = {kind: 'partition' as const, topicId: T1, topic: 'orders', subtopologyId: null, partition: b % (2 * members)}
    const move = {...unit, from: ref(b), to: ref(b + 1), releasedBy: 'revocation' as const, releasedAt: '', releasedAtMs: atMs + 1000}
    const owned = {releasedOffset: '0', ownedAt: '', ownedAtMs: atMs + 1050, ownedOffset: '1', unownedMs: 50, open: false}
    const cost: RebalanceCost = {
      ...{groupId: 'big', groupType: 'consumer', epoch: b + 2, previousEpoch: b + 1, offset: String(b), at: '', atMs},
      ...{moved: [{...move, ...owned}], movedCount: 1, unownedPartitionMs: 50, protocol: null, assignor: null, cannotTell: []},
      convergence: {status: 'converged', at: '', atMs: atMs + 1100, offset: String(b), afterMs: 1100},
      slowest: {member: ref(b), doing: 'revoking', ms: 900, fromMs: atMs + 100, toMs: atMs + 1000, ongoing: false, removed: false, units: 1, unitRefs: [unit]},
    }
    const causes = [{kind: 'member-joined', message: `member member-${b % members} joined`, confidence: 'exact', alternatives: [], details: {}}]
    timeline.push({
      epoch: b + 2,
      previousEpoch: b + 1,
      timestamp: atMs,
      time: '',
      offset: String(b),
      metadataHash: null,
      previousMetadataHash: null,
      rules: '4.1+',
      assignmentEpoch: b + 2,
      causes,
      cost,
    } as TimelineEntry)
  }
  const holdings = Array.from({length: members}, (_, i) => ({
    member: ref(i),
    units: [0, 1].map(k => ({kind: 'partition' as const, topicId: T1, topic: 'orders', subtopologyId: null, partition: 2 * i + k})),
  }))
  const costs = timeline.map(e => e.cost!)
  const lanes = ownershipLanes(costs, holdings, pictureRange(start, start + bumps * 30_000))
  const report = {group: 'big', type: 'consumer', groupEpoch: bumps + 1, assignmentEpoch: bumps + 1, members: [], timeline} as unknown as ExplainReport
  return {report: {...report, verdict: {code: 'IN_SYNC', message: 'in sync', pending: false}}, lanes}
}
