import {colorFlags, outputFlags, terminalWidth} from '../../cli/output-flags.js'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {SCHEMAS} from '../../core/documents.js'
import {InputError} from '../../core/errors.js'
import {type LogPoint, logPointFlag} from '../../cli/log-point.js'
import {type TopicHashReport, topicHashReport} from '../../core/topic-report.js'
import {readMetadataFile} from '../../sources/metadata-file.js'
import {wantsLive} from '../../kafka/session.js'
import {LiveCommand} from '../../cli/live-command.js'

export default class TopicHashCompute extends LiveCommand<typeof TopicHashCompute> {
  static override schema = SCHEMAS.topicHashCompute
  static override summary = 'Compute topic hashes and the group hash as the group coordinator does.'
  static override description = `Each topic's hash (KIP-1101, hash format 0) and the group hash over the listed topics that exist,
from a metadata file or a live cluster (--bootstrap-server). With no TOPIC, every topic in the metadata (live: every non-internal topic). Topics that do not exist are listed as missing:
the coordinator leaves them out of a group's hash. Hashes are signed 64-bit integers in decimal, as Kafka prints a long.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders payments -f cluster.json',
    '<%= config.bin %> <%= command.id %> --metadata-file cluster.json --json',
    '<%= config.bin %> <%= command.id %> orders -b k:9093 --command-config c.conf',
  ]

  static override strict = false
  static override args = {
    topic: Args.string({description: "topic names (the group's subscribed topics); none means all topics"}),
  }

  static override flags = {
    ...colorFlags,
    ...outputFlags(),
    'metadata-file': Flags.string({
      char: 'f',
      description: 'metadata file (JSON, as written by `cluster snapshot`); "-" reads stdin. Wins over a live cluster',
      helpValue: 'FILE',
    }),
    'metadata-log': Flags.string({
      description: 'a KRaft metadata log directory (__cluster_metadata-0, read-only): the metadata as it was at --at (default: its end)',
      helpValue: 'DIR',
      exclusive: ['metadata-file'],
    }),
    at: logPointFlag({
      description: 'with --metadata-log: a log offset (digits) or a time (ISO-8601, or a duration ago: 2h, 7d)',
      helpValue: 'TIME|OFFSET',
      dependsOn: ['metadata-log'],
    }),
  }

  async run(): Promise<TopicHashReport> {
    const file = this.flags['metadata-file']
    const log = this.flags['metadata-log']
    const live = !file && !log && wantsLive(this.flags)
    if (!file && !log && !live)
      throw new InputError(
        'no metadata source given',
        'Pass --metadata-file FILE (see `rebalance-doctor cluster snapshot`), --metadata-log DIR or --bootstrap-server HOST:PORT.',
        'NO_SOURCE',
      )
    const md = log
      ? await metadataAt(log, this.flags.at, w => this.warn(w))
      : file
        ? await readMetadataFile(file)
        : await this.withCluster(c => c.clusterMetadata(this.argList.length > 0 ? {topics: this.argList} : {}))
    const report = topicHashReport(md, this.argList)
    // (the table library only for a table: an offline --json run is made for its start-up)
    if (!this.jsonEnabled()) this.log((await import('../../render/topic-hash.js')).renderTopicHashReport(report, terminalWidth()))
    return report
  }
}

/** The image of a metadata log at an offset or a time (its end when `at` is not given). */
async function metadataAt(dir: string, point: LogPoint | undefined, warn: (message: string) => void) {
  const {damageWhere, replayMetadataLog} = await import('../../sources/metadata-log.js')
  const at = point?.text
  const bound = point === undefined ? {} : point.untilOffset === undefined ? {untilTime: point.untilTime} : {untilOffset: point.untilOffset}
  const r = await replayMetadataLog(dir, {...bound, start: 'latest', keepChanges: false})
  for (const n of r.notes) warn(n)
  const startMs = r.historyStart.timestamp
  if (
    at !== undefined &&
    r.snapshot &&
    (('untilOffset' in bound && bound.untilOffset! < r.snapshot.endOffset - 1n) || ('untilTime' in bound && startMs !== null && bound.untilTime! < startMs))
  ) {
    throw new InputError(
      `--at ${at} is before the oldest state this metadata log holds (offset ${r.historyStart.offset}${startMs === null ? '' : `, ${new Date(startMs).toISOString()}`})`,
      'Give a later --at, or a copy of the log that reaches further back.',
      'METADATA_LOG_TOO_SHORT',
    )
  }
  // past the log's end the state is unknown (a copy taken earlier, or a point in the future): never the end's image
  const last = {offset: r.replay.lastOffset, time: r.replay.lastTimestamp}
  // damage or a gap before the point asked (or before the log's end, without --at): the state there is not known
  const reached = r.replay.done || ('untilOffset' in bound && last.offset !== undefined && last.offset >= bound.untilOffset!)
  if (r.damage && !reached) {
    const exact =
      last.offset === undefined
        ? 'no state of it is exact'
        : `its state is exact up to offset ${last.offset}${last.time === undefined ? '' : ` (${new Date(last.time).toISOString()})`}`
    throw new InputError(
      `the metadata log is damaged at offset ${r.damage.offset} (${damageWhere(r.damage)}), before ${at === undefined ? 'its end' : `--at ${at}`}: ${exact}`,
      `Give --at ${last.offset ?? 'OFFSET'} or earlier for the state before the damage, or copy __cluster_metadata-0 again from another controller or broker.`,
      'METADATA_LOG_CORRUPT',
    )
  }
  if (r.partialTail && !reached)
    warn(
      `${r.partialTail.file}: the last ${r.partialTail.bytes} bytes (from byte ${r.partialTail.byte}) are not a complete batch (a file being written when copied, or damage): the hashes are as of offset ${last.offset ?? 'none'}`,
    )
  // (a replay that stopped at the bound saw a record past it: the log reaches beyond --at)
  if (
    at !== undefined &&
    !r.replay.done &&
    (('untilOffset' in bound && (last.offset === undefined || bound.untilOffset! > last.offset)) ||
      ('untilTime' in bound && (last.time === undefined || bound.untilTime! > last.time)))
  ) {
    throw new InputError(
      `--at ${at} is after the last record this metadata log holds (offset ${last.offset ?? 'none'}${last.time === undefined ? '' : `, ${new Date(last.time).toISOString()}`}): the metadata then is not in it`,
      'Give an earlier --at, or a fresher copy of the log (a live metadata.log.dir ends within a second of now).',
      'METADATA_LOG_TOO_SHORT',
    )
  }
  return r.replay.image.toClusterMetadata()
}
