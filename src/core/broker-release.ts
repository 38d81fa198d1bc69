/**
 * Which Kafka release a broker runs, told from the API versions it advertises (ApiVersions): each 4.x minor raised
 * the newest version of at least one API, read from the message JSON in the kafka-clients jars of 4.0.2, 4.1.0, 4.1.2,
 * 4.2.2, 4.3.1 and 4.4.0 (none of them marked unstable there, so a broker advertises them by default):
 *   4.1: Produce v13, Fetch v18 · 4.2: ListOffsets v11 · 4.3: DescribeLogDirs v5 · 4.4: ApiVersions v5,
 *   DeleteGroups v3, TxnOffsetCommit v6.
 * Patch releases advertise the same versions (4.1.0 = 4.1.2), and a release newer than the tool knows reads as the
 * newest it knows, "or later". Pure.
 */
import {compare} from './order.js'
export type Release = '4.0' | '4.1' | '4.2' | '4.3' | '4.4'

export interface BrokerRelease {
  /** The newest minor the advertised versions prove (the broker runs it or a later one). */
  atLeast: Release | null
  /** How it is known, in words. */
  evidence: string
}

const API = {Produce: 0, Fetch: 1, ListOffsets: 2, TxnOffsetCommit: 28, DescribeLogDirs: 35, ApiVersions: 18, DeleteGroups: 42, ConsumerGroupHeartbeat: 68}

const STEPS: ReadonlyArray<[Release, ReadonlyArray<[keyof typeof API, number]>]> = [
  [
    '4.4',
    [
      ['ApiVersions', 5],
      ['DeleteGroups', 3],
      ['TxnOffsetCommit', 6],
    ],
  ],
  ['4.3', [['DescribeLogDirs', 5]]],
  ['4.2', [['ListOffsets', 11]]],
  [
    '4.1',
    [
      ['Produce', 13],
      ['Fetch', 18],
    ],
  ],
]

export function releaseOf(apis: ReadonlyMap<number, {readonly max: number}>): BrokerRelease {
  for (const [release, marks] of STEPS) {
    const seen = marks.filter(([name, v]) => (apis.get(API[name])?.max ?? -1) >= v)
    if (seen.length > 0) return {atLeast: release, evidence: seen.map(([name, v]) => `${name} v${v}`).join(', ')}
  }
  if (apis.has(API.ConsumerGroupHeartbeat)) return {atLeast: '4.0', evidence: 'ConsumerGroupHeartbeat, none of the 4.1+ versions'}
  return {atLeast: null, evidence: 'no ConsumerGroupHeartbeat: older than 4.0, or the consumer group protocol is off'}
}

/** Releases of every broker asked, and what they mean for one group's coordinator. */
export interface ClusterReleases {
  brokers: Array<{nodeId: number; atLeast: Release | null; evidence: string; error: string | null}>
  /** The group's coordinator (FindCoordinator), when known. */
  coordinator: {nodeId: number; atLeast: Release | null} | null
  /** True when the brokers that answered advertise different releases (a rolling upgrade or downgrade). */
  mixed: boolean
  /**
   * The cluster's finalized feature levels (name → level) as the coordinator (else the first broker that sent them)
   * reports them: group.version 1 turns the consumer group protocol on, share.version and streams.version the
   * share and streams groups; null when no broker sent them.
   */
  features: Record<string, number> | null
  /** Sentences: the coordinator's release and what follows from it. */
  notes: string[]
}

type BrokerAnswer = {
  nodeId: number
  apis: ReadonlyMap<number, {readonly max: number}> | null
  features?: ReadonlyMap<string, number> | null
  error: string | null
}

/** The feature a group type needs at level 1 or more (classic groups need none). */
const FEATURE_OF: Readonly<Record<string, string>> = {consumer: 'group.version', share: 'share.version', streams: 'streams.version'}

export function clusterReleases(
  brokers: ReadonlyArray<BrokerAnswer>,
  coordinator: number | undefined,
  rules: '4.0' | '4.1+' | null = null,
  groupType: string | null = null,
): ClusterReleases {
  const rows = brokers.map(b =>
    b.apis ? {nodeId: b.nodeId, ...releaseOf(b.apis), error: null} : {nodeId: b.nodeId, atLeast: null, evidence: '', error: b.error},
  )
  const known = new Set(rows.filter(r => r.error === null).map(r => r.atLeast))
  const c = coordinator === undefined ? undefined : rows.find(r => r.nodeId === coordinator)
  const notes: string[] = []
  const name = (r: Release | null) => (r === null ? 'older than 4.0' : r === '4.4' ? 'Kafka 4.4 or later' : `Kafka ${r}.x`)
  if (c && c.error === null) notes.push(`its coordinator, broker ${c.nodeId}, runs ${name(c.atLeast)} (its advertised API versions: ${c.evidence})`)
  else if (c) notes.push(`its coordinator, broker ${c.nodeId}, did not answer ApiVersions (${c.error}): which release's rules apply cannot be told`)
  if (known.size > 1)
    notes.push(
      `the brokers run different releases (${rows
        .filter(r => r.error === null)
        .map(r => `${r.nodeId}: ${r.atLeast ?? '<4.0'}`)
        .join(', ')}): a rolling upgrade; the rules are those of the group's coordinator, and change when it moves`,
    )
  if (rules === '4.0' && c?.error === null && c.atLeast !== null && c.atLeast !== '4.0')
    notes.push(
      "the group's records were written under Kafka 4.0's rules and its coordinator now runs 4.1 or later: its next recomputation stores a metadata hash and bumps the epoch once more",
    )
  if (c?.atLeast === '4.1')
    notes.push(
      "4.1.0 and 4.1.1 did not bump the epoch when a member's regex went from non-empty to empty (KAFKA-19899, fixed in 4.1.2): the API versions cannot tell 4.1 patch releases apart",
    )
  const answer = brokers.find(b => b.nodeId === coordinator && b.features) ?? brokers.find(b => b.features)
  const features = answer?.features ? Object.fromEntries([...answer.features].sort(([a], [b]) => compare(a, b))) : null
  // 4.0 has no share.version: its share groups are early access, on by broker configs (4.0.2's GroupCoordinatorConfig)
  const early40 = groupType === 'share' && c?.error === null && c.atLeast === '4.0'
  if (early40)
    notes.push(
      "Kafka 4.0's share groups are early access, not for production: the brokers enable them with group.coordinator.rebalance.protocols (with share) and unstable.api.versions.enable, not with a feature (share.version came in 4.1; share groups are production-ready from 4.2)",
    )
  const needed = groupType === null || early40 ? undefined : FEATURE_OF[groupType]
  if (features && needed && (features[needed] ?? 0) < 1)
    notes.push(
      `the cluster's finalized ${needed} is ${features[needed] ?? 0} (broker ${answer!.nodeId}'s ApiVersions): ${groupType} groups cannot be used until it is raised (kafka-features.sh upgrade --feature ${needed}=1)`,
    )
  return {
    brokers: rows,
    coordinator: c ? {nodeId: c.nodeId, atLeast: c.atLeast} : null,
    mixed: known.size > 1,
    features,
    notes,
  }
}
