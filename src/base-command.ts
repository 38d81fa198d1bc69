/**
 * The base of every command: `--json` (oclif prints the value run() returns), `--debug`, and one place that
 * turns errors into a message, a "Try this:" hint and an exit code (0 ok, 1 runtime/Kafka, 2 usage, 3 finding).
 */
import {Command, Errors, Flags, type Interfaces, settings} from '@oclif/core'
import {RdError} from './core/errors.js'

export type FlagsOf<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type ArgsOf<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export const EXIT = {ok: 0, runtime: 1, usage: 2, finding: 3} as const

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

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

  public override async init(): Promise<void> {
    await super.init()
    if (this.argv.includes('--debug')) settings.debug = true
    const {args, argv, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      // stdin is read only where a flag asks for it (`--metadata-file -`): oclif would take it as a missing argument
      args: Object.fromEntries(Object.entries(this.ctor.args ?? {}).map(([k, a]) => [k, {...a, ignoreStdin: true}])),
      strict: this.ctor.strict,
    })
    this.flags = flags as FlagsOf<T>
    this.args = args as ArgsOf<T>
    this.argList = argv as string[]
  }

  /** Progress and notes for humans: stderr, never under --json. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`${message}\n`)
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    let out: Error & {oclif?: {exit?: number}} = err
    if (err instanceof RdError) {
      out = new Errors.CLIError(err.message, {exit: err.exitCode, code: err.code, suggestions: err.hint ? [err.hint] : undefined})
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
    return super.catch(out)
  }

  protected override toErrorJson(err: unknown): unknown {
    const e = err as Errors.CLIError
    return {
      error: {
        code: e.code ?? 'ERROR',
        message: e.message,
        ...(e.suggestions?.length ? {hint: e.suggestions.join(' ')} : {}),
        exitCode: e.oclif?.exit ?? 1,
      },
    }
  }
}
