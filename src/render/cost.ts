/** One line of what a bump cost, under its causes in the `group explain` timeline (the whole cost is in --json). */
import type {AuditCost} from '../core/audit/cost.js'
import type {GroupType} from '../core/replay/index.js'
import type {ChurnSummary, MemberRef, RebalanceCost} from '../core/cost/index.js'
import {forTerminalLine} from './terminal.js'

const secs = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`)
const who = (m: MemberRef) => (m.clientId ? `client ${m.clientId}` : `member ${m.memberId.slice(0, 8)}`)
const units = (n: number, kind: string) => `${n} ${kind}${n === 1 ? '' : 's'}`

export function costLine(c: RebalanceCost): string {
  const kind = c.groupType === 'streams' ? 'task' : 'partition'
  const parts = [`${units(c.movedCount, kind)} moved`]
  if (c.groupType === 'classic') parts.push(`${c.protocol ?? 'unknown'} protocol; no duration in the records`)
  else if (c.unownedPartitionMs > 0) parts.push(`${(c.unownedPartitionMs / 1000).toFixed(1)} ${kind}-s without an owner`)
  parts.push(convergenceText(c.convergence))
  if (c.slowest) {
    const s = c.slowest
    // (no record of a member is not proof it stopped heartbeating: a heartbeat that changes nothing writes none)
    const what =
      s.doing === 'revoking'
        ? `revoking ${units(s.units, kind)} for ${secs(s.ms)}`
        : s.doing === 'not-heartbeating'
          ? `no record of it for ${secs(s.ms)}`
          : `joined ${secs(s.ms)} late`
    parts.push(`slowest ${who(s.member)}: ${what}${s.ongoing ? ' so far' : ''}`)
  }
  return forTerminalLine(`cost: ${parts.filter(p => p !== '').join('; ')}`)
}

function convergenceText(c: RebalanceCost['convergence']): string {
  switch (c.status) {
    case 'converged':
      return `converged in ${secs(c.afterMs)}`
    case 'superseded':
      return `epoch ${c.byEpoch} came after ${secs(c.afterMs)}${c.settled ? `; settled after ${secs(c.settled.afterMs)}` : ''}`
    case 'not-converged':
      return `not converged after ${secs(c.afterMs)} (${units(c.pending.length, 'member')} pending)`
    case 'not-measured':
      return c.reason === 'share-group' ? 'share group: no revocation step' : ''
  }
}

/** The churn summary's cost: what the bumps shown cost together, and the client whose members held them up longest. */
export function churnCostLine(s: ChurnSummary, kind: 'partition' | 'task'): string {
  const t = s.total
  const parts = [`${units(t.partitionsMoved, kind)} moved`]
  if (t.unownedPartitionMs > 0) parts.push(`${(t.unownedPartitionMs / 1000).toFixed(1)} ${kind}-s without an owner`)
  const measured = t.bumps - t.notMeasured
  if (measured > 0)
    parts.push(`${t.converged} of ${units(measured, 'bump')} converged${t.maxConvergeMs !== null ? ` (the longest in ${secs(t.maxConvergeMs)})` : ''}`)
  const slow = s.clients.find(c => c.slowest > 0)
  if (slow)
    parts.push(`held up longest by client ${slow.clientId ?? '(no client id)'} (the slowest in ${units(slow.slowest, 'bump')}, ${secs(slow.slowestMs)} in all)`)
  return `  what it cost over ${units(t.bumps, 'bump')}: ${parts.join('; ')}`
}

/**
 * An audit row's cost, for its DETAILS cell: the last bump (times as UTC ISO strings, which the table retimes), and
 * the hour before it when it had more bumps; a group resumed from a checkpoint says it was not measured.
 */
export function auditCostText(c: AuditCost, type: GroupType | null): string | undefined {
  if (c.reason === 'resumed-from-checkpoint') return 'last bump: cost not measured (state resumed from the checkpoint)'
  const l = c.last
  if (!l) return undefined
  const kind = type === 'streams' ? 'task' : 'partition'
  const parts = [`${units(l.partitionsMoved, kind)} moved`]
  if (l.unownedPartitionMs > 0) parts.push(`${(l.unownedPartitionMs / 1000).toFixed(1)} ${kind}-s without an owner`)
  if (l.partitionsWithoutOwner > 0) parts.push(`${l.partitionsWithoutOwner} still without one`)
  if (l.status === 'converged') parts.push(`converged in ${secs(l.afterMs!)}`)
  else if (l.status === 'not-converged') parts.push(`not converged as of ${l.asOf} (${units(l.membersPending, 'member')} pending)`)
  else if (l.status === 'superseded') parts.push(`superseded after ${secs(l.afterMs!)}`)
  const s = l.slowest
  if (s) {
    const what =
      s.doing === 'revoking' ? `revoking for ${secs(s.ms)}` : s.doing === 'not-heartbeating' ? `no record of it for ${secs(s.ms)}` : `joined ${secs(s.ms)} late`
    parts.push(`slowest ${who(s.member)}: ${what}${s.ongoing ? ' so far' : ''}`)
  }
  const w = c.window
  const hour =
    w && w.bumps > 1
      ? `; the hour before: ${units(w.bumps, 'bump')}, ${units(w.partitionsMoved, kind)} moved, ${(w.unownedPartitionMs / 1000).toFixed(1)} ${kind}-s without an owner`
      : ''
  return forTerminalLine(`last bump (epoch ${l.epoch}, ${l.at}): ${parts.join(', ')}${hour}`)
}
