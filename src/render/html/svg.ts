/**
 * The timeline as inline SVG: a lane per member (the partitions it held, shaded by how many; its releases as red
 * ticks; hatched where it was a bump's slowest member), a lane of partitions without an owner, and every epoch bump
 * as a vertical line with a <title> (shown on hover) holding its causes and cost. Labels are drawn where they fit;
 * every bump is in the page's table too. No reference leaves the document (the hatch is a local #fragment).
 */
import type {MemberLane, OwnedSpan, UnownedGap} from '../../core/cost/index.js'
import type {TimelineEntry} from '../../core/explain/report/report.js'
import {forTerminalLine} from '../terminal.js'
import {firstOf, h, secs, utc} from './escape.js'

export const LAYOUT = {width: 1200, left: 240, right: 20, labels: 165, laneH: 18, laneGap: 5, axis: 28, labelGap: 14} as const

export interface TimelineView {
  readonly fromMs: number
  readonly toMs: number
  readonly lanes: readonly MemberLane[]
  readonly gaps: readonly UnownedGap[]
  readonly bumps: readonly TimelineEntry[]
  /** Partitions or tasks. */
  readonly unit: 'partition' | 'task'
  /** False where the records give no time without an owner (share, classic): that lane says so. */
  readonly gapsMeasured: boolean
  /** The short and long text of a bump (label, title). */
  readonly label: (e: TimelineEntry) => string
  readonly title: (e: TimelineEntry) => string
}

interface Scale {
  readonly x: (ms: number) => number
  readonly height: number
  readonly laneY: (i: number) => number
}

function scaleOf(v: TimelineView): Scale {
  const plot = LAYOUT.width - LAYOUT.left - LAYOUT.right
  const span = Math.max(1, v.toMs - v.fromMs)
  const x = (ms: number) => round(LAYOUT.left + ((Math.min(Math.max(ms, v.fromMs), v.toMs) - v.fromMs) / span) * plot)
  const laneY = (i: number) => LAYOUT.labels + i * (LAYOUT.laneH + LAYOUT.laneGap)
  return {x, laneY, height: laneY(v.lanes.length + 1) + LAYOUT.axis}
}

const round = (n: number) => Math.round(n * 10) / 10

/** The whole <svg>, and how many bump labels it drew. */
export function timelineSvg(v: TimelineView, caption: string): {svg: string; labelled: number} {
  const s = scaleOf(v)
  const bumps = bumpsSvg(v, s)
  const parts = [
    `<svg class="timeline" viewBox="0 0 ${LAYOUT.width} ${s.height}" width="${LAYOUT.width}" height="${s.height}" role="img" aria-labelledby="tl-title">`,
    `<title id="tl-title">${h(caption)}</title>`,
    '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" class="hatch"/></pattern></defs>',
    gapLaneSvg(v, s),
    ...v.lanes.map((l, i) => laneSvg(l, i + 1, v, s)),
    axisSvg(v, s),
    bumps.svg,
    '</svg>',
  ]
  return {svg: parts.join('\n'), labelled: bumps.labelled}
}

function laneName(l: MemberLane): string {
  if (l.members !== undefined) return l.member.memberId
  return l.member.clientId === null ? `member ${l.member.memberId}` : `${l.member.clientId} (${l.member.memberId.slice(0, 8)})`
}

function laneSvg(l: MemberLane, row: number, v: TimelineView, s: Scale): string {
  const y = s.laneY(row)
  const name = laneName(l)
  const max = Math.max(1, ...l.spans.map(sp => sp.count))
  const out = [
    `<g class="lane${l.members !== undefined ? ' aggregated' : ''}">`,
    `<text class="name" x="${LAYOUT.left - 6}" y="${y + 13}">${h(clip(name, 34))}<title>${h(name)}</title></text>`,
  ]
  out.push(`<rect class="track" x="${LAYOUT.left}" y="${y}" width="${LAYOUT.width - LAYOUT.left - LAYOUT.right}" height="${LAYOUT.laneH}"/>`)
  for (const sp of l.spans) out.push(spanSvg(sp, y, max, name, v, s))
  for (const sp of l.others ?? []) out.push(otherSvg(sp, y, name, s))
  for (const sl of l.slow) {
    const [x1, x2] = [s.x(sl.fromMs), s.x(sl.toMs)]
    const what =
      sl.doing === 'revoking' ? `revoking ${sl.units} ${v.unit}${sl.units === 1 ? '' : 's'}` : sl.doing === 'joined-late' ? 'joined late' : 'no record of it'
    const t = `${name}: the slowest member of epoch ${sl.epoch}, ${what} for ${secs(sl.toMs - sl.fromMs)}${sl.ongoing ? ' so far' : ''} (${utc(sl.fromMs)} to ${utc(sl.toMs)})`
    out.push(`<rect class="slow" x="${x1}" y="${y}" width="${Math.max(1, round(x2 - x1))}" height="${LAYOUT.laneH}"><title>${h(t)}</title></rect>`)
  }
  out.push(releasesSvg(l, y, name, s), '</g>')
  return out.join('')
}

