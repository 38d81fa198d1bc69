/**
 * Request and response bodies over the one generic codec (src/core/records/codec.ts, the same that reads
 * coordinator records), driven by the message specs in ../messages/. `decodeAs` is the one place where a decoded
 * struct becomes a declared type: each API's decoder (./cluster.ts, ./group-describe.ts, ./partitions.ts) declares
 * the body it reads in Kafka's field names and maps it to the typed shape the client uses.
 */
import {type ElementSinks, planFor, readStruct, writeStruct, type StructValue} from '../../core/records/codec.js'
import {ByteReader, ByteWriter} from '../../core/records/bytes.js'
import {DecodeFault} from '../../core/records/errors.js'
import type {MessageSpec} from '../../core/records/spec.js'
import {uuidFromString} from '../../core/uuid.js'
import {ProtocolDecodeError} from '../wire.js'

export const API = {
  Fetch: 1,
  ListOffsets: 2,
  OffsetFetch: 9,
  DescribeConfigs: 32,
  Metadata: 3,
  FindCoordinator: 10,
  DescribeGroups: 15,
  ListGroups: 16,
  ListPartitionReassignments: 46,
  ApiVersions: 18,
  DescribeCluster: 60,
  ConsumerGroupDescribe: 69,
  DescribeTopicPartitions: 75,
  ShareGroupDescribe: 77,
  StreamsGroupDescribe: 89,
  // authentication of a connection (SASL), before any other request
  SaslHandshake: 17,
  SaslAuthenticate: 36,
} as const

export const API_NAMES: Record<number, string> = Object.fromEntries(Object.entries(API).map(([k, v]) => [v, k]))

/** A request body: `value` holds Kafka's field names; absent fields take their spec defaults. */
export function encodeBody(spec: MessageSpec, version: number, value: StructValue): Buffer {
  const w = new ByteWriter()
  writeStruct(w, planFor(spec, version), value)
  const bytes = w.finish()
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
}

/**
 * A response body as a generic struct (Kafka's field names); lengths are checked before any allocation. `sinks`:
 * top-level array fields whose elements are handed over one by one as they are read (the struct holds their count).
 */
export function decodeBody(spec: MessageSpec, version: number, buf: Uint8Array, sinks?: ElementSinks): StructValue {
  try {
    return readStruct(new ByteReader(buf), planFor(spec, version), sinks)
  } catch (error) {
    if (!(error instanceof DecodeFault)) throw error
    const field = error.path.reduce((s, p) => (p.startsWith('[') || !s ? s + p : `${s}.${p}`), '')
    throw new ProtocolDecodeError(`${spec.name} v${version}${field ? ` at ${field}` : ''}: ${error.reason} (byte ${error.position} of ${buf.length})`)
  }
}

/**
 * A response body as `T`, the fields it is read for, declared in Kafka's names and types (int64 bigint, uuid
 * its 22-char text, bytes and records Uint8Array, `| null` where the spec is nullable at that version).
 * The only conversion from the generic codec's values: the codec has already checked every field against
 * `spec` at `version`, and fills a field the version lacks with its default, so each field `T` names is
 * present with its spec's type as long as `T` restates the spec, which each declaration sits next to. `sinks`:
 * the array fields whose elements are handed over as they are read (`T` declares those fields as their counts).
 */
export function decodeAs<T, E = Record<never, never>>(spec: MessageSpec, version: number, buf: Uint8Array, sinks?: SinksOf<E>): T {
  return decodeBody(spec, version, buf, sinks as unknown as ElementSinks | undefined) as unknown as T
}

/** Sinks of decodeAs: for each top-level array field E names, a function given its elements as E declares them. */
export type SinksOf<E> = {readonly [K in keyof E]: (element: E[K]) => void}

/** A uuid as the codec reads it (22-char text) to its 16 bytes. */
export const uuidBytes = (text: string): Uint8Array => uuidFromString(text).bytes
