/** The human form of `group explain`: verdict first, then findings, members, topics and the timeline. */
import {brokerHealthText} from '../core/explain/report/brokers.js'
import type {CauseView} from '../core/explain/report/causes.js'
import type {ExplainReport} from '../core/explain/explain.js'
import type {NamedPartitions} from '../core/explain/report/members.js'
import type {GroupOffsets} from '../core/explain/report/offsets.js'
import {churnCostLine, costLine} from './cost.js'
import {type Style, PLAIN, formatTime, paint, retime, verdictTone} from './style.js'
import {renderTable, wrapProse} from './table.js'
import {forTerminalLine} from './terminal.js'

/**
 * The whole text, terminal-safe (every piece from the records is escaped here, before colour is added), so a
 * command may print it as it is. `style`: times, colour and the terminal width (see style.ts).
 */
export function renderExplain(r: ExplainReport, style: Style = PLAIN): string {
  const width = style.width ?? 0
  // (line breaks escaped too: the core's messages are one line each, so a line break can only come from an id, and a
  // group id "g\nverdict: STABLE" must not print a line that reads as the verdict)
  const safe = (text: string) => forTerminalLine(retime(text, style))
  const c: Section = {r, style, width, safe}
  return [...headLines(c), ...findingLines(c), ...memberLines(c), ...topicLines(c), ...timelineLines(c), ...churnLines(c)].join('\n')
}

/** What every section of the text needs: the report, the style, the width, and the escaping of record text. */
interface Section {
  readonly r: ExplainReport
  readonly style: Style
  readonly width: number
  readonly safe: (text: string) => string
}

/** The group and its epochs, the verdict, the metadata hash, and the protocol and version notes. */
function headLines({r, style, width, safe}: Section): string[] {
  const out: string[] = []
  const head = [`group ${r.group}${r.type ? ` (${r.type})` : ''}`]
  if (r.groupEpoch !== null) head.push(`group epoch ${r.groupEpoch}`)
  if (r.assignmentEpoch !== null) head.push(`assignment epoch ${r.assignmentEpoch}`)
  out.push(wrapProse(safe(head.join(', ')), width, 2))
  out.push(verdictLine(r.verdict.code, safe(r.verdict.message), style, width))
  if (r.storedMetadataHash !== null) {
    out.push(
      `metadata hash: stored ${r.storedMetadataHash}${r.liveMetadataHash === null ? '' : `, live ${r.liveMetadataHash}${r.inSync ? ' (equal)' : ' (different)'}`}`,
    )
  }
  if (r.rules === '4.0') {
    out.push(
      `metadata hash: not kept by this version (Kafka 4.0 rules: the stored subscription metadata is compared${r.inSync === null ? '' : r.inSync ? ', equal to live metadata' : ', different from live metadata'})`,
    )
  }
  if (r.migration) {
    const m = r.migration
    const state =
      m.upgrade === 'blocked'
        ? `blocked: ${m.blockers.join('; ')}`
        : m.upgrade === 'replaced'
          ? 'possible (an empty group)'
          : `possible if ${m.conditions.join(' and ')}`
    out.push(wrapProse(safe(`to the consumer protocol (KIP-848): ${state}. The first consumer-protocol member: ${m.firstMember}`), width, 2))
  }
  for (const note of r.releases?.notes ?? []) out.push(wrapProse(safe(`versions: ${note}`), width, 2))
  if (r.downgrade)
    out.push(
      wrapProse(
        safe(`back to the classic protocol: ${r.downgrade.classicMembers} member(s) use it; ${r.downgrade.when}, if ${r.downgrade.conditions.join(' and ')}`),
        width,
        2,
      ),
    )
  return out
}

/** The findings, except those the verdict already says. */
function findingLines({r, style, width, safe}: Section): string[] {
  const findings = r.findings.filter(
    f => !['REBALANCE_PENDING', 'STALE_COORDINATOR_CACHE', 'HASH_DIFFERS'].includes(f.code) && !(f.code === r.verdict.code && f.message === r.verdict.message),
  )
  if (findings.length === 0) return []
  return ['findings:', ...findings.map(f => wrapProse(`  - ${f.code}: ${safe(f.message)}`, width, 4).replace(f.code, paint(f.code, 'warn', style)))]
}

