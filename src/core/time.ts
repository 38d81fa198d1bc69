/** Time arguments: an ISO-8601 instant, or a duration ago ("30s", "15m", "2h", "7d"). */
import {InputError} from './errors.js'

const UNIT_MS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/

/** A duration ("90s", "15m", "2h", "7d", "1w") in milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const d = DURATION.exec(text.trim())
  if (!d) throw new InputError(`--${flag} "${text}" is not a duration`, 'Use a number with a unit: 500ms, 90s, 15m, 2h, 7d, 1w.')
  return Number(d[1]) * UNIT_MS[d[2]]
}

export function parseTimeSpec(text: string, flag: string, now = Date.now()): number {
  if (DURATION.test(text.trim())) return now - parseDuration(text, flag)
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    // One rule, whatever the shape: a time without a zone is UTC, like every time this tool prints. (JavaScript
    // reads a bare date as UTC midnight but a bare date-time as local time.)
    const zoned = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.test(text) || !/[T ]\d{2}:\d{2}/.test(text) ? text : `${text}Z`
    const t = Date.parse(zoned)
    if (!Number.isNaN(t)) return t
  }
  throw new InputError(
    `--${flag} "${text}" is neither an ISO-8601 time nor a duration`,
    'Use e.g. 2026-11-30T10:00:00Z, 2026-11-30T10:00 (a time without a zone is UTC), 2026-11-30 (midnight UTC), 2026-11-30T11:00+01:00, or a duration ago: 90s, 15m, 2h, 7d.',
  )
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString()
}
