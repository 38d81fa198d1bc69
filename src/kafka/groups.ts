/**
 * Groups over a KafkaSession: ListGroups v5 on every live broker, coordinators by batched FindCoordinator, and the
 * three describes (ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe), each group asked at its
 * coordinator and asked again when its coordinator moved or went away. Read-only: no group is joined.
 */
import {type Denial, RuntimeError} from '../core/errors.js'
import {uuidFromBytes, uuidToString} from '../core/uuid.js'
import type {KafkaSession, Node} from './connection.js'
import {liveBrokers} from './metadata.js'
import {type ClassicGroupDescription, DESCRIBE_GROUPS_VERSION, decodeDescribeGroups, encodeDescribeGroups} from './describe-groups.js'
import {decodeOffsetFetch, encodeOffsetFetch, type GroupCommittedOffsets, OFFSET_FETCH_VERSION} from './offset-fetch.js'
import * as P from './protocol.js'
import {isRetriableConnection, type Retrier, SYSTEM_CLOCK} from './retry.js'
import {by} from '../core/order.js'

const RETRIABLE_COORDINATOR = new Set([14, 15, 16]) // LOAD_IN_PROGRESS, NOT_AVAILABLE, NOT_COORDINATOR
/** Groups per FindCoordinator request, and per describe request to one coordinator. */
export const FIND_COORDINATOR_BATCH = 10_000
export const DESCRIBE_BATCH = 2_000
/** Groups per OffsetFetch request: each answers every partition its group committed (a bounded response). */
export const OFFSET_FETCH_BATCH = 200

export interface NamedTopicPartitions {
  /** Kafka's base64url form. */
  readonly topicId: string
  readonly topicName: string
  readonly partitions: number[]
}

/** The group's error name ('NONE' when described); `denied` when the error is an authorization failure. */
type WithErrorName = {readonly errorName: string; readonly denied?: Denial}

/** Coordinators already found (findCoordinators) for groups about to be described: not asked for again. */
export type Coordinators = ReadonlyMap<string, Node>

const DESCRIBED: WithErrorName = {errorName: 'NONE'}

/**
 * errorName and, for a refusal, what `request` needs on the group (or, for 29, on topics the answer does not name);
 * a group whose FindCoordinator was refused names that request.
 */
function errorOf(s: KafkaSession, request: string, g: {readonly groupId: string; readonly errorCode: number; readonly refusedBy?: string}): WithErrorName {
  if (g.errorCode === 0) return DESCRIBED // (a million groups described: nothing to work out, nothing made)
  const denied = s.denial(g.errorCode, {request: g.refusedBy ?? request, resourceName: g.errorCode === 29 ? null : g.groupId})
  return {errorName: s.errorName(g.errorCode), ...(denied ? {denied} : {})}
}

export type ConsumerGroupDescribed = Omit<P.ConsumerGroupDescription, 'members'> &
  WithErrorName & {
    members: Array<
      Omit<P.ConsumerGroupMember, 'assignment' | 'targetAssignment'> & {assignment: NamedTopicPartitions[]; targetAssignment: NamedTopicPartitions[]}
    >
  }

export type ShareGroupDescribed = Omit<P.ShareGroupDescription, 'members'> &
  WithErrorName & {members: Array<Omit<P.ShareGroupMember, 'assignment'> & {assignment: NamedTopicPartitions[]}>}

export type StreamsGroupDescribed = P.StreamsGroupDescription & WithErrorName

function named(tps: readonly P.TopicPartitions[]): NamedTopicPartitions[] {
  return tps.map(tp => ({topicId: uuidToString(uuidFromBytes(tp.topicId)), topicName: tp.topicName, partitions: tp.partitions}))
}

/** ConsumerGroupDescribe (v1, or v0). Groups come back in the requested order, errors included. */
export async function describeConsumerGroups(s: KafkaSession, groupIds: readonly string[], known?: Coordinators): Promise<ConsumerGroupDescribed[]> {
  const gs = await describe(s, groupIds, P.API.ConsumerGroupDescribe, 1, P.decodeConsumerGroupDescribe, 0, {known})
  return gs.map(g => ({
    ...g,
    ...errorOf(s, 'ConsumerGroupDescribe', g),
    members: g.members.map(m => ({...m, assignment: named(m.assignment), targetAssignment: named(m.targetAssignment)})),
  }))
}

