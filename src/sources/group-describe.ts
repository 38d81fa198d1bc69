/**
 * A group read describe-only: its type from ListGroups, then its type's describe (ConsumerGroupDescribe,
 * ShareGroupDescribe, StreamsGroupDescribe or DescribeGroups) at its coordinator, as a DescribedGroup; its committed
 * offsets by OffsetFetch and the log end offsets by ListOffsets. DESCRIBE on the group and its topics is all this
 * needs: nothing of `__consumer_offsets` is read. Read-only.
 */
import {by} from '../core/order.js'
import {AuthorizationDenied, type Denial, denialWarnings, type GroupRefusal, RuntimeError} from '../core/errors.js'
import type {DescribedGroup, DescribedMember, DescribedPartitions} from '../core/explain/report/described.js'
import {describedOffsetPartitions, describedOffsets, type GroupOffsets, type LogEnd} from '../core/explain/report/offsets.js'
import type {ClusterMetadata} from '../core/metadata.js'
import type {GroupType} from '../core/replay/index.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'

type Answer<K extends keyof ClusterReader> = ClusterReader[K] extends (...a: never[]) => Promise<Array<infer T>> ? T : never
type ConsumerGroupDescribed = Answer<'describeConsumerGroups'>
type ShareGroupDescribed = Answer<'describeShareGroups'>
type StreamsGroupDescribed = Answer<'describeStreamsGroups'>
type ClassicGroupDescribed = Answer<'describeClassicGroups'>
type NamedTopicPartitions = ConsumerGroupDescribed['members'][number]['assignment'][number]

const TYPES: ReadonlySet<string> = new Set(['consumer', 'share', 'streams', 'classic'])

/** The group as its describe answers it; null when no group of that id is listed or the describe does not know it. */
export async function readDescribedGroup(client: ClusterReader, group: string): Promise<DescribedGroup | null> {
  const listed = (await client.listGroups()).find(g => g.groupId === group)
  if (!listed || !TYPES.has(listed.type)) return null
  const type = listed.type as GroupType
  const [d] = await describeOf(client, type, [group])
  return answered(group, type, d)
}

/** One describe's answer: null for a group it does not know; a refusal or an error is thrown. */
function answered(group: string, type: GroupType, d: AnyDescribed | undefined): DescribedGroup | null {
  if (!d || d.errorName === 'GROUP_ID_NOT_FOUND') return null
  if (d.denied) throw new AuthorizationDenied(d.denied, `describing group ${group}`)
  if (d.errorName !== 'NONE')
    throw new RuntimeError(`describing group ${group} failed: ${d.errorName}`, 'Try again; the coordinator may be moving.', 'KAFKA_ERROR')
  return described(group, type, d)
}

/** Groups described per request (each type's describe asks every group's coordinator for its share of them). */
const DESCRIBE_CHUNK = 500

/**
 * Every listed group's describe, with progress as "describing groups: N/M", for a describe-only reading: a group whose
 * describe or FindCoordinator is refused is left out, warned of with its grant and returned in `refused`.
 */
export async function describeListed(
  client: ClusterReader,
  listed: ReadonlyArray<{groupId: string; type: string}>,
  progress: {update(text: string): void},
  warn: (message: string) => void,
): Promise<{described: DescribedGroup[]; refused: GroupRefusal[]}> {
  const refused: GroupRefusal[] = []
  const described = await readDescribedGroups(
    client,
    listed,
    (done, total) => progress.update(`describing groups: ${done}/${total}`),
    r => {
      warn(refusalWarning(r))
      refused.push(r)
    },
  )
  return {described, refused}
}

/**
 * Many listed groups (audit), each by its type's describe, in chunks: the groups the describes know, by id (one
 * deleted between the listing and its describe is left out). Types this tool does not read are left out. A group
 * refused is the error, or with `onRefused` is handed there and the other groups go on.
 */
export async function readDescribedGroups(
  client: ClusterReader,
  listed: ReadonlyArray<{groupId: string; type: string}>,
  onProgress: (done: number, total: number) => void = () => {},
  onRefused?: (refused: GroupRefusal) => void,
): Promise<DescribedGroup[]> {
  const out: DescribedGroup[] = []
  const known = listed.filter(g => TYPES.has(g.type))
  for (const type of TYPES as ReadonlySet<GroupType>) {
    const ids = known.filter(g => g.type === type).map(g => g.groupId)
    for (let i = 0; i < ids.length; i += DESCRIBE_CHUNK) {
      onProgress(out.length, known.length)
      const chunk = ids.slice(i, i + DESCRIBE_CHUNK)
      const byId = new Map((await describeOf(client, type, chunk)).map(d => [d.groupId, d]))
      for (const id of chunk) {
        const d = byId.get(id)
        if (d?.denied && onRefused) onRefused({...d.denied, group: id})
        else {
          const g = answered(id, type, d)
          if (g) out.push(g)
        }
      }
    }
  }
  return out.sort(by(g => g.group))
}

type AnyDescribed = ConsumerGroupDescribed | ShareGroupDescribed | StreamsGroupDescribed | ClassicGroupDescribed

