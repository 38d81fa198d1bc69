/**
 * The coordinator's own records, read with Kafka's own decoder: `DumpLogSegments --offsets-decoder` over the
 * segments of the group's `__consumer_offsets` partition on a broker's disk (works while the broker runs).
 *
 * Output line shape (4.1.2 and 4.4.0 alike):
 *   | offset: 1 CreateTime: ... keySize: 6 valueSize: 17 sequence: 1 headerKeys: [] key: {"type":"3","data":{"groupId":"g1"}} payload: {"version":"0","data":{"epoch":2,"metadataHash":4913027311936540304}}
 * Tombstones print `payload: <DELETE>`. Tagged fields at their default are absent: a ConsumerGroupMetadata with
 * hash 0 prints `{"epoch":2}`. Hashes are printed as bare 64-bit JSON numbers, so they are parsed here as strings.
 * The class is kafka.tools.DumpLogSegments (Scala, core) up to 4.3 and org.apache.kafka.tools.DumpLogSegments (Java,
 * kafka-tools) in 4.4: cluster.env names it as DUMP_LOG_SEGMENTS_CLASS.
 */
import {execFile} from 'node:child_process'
import {mkdirSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import type {ClusterEnv} from './cluster.js'

const run = promisify(execFile)

export const RECORD_TYPES: Readonly<Record<number, string>> = {
  0: 'LegacyOffsetCommit',
  1: 'OffsetCommit',
  2: 'GroupMetadata',
  3: 'ConsumerGroupMetadata',
  4: 'ConsumerGroupPartitionMetadata',
  5: 'ConsumerGroupMemberMetadata',
  6: 'ConsumerGroupTargetAssignmentMetadata',
  7: 'ConsumerGroupTargetAssignmentMember',
  8: 'ConsumerGroupCurrentMemberAssignment',
  9: 'ShareGroupPartitionMetadata',
  10: 'ShareGroupMemberMetadata',
  11: 'ShareGroupMetadata',
  12: 'ShareGroupTargetAssignmentMetadata',
  13: 'ShareGroupTargetAssignmentMember',
  14: 'ShareGroupCurrentMemberAssignment',
  15: 'ShareGroupStatePartitionMetadata',
  16: 'ConsumerGroupRegularExpression',
  17: 'StreamsGroupMetadata',
  19: 'StreamsGroupMemberMetadata',
  20: 'StreamsGroupTargetAssignmentMetadata',
  21: 'StreamsGroupTargetAssignmentMember',
  22: 'StreamsGroupCurrentMemberAssignment',
  23: 'StreamsGroupTopology',
}

export type GroupKind = 'consumer' | 'share' | 'streams'
export const METADATA_RECORD_TYPE: Readonly<Record<GroupKind, number>> = {consumer: 3, share: 11, streams: 17}

export interface OffsetsRecord {
  offset: number
  /** The record's timestamp as printed (CreateTime: the coordinator's clock when it appended the record); -1: none. */
  timestamp: number
  type: number
  typeName: string
  key: Record<string, unknown>
  /** null for a tombstone. Integers too large for a double are strings. */
  value: Record<string, unknown> | null
  valueVersion: number | null
}

export interface GroupMetadataRecord {
  offset: number
  epoch: number
  metadataHash: bigint
  data: Record<string, unknown>
}

/** Java's String.hashCode over UTF-16 code units (int32). */
export function javaStringHashCode(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/** The __consumer_offsets partition of a group: Utils.abs(groupId.hashCode()) % partitions (abs(MIN_VALUE) = 0). */
export function offsetsPartitionFor(groupId: string, partitions: number): number {
  const h = javaStringHashCode(groupId)
  const abs = h === -2147483648 ? 0 : Math.abs(h)
  return abs % partitions
}

/** JSON.parse that keeps integers of 16+ digits exact, as strings (only outside string literals). */
export function parseJsonBigSafe(text: string): unknown {
  let out = ''
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      out += text.slice(i, j + 1)
      i = j + 1
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1
      while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++
      const num = text.slice(i, j)
      out += /^-?\d{16,}$/.test(num) ? `"${num}"` : num
      i = j
    } else {
      out += c
      i++
    }
  }
  return JSON.parse(out)
}