/** ShareGroupDescribe v1 (Kafka 4.1+), or v0 (4.0's early access, brokers with unstable API versions enabled). */
export async function describeShareGroups(s: KafkaSession, groupIds: readonly string[], known?: Coordinators): Promise<ShareGroupDescribed[]> {
  const gs = await describe(s, groupIds, P.API.ShareGroupDescribe, 1, P.decodeShareGroupDescribe, 0, {known})
  return gs.map(g => ({...g, ...errorOf(s, 'ShareGroupDescribe', g), members: g.members.map(m => ({...m, assignment: named(m.assignment)}))}))
}

/** StreamsGroupDescribe (v1, or v0). */
export async function describeStreamsGroups(s: KafkaSession, groupIds: readonly string[], known?: Coordinators): Promise<StreamsGroupDescribed[]> {
  const gs = await describe(s, groupIds, P.API.StreamsGroupDescribe, 1, P.decodeStreamsGroupDescribe, 0, {known})
  return gs.map(g => ({...g, ...errorOf(s, 'StreamsGroupDescribe', g)}))
}

export type ClassicGroupDescribed = ClassicGroupDescription & WithErrorName

/** DescribeGroups v5 (classic groups), each group at its coordinator, errors included. */
export async function describeClassicGroups(s: KafkaSession, groupIds: readonly string[], known?: Coordinators): Promise<ClassicGroupDescribed[]> {
  const gs = await describe(s, groupIds, P.API.DescribeGroups, DESCRIBE_GROUPS_VERSION, decodeDescribeGroups, DESCRIBE_GROUPS_VERSION, {
    encode: batch => encodeDescribeGroups(batch),
    known,
  })
  return gs.map(g => ({...g, ...errorOf(s, 'DescribeGroups', g)}))
}

/** OffsetFetch v8 (4.0+), each group at its coordinator: every committed offset of each group, errors included. */
export async function fetchCommittedOffsets(s: KafkaSession, groupIds: readonly string[]): Promise<Array<GroupCommittedOffsets & WithErrorName>> {
  const gs = await describe(s, groupIds, P.API.OffsetFetch, OFFSET_FETCH_VERSION, decodeOffsetFetch, OFFSET_FETCH_VERSION, {
    encode: batch => encodeOffsetFetch(batch),
    batch: OFFSET_FETCH_BATCH,
  })
  return gs.map(g => ({...g, ...errorOf(s, 'OffsetFetch', g)}))
}

/** ListGroups v5 on every live broker; a broker that stays unreachable leaves a warning, not a failure. */
export async function listGroups(s: KafkaSession, filter: {types?: readonly P.GroupType[]; states?: readonly string[]}): Promise<P.ListedGroup[]> {
  s.requireVersion(P.API.ListGroups, 5, 5, 'group types')
  // (an array, sorted then deduplicated: a Map of a million groups is ~100 MB more at the peak)
  const groups: P.ListedGroup[] = []
  const answered = new Set<number>()
  let retrier: Retrier | undefined
  for (;;) {
    // Live brokers not yet listed: a broker that went away leaves them once fenced, its groups moved elsewhere.
    const nodes = (await liveBrokers(s)).filter(n => !answered.has(n.id))
    const results = await Promise.allSettled(
      nodes.map(async n => {
        const conn = await s.connect(n.host, n.port)
        s.step = `waiting for ListGroups v5 from broker ${n.id} (${n.host}:${n.port})`
        const r = await s.send(conn, P.API.ListGroups, 5, P.encodeListGroupsV5(filter.states ?? [], filter.types ?? []), P.decodeListGroupsV5)
        if (r.errorCode !== 0)
          throw s.kafkaError(r.errorCode, null, `ListGroups on broker ${n.id}`, undefined, {
            request: 'ListGroups',
            doing: `listing the groups at broker ${n.id}`,
          })
        return r.groups
      }),
    )
    const failures: Array<{node: Node; error: unknown}> = []
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') {
        answered.add(nodes[i].id)
        for (const g of r.value) groups.push(g)
      } else failures.push({node: nodes[i], error: r.reason})
    })
    if (failures.length === 0) break
    for (const f of failures) if (isRetriableConnection(f.error)) s.forget(f.node.host, f.node.port)
    if (failures.every(f => isRetriableConnection(f.error)) && !s.closed) {
      const [f] = failures
      try {
        await (retrier ??= s.retrier()).wait('ListGroups from every live broker', `broker ${f.node.id}: ${(f.error as Error).message}`)
        continue
      } catch (error) {
        if (answered.size === 0) throw error
      }
    }
    if (answered.size === 0) throw failures[0].error
    s.warn(`group list may be incomplete: ${failures.map(f => `broker ${f.node.id}: ${(f.error as Error).message}`).join('; ')}`)
    break
  }
  return lastOfEach(groups.sort(by(x => x.groupId)))
}

