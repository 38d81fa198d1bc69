/**
 * Exact attribution of metadata bumps from the KRaft metadata log. The coordinator stores a group hash over
 * per-topic hashes it caches, so a stored hash can combine topic hashes computed at different times: for each
 * bump, search the per-topic sequences of distinct hashes (each at or before the bump) for the combination that
 * gives the stored hash before and after, then name the log's changes between those two points in Kafka terms.
 * Causes found this way carry `details.source: 'metadata-log'` (exact); where the log does not reach back to the
 * bump, or no combination fits, the inferred cause stays and says why.
 */
import {computeGroupHash} from '../hash.js'
import {isoTime} from '../time.js'
import {changeRows, type ChangeRow} from './changes.js'
import type {MetadataChange} from './image.js'
import type {TopicHashPoint} from './replay.js'
import {compare} from '../order.js'

export interface MetadataLogView {
  readonly hashes: ReadonlyMap<string, readonly TopicHashPoint[]>
  readonly changes: readonly MetadataChange[]
  /** Time of the oldest state the log holds (a snapshot's last record time, or the first record's). */
  readonly historyStart: number | null
  /**
   * Damage or a gap that ended the replay: nothing after `lastTime` (the last record read exactly) is known, so no
   * bump after it (within the clock slack) and no drift to the live hash is attributed exactly.
   */
  readonly damage?: {readonly offset: string; readonly where: string; readonly lastTime: number | null} | null
}

/** Clock slack between the controller that stamps metadata batches and the coordinator that stamps bumps. */
const SLACK_MS = 2000
/** Candidate hashes per topic (most recent first) and combinations tried per bump. */
const PER_TOPIC = 8
const MAX_COMBINATIONS = 200_000

/** One topic's point in the log chosen for a combination (null: the topic absent). */
interface TopicPoint {
  topic: string
  point: TopicHashPoint | null
}

/** The per-topic points (null = topic absent) whose group hash is `target`, preferring the most recent. */
export function findCombination(view: MetadataLogView, topics: readonly string[], target: bigint, atOrBefore: number): TopicPoint[] | undefined {
  const options: Array<Array<TopicHashPoint | null>> = topics.map(t => {
    const seq = (view.hashes.get(t) ?? []).filter(p => p.timestamp <= atOrBefore + SLACK_MS || p.atHistoryStart)
    const recent = seq
      .slice(-PER_TOPIC)
      .reverse()
      .map(p => (p.hash === 0n ? null : p))
    if (!recent.includes(null)) recent.push(null)
    return recent
  })
  let tried = 0
  const chosen: Array<TopicHashPoint | null> = []
  const search = (i: number): boolean => {
    if (i === topics.length) {
      tried++
      const m = new Map<string, bigint>()
      chosen.forEach((p, k) => {
        if (p) m.set(topics[k], p.hash)
      })
      return computeGroupHash(m) === target
    }
    for (const o of options[i]) {
      if (tried >= MAX_COMBINATIONS) return false
      chosen[i] = o
      if (search(i + 1)) return true
    }
    return false
  }
  return search(0) ? topics.map((topic, k) => ({topic, point: chosen[k]})) : undefined
}

/** Where a topic absent before the bump last stopped existing (its creation follows), or the log's start. */
function lastAbsentBefore(seq: readonly TopicHashPoint[], point: TopicHashPoint | null): bigint {
  let from = -1n
  for (const p of seq) if (p.hash === 0n && (!point || p.offset < point.offset)) from = p.offset
  return from
}

export interface LogAttribution {
  source: 'metadata-log'
  exact: boolean
  message: string
  changes?: ChangeRow[]
  before?: Record<string, {hash: string; offset: string; time: string} | null>
  after?: Record<string, {hash: string; offset: string; time: string} | null>
}

const pointView = (p: TopicHashPoint | null) => (p ? {hash: p.hash.toString(), offset: p.offset.toString(), time: isoTime(p.timestamp)} : null)

interface Span {
  topicsBefore: readonly string[]
  topicsAfter: readonly string[]
  previousHash: bigint
  hash: bigint
  timestamp: number
}

