/**
 * `group list`: every group the brokers know (ListGroups), joined with what each group's coordinator says of it
 * (the describe APIs of KIP-848 consumer, share and streams groups) and where it lives. Like
 * `kafka-consumer-groups --list --state` plus the group epoch, assignment epoch and member count.
 */
import {by} from './order.js'

export interface ListedGroupInput {
  readonly groupId: string
  /** classic, consumer, share, streams (as ListGroups v5 reports it, lower-cased). */
  readonly type: string
  readonly protocolType: string
  readonly state: string
}

export interface DescribedGroupInput {
  readonly groupId: string
  readonly errorName: string
  readonly state: string
  /** Absent for classic groups (DescribeGroups has no generation). */
  readonly groupEpoch?: number
  readonly assignmentEpoch?: number
  readonly members: readonly unknown[]
}

export interface GroupListEntry {
  group: string
  type: string
  protocolType: string
  /** From the describe when it answered, else from ListGroups. */
  state: string
  /** null for classic groups (DescribeGroups has no generation) and when the describe failed. */
  groupEpoch: number | null
  assignmentEpoch: number | null
  members: number | null
  /** Broker id of the group coordinator, null when FindCoordinator did not answer for it. */
  coordinator: number | null
  /** The __consumer_offsets partition that holds the group's records. */
  partition: number
  /** Why the describe gave nothing (GROUP_ID_NOT_FOUND: deleted between list and describe), else absent. */
  describeError?: string
}

export function groupListing(
  listed: readonly ListedGroupInput[],
  described: ReadonlyMap<string, DescribedGroupInput>,
  coordinators: ReadonlyMap<string, {readonly id: number}>,
  partitionOf: (groupId: string) => number,
): GroupListEntry[] {
  const out = listed.map((g): GroupListEntry => {
    const d = described.get(g.groupId)
    const ok = d !== undefined && d.errorName === 'NONE'
    return {
      group: g.groupId,
      type: g.type,
      protocolType: g.protocolType,
      state: ok ? d.state : g.state,
      groupEpoch: ok ? (d.groupEpoch ?? null) : null,
      assignmentEpoch: ok ? (d.assignmentEpoch ?? null) : null,
      members: ok ? d.members.length : null,
      coordinator: coordinators.get(g.groupId)?.id ?? null,
      partition: partitionOf(g.groupId),
      ...(d && !ok ? {describeError: d.errorName} : {}),
    }
  })
  return out.sort(by(x => x.group))
}