/** The member table, their partitions, who waits for whom, and what of a classic member does not decode. */
function memberLines(c: Section): string[] {
  const {r, width, safe} = c
  if (r.members.length === 0) return r.type && r.type !== 'classic' && r.groupEpoch !== null ? ['no members'] : []
  const out = ['', memberTable(c)]
  const withPartitions = r.members.filter(m => m.partitions)
  if (withPartitions.some(m => m.partitions!.assigned.length + m.partitions!.target.length > 0)) {
    out.push(
      renderTable(
        ['member', 'host', 'assigned', 'to revoke', 'to assign'],
        withPartitions.map(m => [
          forTerminalLine(m.memberId),
          forTerminalLine(m.clientHost ?? ''),
          partitionsText(m.partitions!.assigned),
          partitionsText(m.partitions!.pendingRevocation),
          partitionsText(m.partitions!.pendingAssignment),
        ]),
        ['left', 'left', 'left', 'left', 'left'],
        {width},
      ),
    )
  }
  for (const m of withPartitions) {
    if (m.partitions!.waitingOn.length === 0) continue
    const name = (id: string) => {
      const o = r.members.find(x => x.memberId === id)
      return `${id}${o?.clientId ? ` (client ${o.clientId}${o.clientHost ? ` on ${o.clientHost}` : ''})` : ''}`
    }
    out.push(
      wrapProse(
        safe(`member ${m.memberId} waits for ${m.partitions!.waitingOn.map(name).join(', ')} to revoke ${partitionsText(m.partitions!.pendingAssignment)}`),
        width,
        2,
      ),
    )
  }
  // classic members whose subscription or assignment is not the consumer protocol (or does not decode)
  for (const m of r.members) for (const why of m.classic?.undecoded ?? []) out.push(wrapProse(safe(`member ${m.memberId}: ${why}`), width, 2))
  return out
}

function memberTable({r, style, width}: Section): string {
  return renderTable(
    ['member', 'epoch', 'state', 'subscribed', 'rack'],
    r.members.map(m => [
      forTerminalLine(
        `${m.memberId}${[m.clientId ? `client ${m.clientId}` : '', m.instanceId ? `instance ${m.instanceId}` : '']
          .filter(Boolean)
          .map(x => ` (${x})`)
          .join('')}`,
      ),
      m.memberEpoch ?? '-',
      m.reconciling
        ? `${m.state ?? (r.reading ? 'state not described' : 'no assignment')} (reconciling${m.reconcilingSince ? ` since ${formatTime(m.reconcilingSince, style)}` : ''})`
        : (m.state ?? '-'),
      forTerminalLine([m.subscribedTopicNames.join(','), m.subscribedTopicRegex ? `regex ${m.subscribedTopicRegex}` : ''].filter(Boolean).join(' ')),
      forTerminalLine(m.rackId ?? ''),
    ]),
    ['left', 'right', 'left', 'left', 'left'],
    {width},
  )
}

/** The brokers' health, the group's topics and its offsets. */
function topicLines({r, width, safe}: Section): string[] {
  const out: string[] = []
  if (r.brokers) out.push(wrapProse(safe(brokerHealthText(r.brokers)), width, 2))
  if (r.topics.length > 0) {
    out.push(
      wrapProse(
        safe(`topics: ${r.topics.map(t => (t.exists ? `${t.name} (${t.partitions} partitions, id ${t.topicId})` : `${t.name} (does not exist)`)).join(', ')}`),
        width,
        2,
      ),
    )
  }
  if (r.offsets && r.offsets.partitions.length > 0) out.push('', offsetsText(r.offsets, width))
  return out
}

/** The epoch timeline, then in full the ids of past members it shortened. */
function timelineLines({r, style, width, safe}: Section): string[] {
  if (r.reading) return ['', ...describeOnlyLines(r, safe, width), ...recordedHistoryLines({r, style, width, safe})]
  if (r.timeline.length === 0) return ['', 'no epoch change in the log (after filters)']
  const shortened: CauseView[] = []
  const table = renderTable(
    ['epoch', 'time', 'why'],
    r.timeline.map(e => {
      const epoch = `${e.previousEpoch ?? '-'} → ${e.epoch}`
      const time = formatTime(e.timestamp, style)
      // the room the why column has on one line: ids are shortened (keeping their start) only when a cause
      // would not fit in it, so a terminal gets one line per ordinary row and a pipe gets the full ids
      const room = width > 0 ? width - 10 - Math.max(5, epoch.length) - Math.max(4, time.length) : Infinity
      return [
        epoch,
        time,
        [
          ...e.causes.map(c => {
            const line = causeLine(c, style, room)
            if (line !== causeLine(c, style)) shortened.push(c)
            return line
          }),
          ...(e.cost ? [costLine(e.cost)] : []),
        ].join('\n'),
      ]
    }),
    ['right', 'left', 'left'],
    {width},
  )
  // ids the timeline shortened are given whole once: those of current members are in the member table
  const current = new Set(r.members.map(m => m.memberId))
  const whole = new Map<string, string>()
  for (const c of shortened) {
    const d = c.details as {memberId?: string; clientId?: string}
    if (d.memberId && !current.has(d.memberId)) whole.set(d.memberId, `${d.memberId}${d.clientId ? ` (client ${d.clientId})` : ''}`)
  }
  if (whole.size === 0) return ['', table]
  return ['', table, wrapProse(forTerminalLine(`members no longer in the group, in full: ${[...whole.values()].join(', ')}`), width, 2)]
}

