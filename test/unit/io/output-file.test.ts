/**
 * A file the user names (`cluster snapshot -o`, `audit --prometheus`) is written where it points:
 * through symlinks to their target (the link stays), directly into FIFOs and character devices, `-` to stdout.
 */
import {execFileSync, spawn} from 'node:child_process'
import * as fs from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {outputTarget, writeOutputFile} from '../../../src/io/atomic-file.js'
import {writeFailureFile} from '../../../src/io/prometheus-file.js'

const dirs: string[] = []
function tempDir(): string {
  const d = fs.mkdtempSync(join(tmpdir(), 'rd-out-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true})
})

describe('writeOutputFile', () => {
  it('a symlink (a textfile-collector link) is written through: the target replaced atomically in its directory, the link kept', () => {
    const d = tempDir()
    fs.mkdirSync(join(d, 'collector'))
    const target = join(d, 'collector', 'rd.prom')
    fs.writeFileSync(target, 'old\n')
    fs.symlinkSync(join('collector', 'rd.prom'), join(d, 'link.prom'))
    // a link to a link
    fs.symlinkSync('link.prom', join(d, 'link2.prom'))
    writeOutputFile(join(d, 'link2.prom'), 'new\n')
    expect(fs.lstatSync(join(d, 'link.prom')).isSymbolicLink()).toBe(true)
    expect(fs.lstatSync(join(d, 'link2.prom')).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(target, 'utf8')).toBe('new\n')
    // no temp file left beside the link or the target
    expect(fs.readdirSync(d).sort()).toEqual(['collector', 'link.prom', 'link2.prom'])
    expect(fs.readdirSync(join(d, 'collector'))).toEqual(['rd.prom'])
  })

  it('a dangling symlink: its target is created, the link kept; a symlink loop is ELOOP', () => {
    const d = tempDir()
    fs.symlinkSync('later.json', join(d, 'link.json'))
    writeOutputFile(join(d, 'link.json'), '{}\n')
    expect(fs.lstatSync(join(d, 'link.json')).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(join(d, 'later.json'), 'utf8')).toBe('{}\n')
    fs.symlinkSync('b', join(d, 'a'))
    fs.symlinkSync('a', join(d, 'b'))
    expect(() => writeOutputFile(join(d, 'a'), 'x')).toThrow(expect.objectContaining({code: 'ELOOP'}))
  })

  it('a link to /proc/self/fd/N (what /dev/stdout is) writes to that open file; the link stays', () => {
    const d = tempDir()
    const fd = fs.openSync(join(d, 'stdout.txt'), 'w')
    try {
      fs.symlinkSync(`/proc/self/fd/${fd}`, join(d, 'out.json'))
      expect(outputTarget(join(d, 'out.json'))).toEqual({kind: 'direct', path: join(d, 'out.json')})
      writeOutputFile(join(d, 'out.json'), 'snapshot\n')
      expect(fs.lstatSync(join(d, 'out.json')).isSymbolicLink()).toBe(true)
      expect(fs.readFileSync(join(d, 'stdout.txt'), 'utf8')).toBe('snapshot\n')
      expect(outputTarget(`/proc/self/fd/${fd}`).kind).toBe('direct')
    } finally {
      fs.closeSync(fd)
    }
  })

  it('a character device is written directly (/dev/null stays a device)', () => {
    // (checked before anything is written: a writer that renamed over it would replace the system's /dev/null when
    // run as root — a pre-fix run of this test did exactly that)
    expect(outputTarget('/dev/null')).toEqual({kind: 'direct', path: '/dev/null'})
    writeOutputFile('/dev/null', 'x\n')
    expect(fs.statSync('/dev/null').isCharacterDevice()).toBe(true)
  })

  it('a FIFO is written into (it stays a FIFO); without a reader it is an error at once, never a wait', async () => {
    const d = tempDir()
    const fifo = join(d, 'metrics.prom')
    execFileSync('mkfifo', [fifo])
    const t0 = Date.now()
    expect(() => writeOutputFile(fifo, 'x\n')).toThrow(expect.objectContaining({code: 'ENXIO'}))
    expect(Date.now() - t0).toBeLessThan(1000)
    const reader = spawn('sh', ['-c', 'exec cat "$0" > "$1"', fifo, join(d, 'read.txt')], {stdio: 'ignore'})
    const done = new Promise(r => reader.once('exit', r))
    // (until the reader has opened its end)
    for (let i = 0; ; i++) {
      try {
        writeOutputFile(fifo, 'rebalance_doctor_up 1\n')
        break
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENXIO' || i > 200) throw error
        await new Promise(r => setTimeout(r, 10))
      }
    }
    await done
    expect(fs.readFileSync(join(d, 'read.txt'), 'utf8')).toBe('rebalance_doctor_up 1\n')
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true)
    // the failure file of an audit: no read of the FIFO for the previous cluster id (it would wait for a writer)
    expect(writeFailureFile(fifo, {clusterId: 'c', startedAt: 0, durationMs: 0, exitCode: 1, errorCode: 'UNEXPECTED'})).toMatch(/ENXIO/)
  })

  it('`-` is stdout; no file named "-" is made', () => {
    const d = tempDir()
    const cwd = process.cwd()
    const got: string[] = []
    process.chdir(d)
    try {
      expect(writeOutputFile('-', 'doc\n', {stdout: b => void got.push(Buffer.from(b).toString())})).toEqual({kind: 'stdout'})
    } finally {
      process.chdir(cwd)
    }
    expect(got).toEqual(['doc\n'])
    expect(fs.readdirSync(d)).toEqual([])
  })

  it('a regular file or a new path is replaced atomically as before', () => {
    const d = tempDir()
    writeOutputFile(join(d, 'a.json'), '1')
    writeOutputFile(join(d, 'a.json'), '2')
    expect(fs.readFileSync(join(d, 'a.json'), 'utf8')).toBe('2')
    expect(fs.readdirSync(d)).toEqual(['a.json'])
  })
})
