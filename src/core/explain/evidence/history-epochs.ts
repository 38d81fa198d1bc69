/**
 * What the history recorded by earlier runs (audits, describe-only watches) gives a describe-only report: the group's
 * epochs as each run saw them, and where the epoch rose between two consecutive observations, the changes of the
 * group's topics recorded in that interval. Everything between two observations is one observation: a rise of N is
 * N bumps whose order and individual causes the history cannot tell apart, and members are not recorded, so a join,
 * a leave or a subscription change is never seen. A recorded topic change is a likely cause, exact only when it is
 * the one change and the epoch rose by one. Pure.
 */
import {computeGroupHash} from '../../hash.js'
import type {EpochSeen, HistoryView, Moment} from '../../history/view.js'
import {isoTime} from '../../time.js'
import {causeView} from '../report/causes.js'
import type {TimelineEntry} from '../report/report.js'
import {describeTopicChange, exactChangesFromHistory} from './history.js'
import type {TopicChange} from './recorded.js'
import type {CauseEvidence} from './types.js'

/** At most this many observations are shown: the last ones. */
export const RECORDED_EPOCHS_SHOWN = 20

/** One run's observation of the group's epoch. */
export interface EpochObservation {
  time: string
  epoch: number
}

/** Between two consecutive observations shown whose epoch rose: the bumps seen as one, and their causes settled. */
export interface EpochRise {
  previousTime: string
  time: string
  previousEpoch: number
  epoch: number
  /** The epoch's rise: above 1, that many bumps seen as one observation. */
  bumps: number
  causes: TimelineEntry['causes']
}

export interface RecordedEpochs {
  /** Observations the history holds for the group (of its type), of which the last `RECORDED_EPOCHS_SHOWN` are shown. */
  recorded: number
  observations: EpochObservation[]
  rises: EpochRise[]
  /** What the history cannot tell. */
  unknown: string
}

export const HISTORY_UNKNOWN = 'the history records no members: a join, a leave or a subscription change between two observations cannot be known from it'

/** The group's observations of its type, the last `RECORDED_EPOCHS_SHOWN`; undefined when the history holds none. */
export function recordedObservations(view: HistoryView, group: string, type: string | null): {recorded: number; shown: EpochSeen[]} | undefined {
  const all = (view.groups?.get(group) ?? []).filter(o => type === null || o.type === type)
  if (all.length === 0) return undefined
  return {recorded: all.length, shown: all.slice(-RECORDED_EPOCHS_SHOWN)}
}

/** A changed topic between two consecutive recorded moments: the topic's change, one per recorded step. */
export function recordedTopicChanges(view: HistoryView, from: number, to: number, topics: readonly string[]): TopicChange[] {
  const out: TopicChange[] = []
  for (let k = from + 1; k <= to; k++) {
    const [a, b] = [view.moments[k - 1], view.moments[k]]
    for (const name of [...new Set(topics)].sort()) {
      const x = a.topics.get(name) ?? null
      const y = b.topics.get(name) ?? null
      if (x?.hash !== y?.hash) out.push(describeTopicChange(name, x, y, isoTime(a.at), isoTime(b.at), racksOf(a, b)))
    }
  }
  return out
}

const racksOf = (a: Moment, b: Moment) => ({
  before: new Map((a.brokers ?? []).map(x => [x.id, x.rack] as const)),
  after: new Map((b.brokers ?? []).map(x => [x.id, x.rack] as const)),
})

/** The rise between two observations as a timeline entry (offset -1: no record read), its causes as recorded. */
export function riseEntry(view: HistoryView, p: EpochSeen, o: EpochSeen, changes: readonly TopicChange[], topics: readonly string[]): TimelineEntry {
  const bumps = o.epoch - p.epoch
  const seen = `${bumps === 1 ? 'one bump' : `${bumps} bumps seen as one observation`} between the runs at ${isoTime(p.at)} and ${isoTime(o.at)}`
  const causes =
    changes.length === 0
      ? [{...causeView({kind: 'unexplained'}), message: `${seen}: no change of the group's topics recorded in it; ${HISTORY_UNKNOWN}`}]
      : [metadataCause(view, p, o, changes, topics, seen)]
  return {
    epoch: o.epoch,
    previousEpoch: p.epoch,
    timestamp: o.at,
    time: isoTime(o.at),
    offset: '-1',
    metadataHash: null,
    previousMetadataHash: null,
    rules: null,
    assignmentEpoch: null,
    causes,
  }
}

function metadataCause(view: HistoryView, p: EpochSeen, o: EpochSeen, changes: readonly TopicChange[], topics: readonly string[], seen: string) {
  const hashAt = (m: Moment) => computeGroupHash(new Map(topics.flatMap(t => (m.topics.has(t) ? [[t, BigInt(m.topics.get(t)!.hash)] as const] : []))))
  const view_ = causeView({
    kind: 'metadata-hash-changed',
    before: hashAt(view.moments[p.moment]),
    after: hashAt(view.moments[o.moment]),
    topics: [...new Set(changes.map(c => c.topic))],
  })
  return {
    ...view_,
    confidence: 'inferred-ambiguous' as const,
    message: `${seen}; recorded in it, a likely cause: ${changes.map(c => c.description).join('; ')} (${HISTORY_UNKNOWN})`,
  }
}

/** Changes that bump a group under every coordinator's rules (Kafka 4.0's count no racks or replicas). */
const ALWAYS_BUMPS: ReadonlySet<TopicChange['kind']> = new Set(['created', 'deleted', 'recreated', 'partitions'])

/**
 * The history's evidence for a rise: exact when one recorded change and one bump (epoch +1) lie in the interval,
 * and the change is one every coordinator bumps for (a describe does not tell the rules).
 */
export function riseEvidence(entry: TimelineEntry, changes: readonly TopicChange[]): CauseEvidence[] {
  if (changes.length !== 1 || entry.previousEpoch === null || entry.epoch - entry.previousEpoch !== 1) return []
  const c = changes[0]
  if (!ALWAYS_BUMPS.has(c.kind) || !entry.causes.some(x => x.kind === 'metadata-hash-changed')) return []
  const attribution = {
    source: 'history' as const,
    changes: [c],
    brokers: [],
    lastSeenBefore: c.lastSeenBefore,
    firstSeenAfter: c.firstSeenAfter,
    message: `from recorded history: ${c.description}`,
  }
  const message = `metadata changed (exact: the one change recorded between two runs one bump apart), ${attribution.message}`
  return [
    {offset: entry.offset, kind: 'metadata-hash-changed', source: 'history', annotations: {}, exact: {message, changes: exactChangesFromHistory(attribution)}},
  ]
}
