/**
 * Partition reads: ListOffsets v7 and Fetch v12. Each decoder reads its body as a declared interface (Kafka's
 * field names, see ./body.ts decodeAs) and maps it to the shape the partition reader uses.
 */
import * as Req from '../messages/requests.js'
import * as Res from '../messages/responses.js'
import {decodeAs, encodeBody} from './body.js'

// ---------------------------------------------------------------- ListOffsets v7 (flexible)
export const EARLIEST_TIMESTAMP = -2n
export const LATEST_TIMESTAMP = -1n

export interface ListedOffset {
  readonly topic: string
  readonly partition: number
  readonly errorCode: number
  readonly offset: bigint
}

/** Many partitions in one ListOffsets v7 request (all led by the broker it is sent to). isolation 1 = read_committed: LATEST then answers the last stable offset. */
export function encodeListOffsetsV7Many(topics: ReadonlyMap<string, readonly number[]>, timestamp: bigint, isolation: 0 | 1): Buffer {
  return encodeBody(Req.ListOffsetsRequest, 7, {
    ReplicaId: -1, // a consumer
    IsolationLevel: isolation,
    Topics: [...topics].map(([Name, ps]) => ({Name, Partitions: ps.map(PartitionIndex => ({PartitionIndex, CurrentLeaderEpoch: -1, Timestamp: timestamp}))})),
  })
}

export function encodeListOffsetsV7(topic: string, partition: number, timestamp: bigint, isolation: 0 | 1): Buffer {
  return encodeListOffsetsV7Many(new Map([[topic, [partition]]]), timestamp, isolation)
}

interface ListOffsetsBody {
  Topics: Array<{Name: string; Partitions: Array<{PartitionIndex: number; ErrorCode: number; Offset: bigint}>}>
}

export function decodeListOffsetsV7Many(buf: Buffer): ListedOffset[] {
  return decodeAs<ListOffsetsBody>(Res.ListOffsetsResponse, 7, buf).Topics.flatMap(t =>
    t.Partitions.map(p => ({
      topic: t.Name,
      partition: p.PartitionIndex,
      errorCode: p.ErrorCode,
      offset: p.Offset,
    })),
  )
}

/** The one partition asked for (the last answered, as brokers answer exactly what was asked). */
export function decodeListOffsetsV7(buf: Buffer): {errorCode: number; offset: bigint} {
  const last = decodeListOffsetsV7Many(buf).at(-1)
  return last ? {errorCode: last.errorCode, offset: last.offset} : {errorCode: -1, offset: -1n}
}

// ---------------------------------------------------------------- Fetch v12 (flexible, topics by name, no session)
export interface FetchPartitionResponse {
  readonly errorCode: number
  readonly highWatermark: bigint
  readonly lastStableOffset: bigint
  readonly logStartOffset: bigint
  readonly abortedTransactions: Array<{producerId: bigint; firstOffset: bigint}>
  readonly records: Buffer | null
}

/** A one-partition full fetch without a fetch session and without a group: what a read-only reader needs. */
export function encodeFetchV12(topic: string, partition: number, offset: bigint, maxBytes: number, isolation: 0 | 1, maxWaitMs = 0): Buffer {
  return encodeBody(Req.FetchRequest, 12, {
    ReplicaId: -1, // a consumer
    MaxWaitMs: maxWaitMs,
    MinBytes: 1,
    MaxBytes: maxBytes,
    IsolationLevel: isolation,
    SessionId: 0, // no fetch session
    SessionEpoch: -1, // a full fetch
    Topics: [
      {
        Topic: topic,
        Partitions: [
          {Partition: partition, CurrentLeaderEpoch: -1, FetchOffset: offset, LastFetchedEpoch: -1, LogStartOffset: -1n, PartitionMaxBytes: maxBytes},
        ],
      },
    ],
    ForgottenTopicsData: [],
    RackId: '',
  })
}

interface FetchBody {
  ErrorCode: number
  ThrottleTimeMs: number
  Responses: Array<{
    Partitions: Array<{
      ErrorCode: number
      HighWatermark: bigint
      LastStableOffset: bigint
      LogStartOffset: bigint
      AbortedTransactions: Array<{ProducerId: bigint; FirstOffset: bigint}> | null
      Records: Uint8Array | null
    }>
  }>
}

/**
 * `throttleTimeMs` > 0: the broker throttles this principal (a quota) and expects no request to it before that
 * time has passed; a throttled fetch may come back with no partition at all.
 */
export function decodeFetchV12(buf: Buffer): {errorCode: number; throttleTimeMs: number; partition: FetchPartitionResponse | undefined} {
  const m = decodeAs<FetchBody>(Res.FetchResponse, 12, buf)
  const p = m.Responses.flatMap(t => t.Partitions).at(-1)
  const records = p && p.Records
  return {
    errorCode: m.ErrorCode,
    throttleTimeMs: m.ThrottleTimeMs,
    partition: p && {
      errorCode: p.ErrorCode,
      highWatermark: p.HighWatermark,
      lastStableOffset: p.LastStableOffset,
      logStartOffset: p.LogStartOffset,
      abortedTransactions: (p.AbortedTransactions ?? []).map(a => ({producerId: a.ProducerId, firstOffset: a.FirstOffset})),
      records: records ? Buffer.from(records.buffer, records.byteOffset, records.length) : null,
    },
  }
}
