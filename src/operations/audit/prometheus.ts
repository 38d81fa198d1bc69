/** audit --prometheus: the textfile of a pass, or of a failed run; a failure to write is a status, never thrown. */
import {basename} from 'node:path'
import type {AuditSummary, RowFacts} from '../../core/audit/audit.js'
import {prometheusText, type SeriesOptions} from '../../core/audit/output.js'
import type {PrometheusStatus} from '../../core/audit/pass.js'
import {describeWriteError, writeOutputFile} from '../../io/atomic-file.js'
import {failureOf, writeFailureFile} from '../../io/prometheus-file.js'

export interface PrometheusTarget {
  file: string
  /** --prometheus-label, and the file's name (node_exporter drops a series two files hold). */
  series: SeriesOptions
}

export function prometheusTarget(file: string, labels: Array<[string, string]>): PrometheusTarget {
  return {file, series: {labels, fileName: basename(file)}}
}

/** The pass's metrics, written atomically. */
export function writePrometheus(t: PrometheusTarget, summary: AuditSummary, rows: readonly RowFacts[], historyWriteFailed: boolean): PrometheusStatus {
  try {
    writeOutputFile(t.file, prometheusText(summary, rows, {historyWriteFailed, ...t.series}))
    return {file: t.file, written: true}
  } catch (error) {
    return {file: t.file, written: false, error: describeWriteError(error)}
  }
}

/**
 * A failed run replaces the file with its failure (rebalance_doctor_up 0, the exit code, the error code): a stale
 * exit code or timestamp would never alert. Returns why the file could not be written, if it could not.
 */
export function writePrometheusFailure(t: PrometheusTarget, error: unknown, started: number, clusterId: string | undefined): string | undefined {
  return writeFailureFile(t.file, {clusterId, startedAt: started, durationMs: Date.now() - started, ...failureOf(error)}, t.series)
}