/** Read describe-only with a recorded history: the group's epochs as earlier runs saw them, and each rise's causes. */
function recordedHistoryLines({r, style, width, safe}: Section): string[] {
  const h = r.history
  if (!h) return []
  const shown = h.recorded > h.observations.length ? `, the last ${h.observations.length} shown` : ''
  const rises = new Map(h.rises.map(x => [x.time, x]))
  const rows = h.observations.map(o => {
    const rise = rises.get(o.time)
    const epoch = rise ? `${rise.previousEpoch} → ${o.epoch}` : String(o.epoch)
    return [epoch, formatTime(o.time, style), rise ? rise.causes.map(c => causeLine(c, style)).join('\n') : '']
  })
  return [
    '',
    `History (recorded by earlier runs): ${h.recorded} observation${h.recorded === 1 ? '' : 's'} of the group epoch${shown}`,
    renderTable(['epoch', 'time', 'recorded in the interval'], rows, ['right', 'left', 'left'], {width}),
    wrapProse(safe(h.unknown), width, 2),
  ]
}

/** Read describe-only: instead of the timeline, what the records would give and the grant that gives them. */
function describeOnlyLines(r: ExplainReport, safe: (text: string) => string, width: number): string[] {
  const live = r.liveMetadataHash === null ? '' : `metadata hash: live ${r.liveMetadataHash}, stored unknown. `
  return (r.reading?.missing ?? []).map(m =>
    wrapProse(
      safe(
        `${live}read describe-only (${r.reading!.reason}): the ${m.what} need ${m.needs.operation} on ${m.needs.resourceType} ${m.needs.resourceName}; grant: ${m.grant}`,
      ),
      width,
      2,
    ),
  )
}

/** Why the group keeps rebalancing: the bumps by cause, and a finding per client. */
function churnLines({r, width, safe}: Section): string[] {
  const churn = r.churn
  if (!churn || churn.clients.length === 0) return []
  const causes = Object.entries(churn.byCause)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')
  return [
    '',
    wrapProse(safe(`why it keeps rebalancing: ${churn.bumps} bumps from ${churn.from} to ${churn.to} (${causes})`), width, 2),
    ...churn.clients.map(c => wrapProse(safe(`  - ${c.finding}`), width, 4)),
    ...(churn.cost ? [wrapProse(safe(churnCostLine(churn.cost, r.type === 'streams' ? 'task' : 'partition')), width, 4)] : []),
  ]
}

/**
 * "verdict: IN_SYNC: the stored metadata hash equals …": the code (coloured on a terminal), then the message
 * without its opening words when they only restate the code ("in sync: …", "a rebalance is coming: …").
 */
export function verdictLine(code: string, message: string, style: Pick<Style, 'color'> = PLAIN, width = 0): string {
  const words = code.toLowerCase().split('_')
  const [restated, replacement] = RESTATED[code] ?? [/^$/, '']
  let rest = message.replace(restated, replacement)
  if (rest === '') rest = message
  // a lead-in that is the code in words ("in sync: …", "pending: …")
  const spelled = new RegExp(`^${words.join('[ _-]')}[:;,]?\\s*`, 'i')
  rest = rest.replace(spelled, '') || rest
  return wrapProse(`verdict: ${code}${rest ? `: ${rest}` : ''}`, width, 2).replace(`verdict: ${code}`, `verdict: ${paint(code, verdictTone(code), style)}`)
}

const TITLES: Partial<Record<CauseView['kind'], string>> = {'member-joined': 'member joined', 'member-left': 'member left'}

/** "Yj4cM3n0RkK9…": an id cut to `max` characters with an ellipsis, keeping its start. */
export function shortId(id: string, max: number): string {
  return [...id].length <= max ? id : `${[...id].slice(0, max - 1).join('')}…`
}

/**
 * One cause for the timeline, cause first and detail after ("member joined: <id> (client c), subscribed to …"),
 * times in the style; member and client ids shortened (keeping their start) when the line would not fit in `room`.
 */
export function causeLine(c: CauseView, style: Pick<Style, 'time' | 'now' | 'timeZone'>, room = Infinity): string {
  let text = causeText(c, id => id)
  // ids cut to 12, then 8 characters (still distinct among a group's members), until the line fits
  for (const max of [12, 8]) if ([...text].length > room) text = causeText(c, id => shortId(id, max))
  // a leave the records cannot tell, in its short words (the whole reason is in --json and on a wider terminal)
  if ([...text].length > room) text = causeText(c, id => shortId(id, 8), true)
  return forTerminalLine(retime(text, style))
}

