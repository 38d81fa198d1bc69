/** The Style the time and colour flags (src/cli/output-flags.ts) make. */
import {colorWanted, type Style} from '../render/style.js'
import {terminalWidth} from './output-flags.js'

export function styleOf(flags: {'local-time'?: boolean; 'relative-time'?: boolean; 'no-color'?: boolean}, now = Date.now()): Style {
  return {
    time: flags['local-time'] ? 'local' : flags['relative-time'] ? 'relative' : 'utc',
    now,
    color: colorWanted(flags['no-color'] === true, process.env, process.stdout),
    width: terminalWidth(),
  }
}
