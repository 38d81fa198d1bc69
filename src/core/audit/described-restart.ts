/**
 * A describe-only `--watch` started again after an earlier one of the same cluster, kind and filters: the earlier
 * watch's last polls (each group's first poll at its epoch, as DescribePolls compares from) are the baseline of the
 * first poll of the new one, so an epoch that moved while no watch ran is printed once, marked `afterRestart`, as what
 * the two polls saw (one observation however many bumps lie between). The state is written after each poll's
 * prints: a kill between a print and the write prints that poll's bumps again (at least once, never lost). A state
 * older than the restart bound's age is not resumed (the observation would span too much to tell anything). Pure.
 *
 * File: one JSON document {schema, clusterId, kind, filters, at, snapshots: DescribeSnapshot[]}.
 */
import type {DescribeSnapshot} from '../explain/evidence/describes.js'
import {type BoundedBumps, DAMAGED, RESTART_BOUND, type RestartBound, type WatchKind, watchStateDocument} from './restart.js'

export const DESCRIBED_WATCH_STATE_SCHEMA = 'rebalance-doctor/described-watch-state-v1'

export interface DescribedWatchState {
  readonly clusterId: string
  readonly kind: WatchKind
  readonly filters: string
  /** When the polls were recorded (epoch ms). */
  readonly at: number
  readonly snapshots: readonly DescribeSnapshot[]
}

export function encodeDescribedWatchState(s: DescribedWatchState): string {
  const {clusterId, kind, filters, at, snapshots} = s
  return `${JSON.stringify({schema: DESCRIBED_WATCH_STATE_SCHEMA, clusterId, kind, filters, at, snapshots})}\n`
}

/** The state in `text`, or why it cannot be used (another schema, damaged). */
export function decodeDescribedWatchState(text: string): DescribedWatchState | {error: string} {
  const d = watchStateDocument(text, DESCRIBED_WATCH_STATE_SCHEMA)
  if ('error' in d) return d as {error: string}
  if (!Array.isArray(d.snapshots) || !d.snapshots.every(isSnapshot)) return DAMAGED
  return {
    clusterId: d.clusterId as string,
    kind: d.kind as WatchKind,
    filters: d.filters as string,
    at: d.at as number,
    snapshots: d.snapshots as DescribeSnapshot[],
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
const isDecimal = (v: unknown) => typeof v === 'string' && /^-?\d{1,20}$/.test(v)
const isStrings = (v: unknown) => Array.isArray(v) && v.every(s => typeof s === 'string')
const isPartitions = (v: unknown) =>
  v === null ||
  (Array.isArray(v) &&
    v.every(
      tp =>
        isObject(tp) && typeof tp.topic === 'string' && typeof tp.topicId === 'string' && Array.isArray(tp.partitions) && tp.partitions.every(Number.isInteger),
    ))

/** The fields an observation reads, of the types it reads them as: a damaged file is refused, not half-compared. */
function isMember(m: unknown): boolean {
  return (
    isObject(m) &&
    typeof m.memberId === 'string' &&
    typeof m.clientId === 'string' &&
    (m.instanceId === null || typeof m.instanceId === 'string') &&
    (m.memberEpoch === null || Number.isInteger(m.memberEpoch)) &&
    isStrings(m.subscribedTopicNames) &&
    (m.subscribedTopicRegex === null || typeof m.subscribedTopicRegex === 'string') &&
    isPartitions(m.assignment) &&
    isPartitions(m.targetAssignment)
  )
}

function isSnapshot(s: unknown): s is DescribeSnapshot {
  if (!isObject(s) || !Number.isFinite(s.requestedAt) || !Number.isFinite(s.at) || !isDecimal(s.metadataHash) || !isObject(s.topics)) return false
  const g = s.group
  return (
    isObject(g) &&
    typeof g.group === 'string' &&
    typeof g.type === 'string' &&
    (g.groupEpoch === null || Number.isInteger(g.groupEpoch)) &&
    (g.assignmentEpoch === null || Number.isInteger(g.assignmentEpoch)) &&
    Array.isArray(g.members) &&
    g.members.every(isMember) &&
    (g.topologyTopics === null || isStrings(g.topologyTopics)) &&
    Object.values(s.topics).every(t => t === null || (isObject(t) && isDecimal(t.hash) && typeof t.topicId === 'string' && Number.isInteger(t.partitions)))
  )
}

/** What the describe-only watch starting now resumes from: the earlier polls, or nothing (and why, when a state was there). */
export function describedWatchStart(
  state: DescribedWatchState | {error: string} | undefined,
  now: {clusterId: string; kind: WatchKind; filters: string; at: number},
  bound: RestartBound = RESTART_BOUND,
): {restart: DescribedWatchState} | {firstStart: true; why?: string} {
  if (state === undefined) return {firstStart: true}
  if ('error' in state) return {firstStart: true, why: `its describe-only watch state cannot be used: ${state.error}`}
  if (state.clusterId !== now.clusterId) return {firstStart: true, why: `the describe-only watch state found is of another cluster (${state.clusterId})`}
  if (state.kind !== now.kind || state.filters !== now.filters) return {firstStart: true, why: 'the describe-only watch state found is of another watch'}
  if (state.at < now.at - bound.maxAgeMs)
    return {
      firstStart: true,
      why: `the earlier watch last polled more than ${Math.round(bound.maxAgeMs / 3600_000)} h ago (${new Date(state.at).toISOString()})`,
    }
  return {restart: state}
}

/** The stderr line of a restart's first poll: how many groups' epochs moved since the earlier watch's last polls, and those skipped past the bound. */
export function describedRestartNotice(kind: WatchKind, found: BoundedBumps<unknown>, since: number, bound: RestartBound = RESTART_BOUND): string {
  const total = found.kept.length + found.overCount
  const skipped = found.overCount ? `; skipped past the bound: ${found.overCount} older than the newest ${bound.maxBumps}` : ''
  return (
    `${kind} --watch restarted describe-only: ${total} group${total === 1 ? '' : 's'} whose epoch moved since the earlier watch's polls (${new Date(since).toISOString()})` +
    `${total ? `, ${found.kept.length} printed (marked after restart), each as one observation of the polls before and after the restart` : ''}${skipped}`
  )
}
