/**
 * `impact`: the planned changes (from flags and a reassignment file), the live metadata and every group (as `audit`
 * reads them) or a metadata file and __consumer_offsets segments, and the prediction (src/core/impact). Without
 * READ on __consumer_offsets (or with --describe-only) every group's describe instead of its records.
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
  type ImpactOptions,
  type PlannedChange,
  predictDescribedImpact,
  predictImpact,
} from '../core/impact/index.js'
import {type Denial, InputError} from '../core/errors.js'
import type {ClusterMetadata} from '../core/metadata.js'
import type {GroupSummary} from '../core/replay/index.js'
import {scanOffsets} from '../sources/audit-scan.js'
import {describeListed} from '../sources/group-describe.js'
import {offsetsReadDenied} from '../sources/group-log.js'
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
  /** --describe-only: predict from the groups' describes without reading __consumer_offsets. */
  describeOnly?: boolean
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

/**
 * The prediction from the records (live or offline); live, without READ on __consumer_offsets (or with
 * --describe-only), from the groups' describes instead.
 */
export async function impact(session: Session, r: ImpactRequest): Promise<ImpactReport> {
  const changes = await plannedChanges(r)
  const options = {failOnRebalance: r.failOnRebalance}
  if (r.metadataFile) return predictImpact(await readMetadataFile(r.metadataFile), await readOffsetsSegments(r.offsetsSegments ?? []), changes, options)
  if (r.describeOnly) return describedImpact(session, changes, options)
  let read: {md: ClusterMetadata; groups: Map<string, GroupSummary>}
  try {
    read = await session.withCluster(
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
    )
  } catch (error) {
    if (!offsetsReadDenied(error)) throw error
    session.warn(
      `${error.message}: predicting every group from its describe and the live metadata instead (as if each group's stored hash equals its live one). ${error.hint}`,
    )
    return describedImpact(session, changes, {...options, denial: error.denial})
  }
  return predictImpact(read.md, read.groups, changes, options)
}

/** The live metadata and every listed group's describe (DESCRIBE is all it needs), into the describe-only prediction. */
async function describedImpact(session: Session, changes: PlannedChange[], options: ImpactOptions & {denial?: Denial}): Promise<ImpactReport> {
  const {md, described, refused} = await session.withCluster(
    async (client, progress) => {
      const [live, listed] = await Promise.all([client.clusterMetadata(), client.listGroups()])
      return {md: live, ...(await describeListed(client, listed, progress, m => session.warn(m)))}
    },
    {progress: 'describing groups'},
  )
  return predictDescribedImpact(md, described, changes, {...options, refused})
}
