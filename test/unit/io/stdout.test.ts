import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {endOnOutputFailure, guardStdout, isOutputFailure, outputFailure} from '../../../src/io/stdout.js'

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC'})
const epipe = () => Object.assign(new Error('write EPIPE'), {code: 'EPIPE'})

function io(exitCode?: number) {
  const seen = {stderr: '', exit: undefined as number | undefined}
  return {seen, io: {stderr: {write: (t: string) => (seen.stderr += t)}, exit: (c: number) => void (seen.exit = c), exitCode: () => exitCode}}
}

describe('a failed write to standard output', () => {
  it('a closed pipe (EPIPE) ends quietly with the exit code the run had, 0 by default', () => {
    expect(outputFailure(epipe(), undefined)).toEqual({exitCode: 0})
    expect(outputFailure(epipe(), 3)).toEqual({exitCode: 3})
  })

  it('anything else is one line naming the failure, exit 1', () => {
    expect(outputFailure(enospc(), undefined)).toEqual({line: 'Error: cannot write to standard output: ENOSPC: no space left on device, write', exitCode: 1})
  })

  it("the stream's error event (a pipe) ends the run: quietly on EPIPE, one stderr line otherwise", () => {
    for (const [error, line, exit] of [
      [epipe(), '', 0],
      [enospc(), 'Error: cannot write to standard output: ENOSPC: no space left on device, write\n', 1],
    ] as const) {
      const out = new PassThrough()
      const {seen, io: fake} = io()
      guardStdout(out, fake)
      out.emit('error', error)
      expect(seen).toEqual({stderr: line, exit})
    }
  })

  it('a write that throws (a file on a full disk) is marked, rethrown, and ended by endOnOutputFailure', () => {
    const out = new PassThrough()
    out._write = () => {
      throw enospc()
    }
    const {seen, io: fake} = io()
    guardStdout(out, fake)
    let thrown: unknown
    try {
      out.write('x')
    } catch (error) {
      thrown = error
    }
    expect(isOutputFailure(thrown)).toBe(true)
    expect(endOnOutputFailure(thrown, fake)).toBe(true)
    expect(seen).toEqual({stderr: 'Error: cannot write to standard output: ENOSPC: no space left on device, write\n', exit: 1})
  })

  it('any other error is left to the caller', () => {
    const {seen, io: fake} = io()
    expect(isOutputFailure(enospc())).toBe(false)
    expect(endOnOutputFailure(enospc(), fake)).toBe(false)
    expect(seen).toEqual({stderr: '', exit: undefined})
  })
})

describe('one printer for standard output', () => {
  it('no module but src/io/stdout.ts writes process.stdout itself (commands print through oclif or print())', async () => {
    const {readdirSync, readFileSync} = await import('node:fs')
    const {join, relative} = await import('node:path')
    const {ROOT} = await import('../helpers.js')
    const files = (readdirSync(join(ROOT, 'src'), {recursive: true}) as string[]).filter(f => f.endsWith('.ts')).map(f => join(ROOT, 'src', f))
    const writers = files.filter(f => /process\.stdout\.write\(/.test(readFileSync(f, 'utf8'))).map(f => relative(ROOT, f))
    expect(writers).toEqual(['src/io/stdout.ts'])
  })
})