/** "leave or timeout; last state STABLE 8 s": the reason of a leave of kind unknown, for a narrow timeline. */
function shortLeave(leave: {kind?: string; reason: string; lastState?: string | null; msInLastState?: number | null}): string {
  if (leave.kind !== 'unknown') return leave.reason
  const state = leave.lastState && leave.msInLastState !== null && leave.msInLastState !== undefined
  return `leave or timeout${state ? `; last state ${leave.lastState} ${Math.round(leave.msInLastState! / 1000)} s` : ''}`
}

function causeText(c: CauseView, id: (id: string) => string, short = false): string {
  const d = c.details as {
    memberId?: string
    previousMemberId?: string
    clientId?: string
    instanceId?: string | null
    subscribedTopicNames?: string[]
    subscribedTopicRegex?: string | null
    leave?: {kind?: string; reason: string; lastState?: string | null; msInLastState?: number | null}
  }
  const title = TITLES[c.kind]
  if (title && d.memberId) {
    const who = `${id(d.memberId)}${d.clientId ? ` (client ${id(d.clientId)})` : ''}${d.instanceId ? ` (instance ${d.instanceId})` : ''}`
    if (c.kind === 'member-joined') {
      const subs = [
        d.subscribedTopicNames?.length ? `subscribed to ${d.subscribedTopicNames.join(', ')}` : '',
        d.subscribedTopicRegex ? `regex ${d.subscribedTopicRegex}` : '',
      ].filter(Boolean)
      return `${title}: ${who}${subs.length ? `, ${subs.join(', ')}` : ''}`
    }
    const reason = d.leave && (short ? shortLeave(d.leave) : d.leave.reason)
    return `${title}: ${who}; ${reason ?? c.message.replace(/^.*? left or was fenced/, 'left or was fenced')}`
  }
  let text = c.message
  for (const m of [d.memberId, d.previousMemberId]) if (m && id(m) !== m) text = text.split(m).join(id(m))
  return text
}

/**
 * Opening clauses of the core's verdict messages that repeat what the code says, and what replaces them
 * ("GROUP_DELETED: the consumer group was deleted: its records were tombstoned" → "GROUP_DELETED: consumer records
 * tombstoned").
 */
const RESTATED: Record<string, [RegExp, string]> = {
  IN_SYNC: [/^in sync: /, ''],
  REBALANCE_PENDING: [/^a rebalance is coming: /, ''],
  EMPTY_GROUP: [/^the group has no members(; |: )/, ''],
  CLASSIC_GROUP: [/^classic group at (generation \S+): the classic protocol /, '$1: the protocol '],
  GROUP_DELETED: [/^the (\w+) group was deleted: its records were /, '$1 records '],
}

/** "orders 0-2,5; payments 1" (topic ids stand in for names that no longer exist). */
export function partitionsText(list: readonly NamedPartitions[]): string {
  return list.map(tp => `${tp.topic ?? `id ${tp.topicId}`} ${ranges(tp.partitions)}`).join('; ')
}

function ranges(ps: readonly number[]): string {
  const out: string[] = []
  for (let i = 0; i < ps.length; i++) {
    let j = i
    while (j + 1 < ps.length && ps[j + 1] === ps[j] + 1) j++
    out.push(j > i + 1 ? `${ps[i]}-${ps[j]}` : j === i + 1 ? `${ps[i]},${ps[j]}` : `${ps[i]}`)
    i = j
  }
  return out.join(',')
}

/** Rows of the offsets table in the text; --json has them all. */
export const OFFSET_ROWS = 20

/**
 * Committed offset, log end offset and lag per partition, as `kafka-consumer-groups --describe` prints them (a
 * missing value is "-"), after a summary line; the first OFFSET_ROWS rows, then how many more there are.
 */
export function offsetsText(o: GroupOffsets, width = 0): string {
  const n = o.partitions.length
  const head = `offsets: ${n} partition${n === 1 ? '' : 's'}, total lag ${o.totalLag}${o.uncommitted > 0 ? `, ${o.uncommitted} without a committed offset` : ''}`
  const shown = o.partitions.slice(0, OFFSET_ROWS)
  const table = renderTable(
    ['topic', 'partition', 'committed', 'log end', 'lag', 'member', 'host', 'client'],
    shown.map(p => [
      p.topic,
      p.partition,
      p.committedOffset ?? '-',
      p.logEndOffset ?? '-',
      p.lag ?? '-',
      forTerminalLine(p.memberId ?? '-'),
      forTerminalLine(p.host ?? '-'),
      forTerminalLine(p.clientId ?? '-'),
    ]),
    ['left', 'right', 'right', 'right', 'right', 'left', 'left', 'left'],
    {width},
  )
  const more = n > shown.length ? `\n… and ${n - shown.length} more partitions (--json lists them all)` : ''
  return `${wrapProse(forTerminalLine(head), width, 2)}\n${table}${more}`
}