function spanSvg(sp: OwnedSpan, y: number, max: number, name: string, v: TimelineView, s: Scale): string {
  const [x1, x2] = [s.x(sp.fromMs), s.x(sp.toMs)]
  const n = `${sp.count.toLocaleString('en-US')} ${v.unit}${sp.count === 1 ? '' : 's'}`
  const t = `${name} held ${n}${sp.units.length ? `: ${firstOf(sp.units)}` : ''} (${utc(sp.fromMs)} to ${utc(sp.toMs)})`
  const opacity = round(0.35 + (0.65 * sp.count) / max)
  return `<rect class="own" x="${x1}" y="${y + 2}" width="${Math.max(0.5, round(x2 - x1))}" height="${LAYOUT.laneH - 4}" fill-opacity="${opacity}"><title>${h(t)}</title></rect>`
}

/** Standby and warm-up tasks: a thin strip at the lane's foot, under its active tasks. */
function otherSvg(sp: OwnedSpan, y: number, name: string, s: Scale): string {
  const [x1, x2] = [s.x(sp.fromMs), s.x(sp.toMs)]
  const t = `${name} held ${sp.count.toLocaleString('en-US')} standby or warm-up task${sp.count === 1 ? '' : 's'}: ${firstOf(sp.units)} (${utc(sp.fromMs)} to ${utc(sp.toMs)})`
  return `<rect class="other" x="${x1}" y="${y + LAYOUT.laneH - 4}" width="${Math.max(0.5, round(x2 - x1))}" height="3"><title>${h(t)}</title></rect>`
}

/** A tick where the member released units, one per pixel (several releases at once share it). */
function releasesSvg(l: MemberLane, y: number, name: string, s: Scale): string {
  const byX = new Map<number, string[]>()
  for (const r of l.releases) {
    const x = Math.round(s.x(r.atMs))
    const why = r.by === 'member-removed' ? 'member removed' : r.by === 'revocation' ? 'revoked' : 'released'
    ;(byX.get(x) ?? byX.set(x, []).get(x)!).push(`${r.unit} (${why}, epoch ${r.epoch}, ${utc(r.atMs)})`)
  }
  const out: string[] = []
  for (const [x, what] of byX)
    out.push(`<line class="rel" x1="${x}" x2="${x}" y1="${y}" y2="${y + LAYOUT.laneH}"><title>${h(`${name} released ${firstOf(what, 6)}`)}</title></line>`)
  return out.join('')
}

/** Row 0: how many units had no owner, over time (a step area), each step titled with the first ones. */
function gapLaneSvg(v: TimelineView, s: Scale): string {
  const y = s.laneY(0)
  const steps = gapSteps(v.gaps)
  const max = Math.max(1, ...steps.map(st => st.units.length))
  const out = [
    `<g class="lane nobody"><text class="name" x="${LAYOUT.left - 6}" y="${y + 13}">without an owner${v.gapsMeasured ? '' : ': not measured'}</text>`,
    `<rect class="track" x="${LAYOUT.left}" y="${y}" width="${LAYOUT.width - LAYOUT.left - LAYOUT.right}" height="${LAYOUT.laneH}"/>`,
  ]
  for (const st of steps) {
    const [x1, x2] = [s.x(st.fromMs), s.x(st.toMs)]
    const hh = round(2 + ((LAYOUT.laneH - 2) * st.units.length) / max)
    const t = `${st.units.length.toLocaleString('en-US')} ${v.unit}${st.units.length === 1 ? '' : 's'} without an owner: ${firstOf(st.units)} (${utc(st.fromMs)} to ${utc(st.toMs)})`
    out.push(
      `<rect class="gap" x="${x1}" y="${round(y + LAYOUT.laneH - hh)}" width="${Math.max(0.5, round(x2 - x1))}" height="${hh}"><title>${h(t)}</title></rect>`,
    )
  }
  out.push('</g>')
  return out.join('')
}

