export {RECORD_TYPES, RECORD_TYPE_BY_ID, GROUP_METADATA_TYPES} from './schemas.js'
export {ConsumerProtocolSubscription, ConsumerProtocolAssignment} from './consumer-protocol.js'
export type {FieldSpec, MessageSpec, RecordTypeSpec, StructSpec, PrimitiveType, GroupKind, VersionRange} from './spec.js'
export {parseVersions} from './spec.js'
export {ZERO_UUID, planFor, defaultsOf, type StructValue, type UnknownTaggedField} from './codec.js'
export {RecordDecodeError, type RecordDecodeErrorDetails} from './errors.js'
export {
  decodeRecord, decodeEmbeddedMessage, encodeKey, encodeValue, encodeRecord, encodeEmbeddedMessage,
  groupIdOfKey, recordTypeOfKey,
  type DecodedRecord, type KnownRecord, type UnknownRecord, type EmbeddedDecode, type RecordToEncode,
} from './record.js'
export {partitionForGroup, javaStringHashCode, kafkaAbs} from './partition.js'
export {toJsonSafe} from './json.js'
