/** Which groups a command looks at: group id patterns (--group, `group explain PATTERN`) and group types (--type). */
import {RE2JS} from 're2js'
import type {GroupType} from './replay/index.js'

export type TypeFilter = ReadonlySet<GroupType>

/**
 * `--group PATTERN`: a glob (`*` any run, `?` one character, `[abc]` or `[!abc]` a class; the whole id must match),
 * or an RE2 regular expression between slashes (`/^orders-.*$/i`, searched, not anchored; flags i, s, m).
 *
 * Group ids come from any client, so both run on re2js (RE2/J's JavaScript port: linear in the id's length, no
 * backtracking): a JavaScript RegExp took exponential time on `/^([a-z]+-?)+$/` and a 31-character id, and
 * polynomial time on the glob `*a*a*a*b` and a 20,000-character id, on the main thread (no --timeout, no SIGINT).
 * RE2 is also the broker's regex syntax (consumer regex subscriptions): no look-around, no back-references.
 */
export function groupMatcher(pattern: string | undefined): (groupId: string) => boolean {
  if (!pattern) return () => true
  const re = /^\/(.*)\/([a-z]*)$/s.exec(pattern)
  if (re) {
    const rx = compile(pattern, () => RE2JS.compile(re[1], regexFlags(re[2])))
    return id => rx.test(id)
  }
  const rx = compile(pattern, () => RE2JS.compile(globToRe2(pattern), RE2JS.DOTALL))
  return id => rx.testExact(id)
}

/** The compiled pattern, or an error that names it (re2js' messages quote only the faulty part). */
function compile(pattern: string, fn: () => RE2JS): RE2JS {
  try {
    return fn()
  } catch (error) {
    throw new Error(`${pattern}: ${(error as Error).message}`)
  }
}

const FLAGS: Readonly<Record<string, number>> = {i: RE2JS.CASE_INSENSITIVE, s: RE2JS.DOTALL, m: RE2JS.MULTILINE}

function regexFlags(text: string): number {
  let flags = 0
  for (const f of text) {
    if (!(f in FLAGS)) throw new Error(`regex flag "${f}" is not supported (use i, s or m)`)
    flags |= FLAGS[f]
  }
  return flags
}

/** A glob as an RE2 regex over the whole id: every character literal except * ? and [...] classes. */
function globToRe2(glob: string): string {
  let src = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] // a surrogate half is quoted alone and pairs up again in the regex
    if (c === '*') src += '.*'
    else if (c === '?') src += '.'
    else if (c === '[' && glob.indexOf(']', i + 2) > 0) {
      const end = glob.indexOf(']', i + 2)
      let cls = glob.slice(i + 1, end)
      const negated = cls.startsWith('!')
      if (negated) cls = cls.slice(1)
      src += `[${negated ? '^' : ''}${classToRe2(cls)}]`
      i = end
    } else src += RE2JS.quote(c)
  }
  return src
}

/** A glob class's members, each literal but for `-` between two characters (a range). */
function classToRe2(cls: string): string {
  const chars = Array.from(cls) // code points: a surrogate pair is one member
  return chars.map((c, i) => (c === '-' && i > 0 && i < chars.length - 1 ? '-' : /^[!-/:-@[-`{-~]$/.test(c) ? `\\${c}` : c)).join('')
}

/**
 * A `group explain` argument that is a pattern, as `audit --group` takes: one with `*` or `?` (a glob, in which
 * `[abc]` classes work too), or /regex/flags. A `[` alone does not make a pattern: ids with brackets are common
 * enough ("app[prod]") to stay literal.
 */
export function isGroupPattern(arg: string): boolean {
  return /[*?]/.test(arg) || /^\/.*\/[a-z]*$/s.test(arg)
}

export const GROUP_TYPES: readonly GroupType[] = ['consumer', 'share', 'streams', 'classic']

export function parseTypes(text: string): Set<GroupType> {
  const parts = text
    .split(',')
    .map(s => s.trim())
    .filter(Boolean)
  const bad = parts.filter(p => !(GROUP_TYPES as readonly string[]).includes(p))
  if (bad.length > 0 || parts.length === 0)
    throw new Error(
      `--type "${text}": unknown ${bad.length ? bad.map(b => `"${b}"`).join(', ') : 'empty value'}; use a comma list of ${GROUP_TYPES.join(', ')}`,
    )
  return new Set(parts as GroupType[])
}
