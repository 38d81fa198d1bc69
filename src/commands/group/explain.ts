import {EXIT} from '../../cli/base-command.js'
import {EXPLAIN_DESCRIPTION, explainArgs, explainFlags, groupArgument} from '../../cli/explain-flags.js'
import {parseGroupPattern} from '../../cli/flag-types.js'
import {LiveCommand} from '../../cli/live-command.js'
import {styleOf} from '../../cli/style-flags.js'
import {type SchemaId, SCHEMAS, toDocument} from '../../core/documents.js'
import {type ErrorCode, type GroupRefusal, InputError} from '../../core/errors.js'
import type {ExplainReport} from '../../core/explain/explain.js'
import {isGroupPattern} from '../../core/group-filter.js'
import type {ExplainList} from '../../operations/explain/many.js'
import {type ExplainedOne, explainOne} from '../../operations/explain/one.js'
import type {BumpEvent, BumpRevision} from '../../core/audit/watch.js'
import {renderExplain} from '../../render/explain.js'
import {terminalSafeJson} from '../../render/terminal.js'
import {print} from '../../io/stdout.js'

export default class GroupExplain extends LiveCommand<typeof GroupExplain> {
  static override schema = SCHEMAS.groupExplain
  static override summary = 'Why did this group rebalance, and is a rebalance coming? Timeline and verdict.'
  static override description = EXPLAIN_DESCRIPTION
  static override examples = [
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092',
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092 --last 5',
    '<%= config.bin %> <%= command.id %> my-group -b kafka:9092 --fail-on-pending',
    '<%= config.bin %> <%= command.id %> my-group -b kafka:9092 --html g.html --last 9',
    '<%= config.bin %> <%= command.id %> "orders-*" -b localhost:9092 --ndjson',
    '<%= config.bin %> <%= command.id %> --all -b localhost:9092 --fail-on-pending',
  ]
  static override args = explainArgs
  static override flags = explainFlags

  protected override documentSchema(result: unknown): SchemaId {
    return result !== null && typeof result === 'object' && 'groups' in result ? SCHEMAS.groupExplainList : SCHEMAS.groupExplain
  }

  async run(): Promise<ExplainReport | ExplainList> {
    const {flags} = this
    const bad = (message: string, hint: string, code: ErrorCode = 'BAD_GROUP_PATTERN') => new InputError(message, hint, code)
    const arg = groupArgument(this.args.group, flags, this.jsonEnabled())
    // a wrong directory is a usage error before anything is read from the cluster, as in audit
    if (flags['metadata-log']) await (await import('../../sources/metadata-log.js')).listMetadataLog(flags['metadata-log'])
    const {since, last} = flags
    const o = {now: Date.now(), stuckAfterMs: flags['stuck-after'], historyDir: flags['history-dir'], metadataLogDir: flags['metadata-log'], since, last}
    const pattern = flags.all || flags.literal ? undefined : isGroupPattern(arg!) ? arg : undefined
    if (flags.all || pattern !== undefined) {
      const what = pattern === undefined ? '--all' : `"${pattern}"`
      if (flags.watch !== undefined)
        throw bad(
          `--watch follows one group; ${what} is several`,
          'Give one group id (--literal for an id with * or ? in it), or use `audit --watch --group PATTERN`.',
        )
      const accept = pattern === undefined ? () => true : parseGroupPattern(pattern).accept
      const describeOnly = flags['describe-only'] ? 'asked' : 'on-denial'
      const refused: GroupRefusal[] = []
      const quiet = this.jsonEnabled() || flags.ndjson
      const {explainMany} = await import('../../operations/explain/many.js')
      const reports = await explainMany(this.session, accept, {...o, concurrency: flags.concurrency, quiet, describeOnly, onRefused: r => refused.push(r)})
      this.printMany(reports, pattern ?? '--all', o.now, refused.length)
      // a group left out because its describe was refused: the answer is incomplete (the warning names the grant)
      if (refused.length > 0) this.exitWith(EXIT.runtime)
      return {pattern: pattern ?? null, all: flags.all === true, groups: reports, ...(refused.length > 0 ? {refused} : {})}
    }
    if (flags.ndjson && flags.watch === undefined)
      throw bad('--ndjson is for several groups (a pattern or --all) or --watch', 'Use --json for one group.', 'BAD_INPUT')
    const describeOnly = flags['describe-only'] ? 'asked' : 'on-denial'
    const first = await explainOne(this.session, arg!, {...o, describeOnly, lanes: flags.html !== undefined})
    const {report, lanes} = first
    if (flags.watch !== undefined) return this.watch(arg!, first, o)
    if (flags.html !== undefined) (await import('../../operations/explain/html.js')).writeExplainHtml(flags.html, report, lanes, o, m => this.note(m))
    if (!this.jsonEnabled() && flags.html !== '-') this.logRendered(renderExplain(report, styleOf(flags, o.now)))
    if (report.verdict.code === 'NOT_FOUND') {
      this.note('Try this: check the group id (`group list` lists every group).')
      this.exitWith(EXIT.notFound)
    } else if (flags['fail-on-pending'] && report.verdict.pending) this.exitWith(EXIT.finding)
    return report
  }

