/** `--watch` text output: one line per new epoch bump, its causes after the colon. */
import type {BumpEvent, BumpRevision, StuckEvent} from '../core/audit/watch.js'
import {forTerminalLine} from './terminal.js'

/** "2026-12-01T06:00:00.000Z orders (consumer) epoch 4 → 5: member m1 joined; ..." (escaped for a terminal). */
export function bumpLine(e: BumpEvent, tag = ''): string {
  const causes = e.causes.length > 0 ? e.causes.map(c => c.message).join('; ') : 'no cause found'
  const restart = e.afterRestart ? ' (found after restart)' : ''
  return forTerminalLine(
    `${e.time} ${e.group}${e.type ? ` (${e.type})` : ''} epoch ${e.previousEpoch ?? '-'} → ${e.epoch}${tag}${restart}${pollsNote(e)}: ${causes}`,
  )
}

/** A describe-only watch's bump: the two polls bound it, and several bumps between them are one observation. */
function pollsNote(e: BumpEvent): string {
  if (!e.polls) return ''
  const between = `between polls at ${e.polls.previousPoll} and ${e.polls.poll}`
  return e.polls.bumps > 1 ? ` (${e.polls.bumps} bumps ${between}, seen as one observation)` : ` (${between})`
}

/** "… orders (consumer) epoch 4 → 5 revised: metadata changed (exact), …": a bump printed before, named exactly now. */
export function revisionLine(e: BumpRevision): string {
  const was = [...new Set(e.previousCauses.filter(c => c.confidence !== 'exact').map(c => c.confidence))].join(', ')
  return `${bumpLine(e, ' revised')}${was ? ` (was ${was})` : ''}`
}

/** "2026-12-01T06:05:00.000Z orders (consumer) member m1 (client c1 on /10.0.0.7) stuck: UNREVOKED_PARTITIONS since …, blocks m2". */
export function stuckLine(e: StuckEvent, now: number): string {
  const who = [e.clientId ? `client ${e.clientId}` : '', e.clientHost ? `on ${e.clientHost}` : ''].filter(Boolean).join(' ')
  const detail = [e.state ?? 'reconciling', e.since ? `since ${e.since}` : '', `(longer than ${Math.round(e.stuckAfterMs / 1000)} s)`].filter(Boolean).join(' ')
  const links = `${e.blocking.length ? `, blocks ${e.blocking.join(', ')}` : ''}${e.waitingOn.length ? `, waits for ${e.waitingOn.join(', ')}` : ''}`
  return forTerminalLine(
    `${new Date(now).toISOString()} ${e.group}${e.type ? ` (${e.type})` : ''} member ${e.memberId}${who ? ` (${who})` : ''} stuck: ${detail}${links}`,
  )
}
