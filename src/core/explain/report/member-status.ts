import type {EpochMark, GroupState} from '../../replay/index.js'
import {isoTime} from '../../time.js'
import {memberPartitions} from './members.js'
import type {MemberStatus} from './report.js'
export const STATE_NAMES: Record<'consumer' | 'share' | 'streams', Record<number, string>> = {
  consumer: {0: 'STABLE', 1: 'UNREVOKED_PARTITIONS', 2: 'UNRELEASED_PARTITIONS', 127: 'UNKNOWN'},
  share: {0: 'STABLE', 1: 'UNREVOKED_PARTITIONS', 2: 'UNRELEASED_PARTITIONS', 127: 'UNKNOWN'},
  streams: {1: 'STABLE', 2: 'UNREVOKED_TASKS', 3: 'UNRELEASED_TASKS', 127: 'UNKNOWN'},
}

export function memberName(m: MemberStatus): string {
  return m.clientId ? `${m.memberId} (client ${m.clientId})` : m.memberId
}

export function membersOf(
  type: 'consumer' | 'share' | 'streams',
  state: GroupState,
  timeline: readonly EpochMark[],
  topicNames: ReadonlyMap<string, string>,
): MemberStatus[] {
  const g = state[type]!
  const partitions = memberPartitions(type, state, topicNames)
  const stable = type === 'streams' ? 1 : 0
  const out: MemberStatus[] = []
  for (const [memberId, m] of g.members as Map<
    string,
    {
      ClientId?: string
      ClientHost?: string
      InstanceId?: string | null
      RackId?: string | null
      SubscribedTopicNames?: readonly string[]
      SubscribedTopicRegex?: string | null
    }
  >) {
    const cur = g.currentAssignment.get(memberId) as {MemberEpoch: number; State: number} | undefined
    const target = g.targetAssignmentEpoch
    const behind = cur !== undefined && target !== undefined && cur.MemberEpoch < target
    const reconciling = cur === undefined || behind || cur.State !== stable
    let since: string | null = null
    if (reconciling) {
      // no assignment yet: since it joined; behind the target: since the first bump it has not caught up with; at
      // the target epoch but not stable (e.g. waiting for partitions another member has not revoked): since it
      // entered that state
      const writes = g.memberWrites.get(memberId)
      const at = !cur
        ? writes?.metadata?.timestamp
        : behind
          ? timeline.find(e => e.groupType === type && e.epoch > cur.MemberEpoch)?.timestamp
          : writes?.currentAssignment?.timestamp
      since = at === undefined ? null : isoTime(at)
    }
    out.push({
      memberId,
      clientId: m.ClientId || null,
      clientHost: m.ClientHost || null,
      instanceId: m.InstanceId ?? null,
      memberEpoch: cur?.MemberEpoch ?? null,
      state: cur ? (STATE_NAMES[type][cur.State] ?? String(cur.State)) : null,
      subscribedTopicNames: [...(m.SubscribedTopicNames ?? [])].sort(),
      subscribedTopicRegex: m.SubscribedTopicRegex || null,
      rackId: m.RackId ?? null,
      reconciling,
      reconcilingSince: since,
      partitions: partitions?.get(memberId) ?? null,
    })
  }
  return out
}