/** Parses DumpLogSegments --offsets-decoder output into records (lines without a decoded key are skipped). */
export function parseDumpLogSegments(text: string): OffsetsRecord[] {
  const out: OffsetsRecord[] = []
  for (const line of text.split('\n')) {
    if (!line.startsWith('| offset: ')) continue
    // the timestamp's type (CreateTime; NoTimestampType: -1 in old formats), then its value
    const off = /^\| offset: (\d+)(?: (?:CreateTime|LogAppendTime|NoTimestampType): (-?\d+))?/.exec(line)
    const k = line.indexOf(' key: ')
    const p = line.lastIndexOf(' payload: ')
    if (!off || k < 0 || p < 0 || p < k) continue
    const keyText = line.slice(k + 6, p).trim()
    const payloadText = line.slice(p + 10).trim()
    if (!keyText.startsWith('{')) continue
    const key = parseJsonBigSafe(keyText) as {type: string | number; data: Record<string, unknown>}
    const type = Number(key.type)
    let value: Record<string, unknown> | null = null
    let valueVersion: number | null = null
    if (payloadText.startsWith('{')) {
      const v = parseJsonBigSafe(payloadText) as {version: string | number; data: Record<string, unknown>}
      value = v.data
      valueVersion = Number(v.version)
    }
    out.push({
      offset: Number(off[1]),
      timestamp: off[2] === undefined ? -1 : Number(off[2]),
      type,
      typeName: RECORD_TYPES[type] ?? `Unknown${type}`,
      key: key.data,
      value,
      valueVersion,
    })
  }
  return out
}

/** Runs Kafka's DumpLogSegments --offsets-decoder over all segments of one partition directory. */
export async function dumpOffsetsPartition(env: ClusterEnv, brokerId: number, partition: number): Promise<OffsetsRecord[]> {
  const dir = join(env.brokerLogDir(brokerId), `__consumer_offsets-${partition}`)
  const segments = readdirSync(dir)
    .filter(f => f.endsWith('.log'))
    .sort()
    .map(f => join(dir, f))
  if (segments.length === 0) return []
  const {stdout} = await run(
    'java',
    [
      '-Xms32m',
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      `-Dlog4j2.configurationFile=${join(env.itDir, 'config', 'tools-log4j2.properties')}`,
      '-cp',
      `${env.libs}/*`,
      env.dumpLogSegmentsClass,
      '--offsets-decoder',
      '--files',
      segments.join(','),
    ],
    {maxBuffer: 256 << 20, timeout: 120_000},
  )
  return parseDumpLogSegments(stdout)
}

/**
 * The same decoder run inside the driver JVM (no JVM start per read: the tests poll). `KAFKA_IT_DUMP=process`
 * switches back to a DumpLogSegments process per read.
 */
export async function dumpOffsetsPartitionInDriver(
  env: ClusterEnv,
  driver: {cmd(line: string): Promise<unknown>},
  brokerId: number,
  partition: number,
): Promise<OffsetsRecord[]> {
  if (process.env.KAFKA_IT_DUMP === 'process') return dumpOffsetsPartition(env, brokerId, partition)
  const dir = join(env.brokerLogDir(brokerId), `__consumer_offsets-${partition}`)
  const segments = readdirSync(dir)
    .filter(f => f.endsWith('.log'))
    .sort()
    .map(f => join(dir, f))
  if (segments.length === 0) return []
  const out = join(env.runDir, 'dumps', `dump-${process.pid}-${dumpSeq++}.txt`)
  mkdirSync(join(env.runDir, 'dumps'), {recursive: true})
  await driver.cmd(`dump-log ${out} ${segments.join(' ')}`)
  try {
    return parseDumpLogSegments(readFileSync(out, 'utf8'))
  } finally {
    rmSync(out, {force: true})
  }
}

let dumpSeq = 0

export function groupRecords(records: readonly OffsetsRecord[], groupId: string): OffsetsRecord[] {
  return records.filter(r => r.key.groupId === groupId || r.key.group === groupId)
}

/** The group's metadata records (epoch + MetadataHash) in log order; tombstones left out. */
export function metadataRecords(records: readonly OffsetsRecord[], groupId: string, kind: GroupKind): GroupMetadataRecord[] {
  const type = METADATA_RECORD_TYPE[kind]
  return groupRecords(records, groupId)
    .filter(r => r.type === type && r.value !== null)
    .map(r => ({
      offset: r.offset,
      epoch: Number(r.value!.epoch),
      // absent tagged field (consumer groups) = default 0
      metadataHash: r.value!.metadataHash === undefined ? 0n : BigInt(r.value!.metadataHash as string | number),
      data: r.value!,
    }))
}
