/**
 * `group explain --html`: one self-contained page (inline CSS and SVG; no script, font, image or link to load) with
 * the timeline picture and the same facts as text (the bumps with their causes and costs, the members, the longest
 * times without an owner), for search and screen readers. Every name from the records goes through h().
 */
import {aggregateLanes, type OwnershipLanes, type UnownedGap} from '../../core/cost/index.js'
import type {ExplainReport, TimelineEntry} from '../../core/explain/report/report.js'
import {costLine} from '../cost.js'
import {h, secs, utc} from './escape.js'
import {type TypeWords, wordsOf} from './kinds.js'
import {STYLE} from './style.js'
import {type TimelineView, timelineSvg} from './svg.js'

/** Lanes drawn one per member up to this many; past it, the rest are summed in one lane. */
export const MAX_LANES = 40
/** Gaps listed as text (the longest first); the picture has them all. */
export const MAX_GAPS_LISTED = 200

export interface HtmlOptions {
  /** The window asked (--since as ms, --last), said in the page. */
  readonly since?: number
  readonly last?: number
  readonly now: number
}

export function explainHtml(report: ExplainReport, lanes: OwnershipLanes | null, o: HtmlOptions): string {
  const title = `rebalance-doctor: group ${report.group}`
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${h(title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>Group <code>${h(report.group)}</code></h1>`,
    summaryHtml(report, o),
    lanes ? pictureHtml(report, lanes) : '<p>No timeline: no record of the group was read (describe-only, or none found).</p>',
    bumpsTableHtml(report),
    lanes ? membersTableHtml(lanes) + gapsTableHtml(lanes.gaps, wordsOf(report.type)) : '',
    cannotTellHtml(report),
    `<footer><p>Written by rebalance-doctor at ${h(utc(o.now))}. Times are record timestamps (the coordinator\u2019s clock), UTC.</p></footer>`,
    '</body></html>',
    '',
  ].join('\n')
}

const plural = (n: number, w: string) => `${n.toLocaleString('en-US')} ${w}${n === 1 ? '' : 's'}`

function summaryHtml(r: ExplainReport, o: HtmlOptions): string {
  const window =
    o.since !== undefined || o.last !== undefined
      ? ` Window: ${[o.since !== undefined ? `since ${utc(o.since)}` : '', o.last !== undefined ? `the last ${plural(o.last, 'bump')}` : ''].filter(Boolean).join(', ')}.`
      : ''
  const facts = [
    `Type: ${r.type ?? 'unknown'}`,
    ...(r.type === 'classic'
      ? [`generation ${r.groupEpoch ?? 'none'}`]
      : [`group epoch ${r.groupEpoch ?? 'none'}`, `assignment epoch ${r.assignmentEpoch ?? 'none'}`]),
    `${plural(r.members.length, 'member')} now`,
    `${plural(r.timeline.length, 'bump')} shown`,
  ]
  return `<p class="summary">${h(facts.join('; '))}.${h(window)}</p>\n<p class="verdict"><strong>${h(r.verdict.code)}</strong>: ${h(r.verdict.message)}</p>`
}

function pictureHtml(r: ExplainReport, lanes: OwnershipLanes): string {
  const {lanes: drawn, aggregated} = aggregateLanes(lanes.lanes, MAX_LANES)
  const words = wordsOf(r.type)
  const unit = words.unit
  const view: TimelineView = {
    fromMs: lanes.fromMs,
    toMs: lanes.toMs,
    lanes: drawn,
    gaps: lanes.gaps,
    bumps: r.timeline,
    unit,
    gapsMeasured: words.gaps,
    label: bumpLabel,
    title: e => bumpTitle(e, words.bump),
  }
  const caption = `Timeline of group ${r.group}: ${plural(lanes.lanes.length, 'member')}, ${plural(r.timeline.length, 'bump')}, ${utc(lanes.fromMs)} to ${utc(lanes.toMs)}`
  const {svg, labelled} = timelineSvg(view, caption)
  const notes: string[] = []
  if (aggregated > 0)
    notes.push(
      `${plural(lanes.lanes.length, 'member')}: the ${drawn.length - 1} busiest are drawn in a lane each, the other ${aggregated} are summed in the last lane (their ${unit}s counted, not named); every member is in the members table.`,
    )
  if (labelled < r.timeline.length)
    notes.push(
      `Labels are drawn for ${labelled.toLocaleString('en-US')} of the ${plural(r.timeline.length, 'bump')}, where they fit; every bump line has its causes and cost on hover, and a row in the bumps table.`,
    )
  if (notes.length > 0) notes.push('A window narrows the picture: --since TIME or --last N.')
  const aggregate = notes.length > 0 ? `<p class="aggregated" id="aggregated">${h(notes.join(' '))}</p>` : ''
  const shows = `<p class="shows" id="shows">${h(words.shows)}</p>`
  return `<h2>Timeline</h2>\n${shows}\n${aggregate}\n<figure><div class="scroll">${svg}</div>\n${legendHtml(words)}</figure>`
}

function legendHtml(w: TypeWords): string {
  const item = (cls: string, text: string) =>
    `<li><svg width="22" height="12" aria-hidden="true"><rect class="${cls}" width="22" height="12"/></svg> ${h(text)}</li>`
  const unit = w.unit === 'task' ? 'active tasks' : 'partitions'
  return [
    '<figcaption><ul class="legend">',
    item('own', `${unit} a member held (darker: more; hover for which)`),
    w.unit === 'task' ? item('other', 'standby and warm-up tasks a member held') : '',
    w.gaps ? item('gap', `${unit} without an owner (released, not yet held by the next member)`) : '',
    w.slowest ? item('slow', "the bump's slowest member (revoking, joined late, or no record of it)") : '',
    w.release ? item('rel-key', w.release) : '',
    item('epoch-key', `${w.bump === 'epoch' ? 'an epoch bump' : 'a new generation'} (hover for its causes and cost; all are listed below)`),
    '</ul></figcaption>',
  ].join('')
}

/** The short text above a bump's line: its epoch, causes and what moved. */
export function bumpLabel(e: TimelineEntry): string {
  const causes = [...new Set(e.causes.map(c => c.kind))].join(', ') || 'no cause found'
  return `${e.epoch}: ${causes}${e.cost ? ` (${e.cost.movedCount} moved)` : ''}`
}

/** Everything about a bump, for its <title>: `bump` is what the group type calls it (epoch, generation). */
export function bumpTitle(e: TimelineEntry, bump: TypeWords['bump'] = 'epoch'): string {
  const lines = [`${bump} ${e.epoch} at ${utc(e.timestamp)} (offset ${e.offset})`, ...e.causes.map(c => `${c.message} [${c.confidence}]`)]
  if (e.cost) lines.push(costLine(e.cost))
  return lines.join(' \u2014 ')
}

function bumpsTableHtml(r: ExplainReport): string {
  if (r.timeline.length === 0) return '<h2>Bumps</h2>\n<p>No epoch bump in the records read (or in the window).</p>'
  const rows = r.timeline.map(e => {
    const causes = e.causes.map(c => `<li>${h(c.message)} <span class="conf">(${h(c.confidence)})</span></li>`).join('')
    const cost = e.cost ? h(costLine(e.cost).replace(/^cost: /, '')) : 'not measured'
    return `<tr><td>${e.epoch}</td><td>${h(utc(e.timestamp))}</td><td><ul>${causes || '<li>no cause found</li>'}</ul></td><td>${cost}</td></tr>`
  })
  const head = `<tr><th scope="col">${wordsOf(r.type).bump === 'epoch' ? 'Epoch' : 'Generation'}</th><th scope="col">Time</th><th scope="col">Causes</th><th scope="col">Cost</th></tr>`
  return `<h2>Bumps</h2>\n<table class="bumps"><thead>${head}</thead><tbody>\n${rows.join('\n')}\n</tbody></table>`
}

function membersTableHtml(lanes: OwnershipLanes): string {
  if (lanes.lanes.length === 0) return ''
  const rows = lanes.lanes.map(l => {
    const last = l.spans.at(-1)
    const now = last && last.toMs >= lanes.toMs ? last.units.join(', ') : ''
    return `<tr><td><code>${h(l.member.memberId)}</code></td><td>${h(l.member.clientId ?? '')}</td><td>${h(now || 'none')}</td><td>${l.releases.length}</td><td>${l.slow.length}</td></tr>`
  })
  const head =
    '<tr><th scope="col">Member id</th><th scope="col">Client id</th><th scope="col">Holds at the end</th><th scope="col">Releases</th><th scope="col">Slowest in</th></tr>'
  return `<h2>Members</h2>\n<table class="members"><thead>${head}</thead><tbody>\n${rows.join('\n')}\n</tbody></table>\n`
}

function gapsTableHtml(gaps: readonly UnownedGap[], w: TypeWords): string {
  const unit = w.unit
  if (!w.gaps) return `<h2>Without an owner</h2>\n<p>Not measured for this group type: its records give no time a ${unit} was released and held again.</p>`
  if (gaps.length === 0) return `<h2>Without an owner</h2>\n<p>No ${unit} was without an owner in this window.</p>`
  const longest = [...gaps].sort((a, b) => b.toMs - b.fromMs - (a.toMs - a.fromMs)).slice(0, MAX_GAPS_LISTED)
  const rows = longest.map(
    g =>
      `<tr><td>${h(g.unit)}</td><td>${g.epoch}</td><td>${h(utc(g.fromMs))}</td><td>${h(secs(g.toMs - g.fromMs))}${g.open ? ' so far (no owner yet)' : ''}</td></tr>`,
  )
  const more = gaps.length > longest.length ? `<p>The longest ${longest.length} of ${plural(gaps.length, 'gap')}.</p>` : ''
  const head = `<tr><th scope="col">${unit === 'task' ? 'Task' : 'Partition'}</th><th scope="col">Epoch</th><th scope="col">Released</th><th scope="col">Without an owner</th></tr>`
  return `<h2>Without an owner</h2>\n${more}<table class="gaps"><thead>${head}</thead><tbody>\n${rows.join('\n')}\n</tbody></table>`
}

function cannotTellHtml(r: ExplainReport): string {
  const said = [...new Set(r.timeline.flatMap(e => e.cost?.cannotTell ?? []))]
  if (said.length === 0) return ''
  return `<h2>What the records cannot tell</h2>\n<ul>${said.map(s => `<li>${h(s)}</li>`).join('')}</ul>`
}
