/**
 * What Kafka's authorizer checks for each request this tool sends, so that a refusal (TOPIC_AUTHORIZATION_FAILED
 * 29, GROUP_AUTHORIZATION_FAILED 30, CLUSTER_AUTHORIZATION_FAILED 31, TRANSACTIONAL_ID_AUTHORIZATION_FAILED 53)
 * names the resource, the operation that was missing and the grant — not a guess from the error code alone.
 * Read from Kafka 4.x's request handlers (core/src/main/scala/kafka/server/KafkaApis.scala, ConfigHelper.scala,
 * ControllerApis.scala, handlers/DescribeTopicPartitionsRequestHandler.java):
 *
 * - Fetch (a consumer's, not a follower's): READ on each topic, else the partition answers 29.
 * - ListOffsets, Metadata (named topics), DescribeTopicPartitions: DESCRIBE on each topic, else 29 (a listing of
 *   all topics leaves the others out instead).
 * - OffsetFetch: DESCRIBE on the group, else the group answers 30; topics without DESCRIBE are left out.
 * - FindCoordinator: DESCRIBE on the group (30), or on the transactional id (53).
 * - ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe, DescribeGroups: DESCRIBE on the group (30);
 *   the first three answer 29 for a group one of whose topics the principal may not DESCRIBE, without naming it.
 * - ListGroups: never refused; without DESCRIBE on the cluster it lists only the groups the principal may DESCRIBE.
 * - DescribeConfigs: DESCRIBE_CONFIGS on the cluster for a broker's configs (31), on the topic (29), on the group (30).
 * - ListPartitionReassignments (forwarded to the controller): DESCRIBE on the cluster (31).
 * - DescribeCluster and ApiVersions: Apache Kafka checks nothing; a 31 from another broker implementation is read as
 *   DESCRIBE on the cluster.
 */
import type {ConnectionSettings} from '../config/client-config.js'
import {type AclOperation, type AclResourceType, type Denial, grantCommand} from '../core/errors.js'

export const AUTHORIZATION_CODES: ReadonlyMap<number, {readonly name: string; readonly resourceType: AclResourceType}> = new Map([
  [29, {name: 'TOPIC_AUTHORIZATION_FAILED', resourceType: 'topic'}],
  [30, {name: 'GROUP_AUTHORIZATION_FAILED', resourceType: 'group'}],
  [31, {name: 'CLUSTER_AUTHORIZATION_FAILED', resourceType: 'cluster'}],
  [53, {name: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', resourceType: 'transactional-id'}],
])

/** Per request, the operation its check needs on each resource type (DESCRIBE where not listed). */
const OPERATIONS: Readonly<Record<string, Partial<Record<AclResourceType, AclOperation>>>> = {
  Fetch: {topic: 'READ'},
  DescribeConfigs: {cluster: 'DESCRIBE_CONFIGS', topic: 'DESCRIBE_CONFIGS', group: 'DESCRIBE_CONFIGS'},
}

/** Kafka's principal for the connection when the settings tell it: a SASL PLAIN/SCRAM user is `User:<name>`. */
export function principalOf(settings: ConnectionSettings | undefined): string | null {
  const sasl = settings?.sasl
  if (!sasl?.username || (sasl.mechanism !== 'PLAIN' && !sasl.mechanism.startsWith('SCRAM-'))) return null
  return `User:${sasl.username}`
}

export interface DenialContext {
  /** The request answered with the code, by Kafka's API name. */
  readonly request: string
  /** The topic, group or transactional id asked about (null: the cluster, or not named by the answer). */
  readonly resourceName?: string | null
  readonly principal?: string | null
  /** host:port for the grant line (default a placeholder). */
  readonly bootstrap?: string
}

/** The refusal as data, or undefined when `code` is not an authorization failure. */
export function denialOf(code: number, c: DenialContext): Denial | undefined {
  const a = AUTHORIZATION_CODES.get(code)
  if (!a) return undefined
  const resourceName = a.resourceType === 'cluster' ? null : (c.resourceName ?? null)
  const operation = OPERATIONS[c.request]?.[a.resourceType] ?? 'DESCRIBE'
  const principal = c.principal ?? null
  const d = {resourceType: a.resourceType, resourceName, operation, principal}
  return {request: c.request, ...d, errorName: a.name, grant: grantCommand(d, c.bootstrap)}
}
