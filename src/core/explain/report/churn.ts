/**
 * "It keeps rebalancing": over the timeline shown (after --since/--last), the bumps by cause and, per client, its
 * joins and departures with how long each stay lasted, set against its timeouts — what an on-call engineer asks
 * first. Departures the records cannot explain stay "likely" (members.ts, classic-causes.ts): nothing here is
 * stated as a fact that the records do not hold. Pure.
 */
import {type ChurnSummary, churnSummary, type RebalanceCost} from '../../cost/index.js'
import type {CauseView} from './causes.js'
import type {TimelineEntry} from '../explain.js'

/** The cost totals' windows: an hour, the span an on-call engineer compares ("every hour since the deploy"). */
export const CHURN_COST_WINDOW_MS = 3_600_000

export interface ChurnClient {
  /** The client.id the members sent; the member id when none. */
  client: string
  memberIds: string[]
  joins: number
  departures: number
  /** From each join to the departure that followed it (ms). */
  stayMs: {min: number; median: number; max: number} | null
  /** The session timeout its records hold (classic members), else null: a KIP-848 member's is the group's config. */
  sessionTimeoutMs: number | null
  rebalanceTimeoutMs: number | null
  /** How its departures are known (members.ts LeaveReason kinds; classic: leave, session-timeout, …). */
  departureKinds: Record<string, number>
  /** One sentence. */
  finding: string
}

export interface Churn {
  /** The window: the first and last bump shown (ISO), null when none. */
  from: string | null
  to: string | null
  bumps: number
  /** Causes by kind over the window (a bump can have several). */
  byCause: Record<string, number>
  /** Clients that joined or left at least twice, most active first. */
  clients: ChurnClient[]
  /** What the bumps shown cost, in all, per hour and per client; null when none has a cost (its records not read). */
  cost: ChurnSummary | null
}

const s = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`)

interface Seen {
  client: string
  memberIds: Set<string>
  joins: number[]
  departures: Array<{at: number; kind: string}>
  stays: number[]
  session: number | null
  rebalance: number | null
}

function leaveOf(c: CauseView): {kind: string; session: number | null; rebalance: number | null} {
  const d = c.details as {
    leave?: {kind: string; rebalanceTimeoutMs: number | null}
    how?: {kind: string; sessionTimeoutMs?: number; rebalanceTimeoutMs?: number}
  }
  if (d.how) return {kind: d.how.kind, session: d.how.sessionTimeoutMs ?? null, rebalance: d.how.rebalanceTimeoutMs ?? null}
  return {kind: d.leave?.kind ?? 'unknown', session: null, rebalance: d.leave?.rebalanceTimeoutMs ?? null}
}

export function churnOf(timeline: readonly TimelineEntry[]): Churn {
  const byCause: Record<string, number> = {}
  const clients = new Map<string, Seen>()
  const lastJoin = new Map<string, number>()
  const clientOfMember = new Map<string, string>()
  for (const e of timeline) {
    for (const c of e.causes) {
      byCause[c.kind] = (byCause[c.kind] ?? 0) + 1
      const d = c.details as {memberId?: string; clientId?: string}
      if (!d.memberId) continue
      const joined = c.kind === 'member-joined'
      const left = c.kind === 'member-left' || c.kind === 'classic-member-left'
      if (!joined && !left) continue
      const client = d.clientId || clientOfMember.get(d.memberId) || d.memberId
      clientOfMember.set(d.memberId, client)
      let x = clients.get(client)
      if (!x) clients.set(client, (x = {client, memberIds: new Set(), joins: [], departures: [], stays: [], session: null, rebalance: null}))
      x.memberIds.add(d.memberId)
      if (joined) {
        x.joins.push(e.timestamp)
        lastJoin.set(d.memberId, e.timestamp)
      } else {
        const l = leaveOf(c)
        x.departures.push({at: e.timestamp, kind: l.kind})
        x.session ??= l.session
        x.rebalance ??= l.rebalance
        const j = lastJoin.get(d.memberId)
        if (j !== undefined) {
          x.stays.push(e.timestamp - j)
          lastJoin.delete(d.memberId)
        }
      }
    }
  }
  const out: ChurnClient[] = []
  for (const x of clients.values()) {
    if (x.joins.length + x.departures.length < 3 && x.departures.length < 2) continue
    const stays = [...x.stays].sort((a, b) => a - b)
    const stayMs = stays.length ? {min: stays[0], median: stays[Math.floor(stays.length / 2)], max: stays[stays.length - 1]} : null
    const kinds: Record<string, number> = {}
    for (const d of x.departures) kinds[d.kind] = (kinds[d.kind] ?? 0) + 1
    out.push({
      client: x.client,
      memberIds: [...x.memberIds].sort(),
      joins: x.joins.length,
      departures: x.departures.length,
      stayMs,
      sessionTimeoutMs: x.session,
      rebalanceTimeoutMs: x.rebalance,
      departureKinds: kinds,
      finding: findingOf(x, stayMs, kinds),
    })
  }
  out.sort((a, b) => b.joins + b.departures - (a.joins + a.departures) || (a.client < b.client ? -1 : 1))
  return {
    from: timeline.length ? timeline[0].time : null,
    to: timeline.length ? timeline[timeline.length - 1].time : null,
    bumps: timeline.length,
    byCause,
    clients: out,
    cost: costOf(timeline),
  }
}

function costOf(timeline: readonly TimelineEntry[]): ChurnSummary | null {
  const costs = timeline.map(e => e.cost).filter((c): c is RebalanceCost => c !== undefined)
  return costs.length ? churnSummary(costs, CHURN_COST_WINDOW_MS) : null
}

function findingOf(x: Seen, stay: ChurnClient['stayMs'], kinds: Record<string, number>): string {
  const span = [...x.joins, ...x.departures.map(d => d.at)]
  const over = span.length > 1 ? ` in ${s(Math.max(...span) - Math.min(...span))}` : ''
  const head = `client ${x.client}: ${x.joins.length} join${x.joins.length === 1 ? '' : 's'}, ${x.departures.length} departure${x.departures.length === 1 ? '' : 's'}${over}`
  const each = stay ? `, each ~${s(stay.median)} after joining` : ''
  const n = x.departures.length
  const most = (k: string) => (kinds[k] ?? 0) * 2 > n
  if (most('rebalance-timeout') || most('poll-timeout'))
    return `${head}${each}: likely its revocation or processing takes longer than its rebalance timeout${x.rebalance ? ` (${s(x.rebalance)})` : ''} (onPartitionsRevoked, max.poll.interval.ms)`
  if (most('static-restart')) return `${head}${each}: a static member restarting (its instance id comes back with a new member id)`
  if (x.session !== null && stay && stay.median <= x.session * 1.5)
    return `${head}${each} (its session timeout ${s(x.session)}): likely crashing or blocked before its first heartbeat`
  if (most('session-timeout') || most('fenced-rejoined'))
    return `${head}${each}: likely session timeouts (its process stops heartbeating: crashes, long GC pauses, network)`
  if (most('leave') || most('after-state-record'))
    return `${head}${each}: it leaves by itself (the client closes or unsubscribes): a restart loop or a short-lived job`
  return `${head}${each}: how it leaves the records cannot tell (leave, session or rebalance timeout)`
}
