/**
 * What the tests compare: the group hash our core computes from a live metadata document (written by the Java
 * Admin-based dumper, not by our own client) and the MetadataHash the coordinator stored, read by Kafka's decoder.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {inject} from 'vitest'
import {TopicHasher} from '../../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../../src/core/metadata.js'
import {type ClusterEnv, clusterSh, killBroker, readClusterEnv, sleep, startBroker, waitFor} from './cluster.js'
import {Driver} from './driver.js'
import {
  dumpOffsetsPartitionInDriver,
  type GroupKind,
  type GroupMetadataRecord,
  groupRecords,
  metadataRecords,
  offsetsPartitionFor,
  type OffsetsRecord,
} from './offsets-log.js'

export function itEnv(): ClusterEnv {
  return readClusterEnv(process.env.KAFKA_IT_ENV_FILE ?? inject('kafkaItEnvFile'))
}

export class Probe {
  private dumps = 0

  constructor(
    readonly env: ClusterEnv,
    readonly driver: Driver,
  ) {}

  static async start(name: string): Promise<Probe> {
    const env = itEnv()
    return new Probe(env, await Driver.start(env, name))
  }

  /** The live metadata document, as the Java dumper wrote it, and its raw JSON. */
  async metadata(): Promise<{md: ClusterMetadata; doc: Record<string, unknown>}> {
    const path = join(this.env.runDir, 'metadata', `md-${process.pid}-${this.dumps++}.json`)
    await this.driver.cmd(`dump-metadata ${path}`)
    const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
    return {md: parseMetadataDocument(doc, path), doc}
  }

  /** Our group hash over the names (missing topics are left out by the core, as by the coordinator). */
  async ourGroupHash(topics: Iterable<string>, md?: ClusterMetadata): Promise<bigint> {
    return new TopicHasher(md ?? (await this.metadata()).md).groupHash(topics)
  }

  offsetsPartition(groupId: string): number {
    return offsetsPartitionFor(groupId, this.env.offsetsPartitions)
  }

  /** Leader of the group's __consumer_offsets partition (its coordinator). */
  async coordinator(groupId: string): Promise<number> {
    const r = await this.driver.cmd(`partition __consumer_offsets ${this.offsetsPartition(groupId)}`)
    return r.leader as number
  }

  /** All records of the group, decoded by DumpLogSegments from the coordinator's (the leader's) copy. */
  async records(groupId: string): Promise<OffsetsRecord[]> {
    const leader = await this.coordinator(groupId)
    if (leader < 0) throw new Error(`__consumer_offsets-${this.offsetsPartition(groupId)} has no leader`)
    return groupRecords(await dumpOffsetsPartitionInDriver(this.env, this.driver, leader, this.offsetsPartition(groupId)), groupId)
  }

  async history(groupId: string, kind: GroupKind): Promise<GroupMetadataRecord[]> {
    return metadataRecords(await this.records(groupId), groupId, kind)
  }

  async latest(groupId: string, kind: GroupKind): Promise<GroupMetadataRecord | undefined> {
    return (await this.history(groupId, kind)).at(-1)
  }

  /** Waits until the latest stored metadata record satisfies pred. */
  waitStored(groupId: string, kind: GroupKind, what: string, pred: (r: GroupMetadataRecord) => boolean, timeoutMs = 90_000): Promise<GroupMetadataRecord> {
    return waitFor(
      `${kind} group ${groupId}: ${what}`,
      async () => {
        const r = await this.latest(groupId, kind)
        return r && pred(r) ? r : undefined
      },
      {timeoutMs, intervalMs: 700},
    )
  }

  /** Waits until the stored epoch and hash did not change for quietMs (several heartbeats). */
  async settled(groupId: string, kind: GroupKind, quietMs = 4000, timeoutMs = 90_000): Promise<GroupMetadataRecord> {
    const deadline = Date.now() + timeoutMs
    let last = await this.latest(groupId, kind)
    let since = Date.now()
    for (;;) {
      await sleep(700)
      const cur = await this.latest(groupId, kind)
      if (!last || !cur || cur.epoch !== last.epoch || cur.metadataHash !== last.metadataHash) {
        last = cur
        since = Date.now()
      } else if (Date.now() - since >= quietMs) {
        return cur
      }
      if (Date.now() > deadline) throw new Error(`${kind} group ${groupId} did not settle in ${timeoutMs} ms (last ${JSON.stringify(last?.data)})`)
    }
  }

  async close(): Promise<void> {
    await this.driver.close()
  }
}

/** Names a group whose coordinator (leader of its __consumer_offsets partition) is not `avoid`. */
export function groupAwayFrom(probe: Probe, prefix: string, avoid: number): Promise<string> {
  return groupWhere(probe, prefix, leader => leader >= 0 && leader !== avoid, `is not broker ${avoid}`)
}

/** Names a group whose coordinator (leader of its __consumer_offsets partition) is broker `on`. */
export function groupOn(probe: Probe, prefix: string, on: number): Promise<string> {
  return groupWhere(probe, prefix, leader => leader === on, `is broker ${on}`)
}

async function groupWhere(probe: Probe, prefix: string, fits: (leader: number) => boolean, what: string): Promise<string> {
  // Earlier files kill and restart brokers; leadership does not come back by itself for 300 s
  // (leader.imbalance.check.interval.seconds), so every __consumer_offsets partition may be led by one broker.
  for (let attempt = 0; attempt < 2; attempt++) {
    const leaders = new Map<number, number>()
    for (let p = 0; p < probe.env.offsetsPartitions; p++) {
      leaders.set(p, (await probe.driver.cmd(`partition __consumer_offsets ${p}`)).leader as number)
    }
    for (let i = 0; i < 500; i++) {
      const g = `${prefix}-${i}`
      if (fits(leaders.get(probe.offsetsPartition(g))!)) return g
    }
    await probe.driver.cmd('elect-preferred __consumer_offsets')
    await sleep(2000)
  }
  throw new Error(`no group name ${prefix}-N whose coordinator ${what}, even after a preferred leader election`)
}

export const BASELINE_RACKS: Readonly<Record<number, string>> = {1: 'rack-a', 2: 'rack-a', 3: 'rack-b'}

/**
 * Puts the cluster back to its start state (brokers 1, 2, 3 running, registered, unfenced, racks rack-a, rack-a,
 * rack-b) in case an earlier test file left a broker killed or with another rack. Costs nothing when it is.
 */
export async function ensureBaseline(probe: Probe): Promise<void> {
  const alive = new Set(
    (await clusterSh(probe.env, 'status').catch((e: {stdout?: string}) => e.stdout ?? ''))
      .split('\n')
      .filter(l => / alive /.test(l))
      .map(l => l.split(' ')[0]),
  )
  const brokers = (await probe.driver.cmd('describe-cluster')).brokers as Array<{id: number; rack: string | null; fenced: boolean}>
  // the brokers to restore start side by side (a JVM start each, 7-20 s; impact leaves two to restore)
  const restore = async ([idText, rack]: [string, string]) => {
    const id = Number(idText)
    const b = brokers.find(x => x.id === id)
    const running = alive.has(`b${id}`)
    if (running && b && b.rack === rack && !b.fenced) return
    console.log(`[kafka-it] restoring broker ${id} (${running ? 'running' : 'down'}, ${JSON.stringify(b)}) to ${rack}`)
    if (running) await killBroker(probe.env, id)
    await startBroker(probe.env, id, rack)
    await probe.driver.cmd(`wait-broker ${id} unfenced 120000`)
  }
  await Promise.all(Object.entries(BASELINE_RACKS).map(restore))
}
