/**
 * Flag types for values with a syntax of their own: durations, watch intervals, points in time and group
 * patterns. oclif parses them (from the argument or its environment variable) before run(), so a bad value is a
 * usage error (exit 2) naming the flag, the value and what is accepted, and commands receive the parsed value.
 * Where a value reads the clock (a duration ago), it is read when the flags are parsed.
 * The connection --timeout is such a type too (src/cli/connection-flags.ts).
 */
import * as Flags from '@oclif/core/flags'
import {groupMatcher, parseTypes} from '../core/group-filter.js'
import type {GroupType} from '../core/replay/index.js'
import {asUsage, InputError} from '../core/errors.js'
import {parseDuration, parseTimeSpec} from '../core/time.js'
import {parseRetention} from '../core/history/format.js'
import {MAX_TIMEOUT_MS} from '../config/client-config.js'

/** The flag's name as oclif passes it to parse (the third argument), for messages. */
type FlagName = {name: string}

/** A duration with a unit (500ms, 90s, 15m, 2h, 7d, 1w), in milliseconds. 0 is allowed (e.g. "stuck at once"). */
export const durationFlag = Flags.custom<number>({parse: async (input, _ctx, flag: FlagName) => parseDuration(input, flag.name)})

/** A --watch interval: the milliseconds, and the text as given (messages say "retrying in 10s"). */
export interface WatchInterval {
  ms: number
  text: string
}

/** A --watch interval: a duration from 100 ms to the longest a timer can wait (2^31 - 1 ms, about 24.8 days). */
export function parseWatchInterval(text: string, flag = 'watch'): WatchInterval {
  const ms = parseDuration(text, flag)
  if (ms > MAX_TIMEOUT_MS)
    throw new InputError(
      `--${flag} "${text}" is too long: at most ${MAX_TIMEOUT_MS} ms`,
      'Give a shorter interval (cron suits long ones).',
      'BAD_WATCH_INTERVAL',
    )
  if (ms < 100) throw new InputError(`--${flag} "${text}" is too short`, 'Give at least 100ms; 5s or more suits a real cluster.', 'BAD_WATCH_INTERVAL')
  return {ms, text}
}

export const watchIntervalFlag = Flags.custom<WatchInterval>({parse: async (input, _ctx, flag: FlagName) => parseWatchInterval(input, flag.name)})

/** A point in time (epoch ms): ISO-8601 (UTC unless it names a zone) or a duration ago (2h, 7d), read at parse time. */
export const timeSpecFlag = Flags.custom<number>({parse: async (input, _ctx, flag: FlagName) => parseTimeSpec(input, flag.name)})

/** How long the history is kept: whole hours, days or weeks (48h, 30d, 12w), in milliseconds. */
export const retentionFlag = Flags.custom<number>({
  parse: async input => asUsage(() => parseRetention(input), 'Give hours, days or weeks: 48h, 30d, 12w.', 'BAD_RETENTION'),
})

// (in a module of its own: `topic-hash compute` takes it without the group patterns' regex engine, start-up)
export {type LogPoint, logPointFlag, parseLogPoint} from './log-point.js'

/** A group pattern and what it accepts. */
export interface GroupPattern {
  /** As given (for messages). */
  text: string
  accept: (groupId: string) => boolean
}

export const GROUP_PATTERN_HINT = 'Give a glob over the whole group id (orders-*) or /regex/flags.'

/** A glob over the whole group id (* ? [abc]) or a regular expression between slashes (/^orders-/i, searched). */
export function parseGroupPattern(text: string): GroupPattern {
  return {text, accept: asUsage(() => groupMatcher(text), GROUP_PATTERN_HINT, 'BAD_GROUP_PATTERN')}
}

export const groupPatternFlag = Flags.custom<GroupPattern>({parse: async input => parseGroupPattern(input)})

/** Group types, a comma list of consumer, share, streams, classic. */
export const groupTypesFlag = Flags.custom<ReadonlySet<GroupType>>({
  parse: async input => asUsage(() => parseTypes(input), 'Give a comma list of consumer, share, streams, classic.', 'BAD_GROUP_TYPE'),
})
