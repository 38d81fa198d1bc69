/**
 * DescribeGroups v5: a classic group's state, protocol and members as its coordinator holds them (what
 * `kafka-consumer-groups --describe --state` counts). A describe: it joins nothing and fences no one.
 */
import * as Req from './messages/requests.js'
import * as Res from './messages/responses.js'
import {decodeAs, encodeBody} from './protocol.js'

export const DESCRIBE_GROUPS_VERSION = 5

export interface ClassicGroupMember {
  readonly memberId: string
  readonly instanceId: string | null
  readonly clientId: string
  readonly clientHost: string
}

export interface ClassicGroupDescription {
  readonly groupId: string
  readonly errorCode: number
  readonly errorMessage: null
  /** Kafka's names: Stable, PreparingRebalance, CompletingRebalance, Empty, Dead. */
  readonly state: string
  readonly protocolType: string
  /** The assignor the generation chose ("" while none). */
  readonly protocol: string
  readonly members: ClassicGroupMember[]
}

export function encodeDescribeGroups(groupIds: readonly string[]): Buffer {
  return encodeBody(Req.DescribeGroupsRequest, DESCRIBE_GROUPS_VERSION, {Groups: [...groupIds], IncludeAuthorizedOperations: false})
}

interface WireGroup {
  ErrorCode: number
  GroupId: string
  GroupState: string
  ProtocolType: string
  ProtocolData: string
  Members: Array<{MemberId: string; GroupInstanceId: string | null; ClientId: string; ClientHost: string}>
}

export function decodeDescribeGroups(buf: Buffer): ClassicGroupDescription[] {
  const groups = decodeAs<{Groups: WireGroup[]}>(Res.DescribeGroupsResponse, DESCRIBE_GROUPS_VERSION, buf).Groups
  return groups.map(g => ({
    groupId: g.GroupId,
    errorCode: g.ErrorCode,
    errorMessage: null,
    state: g.GroupState,
    protocolType: g.ProtocolType,
    protocol: g.ProtocolData,
    members: g.Members.map(m => ({memberId: m.MemberId, instanceId: m.GroupInstanceId, clientId: m.ClientId, clientHost: m.ClientHost})),
  }))
}
