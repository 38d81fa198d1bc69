/** The human form of `impact`: the plan, one row per touched group, notes, and a summary line. */
import type {GroupImpact, ImpactReport, ImpactSummary} from '../core/impact/index.js'
import {renderTable, wrapProse} from './table.js'

export function bumpsText(g: GroupImpact): string {
  const {min, max} = g.bumps
  // partial completions or per-topic evictions make every count in between possible; otherwise only the two ends
  const between = /one by one|ISR changes/.test(g.decides ?? '')
  const now = min === max ? String(min) : `${min} ${between ? 'to' : 'or'} ${max}`
  return g.deferredBumps > 0 ? `${now} (+${g.deferredBumps} later)` : now
}

function stepsText(g: GroupImpact): string {
  if (g.members === 0) return 'none while the group has no members'
  return (
    g.steps
      .filter(s => s.bump !== 'no')
      .map(s => `${s.bump === 'if-seen' ? 'if seen: ' : ''}${s.deferred ? 'later: ' : ''}${s.phase} → ${s.metadataHash ?? 'hash unknown'}`)
      .join('\n') || 'no bump (recomputed, same hash)'
  )
}

/** `describeOnly`: the classic groups skipped are every classic group (their subscriptions are in the records). */
export function summaryText(s: ImpactSummary, describeOnly = false): string {
  const skipped = describeOnly ? 'not predicted describe-only' : 'of other protocols skipped'
  return [
    `${s.groups} group${s.groups === 1 ? '' : 's'} and ${s.classicGroups} classic${s.classicGroupsSkipped ? ` (${s.classicGroupsSkipped} classic ${skipped})` : ''}`,
    `${s.touched} touched`,
    `${s.rebalancing} would rebalance (${s.certain} certainly, ${s.possible} possibly, ${s.deferred} only later)`,
    ...(s.alreadyPending ? [`${s.alreadyPending} already pending${describeOnly ? ' (by the epochs)' : ' or stale'}`] : []),
    `exit ${s.exitCode}${s.failOnRebalance === null ? '' : ` (--fail-on-rebalance ${s.failOnRebalance})`}`,
  ].join(' · ')
}

/** `width`: the terminal's columns (0: natural width): tables fitted (see renderTable), prose wrapped at spaces. */
export function renderImpact(r: ImpactReport, width = 0): string {
  const out: string[] = []
  // prose wrapped at spaces, continuation lines under the text after a list dash or two spaces in
  const prose = (text: string, indent = 2) => wrapProse(text, width, indent)
  out.push(prose(`plan: ${r.changes.join('; ') || 'no change'}`))
  for (const p of r.phases) {
    // what this phase does to the groups, counted from their steps: a recomputed hash that comes out the same
    // (a shutdown: a fenced broker's rack still counts) is no bump, and the header must not say there is one
    const bumping = r.groups.filter(g => g.steps.some(s => s.phase === p.phase && s.bump !== 'no')).length
    const groups =
      bumping > 0
        ? `${bumping} group${bumping === 1 ? '' : 's'} bump ${p.when}`
        : `no group bumps (hashes recomputed ${p.when} come out unchanged, or no group uses these topics)`
    out.push(prose(`  ${p.phase}${p.transient ? ' (transient)' : ''}: ${p.topics.length ? `${p.topics.length} topic(s) changed; ` : ''}${groups}`, 4))
  }
  if (r.groups.length > 0) {
    out.push('')
    out.push(
      renderTable(
        ['group', 'type', 'members', 'partitions', 'today', 'bumps', 'steps (phase → stored hash)'],
        r.groups.map(g => [g.group, g.type, g.members, g.assignedPartitions ?? '-', g.today, bumpsText(g), stepsText(g)]),
        ['left', 'left', 'right', 'right', 'left', 'left', 'left'],
        {width},
      ),
    )
    const notes = r.groups.flatMap(g => [
      ...(g.decides ? [`${g.group}: ${bumpsText(g)} bumps: ${g.decides}`] : []),
      ...g.steps.filter(s => s.hashUnknown && s.bump !== 'no').map(s => `${g.group}: ${s.phase}: ${s.hashUnknown}`),
      ...g.notes.map(n => `${g.group}: ${n}`),
    ])
    if (notes.length > 0) {
      out.push('notes:')
      for (const n of [...new Set(notes)]) out.push(prose(`  - ${n}`, 4))
    }
  }
  if (r.classicGroups.length > 0) {
    out.push('')
    out.push(prose('classic groups (no metadata hash: the leader rejoins when a metadata refresh differs from what it assigned with):'))
    out.push(
      renderTable(
        ['group', 'members', 'leader rack', 'rebalances', 'steps (phase: what the leader sees)'],
        r.classicGroups.map(g => [
          g.group,
          g.members,
          g.leaderRack ?? '-',
          g.bumps.min === g.bumps.max ? String(g.bumps.min) : `${g.bumps.min} or ${g.bumps.max}`,
          g.members === 0
            ? 'none while the group has no members'
            : g.steps.map(s => `${s.bump === 'if-seen' ? 'if seen: ' : ''}${s.phase}: ${s.why}`).join('\n') || 'nothing the leader compares changes',
        ]),
        ['left', 'right', 'left', 'left', 'left'],
        {width},
      ),
    )
    const when = r.classicGroups.some(g => g.steps.length > 0)
      ? [`classic groups rebalance ${r.classicGroups.find(g => g.steps.length > 0)!.steps[0].when}`]
      : []
    const notes = [...when, ...r.classicGroups.flatMap(g => g.notes.map(n => `${g.group}: ${n}`))]
    if (notes.length > 0) {
      out.push('notes:')
      for (const n of [...new Set(notes)]) out.push(prose(`  - ${n}`, 4))
    }
  }
  out.push(...readingLines(r, prose))
  out.push(prose(summaryText(r.summary, r.reading !== undefined)))
  return out.join('\n')
}

/** Read describe-only: what the prediction assumes, and what each missing permission would add, with the grant. */
function readingLines(r: ImpactReport, prose: (text: string, indent?: number) => string): string[] {
  if (!r.reading) return []
  return [
    prose(
      `read describe-only (${r.reading.reason}): each group is predicted from the live metadata hash of its described topics, as if its stored hash equals it (in sync today)`,
    ),
    ...r.reading.missing.map(m =>
      prose(`  - the ${m.what}: needs ${m.needs.operation} on ${m.needs.resourceType} ${m.needs.resourceName}; grant: ${m.grant}`, 4),
    ),
  ]
}
