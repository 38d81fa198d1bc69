/**
 * Operator conventions, through the built CLI as a child process (real exit codes): help in the three usual
 * spellings, a mistyped command's exit code, and completion scripts (oclif's help, not-found and autocomplete
 * plugins, declared in package.json).
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..', '..')
// the autocomplete plugin caches under the user's cache dir: keep it out of the real one
const env = {...process.env, XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'rd-cache-')), OCLIF_COLUMNS: '200'}
const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe']})

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

  it('completion: the setup scripts for bash and zsh, and completion functions that know commands and flags', () => {
    for (const shell of ['bash', 'zsh']) {
      const r = cli('autocomplete', 'script', shell)
      expect(r.status).toBe(0)
      expect(r.stdout).toContain(`REBALANCE_DOCTOR_AC_${shell.toUpperCase()}_SETUP_PATH`)
    }
    expect(cli('autocomplete', '--refresh-cache').status).toBe(0)
    const functions = join(env.XDG_CACHE_HOME, 'rebalance-doctor', 'autocomplete', 'functions')
    for (const file of [join(functions, 'bash', 'rebalance-doctor.bash'), join(functions, 'zsh', '_rebalance-doctor')]) {
      const text = readFileSync(file, 'utf8')
      expect(text).toContain('explain')
      expect(text).toContain('stuck-after')
    }
  })
})