/** Sorted by group id (a stable sort), one entry per group: the last answered, as a group moved between two answers. */
export function lastOfEach(sorted: P.ListedGroup[]): P.ListedGroup[] {
  return sorted.filter((g, i) => i + 1 === sorted.length || sorted[i + 1].groupId !== g.groupId)
}

/**
 * Each group's coordinator, by FindCoordinator (batched, v4+); asked again while it is loading or moving. A group
 * refused (an authorization error) is an error, or with `refused` is put there with its code, as Kafka's admin
 * client fails that group alone.
 */
export async function findCoordinators(s: KafkaSession, groupIds: readonly string[], refused?: Map<string, number>): Promise<Map<string, Node>> {
  const v = s.requireVersion(P.API.FindCoordinator, 6, 4, 'batched coordinator lookup')
  const out = new Map<string, Node>()
  // One Node per coordinator, shared by its groups (not one object and host string per group of millions).
  // (found by broker id and compared, not by a key string built per group)
  const nodes = new Map<number, Node[]>()
  const nodeOf = (c: P.WireCoordinator): Node => {
    const same = nodes.get(c.nodeId) ?? []
    let n = same.find(x => x.host === c.host && x.port === c.port)
    if (!n) nodes.set(c.nodeId, [...same, (n = {id: c.nodeId, host: c.host, port: c.port})])
    return n
  }
  let pending = [...groupIds]
  for (let attempt = 0; pending.length > 0; attempt++) {
    const retry: string[] = []
    // In batches: a cluster's million groups never make one request, one response or one decode (bounded
    // memory, and the deadline's timer gets to run between batches).
    for (let i = 0; i < pending.length; i += FIND_COORDINATOR_BATCH) {
      const ask = pending.slice(i, i + FIND_COORDINATOR_BATCH)
      let from = ''
      const rs = await s.anyBroker('FindCoordinator', (conn, address) => {
        s.step = `waiting for FindCoordinator v${v} from ${address}${pending.length > ask.length ? ` (groups ${i + 1}-${i + ask.length} of ${pending.length})` : ''}`
        from = address
        return s.send(conn, P.API.FindCoordinator, v, P.encodeFindCoordinator(ask, 0, v), P.decodeFindCoordinator)
      })
      const asked = answersEvery(ask, rs, from)
      for (const c of rs) {
        if (asked && !asked.has(c.key)) continue // a group not asked for
        if (c.errorCode === 0) out.set(c.key, nodeOf(c))
        else if (RETRIABLE_COORDINATOR.has(c.errorCode)) retry.push(c.key)
        else if (refused && s.denial(c.errorCode, {request: 'FindCoordinator', resourceName: c.key})) refused.set(c.key, c.errorCode)
        else
          throw s.kafkaError(c.errorCode, c.errorMessage, 'finding the coordinator of group', c.key, {
            request: 'FindCoordinator',
            doing: `finding the coordinator of group ${c.key}`,
            resourceName: c.key,
          })
      }
    }
    pending = retry
    if (pending.length > 0) await SYSTEM_CLOCK.sleep(Math.min(1000, 100 * 2 ** attempt))
  }
  return out
}

/**
 * Kafka answers every key asked, once; an answer without one is not Kafka's (a proxy, a broken broker). Kafka
 * answers them in the order asked: then nothing else to check (undefined); otherwise the keys asked, to skip others.
 */
function answersEvery(ask: readonly string[], rs: readonly P.WireCoordinator[], from: string): Set<string> | undefined {
  if (rs.length === ask.length && rs.every((c, i) => c.key === ask[i])) return undefined
  const answered = new Set(rs.map(c => c.key))
  const missing = ask.find(k => !answered.has(k))
  if (missing !== undefined) {
    throw new RuntimeError(
      `${from} answered FindCoordinator without group ${JSON.stringify(missing)}${ask.length > 1 ? ` (asked for ${ask.length} groups, answered ${answered.size})` : ''}`,
      'Check that --bootstrap-server names Kafka brokers (4.1 or newer), not a proxy; run with --debug and report it if it does.',
      'PROTOCOL_ERROR',
    )
  }
  return new Set(ask)
}

/** The coordinators of `groupIds`: those `known`, and FindCoordinator for the rest (refusals into `refused`). */
async function coordinatorsOf(
  s: KafkaSession,
  groupIds: readonly string[],
  known: Coordinators | undefined,
  refused: Map<string, number>,
): Promise<Coordinators> {
  if (!known) return findCoordinators(s, groupIds, refused)
  const unknown = groupIds.filter(id => !known.has(id))
  if (unknown.length === 0) return known
  const found = await findCoordinators(s, unknown, refused)
  for (const id of groupIds) if (!found.has(id) && known.has(id)) found.set(id, known.get(id)!)
  return found
}

