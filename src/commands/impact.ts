import {outputFlags} from '../cli/output-flags.js'
import * as Flags from '@oclif/core/flags'
import {EXIT} from '../cli/base-command.js'
import {LiveCommand} from '../cli/live-command.js'
import {SCHEMAS} from '../core/documents.js'
import {InputError} from '../core/errors.js'
import {
  type ImpactReport,
  parseAddPartitions,
  parseBrokerRack,
  parseCreateTopic,
  parseDeleteTopic,
  parseRecreateTopic,
  parseShutdownBroker,
  parseUnregisterBroker,
  type PlannedChange,
  predictImpact,
} from '../core/impact/index.js'
import type {ClusterMetadata} from '../core/metadata.js'
import type {GroupSummary} from '../core/replay/index.js'
import {renderImpact} from '../render/impact.js'
import {scanOffsets} from '../sources/audit-scan.js'
import {readMetadataFile} from '../sources/metadata-file.js'
import {readReassignmentFile} from '../sources/reassignment-file.js'
import {readOffsetsSegments} from '../sources/offsets-segments.js'

export default class Impact extends LiveCommand<typeof Impact> {
  static override schema = SCHEMAS.impact
  static override summary = 'Before an operation: which groups it will rebalance, how many times, when, and the metadata hash each will store.'
  static override description = `Read-only. Takes the live metadata and every group (as \`audit\` reads them), or a metadata file and
__consumer_offsets segment files, and one or more planned changes; simulates what the group coordinator will see
(kafka-coordinator-reference.md §3) and reports, for every consumer, share and streams group whose topics are
touched: whether it bumps its group epoch, how many times (a reassignment changes a partition's replica list twice:
old → target+old while new replicas catch up, then → target; a bump happens at each change a heartbeat sees), what
decides it, when, the metadata hash stored at each step, its members and assigned partitions now, and whether it is
already pending or stale today. Hashes the controller decides (a new topic id, partitions added without a
placement) are never guessed: they are null with the reason.

Changes apply in this order whatever the flag order: topic deletions/creations/partitions added, re-creations,
the reassignment, broker shutdowns, restarts with a new rack, unregistrations.

--json prints {schema: {name: "rebalance-doctor/impact", version: 1}, changes, phases, groups: [{group, type, groupEpoch,
storedMetadataHash, members, assignedPartitions, touchedTopics, today, bumps: {min, max}, deferredBumps, decides,
steps: [{phase, when, metadataHash, hashUnknown, bump, deferred, allCopyingHash?}], notes}], summary}. Hashes are decimal strings.

EXIT CODES: 0 done; 3 with --fail-on-rebalance N when more than N groups would rebalance (a bare
--fail-on-rebalance means 0); 1 runtime or Kafka error; 2 usage error.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --reassignment plan.json',
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --add-partitions orders=12 --fail-on-rebalance 5',
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --add-partitions orders=4/1:2,2:3,3:1,1:3 --json',
    '<%= config.bin %> <%= command.id %> -b localhost:9092 --decommission-broker 3',
    '<%= config.bin %> <%= command.id %> --metadata-file md.json --offsets-segment __consumer_offsets-7/00000000000000000000.log --delete-topic old',
  ]

  static override flags = {
    ...outputFlags(),
    'metadata-file': Flags.string({
      summary: 'Offline: cluster metadata from this file (as `cluster snapshot` writes it) instead of a live cluster.',
      helpValue: 'FILE',
      helpGroup: 'OFFLINE',
      dependsOn: ['offsets-segment'],
    }),
    'offsets-segment': Flags.string({
      summary: 'Offline: __consumer_offsets log segment files (N/*.log from a broker) holding the groups.',
      multiple: true,
      helpValue: 'FILE',
      helpGroup: 'OFFLINE',
      dependsOn: ['metadata-file'],
    }),
    reassignment: Flags.string({
      summary: 'The reassignment JSON kafka-reassign-partitions --execute would take (version 1).',
      helpValue: 'FILE',
      helpGroup: 'CHANGES',
    }),
    'add-partitions': Flags.string({
      summary: 'TOPIC=N (new total), or TOPIC=N/1:2,2:3,... with the replica lists as kafka-topics --replica-assignment (all partitions, or the new ones).',
      multiple: true,
      helpValue: 'TOPIC=N[/ASSIGNMENT]',
      helpGroup: 'CHANGES',
    }),
    'delete-topic': Flags.string({summary: 'Delete this topic.', multiple: true, helpValue: 'TOPIC', helpGroup: 'CHANGES'}),
    'create-topic': Flags.string({
      summary: 'Create this topic (matters to groups subscribed to it while missing and to broker-side regexes).',
      multiple: true,
      helpValue: 'TOPIC[:PARTITIONS[:RF]]',
      helpGroup: 'CHANGES',
    }),
    'recreate-topic': Flags.string({
      summary: 'Delete this topic and create it again (a new topic id).',
      multiple: true,
      helpValue: 'TOPIC',
      helpGroup: 'CHANGES',
    }),
    'shutdown-broker': Flags.string({
      summary: 'Shut this broker down (it stays registered, fenced: its rack still counts).',
      multiple: true,
      helpValue: 'ID',
      helpGroup: 'CHANGES',
    }),
    'unregister-broker': Flags.string({summary: 'Unregister this (already stopped) broker.', multiple: true, helpValue: 'ID', helpGroup: 'CHANGES'}),
    'decommission-broker': Flags.string({summary: 'Shut this broker down cleanly, then unregister it.', multiple: true, helpValue: 'ID', helpGroup: 'CHANGES'}),
    'broker-rack': Flags.string({summary: 'Restart this broker with a new broker.rack.', multiple: true, helpValue: 'ID=RACK', helpGroup: 'CHANGES'}),
    'fail-on-rebalance': Flags.integer({summary: 'Exit 3 when more than N groups would rebalance (bare: N = 0).', min: 0, helpValue: '[N]'}),
    all: Flags.boolean({summary: 'Table: also list touched groups that will not bump.'}),
  }

  public override async init(): Promise<void> {
    // --fail-on-rebalance takes an optional N: a bare flag means 0
    const i = this.argv.indexOf('--fail-on-rebalance')
    if (i >= 0 && !/^\d+$/.test(this.argv[i + 1] ?? '')) this.argv.splice(i + 1, 0, '0')
    await super.init()
  }

  async run(): Promise<ImpactReport> {
    const {flags} = this
    const changes: PlannedChange[] = []
    // (bounded before it is read; a BOM allowed)
    if (flags.reassignment) changes.push(await readReassignmentFile(flags.reassignment))
    for (const t of flags['add-partitions'] ?? []) changes.push(parseAddPartitions(t))
    for (const t of flags['delete-topic'] ?? []) changes.push(parseDeleteTopic(t))
    for (const t of flags['create-topic'] ?? []) changes.push(parseCreateTopic(t))
    for (const t of flags['recreate-topic'] ?? []) changes.push(parseRecreateTopic(t))
    for (const t of flags['shutdown-broker'] ?? []) changes.push(parseShutdownBroker(t))
    for (const t of flags['unregister-broker'] ?? []) changes.push(parseUnregisterBroker(t))
    for (const t of flags['decommission-broker'] ?? []) changes.push(parseUnregisterBroker(t, true))
    for (const t of flags['broker-rack'] ?? []) changes.push(parseBrokerRack(t))
    if (changes.length === 0)
      throw new InputError(
        'no planned change given',
        'Give at least one of --reassignment, --add-partitions, --delete-topic, --create-topic, --recreate-topic, --shutdown-broker, --unregister-broker, --decommission-broker, --broker-rack.',
        'NO_CHANGE',
      )

    let md: ClusterMetadata
    let groups: Map<string, GroupSummary>
    if (flags['metadata-file']) {
      md = await readMetadataFile(flags['metadata-file'])
      groups = await readOffsetsSegments(flags['offsets-segment'] ?? [])
    } else {
      ;({md, groups} = await this.withCluster(
        async (client, progress) => {
          const [scan, live] = await Promise.all([
            scanOffsets(client, {
              onProgress: (done, total, records) => progress.update(`reading __consumer_offsets: ${done}/${total} partitions, ${records} records`),
            }),
            client.clusterMetadata(),
          ])
          return {md: live, groups: scan.groups}
        },
        {progress: 'reading __consumer_offsets'},
      ))
    }
    const report = predictImpact(md, groups, changes, {failOnRebalance: flags['fail-on-rebalance']})
    if (!this.jsonEnabled()) {
      const shown = flags.all ? report : {...report, groups: report.groups.filter(g => g.bumps.max > 0 || g.deferredBumps > 0 || g.today !== 'IN_SYNC')}
      this.log(renderImpact(shown))
    }
    if (report.summary.exitCode === 3) process.exitCode = EXIT.finding
    return report
  }
}
