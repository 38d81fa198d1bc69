/**
 * How a human wants times and colour: UTC ISO by default (as JSON always is), the host's zone with its offset
 * (--local-time), or "3m ago" (--relative-time); colour for verdicts and findings only on a terminal, never when
 * NO_COLOR is set, --no-color is given, or stdout is a pipe or file. Everything here works on text that is already
 * terminal-safe (see terminal.ts): colour is added after escaping, so data can never carry its own sequences.
 */
import {createColors} from 'picocolors'

export type TimeStyle = 'utc' | 'local' | 'relative'

export interface Style {
  time: TimeStyle
  /** Relative times are measured from here (ms since the epoch). */
  now: number
  /** IANA zone for 'local'; the host's when absent (tests pin one). */
  timeZone?: string
  color: boolean
  /** Terminal columns; 0 or absent: unknown, tables keep their natural width (no wrapping limit). */
  width?: number
}

export const PLAIN: Style = {time: 'utc', now: 0, color: false}

/** An ISO time (or ms since the epoch) as the style asks; text that is not a time is returned as it is. */
export function formatTime(t: string | number | null | undefined, style: Pick<Style, 'time' | 'now' | 'timeZone'>): string {
  if (t === null || t === undefined || t === '') return '-'
  const ms = typeof t === 'number' ? t : Date.parse(t)
  if (!Number.isFinite(ms)) return String(t)
  if (style.time === 'local') return localIso(ms, style.timeZone)
  if (style.time === 'relative') return relative(ms, style.now)
  return new Date(ms).toISOString()
}

const ISO_UTC = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z\b/g

/** Every UTC ISO time inside a message (the core writes them into finding and cause messages) in the style. */
export function retime(text: string, style: Pick<Style, 'time' | 'now' | 'timeZone'>): string {
  return style.time === 'utc' ? text : text.replace(ISO_UTC, iso => formatTime(iso, style))
}

/** "2026-11-30T14:36:05.123+01:00": the wall clock of the zone and its offset at that instant. */
export function localIso(ms: number, timeZone?: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }).formatToParts(new Date(ms))
  const p = (type: Intl.DateTimeFormatPartTypes) => parts.find(x => x.type === type)?.value ?? ''
  const zone = p('timeZoneName') // "GMT+01:00", or "GMT" at offset 0
  const offset = zone === 'GMT' || zone === 'UTC' ? '+00:00' : zone.replace(/^(GMT|UTC)/, '')
  const millis = String(((ms % 1000) + 1000) % 1000).padStart(3, '0')
  return `${p('year')}-${p('month')}-${p('day')}T${p('hour')}:${p('minute')}:${p('second')}.${millis}${offset}`
}

/** "45s ago", "3m ago", "5h ago", "2d ago" (whole units, rounded down); "in 3m" for a time after `now`. */
export function relative(ms: number, now: number): string {
  const d = now - ms
  const a = Math.abs(d)
  const n =
    a < 60_000
      ? `${Math.floor(a / 1000)}s`
      : a < 3_600_000
        ? `${Math.floor(a / 60_000)}m`
        : a < 172_800_000
          ? `${Math.floor(a / 3_600_000)}h`
          : `${Math.floor(a / 86_400_000)}d`
  return d >= 0 ? `${n} ago` : `in ${n}`
}

/** Colour only on a terminal, and never when asked not to (https://no-color.org: any non-empty NO_COLOR). */
export function colorWanted(noColorFlag: boolean, env: NodeJS.ProcessEnv, stream: {isTTY?: boolean}): boolean {
  if (noColorFlag) return false
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.TERM === 'dumb') return false
  return stream.isTTY === true
}

export type Tone = 'ok' | 'warn' | 'bad' | 'dim'

/** `text` in the tone's colour when the style has colour; the same text otherwise. */
export function paint(text: string, tone: Tone, style: Pick<Style, 'color'>): string {
  if (!style.color) return text
  const c = createColors(true)
  return tone === 'ok' ? c.green(text) : tone === 'warn' ? c.yellow(text) : tone === 'bad' ? c.red(c.bold(text)) : c.dim(text)
}

const OK = new Set(['IN_SYNC', 'EMPTY_GROUP', 'CLASSIC_GROUP'])
const BAD = new Set(['REBALANCE_PENDING', 'HASH_DIFFERS', 'STALE_COORDINATOR_CACHE', 'NOT_FOUND'])

/** The tone of a verdict code: in sync green, a rebalance coming or a hash that differs red, the rest yellow. */
export function verdictTone(code: string): Tone {
  return OK.has(code) ? 'ok' : BAD.has(code) ? 'bad' : 'warn'
}
