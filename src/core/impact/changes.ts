/**
 * Planned changes for `impact`, and the parsers of their command-line and file spellings. Pure: the command
 * reads the files and hands the text here. Every parser names the bad value and what to give instead.
 */
import {InputError} from '../errors.js'

export interface ReassignedPartition {
  readonly topic: string
  readonly partition: number
  /** The target replica list. */
  readonly replicas: readonly number[]
}

export type PlannedChange =
  | {readonly kind: 'reassignment'; readonly partitions: readonly ReassignedPartition[]}
  /** `count` is the new total; `replicas`, when given, the new partitions' replica lists (in partition order). */
  | {readonly kind: 'add-partitions'; readonly topic: string; readonly count: number; readonly replicas?: readonly (readonly number[])[]}
  | {readonly kind: 'delete-topic'; readonly topic: string}
  | {readonly kind: 'create-topic'; readonly topic: string; readonly partitions?: number; readonly replicationFactor?: number}
  | {readonly kind: 'recreate-topic'; readonly topic: string}
  | {readonly kind: 'shutdown-broker'; readonly broker: number}
  | {readonly kind: 'unregister-broker'; readonly broker: number; readonly decommission: boolean}
  | {readonly kind: 'broker-rack'; readonly broker: number; readonly rack: string}

export type ChangeKind = PlannedChange['kind']

const BROKER_ID = /^\d{1,10}$/

function brokerId(text: string, flag: string): number {
  const t = text.trim()
  if (!BROKER_ID.test(t) || Number(t) > 2147483647)
    throw new InputError(`--${flag} "${text}": not a broker id`, `Give the broker's node.id, e.g. --${flag} 3.`, 'BAD_CHANGE')
  return Number(t)
}

function topicName(text: string, flag: string): string {
  // Kafka's legal topic characters; anything else cannot name an existing or creatable topic
  if (!/^[A-Za-z0-9._-]{1,249}$/.test(text))
    throw new InputError(`--${flag} "${text}": not a valid topic name`, 'Topic names are 1-249 characters of A-Z a-z 0-9 . _ -.', 'BAD_CHANGE')
  return text
}

function positiveInt(text: string, what: string, flag: string, max = 2147483647): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > max)
    throw new InputError(`--${flag}: ${what} "${text}" is not a positive integer`, undefined, 'BAD_CHANGE')
  return Number(text)
}

/** `kafka-topics --replica-assignment` text: partitions separated by commas, replicas by colons ("1:2,2:3"). */
export function parseReplicaAssignment(text: string, flag = 'add-partitions'): number[][] {
  return text.split(',').map(part => {
    const ids = part.split(':').map(s => brokerId(s, flag))
    if (new Set(ids).size !== ids.length) throw new InputError(`--${flag}: a broker appears twice in "${part}"`, undefined, 'BAD_CHANGE')
    return ids
  })
}

/** `TOPIC=N` or `TOPIC=N/1:2,2:3,...` (the replica assignment as `kafka-topics --alter --replica-assignment` takes it). */
export function parseAddPartitions(text: string): PlannedChange {
  const m = /^([^=]+)=(\d+)(?:\/(.+))?$/.exec(text)
  if (!m)
    throw new InputError(
      `--add-partitions "${text}": expected TOPIC=N or TOPIC=N/REPLICA-ASSIGNMENT`,
      "For example --add-partitions orders=12, or --add-partitions orders=4/1:2,2:3,3:1,1:3 to give every partition's replicas (as kafka-topics --replica-assignment).",
      'BAD_CHANGE',
    )
  const topic = topicName(m[1], 'add-partitions')
  const count = positiveInt(m[2], 'partition count', 'add-partitions')
  return m[3] === undefined ? {kind: 'add-partitions', topic, count} : {kind: 'add-partitions', topic, count, replicas: parseReplicaAssignment(m[3])}
}

/** `T`, `T:PARTITIONS` or `T:PARTITIONS:RF`. */
export function parseCreateTopic(text: string): PlannedChange {
  const [name, partitions, rf, ...rest] = text.split(':')
  if (rest.length > 0) throw new InputError(`--create-topic "${text}": expected TOPIC[:PARTITIONS[:REPLICATION-FACTOR]]`, undefined, 'BAD_CHANGE')
  return {
    kind: 'create-topic',
    topic: topicName(name, 'create-topic'),
    ...(partitions === undefined ? {} : {partitions: positiveInt(partitions, 'partition count', 'create-topic')}),
    ...(rf === undefined ? {} : {replicationFactor: positiveInt(rf, 'replication factor', 'create-topic', 32767)}),
  }
}

