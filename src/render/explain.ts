/** The human form of `group explain`: verdict first, then findings, members, topics and the timeline. */
import type {ExplainReport} from '../core/explain/explain.js'
import type {NamedPartitions} from '../core/explain/members.js'
import {renderTable} from './table.js'

export function renderExplain(r: ExplainReport): string {
  const out: string[] = []
  const head = [`group ${r.group}${r.type ? ` (${r.type})` : ''}`]
  if (r.groupEpoch !== null) head.push(`group epoch ${r.groupEpoch}`)
  if (r.assignmentEpoch !== null) head.push(`assignment epoch ${r.assignmentEpoch}`)
  out.push(head.join(', '))
  out.push(`verdict: ${r.verdict.code}: ${r.verdict.message}`)
  if (r.storedMetadataHash !== null) {
    out.push(`metadata hash: stored ${r.storedMetadataHash}${r.liveMetadataHash === null ? '' : `, live ${r.liveMetadataHash}${r.inSync ? ' (equal)' : ' (different)'}`}`)
  }
  const findings = r.findings.filter(f => !['REBALANCE_PENDING', 'STALE_COORDINATOR_CACHE', 'HASH_DIFFERS'].includes(f.code))
  if (findings.length > 0) {
    out.push('findings:')
    for (const f of findings) out.push(`  - ${f.code}: ${f.message}`)
  }
  if (r.members.length > 0) {
    out.push('')
    out.push(
      renderTable(
        ['member', 'epoch', 'state', 'subscribed', 'rack'],
        r.members.map(m => [
          `${m.memberId}${[m.clientId ? `client ${m.clientId}` : '', m.instanceId ? `instance ${m.instanceId}` : ''].filter(Boolean).map(x => ` (${x})`).join('')}`,
          m.memberEpoch ?? '-',
          m.reconciling ? `${m.state ?? 'no assignment'} (reconciling${m.reconcilingSince ? ` since ${m.reconcilingSince}` : ''})` : (m.state ?? '-'),
          [m.subscribedTopicNames.join(','), m.subscribedTopicRegex ? `regex ${m.subscribedTopicRegex}` : ''].filter(Boolean).join(' '),
          m.rackId ?? '',
        ]),
        ['left', 'right', 'left', 'left', 'left'],
      ),
    )
    const withPartitions = r.members.filter(m => m.partitions)
    if (withPartitions.some(m => m.partitions!.assigned.length + m.partitions!.target.length > 0)) {
      out.push(
        renderTable(
          ['member', 'host', 'assigned', 'to revoke', 'to assign'],
          withPartitions.map(m => [m.memberId, m.clientHost ?? '', partitionsText(m.partitions!.assigned), partitionsText(m.partitions!.pendingRevocation), partitionsText(m.partitions!.pendingAssignment)]),
          ['left', 'left', 'left', 'left', 'left'],
        ),
      )
    }
    for (const m of withPartitions) {
      if (m.partitions!.waitingOn.length === 0) continue
      const name = (id: string) => {
        const o = r.members.find(x => x.memberId === id)
        return `${id}${o?.clientId ? ` (client ${o.clientId}${o.clientHost ? ` on ${o.clientHost}` : ''})` : ''}`
      }
      out.push(`member ${m.memberId} waits for ${m.partitions!.waitingOn.map(name).join(', ')} to revoke ${partitionsText(m.partitions!.pendingAssignment)}`)
    }
  } else if (r.type && r.type !== 'classic' && r.groupEpoch !== null) {
    out.push('no members')
  }
  if (r.topics.length > 0) {
    out.push(`topics: ${r.topics.map(t => (t.exists ? `${t.name} (${t.partitions} partitions, id ${t.topicId})` : `${t.name} (does not exist)`)).join(', ')}`)
  }
  out.push('')
  if (r.timeline.length === 0) {
    out.push('no epoch change in the log (after filters)')
  } else {
    out.push(
      renderTable(
        ['epoch', 'time', 'why'],
        r.timeline.map(e => [`${e.previousEpoch ?? '-'} → ${e.epoch}`, e.time, e.causes.map(c => c.message).join('\n')]),
        ['right', 'left', 'left'],
      ),
    )
  }
  return out.join('\n')
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
