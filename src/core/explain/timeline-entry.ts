/** One bump of the timeline as the report shows it: its causes in words, with what is known of each (pure). */
import {type BumpCause, type EpochChange, rulesOf} from '../replay/index.js'
import {isoTime} from '../time.js'
import {type Attribution, consistentWith} from './attribution.js'
import {causeView} from './causes.js'
import {PIN_DOWN_STEP} from './search/hypotheses.js'
import {type LeaveFacts, whyLeft} from './members.js'
import {STATE_NAMES} from './member-status.js'
import type {TimelineEntry} from './report.js'

export function timelineEntry(
  e: EpochChange,
  attribution: Attribution | undefined,
  bumpCauses: readonly BumpCause[],
  laterJoins: LeaveFacts['laterJoins'],
): TimelineEntry {
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
    if (c.kind === 'metadata-hash-changed') {
      if (attribution) {
        view.details.changes = attribution.matches
        view.confidence = attribution.confidence
        view.alternatives = attribution.alternatives
        if (attribution.evident) view.details.evident = attribution.evident
        view.message =
          attribution.confidence === 'evident'
            ? `metadata changed: ${attribution.note}`
            : attribution.matches.length > 0
              ? `metadata changed, ${consistentWith(attribution)}`
              : `${view.message}; ${attribution.note}`
      }
      if (view.confidence === 'inferred-ambiguous' || view.confidence === 'unexplained') {
        view.details.nextStep = PIN_DOWN_STEP
        view.message += `; ${PIN_DOWN_STEP}`
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
