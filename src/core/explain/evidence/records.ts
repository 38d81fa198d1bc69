/**
 * The records' own evidence: each bump's causes as the diff of the coordinator's records shows them, in words, with
 * why a member left as far as its records tell. A metadata change stays unexplained here: which change it was is
 * for the other sources (settle.ts). Pure.
 */
import {type BumpCause, classifyBump, type EpochChange, rulesOf} from '../../replay/index.js'
import {isoTime} from '../../time.js'
import {causeView} from '../report/causes.js'
import {type LeaveFacts, whyLeft} from '../report/members.js'
import {STATE_NAMES} from '../report/member-status.js'
import type {TimelineEntry} from '../report/report.js'

/** The timeline from the records alone: one entry per bump, its causes read from the diff. */
export function recordsTimeline(bumps: readonly EpochChange[]): TimelineEntry[] {
  const causes = bumps.map(e => classifyBump(e))
  // every join, for telling a leave that was followed by a rejoin (same member id, or same instance id)
  const joins = bumps.flatMap((e, i) =>
    causes[i].flatMap(c =>
      c.kind === 'member-joined' || c.kind === 'static-member-replaced'
        ? [{memberId: c.memberId, instanceId: c.instanceId ?? null, epoch: e.epoch, at: e.timestamp, offset: e.offset}]
        : [],
    ),
  )
  return bumps.map((e, i) =>
    timelineEntry(
      e,
      causes[i],
      joins.filter(j => j.offset > e.offset),
    ),
  )
}

function timelineEntry(e: EpochChange, bumpCauses: readonly BumpCause[], laterJoins: LeaveFacts['laterJoins']): TimelineEntry {
  const rules = rulesOf(e.groupType, e.after)
  const causes = bumpCauses.map(c => {
    const view = causeView(c)
    if (c.kind === 'member-left' && e.groupType !== 'classic') {
      const type = e.groupType
      const g = e.before[type]
      const cur = g?.currentAssignment.get(c.memberId) as {State?: number} | undefined
      const at = g?.memberWrites.get(c.memberId)?.currentAssignment?.timestamp
      const timeout = (g?.members.get(c.memberId) as {RebalanceTimeoutMs?: number} | undefined)?.RebalanceTimeoutMs
      const leave = whyLeft({
        type,
        memberId: c.memberId,
        instanceId: c.instanceId,
        lastMemberEpoch: c.lastMemberEpoch,
        at: e.timestamp,
        lastState: cur?.State !== undefined && at !== undefined ? {state: cur.State, name: STATE_NAMES[type][cur.State] ?? String(cur.State), at} : null,
        rebalanceTimeoutMs: typeof timeout === 'number' && timeout > 0 ? timeout : null,
        laterJoins,
      })
      view.details.leave = leave
      view.message = `member ${c.memberId}${c.instanceId ? ` (instance ${c.instanceId})` : ''} left: ${leave.reason}`
    }
    if ('memberId' in c && typeof c.memberId === 'string' && e.groupType !== 'classic') {
      // who the member is, in the operator's terms: the client.id it sent (the member id is a random UUID)
      const m = (e.after[e.groupType]?.members.get(c.memberId) ?? e.before[e.groupType]?.members.get(c.memberId)) as {ClientId?: string} | undefined
      if (m?.ClientId) {
        view.details.clientId = m.ClientId
        view.message = view.message.replace(`member ${c.memberId}`, `member ${c.memberId} (client ${m.ClientId})`)
      }
    }
    return view
  })
  return {
    epoch: e.epoch,
    previousEpoch: e.previousEpoch ?? null,
    timestamp: e.timestamp,
    time: isoTime(e.timestamp),
    offset: e.offset.toString(),
    metadataHash: e.metadataHash === undefined || rules === '4.0' ? null : e.metadataHash.toString(),
    previousMetadataHash: e.previousMetadataHash === undefined || rulesOf(e.groupType, e.before) === '4.0' ? null : e.previousMetadataHash.toString(),
    rules,
    assignmentEpoch: e.assignment?.assignmentEpoch ?? null,
    causes,
  }
}
