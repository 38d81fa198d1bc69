import {spawnSync} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers.js'

describe('start-up', () => {
  it('run from a directory that is gone: a warning on stderr (relative paths cannot work), the command still runs', () => {
    const gone = mkdtempSync(join(tmpdir(), 'rd-gone-'))
    const r = spawnSync('sh', ['-c', 'cd "$1" && rmdir "$1" && exec "$2" "$3" --version', 'sh', gone, process.execPath, join(ROOT, 'bin', 'run.js')], {
      encoding: 'utf8',
      timeout: 60_000,
      env: {...process.env, NODE_OPTIONS: ''},
    })
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^rebalance-doctor\/\S+ /)
    expect(r.stderr).toBe('WARNING: current directory does not exist\n')
  }, 30_000)
})