/**
 * The answer for a group whose FindCoordinator was refused: that error, nothing described (every answer type's
 * fields empty), so the group's entry carries the refusal as a describe's own error would.
 */
function refusedAnswer(groupId: string, errorCode: number) {
  const nothing = {state: '', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', protocolType: '', protocol: '', topology: null}
  return {groupId, errorCode, errorMessage: null, refusedBy: 'FindCoordinator', ...nothing, members: [], offsets: []}
}

async function describe<T extends P.DescribeError & {groupId: string}>(
  s: KafkaSession,
  groupIds: readonly string[],
  apiKey: number,
  ours: number,
  decode: (buf: Buffer, version: number) => T[],
  min = 0,
  request: {encode?: (batch: readonly string[], version: number) => Buffer; batch?: number; known?: Coordinators} = {},
): Promise<T[]> {
  const encode = request.encode ?? ((batch, v) => P.encodeGroupDescribe(batch, v, apiKey))
  const size = request.batch ?? DESCRIBE_BATCH
  const ids = [...new Set(groupIds)]
  if (ids.length === 0) return []
  const v = s.requireVersion(apiKey, ours, min, 'group describe')
  const name = P.API_NAMES[apiKey]
  const done = new Map<string, T>()
  let pending = ids
  let retrier: Retrier | undefined
  for (let attempt = 0; pending.length > 0; attempt++) {
    const refused = new Map<string, number>()
    // The first attempt trusts coordinators just found; an attempt after a move or a failure asks again.
    const coordinators = await coordinatorsOf(s, pending, attempt === 0 ? request.known : undefined, refused)
    for (const [id, code] of refused) done.set(id, refusedAnswer(id, code) as unknown as T)
    const byNode = byCoordinator(pending, coordinators)
    const retry: string[] = []
    let unreachable: string | undefined
    await Promise.all(
      byNode.map(async ({node, ids}) => {
        // In batches, one after another per coordinator: bounded requests, responses and decodes.
        for (let i = 0; i < ids.length; i += size) {
          const batch = ids.slice(i, i + size)
          let groups: T[]
          try {
            const conn = await s.connect(node.host, node.port)
            s.step = `waiting for ${name} v${v} from coordinator ${node.id} (${node.host}:${node.port})${ids.length > batch.length ? ` (groups ${i + 1}-${i + batch.length} of ${ids.length})` : ''}`
            groups = await s.send(conn, apiKey, v, encode(batch, v), decode)
          } catch (error) {
            // The coordinator went away (a killed broker coordinates until it is fenced): find it again.
            if (!isRetriableConnection(error) || s.closed) throw error
            s.forget(node.host, node.port)
            unreachable ??= `the coordinator of group ${ids[i]}${ids.length - i > 1 ? ` (and ${ids.length - i - 1} more)` : ''}, broker ${node.id}: ${error.message}`
            for (let j = i; j < ids.length; j++) retry.push(ids[j]) // (a loop: push(...) of a million overflows the stack)
            return
          }
          for (const g of groups) {
            if (RETRIABLE_COORDINATOR.has(g.errorCode) && attempt < 10) retry.push(g.groupId)
            else done.set(g.groupId, g)
          }
        }
      }),
    )
    pending = retry
    if (unreachable) await (retrier ??= s.retrier()).wait('a reachable group coordinator', unreachable)
    else if (pending.length > 0) await SYSTEM_CLOCK.sleep(Math.min(1000, 100 * 2 ** attempt))
  }
  return ids.map(id => done.get(id)!).filter(Boolean)
}

/** The groups by coordinator address (the first Node seen for it), each in the order asked; groups without one left out. */
function byCoordinator(groupIds: readonly string[], coordinators: Coordinators): Array<{node: Node; ids: string[]}> {
  const byAddress = new Map<string, {node: Node; ids: string[]}>()
  // (each Node's address made once, not once a group: findCoordinators shares one Node per coordinator)
  const addressOf = new Map<Node, string>()
  for (const id of groupIds) {
    const node = coordinators.get(id)
    if (!node) continue
    let key = addressOf.get(node)
    if (key === undefined) addressOf.set(node, (key = `${node.host}:${node.port}`))
    const to = byAddress.get(key)
    if (to) to.ids.push(id)
    else byAddress.set(key, {node, ids: [id]})
  }
  return [...byAddress.values()]
}
