/** Partition reassignments in flight, for explain and audit. Optional: without DESCRIBE on the cluster it warns. */
import {AuthorizationDenied} from '../core/errors.js'
import type {ReassignmentInFlight} from '../core/explain/search/hypotheses.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'

export async function inFlightReassignments(client: ClusterReader, warn: (message: string) => void): Promise<ReassignmentInFlight[]> {
  try {
    return await client.listPartitionReassignments()
  } catch (error) {
    const code = (error as {code?: string}).code
    // a timeout or a lost connection is the whole operation's problem; a refusal only loses this finding
    if (code !== 'NOT_AUTHORIZED' && code !== 'KAFKA_ERROR' && code !== 'UNSUPPORTED_VERSION') throw error
    const grant = error instanceof AuthorizationDenied ? `; grant: ${error.grant}` : ''
    warn(`partition reassignments in flight not read (${(error as Error).message}): REASSIGNMENT_IN_FLIGHT cannot be reported${grant}`)
    return []
  }
}
