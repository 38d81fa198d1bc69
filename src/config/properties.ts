/**
 * java.util.Properties text format (`Properties.load`), as Kafka reads client.properties: natural lines joined by
 * a trailing odd run of backslashes, `#`/`!` comment lines, key/value separated by `=`, `:` or whitespace,
 * backslash escapes (\t \n \r \f \uXXXX, anything else = the character itself). The last value of a key wins.
 *
 * Errors name the line and the key, never the value: values can be secrets.
 */
import {InputError} from '../core/errors.js'

export interface PropertyEntry {
  readonly value: string
  /** 1-based line where the entry starts. */
  readonly line: number
}

const WS = new Set([' ', '\t', '\f'])

export function parseProperties(text: string, source = 'properties'): Map<string, PropertyEntry> {
  const out = new Map<string, PropertyEntry>()
  // Natural lines: \r\n, \n or \r. A BOM is not part of the first key.
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)
  let i = 0
  while (i < lines.length) {
    const startLine = i + 1
    let line = stripLeading(lines[i++])
    if (line === '' || line[0] === '#' || line[0] === '!') continue
    // Join continuation lines: an odd number of trailing backslashes continues the logical line.
    while (endsWithOddBackslashes(line)) {
      line = line.slice(0, -1)
      if (i === lines.length) break
      line += stripLeading(lines[i++])
    }
    const {key, value} = splitKeyValue(line)
    const k = unescapeValue(key, source, startLine, undefined)
    out.set(k, {value: unescapeValue(value, source, startLine, k), line: startLine})
  }
  return out
}

function stripLeading(s: string): string {
  let j = 0
  while (j < s.length && WS.has(s[j])) j++
  return s.slice(j)
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0
  for (let j = s.length - 1; j >= 0 && s[j] === '\\'; j--) n++
  return n % 2 === 1
}

function splitKeyValue(line: string): {key: string; value: string} {
  let j = 0
  let escaped = false
  for (; j < line.length; j++) {
    const c = line[j]
    if (escaped) {
      escaped = false
      continue
    }
    if (c === '\\') escaped = true
    else if (c === '=' || c === ':' || WS.has(c)) break
  }
  const key = line.slice(0, j)
  // Skip whitespace, then at most one '=' or ':', then whitespace.
  while (j < line.length && WS.has(line[j])) j++
  if (j < line.length && (line[j] === '=' || line[j] === ':')) j++
  while (j < line.length && WS.has(line[j])) j++
  return {key, value: line.slice(j)}
}

function unescapeValue(s: string, source: string, line: number, key: string | undefined): string {
  if (!s.includes('\\')) return s
  let out = ''
  for (let j = 0; j < s.length; j++) {
    const c = s[j]
    if (c !== '\\') {
      out += c
      continue
    }
    const n = s[++j]
    if (n === undefined) break
    switch (n) {
      case 't':
        out += '\t'
        break
      case 'n':
        out += '\n'
        break
      case 'r':
        out += '\r'
        break
      case 'f':
        out += '\f'
        break
      case 'u': {
        const hex = s.slice(j + 1, j + 5)
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          throw new InputError(
            `${source}: line ${line}: malformed \\uXXXX escape in the ${key === undefined ? 'key' : `value of ${key}`}`,
            'A \\u escape needs exactly four hex digits; write a literal backslash as \\\\.',
            'BAD_PROPERTIES',
          )
        }
        out += String.fromCharCode(Number.parseInt(hex, 16))
        j += 4
        break
      }
      default:
        out += n
    }
  }
  return out
}
