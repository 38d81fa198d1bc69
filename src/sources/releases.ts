/** Which release each broker runs and which one coordinates a group (ApiVersions and FindCoordinator, read-only). */
import {type ClusterReleases, clusterReleases} from '../core/broker-release.js'
import type {GroupRules} from '../core/replay/index.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'

export async function readReleases(client: ClusterReader, group: string, rules: GroupRules | null, groupType: string | null = null): Promise<ClusterReleases> {
  const [brokers, coordinators] = await Promise.all([client.brokerApiVersions(), client.groupCoordinators([group]).catch(() => undefined)])
  return clusterReleases(brokers, coordinators?.get(group)?.id, rules, groupType)
}