  /** The first report, then every new bump (and revision) as the watch reads them. */
  private async watch(group: string, first: ExplainedOne, o: {now: number; stuckAfterMs: number | undefined; historyDir: string | undefined}) {
    const {flags} = this
    const {report} = first
    if (flags.ndjson) print(`${terminalSafeJson(JSON.stringify(toDocument(SCHEMAS.groupExplain, report, this.warnings)))}\n`)
    else this.logRendered(renderExplain(report, styleOf(flags, o.now)))
    this.warnings.length = 0
    const {ndjson} = flags
    const [{printBumps, printRevisions}, {watchExplained}] = await Promise.all([import('../../io/watch-loop.js'), import('../../operations/explain/watch.js')])
    const w = {interval: flags.watch!, stuckAfterMs: o.stuckAfterMs, historyDir: o.historyDir}
    const sink = {
      bumps: (e: BumpEvent[]) => printBumps(e, ndjson),
      revisions: (e: BumpRevision[]) => printRevisions(e, ndjson),
      readEnded: () => void (this.warnings.length = 0),
    }
    await watchExplained(this.session, group, first, w, sink)
    return report
  }

  /**
   * One report per group (text or NDJSON); exit 4 when nothing matched (and none was refused), 3 with
   * --fail-on-pending when any is pending.
   */
  private printMany(reports: ExplainReport[], asked: string, now: number, refused: number): void {
    const {flags} = this
    if (flags.ndjson) {
      const lines = reports.map((r, i) => terminalSafeJson(JSON.stringify(toDocument(SCHEMAS.groupExplain, r, i === reports.length - 1 ? this.warnings : []))))
      if (lines.length > 0) print(`${lines.join('\n')}\n`)
    } else if (!this.jsonEnabled()) {
      const style = styleOf(flags, now)
      reports.forEach((r, i) => this.logRendered(`${i === 0 ? '' : '\n'}${renderExplain(r, style)}`))
      const pending = reports.filter(r => r.verdict.pending).length
      if (reports.length > 0)
        this.log(
          `\n${reports.length} group${reports.length === 1 ? '' : 's'} matched ${asked}${pending ? `; ${pending} with a rebalance pending or in progress` : ''}`,
        )
    }
    if (reports.length === 0 && refused === 0) {
      const literal = asked === '--all' ? '' : '; for a group id with * or ? in it, add --literal'
      this.note(`no group matches ${asked}. Try this: \`group list\` lists every group${literal}.`)
      this.exitWith(EXIT.notFound)
    } else if (flags['fail-on-pending'] && reports.some(r => r.verdict.pending)) this.exitWith(EXIT.finding)
  }
}
