/**
 * Shell completion: the word logic (core/completion.ts), and the generated scripts run by a real bash (offline:
 * commands, flags, argument options, file completion; with no cluster, no live names and no error text).
 */
import {spawnSync} from 'node:child_process'
import {chmodSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {complete, type CompletionCommand, LIST_VALUES, liveCandidates, MAX_LIVE_NAMES} from '../../../src/core/completion.js'
import {FINDING_KINDS} from '../../../src/core/audit/audit.js'
import {GROUP_TYPES} from '../../../src/core/group-filter.js'
import {completionScript} from '../../../src/render/completion-scripts.js'

const conn = [
  {name: 'bootstrap-server', char: 'b', takesValue: true, helpValue: 'HOST:PORT'},
  {name: 'command-config', takesValue: true, helpValue: 'FILE'},
  {name: 'debug', takesValue: false},
]
const commands: CompletionCommand[] = [
  {words: ['group', 'explain'], flags: [...conn, {name: 'since', takesValue: true}], args: ['group'], variadic: false},
  {words: ['group', 'list'], flags: [...conn, {name: 'group', takesValue: true, helpValue: 'PATTERN'}], args: [], variadic: false},
  {words: ['topic-hash', 'compute'], flags: [...conn], args: ['topic'], variadic: true},
  {words: ['cluster', 'history'], flags: [...conn, {name: 'topic', takesValue: true, helpValue: 'TOPIC'}], args: [], variadic: false},
  {words: ['completion'], flags: [], args: ['shell'], argOptions: [['bash', 'zsh', 'fish']], variadic: false},
  {words: ['audit'], flags: [...conn, {name: 'fail-on', takesValue: true, options: ['drift', 'pending', 'none']}], args: [], variadic: false},
]

describe('complete: what may follow the words typed', () => {
  it('commands and their topics, then flags', () => {
    expect(complete(commands, [''])).toEqual({kind: 'values', values: ['audit', 'cluster', 'completion', 'group', 'topic-hash']})
    expect(complete(commands, ['gr'])).toEqual({kind: 'values', values: ['group']})
    expect(complete(commands, ['group', ''])).toEqual({kind: 'values', values: ['explain', 'list']})
    expect(complete(commands, ['group', 'explain', '--c'])).toEqual({kind: 'values', values: ['--command-config']})
    expect(complete(commands, ['nope', ''])).toEqual({kind: 'values', values: []})
  })

  it('live names where a group or topic goes: arguments, --topic, --group (also as --topic=…), after flags and their values', () => {
    expect(complete(commands, ['group', 'explain', 'ord'])).toEqual({kind: 'dynamic', what: 'groups', prefix: '', typed: 'ord'})
    expect(complete(commands, ['group', 'explain', '-b', 'h:9092', '--debug', ''])).toMatchObject({kind: 'dynamic', what: 'groups'})
    // the group is given: nothing more to offer as an argument
    expect(complete(commands, ['group', 'explain', 'g1', ''])).toEqual({kind: 'values', values: []})
    expect(complete(commands, ['topic-hash', 'compute', 'a', 'b', 'c'])).toMatchObject({kind: 'dynamic', what: 'topics', typed: 'c'})
    expect(complete(commands, ['cluster', 'history', '--topic', 'or'])).toMatchObject({kind: 'dynamic', what: 'topics', typed: 'or'})
    expect(complete(commands, ['cluster', 'history', '--topic=or'])).toEqual({kind: 'dynamic', what: 'topics', prefix: '--topic=', typed: 'or'})
    expect(complete(commands, ['group', 'list', '--group', ''])).toMatchObject({kind: 'dynamic', what: 'groups'})
  })

  it('fixed values, files, and nothing for free-form values', () => {
    expect(complete(commands, ['completion', ''])).toEqual({kind: 'values', values: ['bash', 'zsh', 'fish']})
    expect(complete(commands, ['audit', '--fail-on', 'd'])).toEqual({kind: 'values', values: ['drift']})
    expect(complete(commands, ['audit', '--fail-on=p'])).toEqual({kind: 'values', values: ['--fail-on=pending']})
    expect(complete(commands, ['group', 'explain', '--command-config', ''])).toEqual({kind: 'files'})
    expect(complete(commands, ['group', 'explain', '--since', ''])).toEqual({kind: 'values', values: []})
  })

  it('comma lists: --fail-on KINDS and --type TYPES offer the element being typed, after those given', () => {
    const cmds: CompletionCommand[] = [
      {
        words: ['audit'],
        flags: [
          {name: 'fail-on', takesValue: true, helpValue: 'KINDS'},
          {name: 'type', takesValue: true, helpValue: 'TYPES'},
        ],
        args: [],
        variadic: false,
      },
    ]
    expect(complete(cmds, ['audit', '--fail-on', ''])).toEqual({kind: 'values', values: ['all', 'none', ...FINDING_KINDS]})
    expect(complete(cmds, ['audit', '--fail-on', 'drift,st'])).toEqual({kind: 'values', values: ['drift,stuck']})
    // all and none stand alone; a kind given is not offered again
    expect(complete(cmds, ['audit', '--fail-on', 'drift,'])).toEqual({kind: 'values', values: FINDING_KINDS.filter(k => k !== 'drift').map(k => `drift,${k}`)})
    expect(complete(cmds, ['audit', '--type=consumer,s'])).toEqual({kind: 'values', values: ['--type=consumer,share', '--type=consumer,streams']})
    expect(LIST_VALUES.KINDS.values).toEqual(['all', 'none', ...FINDING_KINDS])
    expect(LIST_VALUES.TYPES.values).toEqual(GROUP_TYPES)
  })

  it('live names: prefix-filtered, sorted, bounded, only names a shell takes as one word', () => {
    const c = {kind: 'dynamic', what: 'groups', prefix: '', typed: 'o'} as const
    expect(liveCandidates(['orders', 'payments', 'o b', 'o\x1b[2J', "o'x", 'o$(rm)', 'orders', 'o.k-1_2'], c)).toEqual(['o.k-1_2', 'orders'])
    expect(
      liveCandidates(
        Array.from({length: MAX_LIVE_NAMES + 50}, (_, i) => `o${i}`),
        c,
      ),
    ).toHaveLength(MAX_LIVE_NAMES)
    expect(liveCandidates(['orders'], {...c, prefix: '--group='})).toEqual(['--group=orders'])
  })

  it('live names starting with "-" are offered only where they cannot parse as flags', () => {
    const live = ['--prometheus=x.prom', '-rf', 'orders']
    // as an argument (group explain <TAB>), and as the word after --group: they would be read as flags
    expect(liveCandidates(live, complete(commands, ['group', 'explain', '']) as never)).toEqual(['orders'])
    expect(liveCandidates(live, complete(commands, ['group', 'explain', '-b', 'h:1', '']) as never)).toEqual(['orders'])
    expect(liveCandidates(live, {kind: 'dynamic', what: 'groups', prefix: '', typed: ''})).toEqual(['orders'])
    // typed: still not (a word typed "-" is completed as a flag)
    expect(complete(commands, ['group', 'explain', '-r'])).toEqual({kind: 'values', values: []})
    // after "--" or in --group=…, a name is a name
    expect(liveCandidates(live, complete(commands, ['group', 'explain', '--', '']) as never)).toEqual(['--prometheus=x.prom', '-rf', 'orders'])
    expect(liveCandidates(live, complete(commands, ['group', 'list', '--group=']) as never)).toEqual([
      '--group=--prometheus=x.prom',
      '--group=-rf',
      '--group=orders',
    ])
  })
})

const ROOT = join(import.meta.dirname, '..', '..', '..')

/** A PATH with `rebalance-doctor` (the built CLI) first. */
function binDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rd-bin-'))
  const bin = join(dir, 'rebalance-doctor')
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'run.js')}" "$@"\n`)
  chmodSync(bin, 0o755)
  return dir
}