/** The gaps swept into steps: from each start or end to the next, the units without an owner then. */
export function gapSteps(gaps: readonly UnownedGap[]): Array<{fromMs: number; toMs: number; units: string[]}> {
  const ends = gaps.flatMap(g => [
    {t: g.fromMs, unit: g.unit, add: true},
    {t: g.toMs, unit: g.unit, add: false},
  ])
  ends.sort((a, b) => a.t - b.t || Number(a.add) - Number(b.add))
  const open = new Map<string, number>()
  const out: Array<{fromMs: number; toMs: number; units: string[]}> = []
  for (let k = 0; k < ends.length; k++) {
    const e = ends[k]
    const n = (open.get(e.unit) ?? 0) + (e.add ? 1 : -1)
    if (n > 0) open.set(e.unit, n)
    else open.delete(e.unit)
    const next = ends[k + 1]
    if (next && next.t > e.t && open.size > 0) out.push({fromMs: e.t, toMs: next.t, units: [...open.keys()]})
  }
  return out
}

function axisSvg(v: TimelineView, s: Scale): string {
  const y = s.height - LAYOUT.axis
  const out = [`<g class="axis"><line x1="${LAYOUT.left}" x2="${LAYOUT.width - LAYOUT.right}" y1="${y}" y2="${y}"/>`]
  const ticks = 5
  for (let i = 0; i <= ticks; i++) {
    const ms = v.fromMs + ((v.toMs - v.fromMs) * i) / ticks
    const x = s.x(ms)
    const anchor = i === 0 ? 'start' : i === ticks ? 'end' : 'middle'
    out.push(
      `<line x1="${x}" x2="${x}" y1="${y}" y2="${y + 5}"/><text x="${x}" y="${y + 18}" text-anchor="${anchor}">${h(utc(ms).slice(i === 0 ? 0 : 11, 23))}</text>`,
    )
  }
  out.push('</g>')
  return out.join('')
}

/** Each bump: a line over every lane with its title; a label above where there is room since the last one. */
function bumpsSvg(v: TimelineView, s: Scale): {svg: string; labelled: number} {
  // many bumps close together would hide the lanes: the closer they are, the fainter each line (hover shows one)
  const spacing = (LAYOUT.width - LAYOUT.left - LAYOUT.right) / Math.max(1, v.bumps.length)
  const out: string[] = [`<g class="bumps" stroke-opacity="${Math.min(0.55, Math.max(0.08, spacing / 12)).toFixed(2)}">`]
  const [top, bottom] = [LAYOUT.labels - 4, s.height - LAYOUT.axis]
  let lastLabel = Number.NEGATIVE_INFINITY
  let labelled = 0
  for (const e of v.bumps) {
    const x = s.x(e.timestamp)
    const title = `<title>${h(v.title(e))}</title>`
    out.push(
      `<g class="bump">${title}<line class="hit" x1="${x}" x2="${x}" y1="${top}" y2="${bottom}"/><line class="epoch" x1="${x}" x2="${x}" y1="${top}" y2="${bottom}"/>`,
    )
    if (x - lastLabel >= LAYOUT.labelGap) {
      out.push(`<text class="bl" transform="translate(${x + 4} ${top - 2}) rotate(-90)">${h(clip(v.label(e), 26))}</text>`)
      lastLabel = x
      labelled++
    }
    out.push('</g>')
  }
  out.push('</g>')
  return {svg: out.join(''), labelled}
}

/** At most n characters as shown (control characters counted as their escapes). */
function clip(text: string, n: number): string {
  const shown = forTerminalLine(text)
  return shown.length <= n ? shown : `${shown.slice(0, n - 1)}…`
}
