/**
 * The read-only Kafka APIs the tool uses: request encoders and response decoders over the one generic codec
 * (src/core/records/codec.ts, the same that reads coordinator records), driven by the message specs in
 * ./messages/ (Kafka's message JSON as data, for the versions we send). The files in ./protocol/ read each body
 * as a declared interface (Kafka's field names; one conversion, ./protocol/body.ts decodeAs) and map it to the
 * typed shapes the client uses. Pure: bytes in, data out.
 *
 * Only read-only APIs are here: no JoinGroup, OffsetCommit, CreateTopics or anything that changes the cluster.
 */
// Split by API area (issue 31); importers keep reading every name from here.
export * from './protocol/body.js'
export * from './protocol/cluster.js'
export * from './protocol/group-describe.js'
export * from './protocol/partitions.js'
