/**
 * The base of every command: `--json` (oclif prints the value run() returns), `--debug`, and one place that
 * turns errors into a message, a "Try this:" hint and an exit code (0 ok, 1 runtime/Kafka, 2 usage, 3 finding).
 * Everything a command prints for humans (log, warn, notes, errors) passes through forTerminal here, so ids and
 * names from a cluster or a file cannot drive the terminal; JSON keeps exact values (terminalSafeJson).
 */
import {Command} from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import * as Flags from '@oclif/core/flags'
import {settings} from '@oclif/core/settings'
import {ux} from '@oclif/core/ux'
import type * as Interfaces from '@oclif/core/interfaces'
import {type SchemaId, SCHEMAS, toDocument, type Warning} from '../core/documents.js'
import {RdError} from '../core/errors.js'
import {jsonPieces, writeInChunks} from '../render/json-stream.js'
import {forTerminal, terminalSafeJson} from '../render/terminal.js'
import {partsWriter} from '../io/output-kind.js'
import {isOutputFailure} from '../io/stdout.js'
import {type OutputFormat, outputFormatOf} from './output-flags.js'

/** The YAML library, loaded only for -o yaml (init): ~60 ms of start-up every other run would pay. */
let yaml: typeof import('yaml') | undefined

export type FlagsOf<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type ArgsOf<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** 4: nothing to report: the group has no records, or the filters matched no group or record. */
export const EXIT = {ok: 0, runtime: 1, usage: 2, finding: 3, notFound: 4} as const

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  /** The `schema` of the command's --json document (see core/documents.ts). */
  static schema: SchemaId

  static override baseFlags = {
    debug: Flags.boolean({
      description: 'Print stack traces and debug logs to stderr (secrets are never printed).',
      helpGroup: 'GLOBAL',
    }),
  }

  protected flags!: FlagsOf<T>
  protected args!: ArgsOf<T>
  /** All positional arguments, for commands that take a variable number. */
  protected argList: string[] = []
  /** Every warning of this run, for the `warnings` of the JSON document (oclif prints none under --json). */
  protected readonly warnings: Warning[] = []

  public override async init(): Promise<void> {
    await super.init()
    // before parsing: a usage error is printed as YAML too
    if (this.outputFormat() === 'yaml') yaml ??= await import('yaml')
    if (this.argv.includes('--debug')) settings.debug = true
    const {args, argv, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      // stdin is read only where a flag asks for it (`--metadata-file -`): oclif would take it as a missing argument
      args: Object.fromEntries(Object.entries(this.ctor.args ?? {}).map(([k, a]) => [k, {...a, ignoreStdin: true}])),
      strict: this.ctor.strict,
    }).catch(async error => {
      // (loaded for a usage error only, as the docs' paths below: start-up)
      const {usageError} = await import('./usage-errors.js')
      throw usageError(error, {
        id: this.id ?? '',
        bin: this.config.bin,
        flags: Object.keys({...this.ctor.flags, ...(super.ctor as typeof BaseCommand).baseFlags}),
        args: Object.entries(this.ctor.args ?? {}).map(([name, a]) => ({name, required: a.required})),
      })
    })
    this.flags = flags as FlagsOf<T>
    this.args = args as ArgsOf<T>
    this.argList = argv as string[]
  }

  /** Progress and notes for humans: stderr, never under --json. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`${forTerminal(message)}\n`)
  }

  /** A line on stderr whatever the output (an error met while the run goes on, a --watch notice): escaped. */
  protected report(line: string): void {
    process.stderr.write(`${forTerminal(line)}\n`)
  }

  /** The run's exit code when it returns normally (3 findings, 4 nothing matched, 5 history not written…). */
  protected exitWith(code: number): void {
    if (code !== EXIT.ok) process.exitCode = code
  }

  public override log(message = '', ...args: unknown[]): void {
    super.log(typeof message === 'string' ? forTerminal(message) : message, ...args)
  }

  /**
   * Text a renderer made terminal-safe itself (it escapes every piece of data, then adds colour): printed as it
   * is, since escaping it again would show the colour sequences as text.
   */
  protected logRendered(text: string): void {
    super.log(text)
  }

  public override logToStderr(message = '', ...args: unknown[]): void {
    super.logToStderr(typeof message === 'string' ? forTerminal(message) : message, ...args)
  }

  public override warn(input: string | Error): string | Error {
    this.warnings.push(typeof input === 'string' ? input : input.message)
    if (typeof input === 'string') super.warn(forTerminal(input))
    else super.warn(safeError(input))
    return input
  }

  /** A warning with a stable code, for the JSON document only: the command tells humans in its own words. */
  protected addWarning(code: string, message: string): void {
    this.warnings.push({code, message})
  }

  /** The schema of this run's document: the command's, unless one command prints two kinds (snapshot). */
  protected documentSchema(_result: unknown): SchemaId {
    return (this.constructor as typeof BaseCommand).schema
  }

  /** What run() returns, between its `schema` (first key) and the run's `warnings` (last key). */
  protected override toSuccessJson(result: unknown): unknown {
    return toDocument(this.documentSchema(result), result as object, this.warnings)
  }

  /** -o/--output of a command that has the format flag (not `cluster snapshot -o FILE`). */
  protected outputFormat(): OutputFormat | undefined {
    const flag = (this.ctor.flags as Record<string, {options?: readonly string[]}> | undefined)?.output
    return flag?.options?.includes('yaml') ? outputFormatOf(this.argv) : undefined
  }

  /** --json, or -o json / -o yaml (the same document). */
  public override jsonEnabled(): boolean {
    const format = this.outputFormat()
    return super.jsonEnabled() || format === 'json' || format === 'yaml'
  }

  /**
   * Plain JSON (what oclif prints when stdout is not colourised), C1/bidi controls as \u escapes: same values;
   * indented only on a terminal.
   * -o yaml: the same document as YAML, every string double-quoted so those escapes keep their values there too.
   */
  public override logJson(json: unknown): void {
    if (this.outputFormat() === 'yaml' && yaml) {
      ux.stdout(
        terminalSafeJson(
          yaml.stringify(JSON.parse(JSON.stringify(json)), {defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0}).trimEnd(),
        ),
      )
      return
    }
    // Indented for a reader on a terminal; one line into a pipe or a file (an audit of ~10,000 groups: 8.6 → 6.4 MB),
    // written in chunks (./render/json-stream.ts)
    if (process.stdout.isTTY || !json || typeof json !== 'object' || Array.isArray(json)) {
      ux.stdout(terminalSafeJson(JSON.stringify(json, null, process.stdout.isTTY ? 2 : undefined)))
      return
    }
    const doc = json as Record<string, unknown>
    writeInChunks(
      (function* () {
        yield* jsonPieces(doc)
        yield '\n'
      })(),
      partsWriter(process.stdout),
      terminalSafeJson,
    )
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    // stdout itself failed: nothing more can be printed there; bin/run.js ends the run (src/io/stdout.ts)
    if (isOutputFailure(err)) throw err
    let out: Error & {oclif?: {exit?: number}} = err
    if (err instanceof RdError) {
      const {withInstalledDocs} = await import('./doc-paths.js')
      out = new Errors.CLIError(withoutFlagParseWrapper(err.message), {
        exit: err.exitCode,
        code: err.code,
        suggestions: err.hint ? [withInstalledDocs(err.hint)] : undefined,
      })
      Object.assign(out, {fields: err.fields})
      if (settings.debug) out.stack = err.stack
    } else if (!(err instanceof Errors.CLIError) && !(err instanceof Errors.ExitError) && !('oclif' in err)) {
      // A bug or an unexpected library failure: one line, the stack only with --debug.
      const cli = new Errors.CLIError(err.message || String(err), {
        exit: 1,
        code: 'UNEXPECTED',
        suggestions: ['Run again with --debug for the stack trace, and report it if it looks like a bug.'],
      })
      if (settings.debug) Object.defineProperty(cli, 'stack', {value: err.stack})
      out = cli
    }
    process.exitCode = out.oclif?.exit ?? 1
    // oclif's own errors (flag conflicts, a missing value) colour parts of their text: that colour is dropped, not
    // shown escaped; data in our errors keeps every character, escaped
    // eslint-disable-next-line no-control-regex
    if (!(err instanceof RdError) && out instanceof Errors.CLIError && typeof out.message === 'string')
      out.message = out.message.replace(/\u001B\[[0-9;]*m/g, '')
    // --json prints the exact message (toErrorJson); a terminal gets it with control characters escaped
    return super.catch(this.jsonEnabled() ? out : safeError(out))
  }

  protected override toErrorJson(err: unknown): unknown {
    const e = err as Errors.CLIError & {fields?: Record<string, unknown>}
    const error = {
      // an error without our code (oclif's own) is a usage error when it exits 2, else a runtime one
      code: e.code ?? ((e.oclif?.exit ?? 1) === 2 ? 'BAD_INPUT' : 'RUNTIME'),
      message: e.message,
      ...(e.suggestions?.length ? {hint: e.suggestions.join(' ')} : {}),
      exitCode: e.oclif?.exit ?? 1,
      ...e.fields,
    }
    return toDocument(SCHEMAS.error, {error}, this.warnings)
  }
}

/**
 * A flag type's own message (it names the flag, the value and what is accepted), without what oclif wraps around
 * an error thrown while parsing a flag ("Parsing --since \n\t... \nSee more help with --help").
 */
export function withoutFlagParseWrapper(message: string): string {
  const m = /^Parsing --[\w-]+ \n\t([\s\S]*)\nSee more help with --help$/.exec(message)
  return m ? m[1] : message
}

/** The error with its message, hints and stack terminal-safe (same class and oclif exit code). */
export function safeError<E extends Error>(err: E, options: {dropColour?: boolean} = {}): E {
  const e = err as E & {suggestions?: string[]}
  // SGR colour sequences only (ESC [ digits ; m), as oclif and its plugins write them; anything else is escaped
  // eslint-disable-next-line no-control-regex
  const colourless = (s: string) => (options.dropColour ? s.replace(/\u001B\[[0-9;]*m/g, '') : s)
  if (typeof e.message === 'string') e.message = forTerminal(colourless(e.message))
  if (typeof e.stack === 'string') Object.defineProperty(e, 'stack', {value: forTerminal(e.stack), configurable: true, writable: true})
  if (Array.isArray(e.suggestions)) e.suggestions = e.suggestions.map(s => forTerminal(String(s)))
  return e
}
