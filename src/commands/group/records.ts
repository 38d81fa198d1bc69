import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {EXIT} from '../../cli/base-command.js'
import {LiveCommand} from '../../cli/live-command.js'
import {SCHEMAS} from '../../core/documents.js'
import {type GroupRecordsResult, parseRecordTypes, recordView} from '../../core/records-view.js'

export type {GroupRecordsResult} from '../../core/records-view.js'
import {RECORD_TYPE} from '../../core/records/index.js'
import {timeSpecFlag} from '../../cli/flag-types.js'
import {renderGroupRecords} from '../../render/group-records.js'
import {colorFlags, outputFlags, timeFlags} from '../../cli/output-flags.js'
import {styleOf} from '../../cli/style-flags.js'
import {readGroupLog} from '../../sources/group-log.js'

export default class GroupRecords extends LiveCommand<typeof GroupRecords> {
  static override schema = SCHEMAS.groupRecords
  static override summary = "Decode a group's records from __consumer_offsets (read-only)."
  static override description = `Like kafka-dump-log --offsets-decoder, but from a live cluster and for one group: reads the group's
__consumer_offsets partition from its log start to the last stable offset with ListOffsets and Fetch only (no group
is joined, nothing is committed), drops aborted transactions, and decodes every record type 0-23 of Kafka 4.x with
schemas that know every version. Records of newer types or versions are shown as unknown and skipped, never fatal.
The log is compacted: older values of a key may be gone.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092',
    '<%= config.bin %> <%= command.id %> my-group -b k:9092 -t ConsumerGroupMetadata',
    '<%= config.bin %> <%= command.id %> my-group -b localhost:9092 --since 2h --json',
  ]

  static override args = {
    group: Args.string({description: 'group id', required: true}),
  }

  static override flags = {
    type: Flags.string({
      char: 't',
      summary: 'Only these record types: ids (3) or names (ConsumerGroupMetadata); repeat or comma-separate.',
      multiple: true,
      helpValue: 'TYPE',
    }),
    'exclude-offset-commits': Flags.boolean({summary: 'Leave out offset commits (types 0 and 1).'}),
    since: timeSpecFlag({summary: 'Only records at or after this time: ISO-8601 (UTC unless it names a zone) or a duration ago (2h, 7d).', helpValue: 'TIME'}),
    until: timeSpecFlag({summary: 'Only records before this time: ISO-8601 (UTC unless it names a zone) or a duration ago.', helpValue: 'TIME'}),
    last: Flags.integer({summary: 'Only the last N records (after the other filters).', min: 1, helpValue: 'N'}),
    wide: Flags.boolean({summary: 'Do not shorten record values in the table.'}),
    ...timeFlags,
    ...outputFlags(),
    ...colorFlags,
  }

  async run(): Promise<GroupRecordsResult> {
    const {flags} = this
    const types = flags.type ? parseRecordTypes(flags.type) : undefined
    const {since, until} = flags
    const group = this.args.group
    const log = await this.withCluster(
      (client, progress) =>
        readGroupLog(client, group, {onProgress: (n, offset) => progress.update(`reading __consumer_offsets: ${n} records, offset ${offset}`)}),
      {progress: `reading ${group}'s __consumer_offsets partition`},
    )

    let views = log.records
      .filter(r => !types || types.has(r.record.type))
      .filter(r => !flags['exclude-offset-commits'] || (r.record.type !== RECORD_TYPE.LegacyOffsetCommit && r.record.type !== RECORD_TYPE.OffsetCommit))
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
    if (!this.jsonEnabled())
      this.log(renderGroupRecords(result, flags.wide ? 0 : 100, log.records.length, {...styleOf(flags), color: false, ...(flags.wide ? {width: 0} : {})}))
    if (views.length === 0) this.exitWith(EXIT.notFound)
    return result
  }
}
