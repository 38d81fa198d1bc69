/**
 * A place in a metadata log (`--at`): a log offset or a point in time. Apart from flag-types.ts (which re-exports
 * it) so that `topic-hash compute`, an offline command run for its start-up, loads no group-pattern regex engine.
 */
import * as Flags from '@oclif/core/flags'
import {parseTimeSpec} from '../core/time.js'

/** A place in a metadata log: a log offset (digits) or a point in time; `text` as given, for messages. */
export type LogPoint = {text: string; untilOffset: bigint; untilTime?: undefined} | {text: string; untilTime: number; untilOffset?: undefined}

export function parseLogPoint(text: string, flag: string): LogPoint {
  return /^\d+$/.test(text) ? {text, untilOffset: BigInt(text)} : {text, untilTime: parseTimeSpec(text, flag)}
}

export const logPointFlag = Flags.custom<LogPoint>({parse: async (input, _ctx, flag: {name: string}) => parseLogPoint(input, flag.name)})
