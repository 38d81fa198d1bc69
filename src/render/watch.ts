/** `--watch` text output: one line per new epoch bump, its causes after the colon. */
import type {BumpEvent} from '../core/audit/watch.js'
import {forTerminalLine} from './terminal.js'

/** "2026-12-01T06:00:00.000Z orders (consumer) epoch 4 → 5: member m1 joined; ..." (escaped for a terminal). */
export function bumpLine(e: BumpEvent): string {
  const causes = e.causes.length > 0 ? e.causes.map(c => c.message).join('; ') : 'no cause found'
  return forTerminalLine(`${e.time} ${e.group}${e.type ? ` (${e.type})` : ''} epoch ${e.previousEpoch ?? '-'} → ${e.epoch}: ${causes}`)
}
