/** `group explain --html FILE`: the report's page written atomically (a reader sees the old file or the new one). */
import type {OwnershipLanes} from '../../core/cost/index.js'
import {RuntimeError} from '../../core/errors.js'
import type {ExplainReport} from '../../core/explain/explain.js'
import {describeWriteError, writeOutputFile} from '../../io/atomic-file.js'
import {explainHtml, type HtmlOptions} from '../../render/html/page.js'

/** Renders and writes the page; `note` is told where (not when the page went to stdout). */
export function writeExplainHtml(file: string, report: ExplainReport, lanes: OwnershipLanes | undefined, o: HtmlOptions, note: (m: string) => void): void {
  const page = Buffer.from(explainHtml(report, lanes ?? null, o), 'utf8')
  try {
    writeOutputFile(file, page)
  } catch (error) {
    throw new RuntimeError(
      `could not write ${file}: ${describeWriteError(error)}`,
      'Check the directory exists, is writable and has space; the previous file, if any, is unchanged.',
      'OUTPUT_WRITE',
    )
  }
  if (file !== '-') note(`wrote the timeline of ${report.group} (${report.timeline.length} bumps, ${page.length} bytes) to ${file}`)
}
