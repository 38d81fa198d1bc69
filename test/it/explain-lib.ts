/**
 * Helpers of the `group explain` integration tests: run the built CLI (`group explain --json`) as a user would,
 * wait for epochs through it, and members in their own driver JVM that a test can pause (SIGSTOP), resume or
 * kill -9 (a member that stops heartbeating without leaving).
 */
import type {ChildProcess} from 'node:child_process'
import {expect} from 'vitest'
import {cli, type CliResult} from './adapter-cli.js'
import {type ClusterEnv, sleep, versionAtLeast, waitFor} from './lib/cluster.js'
import {Driver} from './lib/driver.js'

export interface Cause {
  kind: string
  message: string
  confidence: string
  alternatives: Array<{kind: string; topic?: string; broker?: number; description: string}>
  details: Record<string, any>
}

export interface Entry {
  epoch: number
  previousEpoch: number | null
  time: string
  offset: string
  metadataHash: string | null
  previousMetadataHash: string | null
  /** Whose rules the write was made under: '4.0' (no hash) or '4.1+'; null for classic groups. */
  rules?: string | null
  assignmentEpoch: number | null
  causes: Cause[]
}

export interface Report {
  group: string
  type: string | null
  groupEpoch: number | null
  assignmentEpoch: number | null
  storedMetadataHash: string | null
  liveMetadataHash: string | null
  rules?: string | null
  inSync: boolean | null
  verdict: {code: string; message: string; pending: boolean}
  findings: Array<{code: string; message: string; details: Record<string, any>}>
  topics: Array<{name: string; exists: boolean; topicId?: string; partitions?: number}>
  members: Array<{memberId: string; clientId?: string | null; memberEpoch: number | null; reconciling: boolean; subscribedTopicNames: string[]}>
  timeline: Entry[]
  releases?: {
    brokers: Array<{nodeId: number; atLeast: string | null; error: string | null}>
    coordinator: {nodeId: number; atLeast: string | null} | null
    mixed: boolean
    notes: string[]
  }
}

export async function explainRaw(env: ClusterEnv, group: string, ...args: string[]): Promise<CliResult> {
  return cli(['group', 'explain', group, '-b', env.bootstrap, '--json', ...args])
}

/** `group explain GROUP --json`; fails the test on any exit code but 0 (and 3 when allowed). */
export async function explain(env: ClusterEnv, group: string, ...args: string[]): Promise<Report> {
  const r = await explainRaw(env, group, ...args)
  expect(r.code === 0 || (r.code === 3 && args.includes('--fail-on-pending')), `exit ${r.code}: ${r.stderr}`).toBe(true)
  return JSON.parse(r.stdout) as Report
}

