/** A flag-conflict error on a terminal (a pty from `script`): the text without oclif's colour shown as escapes. */
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers.js'

const hasScript = spawnSync('script', ['--version'], {encoding: 'utf8'}).status === 0
if (!hasScript) console.warn('`script` (util-linux) not found: skipping the pty usage-error test')

describe('usage errors on a terminal', () => {
  it.skipIf(!hasScript)(
    'a flag conflict is one line naming both flags, with no raw or escaped colour codes in its text, and no usage after it',
    () => {
      const bin = join(ROOT, 'bin/run.js')
      const r = spawnSync('script', ['-qec', `node ${bin} group explain g --last 1 --watch 10s -b 127.0.0.1:1`, '/dev/null'], {
        encoding: 'utf8',
        env: {...process.env, FORCE_COLOR: '1', TERM: 'xterm'},
      })
      const line = r.stdout.split(/\r?\n/).find(l => l.includes('cannot be used with'))
      expect(line, r.stdout).toBeDefined()
      expect(line).toMatch(/--last cannot be used with --watch$/)
      // the error and its hint, not the command's usage after them
      expect(r.stdout).not.toContain('USAGE')
      expect(r.stdout.trim().split(/\r?\n/).length).toBeLessThanOrEqual(3)
      expect(line).not.toContain('\\x1b')
      // the only escape sequences left are oclif's own prefix marker colour, before the message
      expect(line!.slice(line!.indexOf('--last'))).not.toMatch(/\u001b/)
    },
    30_000,
  )
})
