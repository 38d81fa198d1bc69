/**
 * oclif's parse errors as our usage errors: one line naming what is wrong and a hint, instead of oclif's text and
 * the command's whole usage (23-38 lines) after it. oclif's wording is replaced where it shows values as they are
 * held (`--group=[object Object] cannot also be provided when using --incremental`) or talks about something else
 * (a missing argument explained by a note on the multi-value `--type`).
 */
import {type ErrorCode, InputError, RdError} from '../core/errors.js'
import {nearestOf} from '../core/nearest.js'

interface Command {
  /** e.g. group:records */
  readonly id: string
  /** e.g. rebalance-doctor */
  readonly bin: string
  readonly flags: readonly string[]
  readonly args: ReadonlyArray<{name: string; required?: boolean}>
}

type ParseError = Error & {args?: Array<{name?: string} | string>; flags?: string[]}

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001B\[[0-9;]*m/g, '')

/** The usage error for `error`, thrown while oclif parsed `command`'s command line; other errors as they are. */
export function usageError(error: unknown, command: Command): unknown {
  if (!(error instanceof Error) || error instanceof RdError) return error
  const e = error as ParseError
  const name = `${command.bin} ${command.id.replaceAll(':', ' ')}`
  const help = `See \`${name} --help\`.`
  const bad = (message: string, code: ErrorCode, hint = help) => new InputError(message, hint, code)
  const text = plain(e.message)
    .replace(/\nSee more help with --help$/, '')
    .replace(/^Parsing --[\w-]+ \n\t/, '')
  switch (e.constructor.name) {
    case 'NonExistentFlagsError': {
      const flags = e.flags ?? []
      const near = flags.length === 1 ? nearestOf(flags[0].replace(/^-+/, '').split('=')[0], command.flags) : undefined
      return bad(
        `unknown flag${flags.length === 1 ? '' : 's'} ${flags.join(', ')} for ${name}`,
        'UNKNOWN_FLAG',
        near ? `Did you mean --${near}? ${help}` : help,
      )
    }
    case 'UnexpectedArgsError': {
      const args = (e.args ?? []).map(String)
      return bad(`unexpected argument${args.length === 1 ? '' : 's'}: ${args.join(' ')}`, 'UNEXPECTED_ARGUMENT', `Quote a value that has spaces in it. ${help}`)
    }
    case 'RequiredArgsError': {
      const missing = (e.args ?? []).map(a => (typeof a === 'string' ? a : (a.name ?? '')).toUpperCase())
      const usage = [name, ...command.args.map(a => (a.required ? a.name.toUpperCase() : `[${a.name.toUpperCase()}]`))].join(' ')
      return bad(`missing ${missing.join(' and ')}: ${usage}`, 'MISSING_ARGUMENT')
    }
    case 'FailedFlagValidationError':
    case 'ViolatedFlagConstraintError': {
      const reasons = text
        .split('\n')
        .slice(1)
        .map(r => r.trim())
        .filter(Boolean)
      const worded = [...new Set(reasons.map(conflict))]
      return bad(worded.join('; '), worded.every(r => r.includes(' cannot be used with ')) ? 'FLAG_CONFLICT' : 'BAD_INPUT')
    }
    case 'FlagInvalidOptionError':
    case 'ArgInvalidOptionError':
      return bad(text.replace(/^Expected (\S+?)=(.*) to be one of: /, '$1 $2 is not one of: '), 'BAD_FLAG_VALUE')
    default:
      // oclif's other parse errors (a flag without its value, a flag given twice): their one line, with the hint
      return 'parse' in e || /^Flag --|expects a value/.test(text) ? bad(text.split('\n')[0], 'BAD_INPUT') : error
  }
}

/** oclif's "--a=VALUE cannot also be provided when using --b" (VALUE as held: an object shows as [object Object]). */
function conflict(reason: string): string {
  const m = /^--([\w-]+)(?:=.*)? cannot also be provided when using --([\w-]+)$/.exec(reason)
  return m ? `--${m[1]} cannot be used with --${m[2]}` : reason
}
