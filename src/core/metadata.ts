/**
 * The cluster metadata the coordinator hashes: registered brokers with their racks (fenced ones included)
 * and topics with ids and replica lists. Also the metadata file format (JSON) and its validation.
 */
import {InputError} from './errors.js'
import {type Uuid, uuidFromString, uuidIsZero, uuidProblem, uuidToString} from './uuid.js'

export interface BrokerMetadata {
  readonly id: number
  /** `broker.rack`; null when the broker has none. An empty string is a rack. */
  readonly rack: string | null
  /** Fenced brokers stay registered, and their racks count in the topic hash. */
  readonly fenced: boolean
}

export interface PartitionMetadata {
  readonly partition: number
  /** The full replica list (not the ISR), in assignment order. */
  readonly replicas: readonly number[]
}

export interface TopicMetadata {
  readonly name: string
  readonly topicId: Uuid
  /** Partitions indexed by partition id (dense 0..n-1). */
  readonly partitions: readonly PartitionMetadata[]
  readonly internal?: boolean
}

export interface ClusterMetadata {
  readonly brokers: readonly BrokerMetadata[]
  readonly topics: readonly TopicMetadata[]
  readonly clusterId?: string
  /** ISO-8601 time the metadata was captured, when known. */
  readonly capturedAt?: string
}

export const METADATA_FORMAT = 'rebalance-doctor/metadata-v1'

/** Index of a ClusterMetadata by topic name and broker id. */
export function topicsByName(md: ClusterMetadata): Map<string, TopicMetadata> {
  return new Map(md.topics.map(t => [t.name, t]))
}

