/** `impact`'s flags and help text (the command itself is src/commands/impact.ts). */
import * as Flags from '@oclif/core/flags'
import {colorFlags, outputFlags} from './output-flags.js'

export const IMPACT_DESCRIPTION = `Read-only. Takes the live metadata and every group (as \`audit\` reads them), or a metadata file and
__consumer_offsets segment files, and one or more planned changes; simulates what the group coordinator will see
(it recomputes a group's metadata hash at a heartbeat after the metadata changed) and reports, for every consumer,
share and streams group whose topics are touched: whether it bumps its group epoch, how many times (a reassignment
changes a partition's replica list twice: old → target+old while new replicas catch up, then → target; a bump
happens at each change a heartbeat sees), what decides it, when, the metadata hash stored at each step, its members
and assigned partitions now, and whether it is already pending or stale today. Hashes the controller decides (a
new topic id, partitions added without a placement) are never guessed: they are null with the reason. Without READ
on __consumer_offsets (or with --describe-only) every group is predicted from its describe and the live metadata,
as if in sync today (see --describe-only); the report's \`reading\` says what that leaves unknown.

Changes apply in this order whatever the flag order: topic deletions/creations/partitions added, re-creations,
the reassignment, broker shutdowns, restarts with a new rack, unregistrations.

--json prints {schema: {name: "rebalance-doctor/impact", version: 1}, changes, phases, groups: [{group, type, groupEpoch,
storedMetadataHash, members, assignedPartitions, touchedTopics, today, bumps: {min, max}, deferredBumps, decides,
steps: [{phase, when, metadataHash, hashUnknown, bump, deferred, allCopyingHash?}], notes}], summary, reading?}
(reading: read describe-only). Hashes are decimal strings.

EXIT CODES: 0 done; 3 with --fail-on-rebalance N when more than N groups would rebalance (a bare
--fail-on-rebalance means 0); 1 runtime or Kafka error; 2 usage error.`

export const impactFlags = {
  ...outputFlags(),
  ...colorFlags,
  'metadata-file': Flags.string({
    char: 'f',
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
  'describe-only': Flags.boolean({
    summary: 'Do not read __consumer_offsets: predict every group from its describe and the live metadata (what DESCRIBE allows).',
    description:
      "Automatic when READ on __consumer_offsets is refused (a warning names the refusal and the grant). Each group's stored hash is taken to equal its live one (in sync today): whether a group is already stale, and under which release's rules it runs, needs the records; `reading` says so with the grant. Classic groups are not predicted. Not with --metadata-file.",
    exclusive: ['metadata-file', 'offsets-segment'],
  }),
}
