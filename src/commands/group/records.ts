import {Args, Flags} from '@oclif/core'
import {BaseCommand, EXIT, patternHint} from '../../base-command.js'
import {type RecordView, keySummary, parseRecordTypes, recordView, valueSummary} from '../../core/records-view.js'
import {parseTimeSpec} from '../../core/time.js'
import {connectionFlags} from '../../kafka/flags.js'
import {withKafka} from '../../kafka/session.js'
import {startProgress} from '../../render/progress.js'
import {renderTable} from '../../render/table.js'
import {readGroupLog} from '../../sources/group-log.js'

export interface GroupRecordsResult {
  group: string
  /** The __consumer_offsets partition holding the group, of partitionCount. */
  partition: number
  partitionCount: number
  leader: number
  logStartOffset: string
  endOffset: string
  /** Records of that partition read (all groups). */
  recordsScanned: number
  abortedTransactionalRecords: number
  /** The group's records (after --type/--since/--until/--last), in log order. */
  records: RecordView[]
  /** Malformed records of the group: reported and skipped. */
  decodeErrors: Array<{offset: string | null; message: string}>
}

export default class GroupRecords extends BaseCommand<typeof GroupRecords> {
  static override summary = "Decode a group's records from __consumer_offsets, over the network (read-only)."
  static override description = `Like kafka-dump-log --offsets-decoder, but from a live cluster and for one group: reads the group's
__consumer_offsets partition from its log start to the last stable offset with ListOffsets and Fetch only (no group
is joined, nothing is committed), drops aborted transactions, and decodes every record type 0-23 of Kafka 4.x with
schemas that know every version. Records of newer types or versions are shown as unknown and skipped, never fatal.
The log is compacted: older values of a key may be gone.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092',
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092 --type ConsumerGroupMetadata --type ConsumerGroupMemberMetadata',
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092 --since 2h --json',
  ]

  static override args = {
    group: Args.string({description: 'group id', required: true}),
  }

  static override flags = {
    ...connectionFlags,
    type: Flags.string({
      char: 't',
      summary: 'Only these record types: ids (3) or names (ConsumerGroupMetadata); repeat or comma-separate.',
      multiple: true,
      helpValue: 'TYPE',
    }),
    'exclude-offset-commits': Flags.boolean({summary: 'Leave out offset commits (types 0 and 1).'}),
    since: Flags.string({summary: 'Only records at or after this time: ISO-8601 (UTC unless it names a zone) or a duration ago (2h, 7d).', helpValue: 'TIME'}),
    until: Flags.string({summary: 'Only records before this time: ISO-8601 (UTC unless it names a zone) or a duration ago.', helpValue: 'TIME'}),
    last: Flags.integer({summary: 'Only the last N records (after the other filters).', min: 1, helpValue: 'N'}),
    wide: Flags.boolean({summary: 'Do not shorten record values in the table.'}),
  }

  async run(): Promise<GroupRecordsResult> {
    const {flags} = this
    const types = flags.type ? parseRecordTypes(flags.type) : undefined
    const since = flags.since ? parseTimeSpec(flags.since, 'since') : undefined
    const until = flags.until ? parseTimeSpec(flags.until, 'until') : undefined
    const group = this.args.group
    const progress = await startProgress(`reading ${group}'s __consumer_offsets partition`, !this.jsonEnabled())
    const log = await withKafka(flags, {debug: flags.debug, warn: m => this.warn(m)}, client =>
      readGroupLog(client, group, {onProgress: (n, offset) => progress.update(`reading __consumer_offsets: ${n} records, offset ${offset}`)}),
    ).finally(() => progress.stop())

    let views = log.records
      .filter(r => !types || types.has(r.record.type))
      .filter(r => !flags['exclude-offset-commits'] || (r.record.type !== 0 && r.record.type !== 1))
      .filter(r => (since === undefined || r.timestamp >= since) && (until === undefined || r.timestamp < until))
      .map(recordView)
    if (flags.last) views = views.slice(-flags.last)

    const result: GroupRecordsResult = {
      group,
      partition: log.partition,
      partitionCount: log.partitionCount,
      leader: log.leader,
      logStartOffset: log.logStartOffset.toString(),
      endOffset: log.endOffset.toString(),
      recordsScanned: log.recordsScanned,
      abortedTransactionalRecords: log.aborted.records,
      records: views,
      decodeErrors: log.decodeErrors.map(e => ({offset: e.offset === undefined ? null : e.offset.toString(), message: e.message})),
    }
    if (!this.jsonEnabled()) this.log(render(result, flags.wide ? 0 : 100, log.records.length))
    if (views.length === 0) process.exitCode = EXIT.notFound
    return result
  }
}

function render(r: GroupRecordsResult, width: number, unfiltered: number): string {
  const lines: string[] = []
  lines.push(`${r.group}: __consumer_offsets-${r.partition} (of ${r.partitionCount}, leader broker ${r.leader}), offsets ${r.logStartOffset}..${r.endOffset}, ${r.recordsScanned} records read`)
  if (r.records.length === 0) {
    lines.push(
      unfiltered === 0
        ? `no record of group ${r.group} in __consumer_offsets-${r.partition}: it does not exist, or its records were deleted (compacted after the group expired).${patternHint(r.group)}`
        : `${unfiltered} record(s) of group ${r.group}, none matching the filters.`,
    )
  } else {
    lines.push(
      renderTable(
        ['offset', 'time', 'record', 'key', 'value'],
        r.records.map(v => [v.offset, v.time, `${v.name ?? `type ${v.type}`}${v.version === undefined ? '' : ` v${v.version}`}`, keySummary(v), valueSummary(v, width)]),
        ['right', 'left', 'left', 'left', 'left'],
      ),
    )
  }
  const unknown = r.records.filter(v => v.unknown).length
  if (unknown > 0) lines.push(`${unknown} record(s) of unknown types or newer versions were reported and skipped.`)
  if (r.abortedTransactionalRecords > 0) lines.push(`${r.abortedTransactionalRecords} record(s) of aborted transactions in the partition were dropped.`)
  for (const e of r.decodeErrors) lines.push(`skipped malformed record: ${e.message}`)
  return lines.join('\n')
}