/** `N=RACK`. */
export function parseBrokerRack(text: string): PlannedChange {
  const i = text.indexOf('=')
  if (i < 0 || i === text.length - 1)
    throw new InputError(`--broker-rack "${text}": expected BROKER=RACK`, 'For example --broker-rack 3=eu-west-1c.', 'BAD_CHANGE')
  return {kind: 'broker-rack', broker: brokerId(text.slice(0, i), 'broker-rack'), rack: text.slice(i + 1)}
}

export const parseDeleteTopic = (t: string): PlannedChange => ({kind: 'delete-topic', topic: topicName(t, 'delete-topic')})
export const parseRecreateTopic = (t: string): PlannedChange => ({kind: 'recreate-topic', topic: topicName(t, 'recreate-topic')})
export const parseShutdownBroker = (t: string): PlannedChange => ({kind: 'shutdown-broker', broker: brokerId(t, 'shutdown-broker')})
export const parseUnregisterBroker = (t: string, decommission = false): PlannedChange => ({
  kind: 'unregister-broker',
  broker: brokerId(t, decommission ? 'decommission-broker' : 'unregister-broker'),
  decommission,
})

const MAX_REASSIGNED = 1_000_000

/**
 * The JSON `kafka-reassign-partitions --execute --reassignment-json-file` takes: `{"version":1,"partitions":
 * [{"topic","partition","replicas",["log_dirs"]}]}`. Log dirs do not enter the hash and are only checked for shape.
 */
export function parseReassignmentJson(text: string, source = 'reassignment'): PlannedChange {
  const bad = (msg: string) =>
    new InputError(
      `${source}: ${msg}`,
      'Give the JSON that kafka-reassign-partitions --execute takes: {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]} (e.g. from its --generate output, "Proposed partition reassignment configuration").',
      'BAD_REASSIGNMENT',
    )
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (error) {
    throw bad(`not valid JSON: ${(error as Error).message}`)
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw bad('expected an object {"version":1,"partitions":[...]}')
  const d = doc as Record<string, unknown>
  if (d.version !== 1) throw bad(`$.version: expected 1, got ${JSON.stringify(d.version)?.slice(0, 40)}`)
  if (!Array.isArray(d.partitions)) throw bad('$.partitions: expected an array')
  if (d.partitions.length > MAX_REASSIGNED) throw bad(`$.partitions: more than ${MAX_REASSIGNED} partitions`)
  const seen = new Set<string>()
  const partitions: ReassignedPartition[] = d.partitions.map((p: unknown, i: number) => {
    const at = `$.partitions[${i}]`
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw bad(`${at}: expected {"topic","partition","replicas"}`)
    const {topic, partition, replicas, log_dirs: logDirs} = p as Record<string, unknown>
    if (typeof topic !== 'string' || !/^[A-Za-z0-9._-]{1,249}$/.test(topic)) throw bad(`${at}.topic: expected a topic name`)
    if (!Number.isInteger(partition) || (partition as number) < 0 || (partition as number) > 2147483647) throw bad(`${at}.partition: expected a partition id`)
    if (!Array.isArray(replicas) || replicas.length === 0 || !replicas.every(r => Number.isInteger(r) && r >= 0 && r <= 2147483647))
      throw bad(`${at}.replicas: expected a non-empty array of broker ids`)
    if (new Set(replicas).size !== replicas.length) throw bad(`${at}.replicas: a broker appears twice in [${replicas.join(',')}]`)
    if (logDirs !== undefined && (!Array.isArray(logDirs) || logDirs.length !== replicas.length || !logDirs.every(x => typeof x === 'string')))
      throw bad(`${at}.log_dirs: expected one string ("any" or a path) per replica`)
    const key = `${topic}:${partition}`
    if (seen.has(key)) throw bad(`${at}: ${topic}-${partition} appears twice`)
    seen.add(key)
    return {topic, partition: partition as number, replicas: replicas as number[]}
  })
  return {kind: 'reassignment', partitions}
}

/** One line naming the change, for tables and JSON. */
export function describeChange(c: PlannedChange): string {
  switch (c.kind) {
    case 'reassignment': {
      const topics = new Set(c.partitions.map(p => p.topic))
      return `reassign ${c.partitions.length} partition(s) of ${topics.size} topic(s)`
    }
    case 'add-partitions':
      return `add partitions to ${c.topic} (${c.count} in total${c.replicas ? ', placement given' : ''})`
    case 'delete-topic':
      return `delete topic ${c.topic}`
    case 'create-topic':
      return `create topic ${c.topic}`
    case 'recreate-topic':
      return `delete and re-create topic ${c.topic}`
    case 'shutdown-broker':
      return `shut down broker ${c.broker} (it stays registered, fenced)`
    case 'unregister-broker':
      return c.decommission ? `decommission broker ${c.broker} (clean shutdown, then unregistration)` : `unregister broker ${c.broker}`
    case 'broker-rack':
      return `restart broker ${c.broker} with broker.rack=${c.rack}`
  }
}
