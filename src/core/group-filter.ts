/** Which groups a command looks at: group id patterns (--group, `group explain PATTERN`) and group types (--type). */
import type {GroupType} from './replay/index.js'

export type TypeFilter = ReadonlySet<GroupType>

/**
 * `--group PATTERN`: a glob (`*` any run, `?` one character, `[abc]` a class; the whole id must match), or a
 * JavaScript regular expression between slashes (`/^orders-.*$/i`, searched, not anchored).
 */
export function groupMatcher(pattern: string | undefined): (groupId: string) => boolean {
  if (!pattern) return () => true
  const re = /^\/(.*)\/([a-z]*)$/s.exec(pattern)
  if (re) {
    const rx = new RegExp(re[1], re[2])
    return id => rx.test(id)
  }
  let src = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '*') src += '.*'
    else if (c === '?') src += '.'
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2)
      if (end < 0) src += '\\['
      else {
        let cls = pattern.slice(i + 1, end).replaceAll('\\', '\\\\')
        if (cls.startsWith('!')) cls = `^${cls.slice(1)}`
        src += `[${cls}]`
        i = end
      }
    } else src += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  }
  const rx = new RegExp(`^${src}$`, 's')
  return id => rx.test(id)
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
  const parts = text.split(',').map(s => s.trim()).filter(Boolean)
  const bad = parts.filter(p => !(GROUP_TYPES as readonly string[]).includes(p))
  if (bad.length > 0 || parts.length === 0) throw new Error(`--type "${text}": unknown ${bad.length ? bad.map(b => `"${b}"`).join(', ') : 'empty value'}; use a comma list of ${GROUP_TYPES.join(', ')}`)
  return new Set(parts as GroupType[])
}