function describeOf(client: ClusterReader, type: GroupType, groups: readonly string[]): Promise<AnyDescribed[]> {
  if (type === 'consumer') return client.describeConsumerGroups(groups)
  if (type === 'share') return client.describeShareGroups(groups)
  if (type === 'streams') return client.describeStreamsGroups(groups)
  return client.describeClassicGroups(groups)
}

const parts = (list: readonly NamedTopicPartitions[]): DescribedPartitions[] =>
  list.map(tp => ({topic: tp.topicName, topicId: tp.topicId, partitions: [...tp.partitions]}))

function described(group: string, type: GroupType, d: AnyDescribed): DescribedGroup {
  const base = {group, type, state: d.state, topologyTopics: null}
  if (type === 'classic') {
    const c = d as ClassicGroupDescribed
    return {
      ...base,
      groupEpoch: null,
      assignmentEpoch: null,
      assignor: c.protocol || null,
      members: c.members.map(m => member(m, {memberEpoch: null, assignment: null, targetAssignment: null})),
    }
  }
  const m = d as ConsumerGroupDescribed | ShareGroupDescribed | StreamsGroupDescribed
  const head = {...base, groupEpoch: m.groupEpoch, assignmentEpoch: m.assignmentEpoch, assignor: ('assignorName' in m && m.assignorName) || null}
  if (type === 'streams') {
    const s = d as StreamsGroupDescribed
    const topics = new Set<string>()
    for (const st of s.topology?.subtopologies ?? []) {
      for (const t of st.sourceTopics) topics.add(t)
      for (const t of [...st.repartitionSourceTopics, ...st.stateChangelogTopics]) topics.add(t.name)
    }
    return {
      ...head,
      topologyTopics: [...topics].sort(),
      members: s.members.map(x =>
        member(x, {
          memberEpoch: x.memberEpoch,
          assignment: null,
          targetAssignment: null,
          tasksDiffer: JSON.stringify(x.assignment) !== JSON.stringify(x.targetAssignment),
        }),
      ),
    }
  }
  if (type === 'share')
    return {
      ...head,
      members: (d as ShareGroupDescribed).members.map(x =>
        member(x, {memberEpoch: x.memberEpoch, subscribedTopicNames: x.subscribedTopicNames, assignment: parts(x.assignment), targetAssignment: null}),
      ),
    }
  return {
    ...head,
    members: (d as ConsumerGroupDescribed).members.map(x =>
      member(x, {
        memberEpoch: x.memberEpoch,
        subscribedTopicNames: x.subscribedTopicNames,
        subscribedTopicRegex: x.subscribedTopicRegex,
        assignment: parts(x.assignment),
        targetAssignment: parts(x.targetAssignment),
      }),
    ),
  }
}

function member(
  x: {memberId: string; clientId: string; clientHost: string; instanceId?: string | null; rackId?: string | null},
  rest: Pick<DescribedMember, 'memberEpoch' | 'assignment' | 'targetAssignment'> & Partial<DescribedMember>,
): DescribedMember {
  return {
    memberId: x.memberId,
    instanceId: x.instanceId ?? null,
    rackId: x.rackId ?? null,
    clientId: x.clientId,
    clientHost: x.clientHost,
    subscribedTopicNames: [],
    subscribedTopicRegex: null,
    tasksDiffer: null,
    ...rest,
  }
}

/** The warning for a group left out because its describe was refused: the refusal and its grant. */
export function refusalWarning(r: GroupRefusal): string {
  const e = new AuthorizationDenied(r, `describing group ${r.group}`)
  return `${e.message}: group ${r.group} is not reported. ${e.hint}`
}

/**
 * Committed offsets (OffsetFetch) and log end offsets (ListOffsets) for the described group's offsets table; null
 * for groups without one. A refusal is a warning with the grant, the table goes on without what was refused.
 */
export async function readDescribedOffsets(
  client: ClusterReader,
  g: DescribedGroup,
  live: ClusterMetadata,
  warn: (message: string) => void,
): Promise<GroupOffsets | null> {
  if (g.type !== 'consumer' && g.type !== 'classic') return null
  const [fetched] = await client.committedOffsets([g.group])
  const denied: Denial[] = fetched?.denied ? [fetched.denied] : []
  const committed = new Map<string, bigint>()
  if (fetched && fetched.errorCode === 0) {
    for (const o of fetched.offsets) if (o.errorCode === 0) committed.set(`${o.topic}:${o.partition}`, o.offset)
  } else if (fetched && !fetched.denied) warn(`committed offsets not read: OffsetFetch answered ${fetched.errorName}`)
  const wanted = describedOffsetPartitions(g, committed)
  const logEnd = new Map<string, LogEnd>()
  if (wanted.length > 0)
    for (const l of await client.listOffsets(wanted)) {
      logEnd.set(`${l.topic}:${l.partition}`, {offset: l.offset, error: l.error})
      if (l.denied) denied.push(l.denied)
    }
  for (const w of denialWarnings(denied)) warn(`offsets not read where refused: ${w}`)
  return describedOffsets(g, committed, live, logEnd)
}
