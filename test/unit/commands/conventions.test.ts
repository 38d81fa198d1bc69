/**
 * Operator conventions, through the built CLI as a child process (real exit codes): help in the three usual
 * spellings, a mistyped command's exit code, and completion (oclif's help and not-found plugins, declared in
 * package.json; completion is our own `completion` command).
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..', '..')
// (a cache dir of its own: nothing a run writes lands in the user's)
const env = {...process.env, XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'rd-cache-')), OCLIF_COLUMNS: '200'}
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe']})

describe('operator conventions', () => {
  it('`help group explain`, `--help` and `-h` print the same usage', () => {
    const outs = [cli('help', 'group', 'explain'), cli('group', 'explain', '--help'), cli('group', 'explain', '-h')]
    for (const r of outs) {
      expect(r.status).toBe(0)
      expect(r.stdout).toContain('$ rebalance-doctor group explain [GROUP]')
    }
    expect(outs[2].stdout).toBe(outs[1].stdout)
  })

  it('a mistyped command exits 127 and points at help (no prompt off a terminal)', () => {
    const r = cli('audt')
    expect(r.status).toBe(127)
    expect(r.stderr).toContain('audt is not a rebalance-doctor command')
    expect(r.stderr).toContain('rebalance-doctor help')
    const t = cli('topic-hash', 'compte')
    expect(t.status).toBe(127)
    expect(t.stderr).toContain('help topic-hash')
  })

  it("completion: one command (`completion SHELL`); oclif's `autocomplete` is not offered beside it", () => {
    const r = cli('completion', 'bash')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('completion-values')
    expect(cli('autocomplete', 'bash').status).toBe(127)
    expect(cli('--help').stdout).not.toMatch(/\bautocomplete\b/)
  })
})
