/**
 * Coordinator records of `__consumer_offsets`: schemas as data (RECORD_TYPES, Kafka's names), one
 * generic codec (decodeRecord / encodeRecord), the embedded classic consumer protocol, the
 * partition of a group (partitionForGroup), and a JSON-safe view (toJsonSafe).
 *
 * A reader keeps a group's records cheaply with groupIdOfKey(key) and decodes them with
 * decodeRecord(key, value, offset): a KnownRecord, an UnknownRecord (unknown type or newer value
 * version, never fatal), or a thrown RecordDecodeError (malformed bytes, with offset and field).
 */
export {RECORD_TYPE, RECORD_TYPES, RECORD_TYPE_BY_ID, GROUP_METADATA_TYPES, type RecordTypeName} from './schemas.js'
export {ConsumerProtocolSubscription, ConsumerProtocolAssignment} from './consumer-protocol.js'
export type {FieldSpec, MessageSpec, RecordTypeSpec, StructSpec, PrimitiveType, GroupKind, VersionRange} from './spec.js'
export {parseVersions} from './spec.js'
export {ZERO_UUID, planFor, defaultsOf, type StructValue, type UnknownTaggedField} from './codec.js'
export {RecordDecodeError, type RecordDecodeErrorDetails} from './errors.js'
export {
  decodeRecord,
  decodeRecordIn,
  decodeEmbeddedMessage,
  encodeKey,
  encodeValue,
  encodeRecord,
  encodeEmbeddedMessage,
  groupIdOfKey,
  recordTypeOfKey,
  type DecodedRecord,
  type KnownRecord,
  type UnknownRecord,
  type EmbeddedDecode,
  type RecordToEncode,
} from './record.js'
export {partitionForGroup, javaStringHashCode, kafkaAbs} from './partition.js'
export {toJsonSafe} from './json.js'
