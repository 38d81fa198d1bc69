/**
 * `impact`: the planned changes (from flags and a reassignment file), the live metadata and every group (as `audit`
 * reads them) or a metadata file and __consumer_offsets segments, and the prediction (src/core/impact).
 */
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
import {InputError} from '../core/errors.js'
import type {ClusterMetadata} from '../core/metadata.js'
import type {GroupSummary} from '../core/replay/index.js'
import {scanOffsets} from '../sources/audit-scan.js'
import {readMetadataFile} from '../sources/metadata-file.js'
import {readOffsetsSegments} from '../sources/offsets-segments.js'
import {readReassignmentFile} from '../sources/reassignment-file.js'
import type {Session} from './session.js'

export interface ImpactRequest {
  reassignment?: string
  addPartitions?: string[]
  deleteTopic?: string[]
  createTopic?: string[]
  recreateTopic?: string[]
  shutdownBroker?: string[]
  unregisterBroker?: string[]
  decommissionBroker?: string[]
  brokerRack?: string[]
  /** Offline: a metadata file and segment files instead of the live cluster. */
  metadataFile?: string
  offsetsSegments?: string[]
  failOnRebalance?: number
}

/** The changes in the order they apply (whatever the flag order; see the command's help). */
async function plannedChanges(r: ImpactRequest): Promise<PlannedChange[]> {
  const changes: PlannedChange[] = []
  // (bounded before it is read; a BOM allowed)
  if (r.reassignment) changes.push(await readReassignmentFile(r.reassignment))
  for (const t of r.addPartitions ?? []) changes.push(parseAddPartitions(t))
  for (const t of r.deleteTopic ?? []) changes.push(parseDeleteTopic(t))
  for (const t of r.createTopic ?? []) changes.push(parseCreateTopic(t))
  for (const t of r.recreateTopic ?? []) changes.push(parseRecreateTopic(t))
  for (const t of r.shutdownBroker ?? []) changes.push(parseShutdownBroker(t))
  for (const t of r.unregisterBroker ?? []) changes.push(parseUnregisterBroker(t))
  for (const t of r.decommissionBroker ?? []) changes.push(parseUnregisterBroker(t, true))
  for (const t of r.brokerRack ?? []) changes.push(parseBrokerRack(t))
  if (changes.length === 0)
    throw new InputError(
      'no planned change given',
      'Give at least one of --reassignment, --add-partitions, --delete-topic, --create-topic, --recreate-topic, --shutdown-broker, --unregister-broker, --decommission-broker, --broker-rack.',
      'NO_CHANGE',
    )
  return changes
}

export async function impact(session: Session, r: ImpactRequest): Promise<ImpactReport> {
  const changes = await plannedChanges(r)
  let md: ClusterMetadata
  let groups: Map<string, GroupSummary>
  if (r.metadataFile) {
    md = await readMetadataFile(r.metadataFile)
    groups = await readOffsetsSegments(r.offsetsSegments ?? [])
  } else {
    ;({md, groups} = await session.withCluster(
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
  return predictImpact(md, groups, changes, {failOnRebalance: r.failOnRebalance})
}
