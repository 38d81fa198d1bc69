import * as Args from '@oclif/core/args'
import {BaseCommand} from '../cli/base-command.js'
import {SCHEMAS} from '../core/documents.js'
import {completionScript, type Shell, SHELLS} from '../render/completion-scripts.js'
import {print} from '../io/stdout.js'

export default class Completion extends BaseCommand<typeof Completion> {
  static override schema = SCHEMAS.completion
  static override summary = 'Print the shell completion script for bash, zsh or fish.'
  static override description = `Group ids (group explain, group records, --group) and topic names (topic-hash, --topic) are read from the
cluster the command line names (-b, --command-config, --profile, or their environment variables) when you press
TAB: ListGroups and Metadata only (read-only), with a 3 s timeout unless --timeout is on the line, at most 1,000
names; nothing is offered when the cluster cannot be reached. Install:
  bash: rebalance-doctor completion bash > ~/.local/share/bash-completion/completions/rebalance-doctor
  zsh:  rebalance-doctor completion zsh > "\${fpath[1]}/_rebalance-doctor"   (then: compinit)
  fish: rebalance-doctor completion fish > ~/.config/fish/completions/rebalance-doctor.fish

--json prints {schema, shell, script, warnings}.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> bash > ~/.bash_completion.d/<%= config.bin %>',
    "echo 'source <(<%= config.bin %> <%= command.id %> bash)' >> ~/.bashrc",
    '<%= config.bin %> <%= command.id %> fish > ~/.config/fish/completions/rd.fish',
  ]

  static override args = {
    shell: Args.string({description: 'bash, zsh or fish', required: true, options: [...SHELLS]}),
  }

  async run(): Promise<{shell: Shell; script: string}> {
    const shell = this.args.shell as Shell
    const script = completionScript(shell, this.config.bin)
    if (!this.jsonEnabled()) print(script)
    return {shell, script}
  }
}