/** Polls `group explain` until pred holds; `args` are added to each run (e.g. `--html FILE`: the page of the report returned). */
export function waitReport(
  env: ClusterEnv,
  group: string,
  what: string,
  pred: (r: Report) => boolean,
  timeoutMs = 90_000,
  args: readonly string[] = [],
): Promise<Report> {
  let last: Report | undefined
  return waitFor(
    `${group}: ${what}`,
    async () => {
      last = await explain(env, group, ...args)
      return pred(last) ? last : undefined
    },
    {timeoutMs, intervalMs: 1000},
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}\nlast report: ${JSON.stringify(last && {...last, timeline: last.timeline.map(e => [e.epoch, e.causes.map(c => c.message)])})}`,
    )
  })
}

const inSync = (r: Report | undefined) => (r?.verdict.code === 'IN_SYNC' ? r : undefined)

/**
 * The group is settled: in sync, assignment caught up, every member at the group epoch, and the epoch unchanged
 * over two reads `quietMs` apart. `latest`, a report just read (the one afterBump waited for), is the first of the
 * two when it is in sync: reading again before the quiet period only cost a CLI run (1.5-3 s on a loaded machine).
 */
export async function settled(env: ClusterEnv, group: string, quietMs = 3000, timeoutMs = 90_000, latest?: Report): Promise<Report> {
  const deadline = Date.now() + timeoutMs
  let a = inSync(latest)
  for (;;) {
    a ??= await waitReport(env, group, 'in sync and reconciled', r => r.verdict.code === 'IN_SYNC', Math.max(1000, deadline - Date.now()))
    await sleep(quietMs)
    const b = await explain(env, group)
    if (b.verdict.code === 'IN_SYNC' && b.groupEpoch === a.groupEpoch) return b
    if (Date.now() > deadline) throw new Error(`${group} did not settle: ${JSON.stringify(b.verdict)}`)
    a = inSync(b) // in sync at another epoch: the first read of the next quiet period
  }
}

/** Waits for a group epoch above `epoch`, then for the group to settle; returns the settled report. */
export async function afterBump(env: ClusterEnv, group: string, epoch: number, what: string, timeoutMs = 90_000): Promise<Report> {
  const bumped = await waitReport(env, group, what, r => (r.groupEpoch ?? -1) > epoch, timeoutMs)
  return settled(env, group, undefined, undefined, bumped)
}

/** Entries after epoch `from` (exclusive). */
export const since = (r: Report, from: number) => r.timeline.filter(e => e.epoch > from)
export const kinds = (e: Entry) => e.causes.map(c => c.kind)
export const allCauses = (r: Report) => r.timeline.flatMap(e => e.causes)

/** 4.3+ persists 2 as the first epoch of a new consumer/share group (KAFKA-20268); 4.1/4.2 persist 1. */
export const firstEpoch = (env: ClusterEnv) => (versionAtLeast(env.kafkaVersion, '4.3') ? 2 : 1)

/** A driver JVM of its own, for members that must stop heartbeating without leaving (kill -9, SIGSTOP). */
export class MemberJvm {
  private constructor(readonly driver: Driver) {}

  static async start(env: ClusterEnv, name: string): Promise<MemberJvm> {
    return new MemberJvm(await Driver.start(env, name))
  }

  get pid(): number {
    return (this.driver as unknown as {proc: ChildProcess}).proc.pid!
  }

  cmd(line: string) {
    return this.driver.cmd(line)
  }

  pause(): void {
    process.kill(this.pid, 'SIGSTOP')
  }

  resume(): void {
    process.kill(this.pid, 'SIGCONT')
  }

  kill(): void {
    process.kill(this.pid, 'SIGKILL')
  }

  async close(): Promise<void> {
    try {
      this.resume()
    } catch {
      // already gone
    }
    await this.driver.close()
  }
}

/** Names of this run's topics and groups (the suite may run twice against one cluster while developing). */
export const runTag = () => `x${Date.now().toString(36).slice(-5)}`

/** The release `releases` names for a Kafka version: its minor, and '4.4' for 4.4 and later. */
const minorOf = (version: string) => version.split('.').slice(0, 2).join('.')

/**
 * Mid rolling upgrade (brokers `upgraded` restarted on `to`, the others still on `from`): `group explain` names each
 * broker's release, says the cluster is mixed and which release its coordinator runs.
 */
export async function expectRollingUpgrade(env: ClusterEnv, group: string, upgraded: number[], from: string, to: string): Promise<Report> {
  const report = await explain(env, group)
  const r = report.releases!
  expect(r.mixed, JSON.stringify(r)).toBe(true)
  for (const b of r.brokers) expect(b.atLeast, `broker ${b.nodeId}`).toBe(upgraded.includes(b.nodeId) ? minorOf(to) : minorOf(from))
  expect(r.notes.join('\n')).toContain('a rolling upgrade')
  expect(r.coordinator, JSON.stringify(r)).not.toBeNull()
  expect(r.coordinator!.atLeast).toBe(r.brokers.find(b => b.nodeId === r.coordinator!.nodeId)!.atLeast)
  expect(r.notes[0]).toContain(`its coordinator, broker ${r.coordinator!.nodeId}, runs`)
  return report
}

/**
 * A member JVM started while `other` runs (two JVM starts side by side: 2-5 s each on a loaded machine); when either
 * fails, the member's JVM is closed rather than left running.
 */
export async function alongside<T>(member: Promise<MemberJvm>, other: Promise<T>): Promise<[MemberJvm, T]> {
  const [m, o] = await Promise.allSettled([member, other])
  if (m.status === 'fulfilled' && o.status === 'fulfilled') return [m.value, o.value]
  if (m.status === 'fulfilled') await m.value.close()
  throw m.status === 'rejected' ? m.reason : (o as PromiseRejectedResult).reason
}
