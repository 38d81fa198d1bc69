import {LiveCommand} from '../../cli/live-command.js'
import {SCHEMAS} from '../../core/documents.js'
import {RuntimeError} from '../../core/errors.js'
import {METADATA_LOG_KEYS, type MetadataLogNode, metadataLogNodes} from '../../core/metadata-log/location.js'
import {colorFlags, outputFlags, terminalWidth} from '../../cli/output-flags.js'
import {renderMetadataLogLocations} from '../../render/metadata-log-location.js'

export interface MetadataLogLocationsDocument {
  nodes: MetadataLogNode[]
}

export default class ClusterMetadataLog extends LiveCommand<typeof ClusterMetadataLog> {
  static override schema = SCHEMAS.clusterMetadataLog
  static override summary = 'Where each broker keeps its KRaft metadata log (for --metadata-log).'
  static override description = `Reads each live broker's metadata.log.dir, log.dirs and log.dir with DescribeConfigs (read-only; needs
DESCRIBE_CONFIGS on the cluster where ACLs are on) and resolves them as Kafka does: metadata.log.dir, else the first
of log.dirs, else log.dir. The metadata log is <that directory>/__cluster_metadata-0 on the broker's host: every broker
keeps a full replica, so any one will do; copy it (or read it in place, read-only) and give it to group explain or
audit with --metadata-log. Dedicated controllers are not listed (they are reached with --bootstrap-controller, which
this tool does not use); their copy is the same log.

--json prints {schema, nodes: [{nodeId, host, port, dir, path, source, error}], warnings}; source is the config that
gave dir (metadata.log.dir, log.dirs or log.dir); error names why a broker's configs could not be read (then dir, path
and source are null). Exit 1 when no broker's configs could be read.`

  static override examples = ['<%= config.bin %> <%= command.id %> -b kafka-1:9092', '<%= config.bin %> <%= command.id %> -b kafka-1:9092 --json']

  static override flags = {...outputFlags(), ...colorFlags}

  async run(): Promise<MetadataLogLocationsDocument> {
    const nodes = metadataLogNodes(await this.withCluster(client => client.brokerConfigs(METADATA_LOG_KEYS)))
    const failed = nodes.filter(n => n.error !== null)
    if (nodes.length > 0 && failed.length === nodes.length) {
      throw new RuntimeError(
        `no broker's configs could be read: ${failed.map(n => `broker ${n.nodeId}: ${n.error}`).join('; ')}`,
        "DescribeConfigs needs the DESCRIBE_CONFIGS permission on the cluster where ACLs are on; or look in the brokers' server.properties (metadata.log.dir, else the first of log.dirs).",
        'KAFKA_ERROR',
      )
    }
    if (!this.jsonEnabled()) this.log(renderMetadataLogLocations(nodes, terminalWidth()))
    for (const n of failed) this.warn(`broker ${n.nodeId} (${n.host}:${n.port}): its configs could not be read: ${n.error}`)
    return {nodes}
  }
}
