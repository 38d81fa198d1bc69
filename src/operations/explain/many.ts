/**
 * `group explain PATTERN` / `--all`: every matching group's records (every __consumer_offsets partition read once),
 * the explanation's inputs read once for all, one report each through the same pipeline as one group. Without READ
 * on `__consumer_offsets` (or with --describe-only) every matching group of the listing is answered from its describe
 * and the live metadata instead, as one group is.
 */
import {topicNamesOf} from '../../core/cost/index.js'
import type {Denial, GroupRefusal} from '../../core/errors.js'
import {explainDescribed, explainGroup, type ExplainReport} from '../../core/explain/explain.js'
import {describedTopics} from '../../core/explain/report/described.js'
import {windowed} from '../../core/explain/report/window.js'
import {topicsEverUsed} from '../../core/replay/index.js'
import type {ClusterReader} from '../../kafka/cluster-reader.js'
import type {Progress} from '../../render/progress.js'
import {describeListed} from '../../sources/group-describe.js'
import {offsetsReadDenied} from '../../sources/group-log.js'
import type {Session} from '../session.js'
import {replayMatchingGroups} from './groups-replay.js'
import {type ExplainRequest, readExplainInputs} from './inputs.js'

/** `group explain PATTERN` / `--all` --json: {schema: group-explain-list v1, pattern, all, groups: [report...], warnings}. */
export interface ExplainList {
  /** The pattern given (null with --all). */
  pattern: string | null
  all: boolean
  groups: ExplainReport[]
  /** Read describe-only: the listed groups whose describe was refused (left out; exit 1); else absent. */
  refused?: GroupRefusal[]
}

type ManyRequest = ExplainRequest & {
  concurrency: number
  quiet: boolean
  describeOnly?: 'asked' | 'on-denial'
  /** Read describe-only: each listed group whose describe was refused (it is left out, with a warning). */
  onRefused?: (refused: GroupRefusal) => void
}

/**
 * `describeOnly`: 'asked' reads no records; 'on-denial' answers describe-only when the Fetch of __consumer_offsets is
 * refused; absent: that refusal is the error.
 */
export async function explainMany(session: Session, accept: (group: string) => boolean, o: ManyRequest): Promise<ExplainReport[]> {
  return session.withCluster(
    async (client, progress) => {
      if (o.describeOnly === 'asked') return explainManyDescribed(session, client, progress, accept, o)
      let replayed: Awaited<ReturnType<typeof replayMatchingGroups>>
      try {
        replayed = await replayMatchingGroups(client, accept, {
          concurrency: o.concurrency,
          onProgress: (done, total, records) => progress.update(`reading __consumer_offsets: ${done}/${total} partitions, ${records} records`),
        })
      } catch (error) {
        if (o.describeOnly !== 'on-denial' || !offsetsReadDenied(error)) throw error
        session.warn(`${error.message}: answering every matching group from its describe and the live metadata instead. ${error.hint}`)
        return explainManyDescribed(session, client, progress, accept, o, error.denial)
      }
      const {groups} = replayed
      if (groups.size === 0) return []
      const topics = new Set<string>()
      for (const replay of groups.values()) for (const t of topicsEverUsed(replay)) topics.add(t)
      const inputs = await readExplainInputs(session, client, progress, topics, o)
      const topicNames = topicNamesOf(inputs.live)
      const out: ExplainReport[] = []
      for (const [group, replay] of groups) {
        progress.update(`explaining ${out.length + 1}/${groups.size} groups`)
        const costs = replay.costs?.finish({topicNames})
        out.push(windowed(explainGroup(group, replay, {...inputs, costs, extras: {brokers: true, offsets: null}}), o))
      }
      return out
    },
    {progress: 'reading __consumer_offsets', quiet: o.quiet},
  )
}

/** The matching groups of the listing, each described, their topics' live metadata read once, one report each. */
async function explainManyDescribed(
  session: Session,
  client: ClusterReader,
  progress: Progress,
  accept: (group: string) => boolean,
  o: ManyRequest,
  denial?: Denial,
): Promise<ExplainReport[]> {
  const listed = (await client.listGroups()).filter(g => accept(g.groupId))
  const {described, refused} = await describeListed(client, listed, progress, m => session.warn(m))
  for (const r of refused) o.onRefused?.(r)
  if (described.length === 0) return []
  const topics = new Set(described.flatMap(describedTopics))
  // no bumps to attribute: the metadata log is not read
  const inputs = await readExplainInputs(session, client, progress, topics, {...o, metadataLogDir: undefined})
  return described.map(d => windowed(explainDescribed(d.group, d, {...inputs, extras: {brokers: true, offsets: null}, ...(denial ? {denial} : {})}), o))
}
