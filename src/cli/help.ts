/**
 * oclif's help, with the `docs/NAME.md` paths in descriptions and examples pointed at the documents the package ships
 * (doc-paths.ts): an installed user has no repository to look in. The paths are replaced before oclif lays the text
 * out, so its wrapping still fits the terminal.
 */
import type {Command} from '@oclif/core/command'
import {Help} from '@oclif/core/help'
import {withInstalledDocs} from './doc-paths.js'

export default class DocsHelp extends Help {
  protected override formatCommand(command: Command.Loadable): string {
    // the generated reference (docs/commands.md, `npm run readme`) keeps the repository's relative paths
    return process.env.RD_DOC_PATHS === 'repository' ? super.formatCommand(command) : super.formatCommand(withDocPaths(command))
  }
}

/** The command's texts (description, summary, examples, flag and argument descriptions) with installed doc paths. */
export function withDocPaths<C extends Command.Cached>(command: C, docs: (text: string) => string = withInstalledDocs): C {
  const text = (s: string | undefined) => (s === undefined ? s : docs(s))
  const described = <T extends {description?: string; summary?: string}>(o: T): T => ({...o, description: text(o.description), summary: text(o.summary)})
  return {
    ...command,
    description: text(command.description),
    summary: text(command.summary),
    examples: command.examples?.map(e => (typeof e === 'string' ? docs(e) : {...e, description: docs(e.description)})),
    flags: Object.fromEntries(Object.entries(command.flags).map(([k, f]) => [k, described(f)])),
    args: Object.fromEntries(Object.entries(command.args).map(([k, a]) => [k, described(a)])),
  }
}
