import {spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {groupMatcher} from '../../../src/core/group-filter.js'

const SRC = fileURLToPath(new URL('../../../src/core/group-filter.ts', import.meta.url))

describe('group patterns run in linear time', () => {
  // A backtracking engine never returns on these: run them in a child that is killed after 60 s, so a regression
  // fails here instead of hanging the suite (re2js answers each in milliseconds).
  it('a catastrophic backtracking regex and glob answer, in a child that would otherwise be killed', () => {
    const code = `const {groupMatcher} = await import(${JSON.stringify(SRC)})
      const r = groupMatcher('/^([a-z]+-?)+$/')('abcdefghijklmnopqrstuvwxyz1234!')
      const g = groupMatcher('*a*a*a*b')('a'.repeat(20000))
      console.log(JSON.stringify([r, g]))`
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      encoding: 'utf8',
      timeout: 60_000,
      killSignal: 'SIGKILL',
    })
    expect(child.signal, child.stderr).toBeNull()
    expect(child.stdout.trim()).toBe('[false,false]')
  })

  it("/regex/ is RE2 syntax (the broker's): look-around and back-references are refused, \\Q..\\E and \\pL work", () => {
    expect(() => groupMatcher('/(?=a)b/')).toThrow(/unsupported Perl syntax/)
    expect(() => groupMatcher('/(a)\\1/')).toThrow(/invalid escape/)
    expect(() => groupMatcher('/a/g')).toThrow(/flag "g"/)
    expect(groupMatcher('/^\\Qa.b\\E$/')('a.b')).toBe(true)
    expect(groupMatcher('/^\\Qa.b\\E$/')('axb')).toBe(false)
    expect(groupMatcher('/^\\pL+$/')('abc')).toBe(true)
    expect(groupMatcher('/^A/i')('abc')).toBe(true)
    expect(groupMatcher('/^b$/m')('a\nb')).toBe(true)
    expect(groupMatcher('/^a.b$/s')('a\nb')).toBe(true)
  })

  it('globs: every character literal but * ? [..], classes with ranges and !, over the whole id', () => {
    const cases: Array<[string, string, boolean]> = [
      ['orders-*', 'orders-1', true],
      ['orders-*', 'xorders-1', false],
      ['a.b', 'axb', false],
      ['a(b)+', 'a(b)+', true],
      ['g[a-c]', 'gb', true],
      ['g[!a-c]', 'gb', false],
      ['g[-a]', 'g-', true],
      ['[\\]x', '\\x', true],
      ['x[]', 'x[]', true],
      ['[😀x]y', '😀y', true],
      ['*', 'line\nbreak', true],
    ]
    for (const [glob, id, want] of cases) expect([glob, id, groupMatcher(glob)(id)]).toEqual([glob, id, want])
  })
})
