/**
 * Layout at 80, 120 and 200 columns, as a user gets it: the CLI in a real pty (`script`, its width set with stty)
 * and through a pipe with COLUMNS, over audit, group list and group explain of groups with long ids
 * (test/lib/long-ids.ts, served by test/lib/fake-cli.ts). No line wider than the terminal, every id whole at least
 * once, no word split (every word printed is a word of the unfitted output).
 * @slow (16 CLI processes: about 80 s on the shared 2-core machine)
 */
import {spawn, spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers.js'
import {LONG} from '../../lib/long-ids.js'

const TSX = join(ROOT, 'node_modules/.bin/tsx')
const CLI = join(ROOT, 'test/lib/fake-cli.ts')
const hasScript = spawnSync('script', ['--version'], {encoding: 'utf8'}).status === 0
if (!hasScript) console.warn('`script` (util-linux) not found: skipping the pty layout tests')

const L = LONG
const COMMANDS: Array<{name: string; args: string[]; ids: string[]}> = [
  {name: 'audit', args: ['audit', '-b', 'fake:9092', '--no-record'], ids: [L.drifting, L.stuck, L.memberA, L.memberB, L.clientA]},
  {name: 'group list', args: ['group', 'list', '-b', 'fake:9092'], ids: [L.drifting, L.stuck, L.classic]},
  {
    name: 'group explain (a member left)',
    args: ['group', 'explain', L.drifting, '-b', 'fake:9092', '--history-dir', '/nonexistent/rd-layout'],
    ids: [L.drifting, L.memberA, L.clientA, L.memberC, L.clientC],
  },
  {
    name: 'group explain (a member stuck)',
    args: ['group', 'explain', L.stuck, '-b', 'fake:9092', '--history-dir', '/nonexistent/rd-layout'],
    ids: [L.stuck, L.memberA, L.memberB, L.clientA, L.clientB],
  },
]

const env = (extra: Record<string, string>) => {
  const e: Record<string, string> = {...(process.env as Record<string, string>), ...extra}
  delete e.COLUMNS
  delete e.NO_COLOR
  return {...e, ...extra}
}

function output(cmd: string, args: string[], e: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {env: e, cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore']})
    let out = ''
    child.stdout.setEncoding('utf8').on('data', d => (out += d))
    child.on('error', reject)
    child.on('close', () => resolve(out))
  })
}

const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`
/** Stdout of the CLI in a pty `columns` wide (stderr, the spinner's, dropped); colours and \r removed. */
const inPty = (args: string[], columns: number) =>
  output(
    'script',
    ['-qec', `stty cols ${columns} rows 200; exec ${[TSX, CLI, ...args].map(quote).join(' ')} 2>/dev/null`, '/dev/null'],
    env({TERM: 'xterm'}),
  ).then(visible)
const throughPipe = (args: string[], columns?: number) => output(TSX, [CLI, ...args], env(columns ? {COLUMNS: String(columns)} : {}))

// eslint-disable-next-line no-control-regex
const visible = (text: string) => text.replace(/\r/g, '').replace(/\u001b\[[0-9;?]*[a-zA-Z]/g, '')
/** Words as printed: between spaces and table borders; numbers (durations differ between runs) and ids shortened with … left out. */
const words = (text: string) =>
  text
    .split(/[\s│┌┐└┘├┤┬┴┼─|]+/)
    .map(w => w.replace(/^[([,;:]+|[)\],;:.]+$/g, ''))
    .filter(w => w && !/^[\d.,:]+$/.test(w) && !w.includes('…') && !/^(-\[|RECORD|\]-*)$/.test(w))
/** Words only the fitted layouts print. */
const LAYOUT_WORDS = new Set('members no longer in the group in full'.split(' '))

function check(text: string, columns: number, ids: string[], natural: Set<string>, what: string): void {
  const lines = text.split('\n')
  expect(lines.length, what).toBeGreaterThan(3)
  for (const l of lines) expect([...l].length, `${what}: ${l}`).toBeLessThanOrEqual(columns)
  for (const id of ids)
    expect(
      lines.some(l => l.includes(id)),
      `${what}: ${id} whole`,
    ).toBe(true)
  for (const w of words(text)) if (!LAYOUT_WORDS.has(w)) expect(natural.has(w), `${what}: "${w}" is not a word of the unfitted output`).toBe(true)
}

describe('layout at 80, 120 and 200 columns: a pty and a pipe with COLUMNS', () => {
  for (const c of COMMANDS) {
    it(c.name, async () => {
      const natural = await throughPipe(c.args)
      // unfitted (a pipe without COLUMNS): one line per row, the widest wider than 200
      expect(Math.max(...natural.split('\n').map(l => [...l].length)), natural).toBeGreaterThan(c.name === 'group list' ? 120 : 200)
      const naturalWords = new Set(words(natural))
      check(await throughPipe(c.args, 80), 80, c.ids, naturalWords, `${c.name}, COLUMNS=80 through a pipe`)
      if (hasScript)
        for (const columns of [80, 120, 200]) check(await inPty(c.args, columns), columns, c.ids, naturalWords, `${c.name} in a ${columns}-column pty`)
    }, 120_000)
  }
})
