/**
 * An audit pass read describe-only: READ on `__consumer_offsets` refused (or --describe-only). The groups come from
 * ListGroups (the same --group and --type filters), each is described (ConsumerGroupDescribe, ShareGroupDescribe,
 * StreamsGroupDescribe, DescribeGroups) and explained as `group explain` explains it describe-only, its lag read as
 * the audit reads it. DESCRIBE is all it needs; nothing of `__consumer_offsets` is read and no history is written
 * (it has no stored hash to record: see HistoryStatus).
 */
import {describedAuditRow, describedSummary} from '../../core/audit/described.js'
import {withLag} from '../../core/audit/lag.js'
import type {Denial} from '../../core/errors.js'
import {explainDescribed} from '../../core/explain/explain.js'
import {TopicHasher} from '../../core/hash.js'
import type {DescribedGroup} from '../../core/explain/report/described.js'
import type {ClusterMetadata} from '../../core/metadata.js'
import type {GroupType} from '../../core/replay/index.js'
import {describeListed} from '../../sources/group-describe.js'
import type {Session} from '../session.js'
import {type AuditSettings, groupLags, type PassResult} from './pass.js'

/** What a describe-only pass read (a describe-only watch compares it with the poll before). */
export interface DescribedPoll {
  live: ClusterMetadata
  described: DescribedGroup[]
  hasher: TopicHasher
  /** When the describes were answered. */
  answeredAt: number
}

export async function describedAuditPass(
  session: Session,
  o: AuditSettings,
  p: {started: number; quiet?: boolean; denial?: Denial; onClusterId?: (clusterId: string) => void; onPolled?: (poll: DescribedPoll) => void},
): Promise<PassResult> {
  const warn = (m: string) => session.warn(m)
  return session.withCluster(
    async (client, progress) => {
      const [live, listed] = await Promise.all([client.clusterMetadata(), client.listGroups()])
      const clusterId = live.clusterId ?? null
      p.onClusterId?.(clusterId ?? '')
      const wanted = listed.filter(g => o.match(g.groupId) && (!o.types || o.types.has(g.type as GroupType)))
      // a group whose describe is refused is left out, named with its grant: the other groups are still audited
      const {described, refused} = await describeListed(client, wanted, progress, warn)
      // one hasher for every group: each topic is hashed once per audit, as in a pass over the records
      const hasher = new TopicHasher(live)
      p.onPolled?.({live, described, hasher, answeredAt: Date.now()})
      const rows = described.map(d =>
        describedAuditRow(explainDescribed(d.group, d, {live, hasher, now: p.started, stuckAfterMs: o.stuckAfterMs, denial: p.denial})),
      )
      const lags = o.lag ? await groupLags(client, rows, progress, warn) : undefined
      const summary = describedSummary(
        rows,
        {durationMs: Date.now() - p.started},
        {failOn: o.failOn, clusterId, startedAt: p.started, filtered: o.filtered, denial: p.denial, refused},
      )
      return {
        rows: withLag(rows, lags),
        summary,
        history: {recorded: false, disabled: true, reason: 'describe-only'},
        historyNote: undefined,
        incremental: undefined,
        checkpointsFailedWithHistory: false,
        bumps: [],
        revisions: [],
        metadataLog: undefined,
      }
    },
    {progress: 'describing groups', quiet: p.quiet},
  )
}
