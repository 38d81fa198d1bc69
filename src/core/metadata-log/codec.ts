/**
 * The frame of a KRaft metadata record (Kafka's MetadataRecordSerde): unsigned varint frame version (1, AbstractApiMessageSerde.DEFAULT_FRAME_VERSION),
 * unsigned varint record type (apiKey), unsigned varint record version, then the body, which the generic codec
 * reads from the schema. Unknown types are skipped by type; a newer version of a known type is reported, not
 * guessed at; bytes that do not match their own schema throw a RecordDecodeError naming offset and field.
 */
import {ByteReader, ByteWriter} from '../records/bytes.js'
import {planFor, readStruct, writeStruct, maxVersion, type StructValue} from '../records/codec.js'
import {DecodeFault, RecordDecodeError} from '../records/errors.js'
import {inRange, parseVersions} from '../records/spec.js'
import {METADATA_RECORD_BY_TYPE, OTHER_METADATA_RECORD_NAMES} from './schemas.js'

export const METADATA_FRAME_VERSION = 1

export type MetadataRecord =
  | {readonly kind: 'record'; readonly type: number; readonly name: string; readonly version: number; readonly data: StructValue}
  | {readonly kind: 'skipped'; readonly type: number; readonly name: string; readonly version: number; readonly reason: 'other-type' | 'unknown-version'}

export function metadataRecordName(type: number): string {
  return METADATA_RECORD_BY_TYPE.get(type)?.spec.name ?? OTHER_METADATA_RECORD_NAMES[type] ?? `type ${type}`
}

export function decodeMetadataRecord(value: Uint8Array, offset?: bigint): MetadataRecord {
  const r = new ByteReader(value)
  let type = -1
  let version = -1
  try {
    const frame = r.uvarint()
    if (frame !== METADATA_FRAME_VERSION) throw r.fault(`unknown metadata frame version ${frame}`, 0)
    type = r.uvarint()
    version = r.uvarint()
    const rec = METADATA_RECORD_BY_TYPE.get(type)
    if (!rec) return {kind: 'skipped', type, name: metadataRecordName(type), version, reason: 'other-type'}
    if (!inRange(parseVersions(rec.spec.validVersions), version)) return {kind: 'skipped', type, name: rec.spec.name, version, reason: 'unknown-version'}
    const data = readStruct(r, planFor(rec.spec, version))
    if (r.remaining !== 0) throw r.fault(`${r.remaining} bytes left after the record`)
    return {kind: 'record', type, name: rec.spec.name, version, data}
  } catch (e) {
    if (e instanceof DecodeFault) {
      throw new RecordDecodeError({
        offset,
        part: 'record',
        recordType: type >= 0 ? type : undefined,
        recordName: type >= 0 ? metadataRecordName(type) : undefined,
        version: version >= 0 ? version : undefined,
        position: e.position,
        field: e.path.join('.').replaceAll('.[', '['),
        reason: e.reason,
      })
    }
    throw e
  }
}

/** Frames and encodes a record (tests and the benchmark write logs with it). */
export function encodeMetadataRecord(type: number, data: StructValue, version?: number): Uint8Array {
  const rec = METADATA_RECORD_BY_TYPE.get(type)
  if (!rec) throw new RangeError(`no schema for metadata record type ${type}`)
  const w = new ByteWriter()
  w.uvarint(METADATA_FRAME_VERSION)
  w.uvarint(type)
  const v = version ?? maxVersion(rec.spec)
  w.uvarint(v)
  writeStruct(w, planFor(rec.spec, v), data)
  return w.finish()
}
