import {BaseCommand} from '../cli/base-command.js'
import {type Completion, complete, type CompletionCommand, liveCandidates} from '../core/completion.js'
import {SCHEMAS} from '../core/documents.js'
import {connectionFlags} from '../cli/connection-flags.js'
import {withKafka} from '../kafka/session.js'
import {print} from '../io/stdout.js'

/** A cluster that does not answer within this is no completion (unless --timeout is on the line). */
const LIVE_TIMEOUT_MS = 3000

export default class CompletionValues extends BaseCommand<typeof CompletionValues> {
  static override schema = SCHEMAS.completionValues
  static override hidden = true
  static override strict = false
  static override summary = 'For the completion scripts: what may follow the words typed so far.'
  static override description = `The last word is the one being completed. Live group and topic names come from the cluster the words name
(-b, --command-config, --profile, --timeout, or their environment variables); read-only, silent when it cannot be
read. A last line ":files" asks the shell for file names. --json prints {schema, values, files, warnings}.`

  async run(): Promise<{values: string[]; files: boolean}> {
    const words = this.argv.includes('--') ? this.argv.slice(this.argv.indexOf('--') + 1) : this.argList
    const commands: CompletionCommand[] = this.config.commands
      .filter(c => !c.hidden)
      .map(c => ({
        words: c.id.split(':'),
        flags: Object.entries(c.flags ?? {})
          .filter(([, f]) => !f.hidden)
          .map(([name, f]) => ({
            name,
            char: f.char,
            takesValue: f.type === 'option',
            options: f.type === 'option' ? f.options : undefined,
            helpValue: f.type === 'option' ? (f.helpValue as string | undefined) : undefined,
          })),
        args: Object.keys(c.args ?? {}),
        argOptions: Object.values(c.args ?? {}).map(a => a.options),
        variadic: c.strict === false,
      }))
    const c = complete(commands, words)
    const values = c.kind === 'values' ? c.values : c.kind === 'dynamic' ? await this.live(words, c) : []
    if (!this.jsonEnabled()) print(values.map(v => `${v}\n`).join('') + (c.kind === 'files' ? ':files\n' : ''))
    return {values, files: c.kind === 'files'}
  }

  /** Group or topic names from the cluster the words name; none when it cannot be read. */
  private async live(words: readonly string[], c: Extract<Completion, {kind: 'dynamic'}>): Promise<string[]> {
    try {
      const conn: string[] = []
      for (let i = 0; i < words.length - 1; i++) {
        const w = words[i]
        if (/^--(bootstrap-server|command-config|profile|timeout)=/.test(w)) conn.push(w)
        else if (/^(-b|--bootstrap-server|--command-config|--profile|--timeout)$/.test(w) && i + 1 < words.length - 1) conn.push(w, words[++i])
      }
      // the connection flags of the line, with their environment variables and profile as the commands take them
      const {flags} = await this.parse({flags: connectionFlags, strict: false, args: {}}, conn)
      const timeout = conn.some(w => w.startsWith('--timeout')) ? flags.timeout : LIVE_TIMEOUT_MS
      const names = await withKafka({...flags, timeout}, {warn: () => {}}, async client =>
        c.what === 'groups' ? (await client.listGroups()).map(g => g.groupId) : (await client.topics()).map(t => t.name),
      )
      return liveCandidates(names, c)
    } catch {
      return [] // no cluster, no names: a completion never prints errors
    }
  }
}
