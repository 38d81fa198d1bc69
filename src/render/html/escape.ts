/**
 * Text for an HTML page from untrusted data (group, member, client and topic names come from any client): control
 * characters shown as text escapes (`\x1b`, `\u202e`, as on a terminal), then the five characters HTML gives a
 * meaning to written as entities, so a name can neither open a tag nor leave an attribute.
 */
import {forTerminalLine} from '../terminal.js'

const ENTITY: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}

/** Safe in element text and in a double- or single-quoted attribute value. */
export function h(text: string | number): string {
  return forTerminalLine(String(text)).replace(/[&<>"']/g, c => ENTITY[c])
}

/** Seconds as the text renderers write them: one decimal under 10 s. */
export function secs(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000).toLocaleString('en-US')} s`
}

/** A record timestamp in UTC, to the millisecond (the coordinator's clock). */
export function utc(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC')
}

/** The first `n` names, and how many more. */
export function firstOf(names: readonly string[], n = 10): string {
  return names.length <= n ? names.join(', ') : `${names.slice(0, n).join(', ')} and ${(names.length - n).toLocaleString('en-US')} more`
}
