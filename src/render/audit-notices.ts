/** What `audit` says on stderr after its report: the history and --prometheus failures, the notes (history, metadata log). */
import type {AuditOutcome} from '../operations/audit/once.js'
import type {AuditMetadataLog} from '../operations/audit/metadata-log.js'

/** report: printed whatever the output (--json too); otherwise a note for humans. */
export interface AuditNotice {
  report: boolean
  text: string
}

/**
 * `notes`: the notes are wanted (not --json, --ndjson, nor a --quiet run with nothing to say); `historyDirEnv`: the
 * variable that names the history directory (the hint names it).
 */
export function auditNotices(o: AuditOutcome, show: {notes: boolean; filters: string; historyDirEnv: string}): AuditNotice[] {
  const {history, prometheus, metadataLog, exitCode} = o.summary
  const out: AuditNotice[] = []
  if (o.historyFailed && 'error' in history) {
    const checkpoints = o.checkpointsFailedWithHistory ? ', nor the --incremental checkpoints (the next run reads every partition in full)' : ''
    out.push({
      report: true,
      text: `Warning: the audit history could not be written to ${history.dir}: ${history.error}${checkpoints}. The report is complete; \`group explain\` will lack this audit. Try this: --history-dir DIR (or $${show.historyDirEnv}) naming a writable directory with space; --no-record turns the history off.`,
    })
  } else if (o.historyNote && show.notes) out.push({report: false, text: o.historyNote})
  if (metadataLog && show.notes) out.push({report: false, text: metadataLogNote(metadataLog)})
  // (a refusal was warned of as it came, with the grant; with --describe-only this is the one place it is named)
  const reading = o.summary.reading
  if (reading && show.notes && o.describeOnly === 'asked')
    for (const m of reading.missing)
      out.push({
        report: false,
        text: `read describe-only (${reading.reason}): the ${m.what} need ${m.needs.operation} on ${m.needs.resourceType} ${m.needs.resourceName}; grant: ${m.grant}`,
      })
  if (prometheus && !prometheus.written)
    out.push({
      report: true,
      text: `Error: could not write ${prometheus.file}: ${prometheus.error}. The previous file, if any, is unchanged; check the directory exists, is writable and has space.`,
    })
  // (4: no group matched the filters)
  if (exitCode === 4) out.push({report: false, text: `no group matches ${show.filters}. Try this: drop the filters to list every group (\`audit --all\`).`})
  return out
}

function metadataLogNote(m: AuditMetadataLog): string {
  const span = `${m.historyStart.time ?? 'its first record'} .. ${m.lastTime ?? '?'}${m.damage ? `, damaged at offset ${m.damage.offset}: exact to there only` : ''}`
  return `metadata log ${m.dir} (${span}): ${m.groupsDrifting === 0 ? 'no group drifts' : `drift of ${m.driftsAttributed} of ${m.groupsDrifting} drifting group(s) named exactly`}`
}