/** Runs the bash script's completion function as bash would for `line` (cursor at the end). */
function bashComplete(line: string): {replies: string[]; stderr: string} {
  const dir = binDir()
  const script = join(dir, 'completion.bash')
  writeFileSync(script, completionScript('bash', 'rebalance-doctor'))
  const program = `
source "${script}"
complete -p rebalance-doctor
COMP_LINE="$LINE"; COMP_POINT=\${#COMP_LINE}
read -ra COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" =~ [[:blank:]]$ ]] && COMP_WORDS+=("")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
_rebalance_doctor
printf 'reply:%s\\n' "\${COMPREPLY[@]}"
`
  const r = spawnSync('bash', ['-c', program], {
    encoding: 'utf8',
    timeout: 60_000, // a synchronous child that never ends would block the worker past every vitest timeout
    env: {...process.env, LINE: line, PATH: `${dir}:${process.env.PATH}`, KAFKA_BOOTSTRAP_SERVERS: '', XDG_CACHE_HOME: dir},
  })
  expect(r.stdout).toContain('complete -o nosort -F _rebalance_doctor rebalance-doctor')
  return {
    replies: r.stdout
      .split('\n')
      .filter(l => l.startsWith('reply:') && l !== 'reply:')
      .map(l => l.slice(6)),
    stderr: r.stderr,
  }
}

describe('the generated scripts', () => {
  it('bash: the function, run by bash, completes commands, flags and argument options through completion-values', () => {
    expect(bashComplete('rebalance-doctor gr').replies).toEqual(['group'])
    expect(bashComplete('rebalance-doctor group ').replies).toEqual(['explain', 'list', 'records'])
    expect(bashComplete('rebalance-doctor group explain --stu').replies).toEqual(['--stuck-after'])
    expect(bashComplete('rebalance-doctor completion ').replies).toEqual(['bash', 'zsh', 'fish'])
    // no cluster reachable: no names, and nothing printed
    const offline = bashComplete('rebalance-doctor group explain -b 127.0.0.1:1 --timeout 500 ')
    expect(offline).toEqual({replies: [], stderr: ''})
  }, 60_000)

  it('zsh and fish: the hooks hand the words to completion-values and leave files to the shell', () => {
    const zsh = completionScript('zsh', 'rebalance-doctor')
    expect(zsh.split('\n')[0]).toBe('#compdef rebalance-doctor')
    expect(zsh).toContain('rebalance-doctor completion-values -- "${(@)words[2,CURRENT]}"')
    expect(zsh).toContain('_files')
    expect(zsh).toContain('compdef _rebalance_doctor rebalance-doctor')
    const fish = completionScript('fish', 'rebalance-doctor')
    expect(fish).toContain('rebalance-doctor completion-values -- $words (commandline -ct)')
    expect(fish).toContain("complete -c rebalance-doctor -f -a '(___rebalance_doctor)'")
    expect(fish).toContain('__fish_complete_path')
  })
})
