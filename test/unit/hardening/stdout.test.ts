/**
 * bin/run.js writing into a pipe its reader closed and onto a full disk (/dev/full): the run ends quietly with its
 * exit code, or with one line on stderr and exit 1, never a stack trace or node's exit 13.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, openSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers.js'

const RUN = join(ROOT, 'bin', 'run.js')
const env = {...process.env, NODE_OPTIONS: ''}
const metadata = join(mkdtempSync(join(tmpdir(), 'rd-stdout-')), 'cluster.json')
writeFileSync(
  metadata,
  JSON.stringify({brokers: [{id: 1, rack: 'a'}], topics: [{name: 'orders', topicId: 'JTA7RlFcZ3J9iJOeqbS_yg', partitions: [{partition: 0, replicas: [1]}]}]}),
)

/** The exit code of `node bin/run.js ARGS | head -c 1` (bash's PIPESTATUS) and its stderr. */
function intoClosedPipe(args: string[]): {status: number; stderr: string} {
  const r = spawnSync('bash', ['-c', `"${process.execPath}" "${RUN}" "$@" 2>"$ERR" | head -c 1 >/dev/null; exit \${PIPESTATUS[0]}`, 'x', ...args], {
    env: {...env, ERR: join(tmpdir(), `rd-stdout-err-${process.pid}`)},
    timeout: 60_000,
  })
  return {status: r.status ?? -1, stderr: readFileSync(join(tmpdir(), `rd-stdout-err-${process.pid}`), 'utf8')}
}

function ontoFullDisk(args: string[]) {
  return spawnSync(process.execPath, [RUN, ...args], {env, stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'], encoding: 'utf8', timeout: 60_000})
}

describe('standard output that cannot be written', () => {
  it.each([[['--help']], [['topic-hash', 'bytes', 'orders', '-f', metadata]], [['topic-hash', 'compute', '-f', metadata, '--json']]])(
    'a reader that closes the pipe early: %j exits 0, nothing on stderr',
    args => {
      expect(intoClosedPipe(args)).toEqual({status: 0, stderr: ''})
    },
  )

  it('the pipe closed early keeps a run’s own exit code (4: nothing matched)', () => {
    expect(intoClosedPipe(['topic-hash', 'bytes', 'nosuch', '-f', metadata]).status).toBe(4)
  })

  it.runIf(existsSync('/dev/full')).each([[['--help']], [['topic-hash', 'compute', '-f', metadata]], [['topic-hash', 'compute', '-f', metadata, '--json']]])(
    'a full disk (> /dev/full): %j is one line on stderr and exit 1, no stack trace',
    args => {
      const r = ontoFullDisk(args)
      expect(r.status).toBe(1)
      expect(r.stderr).toBe('Error: cannot write to standard output: ENOSPC: no space left on device, write\n')
    },
  )
})
