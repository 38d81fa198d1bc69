/**
 * `audit` (one run): a pass, the --prometheus file, and the summary with what was written where. The exit code
 * folds findings, a history not written (5) and a --prometheus file not written (1) as docs/output.md says.
 * Without READ on `__consumer_offsets` (or with --describe-only) the pass is read from the describes instead.
 */
import type {AuditSummary} from '../../core/audit/audit.js'
import {exitWithHistory, exitWithPrometheus, historyFailed, type HistoryStatus, type IncrementalStatus, type PrometheusStatus} from '../../core/audit/pass.js'
import {rowCacheKey} from '../../core/audit/row-cache.js'
import type {AuditRow} from '../../core/audit/stored-row.js'
import {defaultHistoryDir} from '../../history/store.js'
import {checkpointStore} from '../../sources/audit-checkpoint.js'
import {offsetsReadDenied} from '../../sources/group-log.js'
import type {Session} from '../session.js'
import {describedAuditPass} from './described.js'
import type {AuditMetadataLog} from './metadata-log.js'
import {type AuditSettings, auditPass} from './pass.js'
import {type PrometheusTarget, writePrometheus, writePrometheusFailure} from './prometheus.js'

export interface AuditRunOptions {
  started: number
  quiet: boolean
  incremental: boolean
  /** The tool's version: cached audit rows of another version are not reused. */
  version: string
  prometheus?: PrometheusTarget
  /** --describe-only: no partition of __consumer_offsets is read, the pass is read from the describes. */
  describeOnly?: boolean
}

export interface AuditOutcome {
  rows: AuditRow[]
  summary: AuditSummary & {
    history: HistoryStatus
    prometheus?: PrometheusStatus
    incremental?: IncrementalStatus
    metadataLog?: AuditMetadataLog
  }
  historyFailed: boolean
  historyNote: string | undefined
  checkpointsFailedWithHistory: boolean
  /** Read describe-only: asked (--describe-only), or on the refusal (whose warning named the grant already). */
  describeOnly?: 'asked' | 'on-denial'
}

export async function auditOnce(session: Session, o: AuditSettings, r: AuditRunOptions): Promise<AuditOutcome> {
  let clusterIdOfRun: string | undefined
  let pass
  let denied = false
  const described = {started: r.started, quiet: r.quiet, onClusterId: (id: string) => (clusterIdOfRun = id)}
  try {
    pass = r.describeOnly
      ? await describedAuditPass(session, o, described)
      : await auditPass(session, o, {
          ...described,
          checkpoints: clusterId => {
            if (!r.incremental) return undefined
            if (clusterId === null) {
              session.warn(
                "--incremental: the cluster reports no cluster id, so checkpoints cannot be told apart from another cluster's; reading every partition in full",
              )
              return undefined
            }
            return {store: checkpointStore(o.historyDir ?? defaultHistoryDir(), clusterId), clusterId, rowsKey: rowCacheKey(r.version, o.stuckAfterMs)}
          },
        }).catch(error => {
          if (!offsetsReadDenied(error)) throw error
          // said once, as group explain's fallback says it: what was refused and the grant that gives the rest
          session.warn(
            `${error.message}: answering every group from its describe, OffsetFetch and the live metadata instead (no drift, stuck members, unknown records nor history without the records). ${error.hint}`,
          )
          denied = true
          return describedAuditPass(session, o, {...described, denial: error.denial})
        })
  } catch (error) {
    // a failed run replaces the file with its failure: a stale exit code or timestamp would never alert
    if (r.prometheus) {
      const failed = writePrometheusFailure(r.prometheus, error, r.started, clusterIdOfRun)
      if (failed) session.report(`Error: could not write ${r.prometheus.file}: ${failed}`)
    }
    throw error
  }
  const {rows, history, historyNote, incremental, metadataLog, checkpointsFailedWithHistory} = pass
  const failed = historyFailed(history)
  const exitCode = exitWithHistory(pass.summary, history)
  // a failure here is reported, never thrown: it must not cost the report on stdout
  const prometheus = r.prometheus && writePrometheus(r.prometheus, {...pass.summary, exitCode}, rows, failed)
  const summary = {
    ...pass.summary,
    exitCode: exitWithPrometheus(exitCode, prometheus),
    history,
    ...(prometheus ? {prometheus} : {}),
    ...(incremental ? {incremental} : {}),
    ...(metadataLog ? {metadataLog} : {}),
  }
  const describeOnly = r.describeOnly ? 'asked' : denied ? 'on-denial' : undefined
  return {rows, summary, historyFailed: failed, historyNote, checkpointsFailedWithHistory, ...(describeOnly ? {describeOnly} : {})}
}