/** Parses JSON text of a metadata file, naming the file and position on a syntax error. */
export function parseMetadataJson(text: string, source = 'metadata'): ClusterMetadata {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (error) {
    const msg = (error as Error).message
    const pos = /position (\d+)/.exec(msg)
    let where = ''
    if (pos) {
      const before = text.slice(0, Number(pos[1]))
      const line = before.split('\n').length
      where = ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`
    }
    throw new InputError(
      `${source}: not valid JSON${where}: ${msg}`,
      'Check the file is a metadata document (see docs/hash-and-metadata-file.md), e.g. one written by `rebalance-doctor cluster snapshot`.',
      'BAD_METADATA',
    )
  }
  return parseMetadataDocument(doc, source)
}

const MAX_PROBLEMS = 20

/** Validates a parsed metadata document and builds the model. Reports every problem with its JSON path. */
export function parseMetadataDocument(doc: unknown, source = 'metadata'): ClusterMetadata {
  const problems: string[] = []
  const problem = (path: string, text: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(`${path}: ${text}`)
  }

  const fail = () =>
    new InputError(
      `${source}: invalid metadata document:\n  ${problems.join('\n  ')}${problems.length >= MAX_PROBLEMS ? '\n  (more problems not shown)' : ''}`,
      'See docs/hash-and-metadata-file.md; `rebalance-doctor cluster snapshot` writes a valid file.',
      'BAD_METADATA',
    )

  if (!isObject(doc)) {
    problem('$', `expected an object with "brokers" and "topics", got ${describe(doc)}`)
    throw fail()
  }
  if (doc.format !== undefined && doc.format !== METADATA_FORMAT) {
    problem('$.format', `expected "${METADATA_FORMAT}" or no format, got ${describe(doc.format)}`)
  }
  const clusterId = optionalString(doc, 'clusterId', '$', problem)
  const capturedAt = optionalString(doc, 'capturedAt', '$', problem)

  const brokers: BrokerMetadata[] = []
  const brokerIds = new Set<number>()
  if (Array.isArray(doc.brokers)) {
    doc.brokers.forEach((b, i) => {
      const path = `$.brokers[${i}]`
      if (!isObject(b)) return problem(path, `expected a broker object {id, rack, fenced?}, got ${describe(b)}`)
      const id = b.id
      if (!isInt32(id) || id < 0) return problem(`${path}.id`, `expected a broker id (integer 0..2147483647), got ${describe(id)}`)
      if (brokerIds.has(id)) return problem(`${path}.id`, `duplicate broker id ${id}`)
      brokerIds.add(id)
      const rack = b.rack === undefined ? null : b.rack
      if (rack !== null && typeof rack !== 'string') return problem(`${path}.rack`, `expected a string or null, got ${describe(rack)}`)
      const fenced = b.fenced === undefined ? false : b.fenced
      if (typeof fenced !== 'boolean') return problem(`${path}.fenced`, `expected true or false, got ${describe(fenced)}`)
      brokers.push({id, rack, fenced})
    })
  } else {
    problem('$.brokers', `expected an array of brokers, got ${describe(doc.brokers)}`)
  }

  const topics: TopicMetadata[] = []
  const names = new Map<string, number>()
  const ids = new Map<string, number>()
  if (Array.isArray(doc.topics)) {
    doc.topics.forEach((t, i) => {
      const path = `$.topics[${i}]`
      if (!isObject(t)) return problem(path, `expected a topic object {name, topicId, partitions}, got ${describe(t)}`)
      const {name} = t
      if (typeof name !== 'string' || name.length === 0) return problem(`${path}.name`, `expected a non-empty topic name, got ${describe(name)}`)
      if (names.has(name)) return problem(`${path}.name`, `duplicate topic name "${name}" (also at $.topics[${names.get(name)}])`)
      names.set(name, i)
      if (typeof t.topicId !== 'string') return problem(`${path}.topicId`, `expected a 22-character base64url topic id, got ${describe(t.topicId)}`)
      const idProblem = uuidProblem(t.topicId)
      if (idProblem) return problem(`${path}.topicId`, `"${t.topicId}" ${idProblem}`)
      const topicId = uuidFromString(t.topicId)
      if (uuidIsZero(topicId)) return problem(`${path}.topicId`, 'the zero Uuid is never a topic id')
      const idText = uuidToString(topicId)
      if (ids.has(idText)) return problem(`${path}.topicId`, `duplicate topic id ${idText} (also at $.topics[${ids.get(idText)}])`)
      ids.set(idText, i)
      if (t.internal !== undefined && typeof t.internal !== 'boolean') return problem(`${path}.internal`, `expected true or false, got ${describe(t.internal)}`)
      const partitions = parsePartitions(t.partitions, `${path}.partitions`, problem)
      if (partitions) topics.push({name, topicId, partitions, ...(t.internal ? {internal: true} : {})})
    })
  } else {
    problem('$.topics', `expected an array of topics, got ${describe(doc.topics)}`)
  }

  if (problems.length > 0) throw fail()
  return {brokers, topics, ...(clusterId ? {clusterId} : {}), ...(capturedAt ? {capturedAt} : {})}
}

function parsePartitions(value: unknown, path: string, problem: (path: string, text: string) => void): PartitionMetadata[] | undefined {
  if (!Array.isArray(value)) {
    problem(path, `expected an array of {partition, replicas}, got ${describe(value)}`)
    return undefined
  }
  const byId: PartitionMetadata[] = new Array(value.length)
  let ok = true
  value.forEach((p, i) => {
    const ppath = `${path}[${i}]`
    if (!isObject(p)) {
      ok = false
      return problem(ppath, `expected {partition, replicas}, got ${describe(p)}`)
    }
    const {partition, replicas} = p
    if (!isInt32(partition) || partition < 0) {
      ok = false
      return problem(`${ppath}.partition`, `expected a partition id (integer >= 0), got ${describe(partition)}`)
    }
    if (!Array.isArray(replicas) || !replicas.every(r => isInt32(r) && r >= 0)) {
      ok = false
      return problem(`${ppath}.replicas`, `expected an array of broker ids, got ${describe(replicas)}`)
    }
    if (new Set(replicas).size !== replicas.length) {
      ok = false
      return problem(`${ppath}.replicas`, `a broker appears twice in [${replicas.join(',')}]`)
    }
    // ids are dense 0..n-1, so an id >= n is wrong whatever the rest says; checked before it indexes anything
    if (partition >= value.length) {
      ok = false
      return problem(
        `${ppath}.partition`,
        `partition id ${partition} is out of range: the topic lists ${value.length} partition${value.length === 1 ? '' : 's'}, ids 0..${value.length - 1}`,
      )
    }
    if (byId[partition]) {
      ok = false
      return problem(`${ppath}.partition`, `duplicate partition id ${partition}`)
    }
    byId[partition] = {partition, replicas: replicas as number[]}
  })
  if (!ok) return undefined
  // Kafka (KRaft) partition ids are dense: the hash iterates 0..count-1.
  const missing: number[] = []
  for (let i = 0; i < byId.length && missing.length <= 10; i++) if (!byId[i]) missing.push(i)
  if (missing.length > 0) {
    problem(path, `partition ids must be exactly 0..${value.length - 1}; missing ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}`)
    return undefined
  }
  return byId
}

/** The metadata file document for a model (what `cluster snapshot` writes). */
export function toMetadataDocument(md: ClusterMetadata): Record<string, unknown> {
  return {
    format: METADATA_FORMAT,
    ...(md.clusterId ? {clusterId: md.clusterId} : {}),
    ...(md.capturedAt ? {capturedAt: md.capturedAt} : {}),
    brokers: md.brokers.map(b => ({id: b.id, rack: b.rack, fenced: b.fenced})),
    topics: md.topics.map(t => ({
      name: t.name,
      topicId: uuidToString(t.topicId),
      ...(t.internal ? {internal: true} : {}),
      partitions: t.partitions.map(p => ({partition: p.partition, replicas: [...p.replicas]})),
    })),
  }
}

function optionalString(obj: Record<string, unknown>, key: string, path: string, problem: (p: string, t: string) => void) {
  const v = obj[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') {
    problem(`${path}.${key}`, `expected a string, got ${describe(v)}`)
    return undefined
  }
  return v
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function isInt32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`
  if (typeof v === 'object') return 'an object'
  return `${typeof v} ${String(v)}`
}
