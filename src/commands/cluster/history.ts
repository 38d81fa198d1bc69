import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../cli/base-command.js'
import {SCHEMAS, toDocument} from '../../core/documents.js'
import {InputError} from '../../core/errors.js'
import {changeRows, type ChangeRow} from '../../core/metadata-log/changes.js'
import {timeSpecFlag} from '../../cli/flag-types.js'
import {renderClusterHistory} from '../../render/cluster-history.js'
import {terminalSafeJson} from '../../render/terminal.js'
import {colorFlags, timeFlags, outputFlags} from '../../cli/output-flags.js'
import {styleOf} from '../../cli/style-flags.js'
import {type MetadataLogSource, metadataLogSourceInfo, metadataLogWarnings, replayMetadataLog} from '../../sources/metadata-log.js'
import {print} from '../../io/stdout.js'

export default class ClusterHistory extends BaseCommand<typeof ClusterHistory> {
  static override schema = SCHEMAS.clusterHistory
  static override summary = 'The metadata changes that can move a group hash, from a KRaft metadata log.'
  static override description =
    `Replays __cluster_metadata-0 (a broker's or controller's metadata.log.dir, or a copy; read-only) from its oldest usable snapshot and lists topics created and deleted, partitions added, replica lists changed (reassignments, with adding/removing replicas), brokers registered (racks), unregistered, fenced and unfenced — each with its offset and append time.

--json prints {schema, source, changes: [{offset, timestamp, time, kind, movesHash, description, topic?, topicId?, partition?, partitions?, previousPartitions?, replicas?, previousReplicas?, addingReplicas?, removingReplicas?, broker?, rack?, previousRack?, topicsOnBroker?}], warnings}; --ndjson one change per line, then {"schema": ..., "source": ..., "warnings": [...]}.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --metadata-log /kafka/__cluster_metadata-0',
    '<%= config.bin %> <%= command.id %> --metadata-log ./copy --topic orders',
  ]

  static override flags = {
    ...colorFlags,
    ...outputFlags('ndjson'),
    'metadata-log': Flags.string({summary: 'The __cluster_metadata-0 directory (or the log dir holding it).', helpValue: 'DIR', required: true}),
    topic: Flags.string({summary: 'Only changes of this topic, and of brokers holding its replicas (repeatable).', helpValue: 'TOPIC', multiple: true}),
    broker: Flags.integer({summary: 'Only changes of this broker, and of replica lists naming it (repeatable).', helpValue: 'ID', multiple: true}),
    since: timeSpecFlag({summary: 'Only changes at or after this time (ISO-8601 or a duration ago: 2h, 7d).', helpValue: 'TIME'}),
    until: timeSpecFlag({summary: 'Only changes at or before this time.', helpValue: 'TIME'}),
    ndjson: Flags.boolean({summary: 'One JSON object per change per line, then a source line.', exclusive: ['json']}),
    ...timeFlags,
  }

  async run(): Promise<{source: MetadataLogSource; changes: ChangeRow[]}> {
    const {flags} = this
    const {since, until} = flags
    if (since !== undefined && until !== undefined && since > until) throw new InputError('--since is after --until', 'Swap them.')
    const r = await replayMetadataLog(flags['metadata-log'], until === undefined ? {} : {untilTime: until})
    const changes = changeRows(r.replay.changes, {
      ...(flags.topic ? {topics: new Set(flags.topic)} : {}),
      ...(flags.broker ? {brokers: new Set(flags.broker)} : {}),
      since,
      until,
    })
    const source = metadataLogSourceInfo(r)
    // on stderr and in the JSON warnings; the text output also says it under its first line
    for (const w of [...r.notes, ...metadataLogWarnings(source)]) this.warn(w)
    if (flags.ndjson) {
      // (names from the log may hold C1, bidi and line separators: \u escapes, as --json writes them)
      print(
        terminalSafeJson(
          changes.map(c => `${JSON.stringify(c)}\n`).join('') + `${JSON.stringify(toDocument(SCHEMAS.clusterHistorySource, {source}, this.warnings))}\n`,
        ),
      )
    } else if (!this.jsonEnabled()) {
      this.log(renderClusterHistory(source, r.historyStart, changes, {...styleOf(flags), color: false}))
    }
    return {source, changes}
  }
}
