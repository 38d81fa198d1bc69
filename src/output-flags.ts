/** Flags for how humans see times and colour (JSON is never affected), and the Style they make. */
import {Flags} from '@oclif/core'
import {colorWanted, type Style} from './render/style.js'

export const timeFlags = {
  'local-time': Flags.boolean({summary: "Times in the host's time zone, with its offset (JSON stays UTC).", exclusive: ['relative-time'], helpGroup: 'OUTPUT'}),
  'relative-time': Flags.boolean({summary: 'Times as "3m ago" (JSON stays UTC).', exclusive: ['local-time'], helpGroup: 'OUTPUT'}),
}

export const colorFlags = {
  'no-color': Flags.boolean({summary: 'No colour (none either when NO_COLOR is set or stdout is not a terminal).', helpGroup: 'OUTPUT'}),
}

/** The terminal's columns; 0 when stdout is not a terminal or reports no width (tables keep their natural width). */
export function terminalWidth(stream: {isTTY?: boolean; columns?: number} = process.stdout): number {
  const c = stream.isTTY ? stream.columns : undefined
  return c !== undefined && Number.isFinite(c) && c > 0 ? c : 0
}

export function styleOf(flags: {'local-time'?: boolean; 'relative-time'?: boolean; 'no-color'?: boolean}, now = Date.now()): Style {
  return {
    time: flags['local-time'] ? 'local' : flags['relative-time'] ? 'relative' : 'utc',
    now,
    color: colorWanted(flags['no-color'] === true, process.env, process.stdout),
    width: terminalWidth(),
  }
}
