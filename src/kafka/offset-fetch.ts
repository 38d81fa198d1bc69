/**
 * OffsetFetch v8 (many groups per request, every partition each committed): the committed offsets an admin reads,
 * as `kafka-consumer-groups --describe` does. No member id or epoch: the request neither joins nor fences anyone.
 */
import * as Req from './messages/requests.js'
import * as Res from './messages/responses.js'
import {decodeAs, encodeBody} from './protocol.js'

export const OFFSET_FETCH_VERSION = 8

export interface CommittedOffset {
  readonly topic: string
  readonly partition: number
  /** -1: no offset committed (Kafka's answer for a partition it was asked about without one). */
  readonly offset: bigint
  readonly errorCode: number
}

export interface GroupCommittedOffsets {
  readonly groupId: string
  readonly errorCode: number
  readonly errorMessage: null
  readonly offsets: CommittedOffset[]
}

export function encodeOffsetFetch(groupIds: readonly string[]): Buffer {
  return encodeBody(Req.OffsetFetchRequest, OFFSET_FETCH_VERSION, {Groups: groupIds.map(GroupId => ({GroupId, Topics: null})), RequireStable: false})
}

interface WireGroup {
  GroupId: string
  ErrorCode: number
  Topics: Array<{Name: string; Partitions: Array<{PartitionIndex: number; CommittedOffset: bigint; ErrorCode: number}>}>
}

export function decodeOffsetFetch(buf: Buffer): GroupCommittedOffsets[] {
  const groups = decodeAs<{Groups: WireGroup[]}>(Res.OffsetFetchResponse, OFFSET_FETCH_VERSION, buf).Groups
  return groups.map(g => ({
    groupId: g.GroupId,
    errorCode: g.ErrorCode,
    errorMessage: null,
    offsets: g.Topics.flatMap(t => t.Partitions.map(p => ({topic: t.Name, partition: p.PartitionIndex, offset: p.CommittedOffset, errorCode: p.ErrorCode}))),
  }))
}
