/** What `topic-hash compute` reports: per-topic hashes with a rack summary, the group hash, missing topics. */
import {TopicHasher} from './hash.js'
import type {ClusterMetadata, TopicMetadata} from './metadata.js'
import {uuidToString} from './uuid.js'
import {compare} from './order.js'

export interface TopicHashRow {
  name: string
  topicId: string
  partitions: number
  /** Signed 64-bit topic hash, decimal (as Kafka prints a long). */
  hash: string
  /** Replicas per rack over all partitions (what enters the hash). */
  replicaRacks: Record<string, number>
  /** Replicas on registered brokers that have no rack (they add nothing). */
  replicasWithoutRack: number
  /** Replicas whose broker id is not registered (they add nothing). */
  replicasOnUnknownBrokers: number
}

export interface TopicHashReport {
  topics: TopicHashRow[]
  /** Requested topics that do not exist; they do not enter the group hash. */
  missing: string[]
  /** Group metadata hash over the existing requested topics, decimal; "0" when none exist. */
  groupHash: string
}

/** `topics` empty or undefined means every topic in the metadata. Duplicates are ignored. */
export function topicHashReport(md: ClusterMetadata, topics?: readonly string[], hasher = new TopicHasher(md)): TopicHashReport {
  const names = topics && topics.length > 0 ? [...new Set(topics)] : md.topics.map(t => t.name)
  const rows: TopicHashRow[] = []
  const missing: string[] = []
  for (const name of names) {
    const t = hasher.topic(name)
    if (t) rows.push(row(t, hasher, md))
    else missing.push(name)
  }
  return {topics: rows, missing, groupHash: hasher.groupHash(names).toString()}
}

function row(t: TopicMetadata, hasher: TopicHasher, md: ClusterMetadata): TopicHashRow {
  const brokers = new Map(md.brokers.map(b => [b.id, b]))
  const replicaRacks: Record<string, number> = {}
  let replicasWithoutRack = 0
  let replicasOnUnknownBrokers = 0
  for (const p of t.partitions) {
    for (const id of p.replicas) {
      const b = brokers.get(id)
      if (!b) replicasOnUnknownBrokers++
      else if (b.rack === null) replicasWithoutRack++
      else replicaRacks[b.rack] = (replicaRacks[b.rack] ?? 0) + 1
    }
  }
  return {
    name: t.name,
    topicId: uuidToString(t.topicId),
    partitions: t.partitions.length,
    hash: hasher.topicHash(t.name).toString(),
    replicaRacks: Object.fromEntries(Object.entries(replicaRacks).sort(([a], [b]) => compare(a, b))),
    replicasWithoutRack,
    replicasOnUnknownBrokers,
  }
}