/** Why a damaged log says nothing exact at `timestamp` (undefined: it is before the damage, beyond the clock slack). */
function damageReason(view: MetadataLogView, timestamp: number): string | undefined {
  const d = view.damage
  if (!d || (d.lastTime !== null && timestamp + SLACK_MS < d.lastTime)) return undefined
  return `the metadata log is damaged at offset ${d.offset} (${d.where}): exact history ends ${d.lastTime === null ? 'before its first record' : `at ${isoTime(d.lastTime)}`}; inferred, not exact`
}

export function attributeFromLog(view: MetadataLogView, b: Span): LogAttribution {
  if (view.historyStart !== null && view.historyStart > b.timestamp) {
    return {source: 'metadata-log', exact: false, message: `the metadata log starts at ${isoTime(view.historyStart)}, after this bump: inferred, not exact`}
  }
  const damaged = damageReason(view, b.timestamp)
  if (damaged) return {source: 'metadata-log', exact: false, message: damaged}
  const after = findCombination(view, b.topicsAfter, b.hash, b.timestamp)
  const before = after && findCombination(view, b.topicsBefore, b.previousHash, b.timestamp)
  if (!after || !before) {
    return {
      source: 'metadata-log',
      exact: false,
      message: `no combination of the metadata log's topic hashes reproduces the stored hash ${after ? 'before' : 'after'} this bump: inferred, not exact`,
    }
  }
  return changesBetween(view, before, after, b.timestamp)
}

/**
 * `audit --metadata-log`: a group whose stored hash differs from the live one. The stored hash is found among the
 * log's states (the coordinator may have combined cached topic hashes of different times) and the live hash at the
 * log's end; the log's changes between them are what the group has not seen yet (or what a stale cache hides).
 */
export function attributeDrift(view: MetadataLogView, topics: readonly string[], storedHash: bigint, liveHash: bigint, now: number): LogAttribution {
  const damaged = damageReason(view, now)
  if (damaged) return {source: 'metadata-log', exact: false, message: damaged}
  const live = findCombination(view, topics, liveHash, now)
  if (!live) {
    return {
      source: 'metadata-log',
      exact: false,
      message: 'the metadata log does not reach the live metadata (an older copy?): no state of it gives the live hash; inferred, not exact',
    }
  }
  const stored = findCombination(view, topics, storedHash, now)
  if (!stored) {
    const start = view.historyStart === null ? '' : ` (it starts at ${isoTime(view.historyStart)})`
    return {
      source: 'metadata-log',
      exact: false,
      message: `no combination of the metadata log's topic hashes reproduces the stored hash${start}: inferred, not exact`,
    }
  }
  const a = changesBetween(view, stored, live, now)
  return {
    ...a,
    message: a.message.replace('metadata changed (exact, from the metadata log): ', 'changed since the stored hash (exact, from the metadata log): '),
  }
}

function changesBetween(view: MetadataLogView, before: readonly TopicPoint[], after: readonly TopicPoint[], timestamp: number): LogAttribution {
  const prev = new Map(before.map(p => [p.topic, p.point]))
  const relevant: MetadataChange[] = []
  for (const a of after) {
    const from = prev.get(a.topic)?.offset ?? lastAbsentBefore(view.hashes.get(a.topic) ?? [], a.point)
    // a topic absent after the bump: its deletion lies between the point before and the bump
    const upTo = a.point ? a.point.offset : BigInt(Number.MAX_SAFE_INTEGER)
    for (const c of view.changes) {
      if (!c.movesHash || c.offset <= from || c.offset > upTo || c.timestamp > timestamp + SLACK_MS) continue
      if (c.topic === a.topic || c.topicsOnBroker?.includes(a.topic)) relevant.push(c)
    }
  }
  const unique = [...new Map(relevant.map(c => [`${c.offset}:${c.kind}:${c.topic ?? ''}:${c.partition ?? ''}:${c.broker ?? ''}`, c])).values()].sort((x, y) =>
    compare(x.offset, y.offset),
  )
  const changes = changeRows(unique)
  const text =
    changes.length > 0
      ? changes.map(c => `${c.description} (${c.time})`).join('; ')
      : "the subscribed topics' hashes changed with no change in this log between them (the coordinator recomputed a cached topic hash)"
  return {
    source: 'metadata-log',
    exact: true,
    message: `metadata changed (exact, from the metadata log): ${text}`,
    changes,
    before: Object.fromEntries(before.map(p => [p.topic, pointView(p.point)])),
    after: Object.fromEntries(after.map(p => [p.topic, pointView(p.point)])),
  }
}
