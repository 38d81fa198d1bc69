import * as Flags from '@oclif/core/flags'
import {LiveCommand} from '../../cli/live-command.js'
import {colorFlags} from '../../cli/output-flags.js'
import {type SchemaId, SCHEMAS} from '../../core/documents.js'
import {InputError} from '../../core/errors.js'
import {toMetadataDocument} from '../../core/metadata.js'
import {terminalSafeJson} from '../../render/terminal.js'
import {RuntimeError} from '../../core/errors.js'
import {describeWriteError, writeOutputFile} from '../../io/atomic-file.js'
import {print} from '../../io/stdout.js'

export interface SnapshotSummary {
  output: string
  clusterId?: string
  capturedAt?: string
  brokers: number
  fencedBrokers: number
  topics: number
}

export default class ClusterSnapshot extends LiveCommand<typeof ClusterSnapshot> {
  static override schema = SCHEMAS.clusterSnapshot
  static override summary = 'Write the live brokers, racks and topics as a metadata file.'
  static override description =
    `The file is what \`topic-hash compute --metadata-file\` and the other offline commands read (format rebalance-doctor/metadata-v1). Brokers come from DescribeCluster v2 with fenced brokers included (their racks count in the coordinator's hash); topics and full replica lists from Metadata v12. Internal topics (__consumer_offsets, …) are left out unless --include-internal.

--json prints, with --output, a summary {schema, output, clusterId, capturedAt, brokers, fencedBrokers, topics, warnings}; without --output, the metadata document itself between its schema and warnings (still a valid metadata file).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> -b kafka-1:9092 --output cluster.json',
    '<%= config.bin %> <%= command.id %> -b kafka:9092 > cluster.json',
  ]

  static override flags = {
    output: Flags.string({char: 'o', summary: 'Write the metadata file here instead of stdout.', helpValue: 'FILE'}),
    ...colorFlags,
    'include-internal': Flags.boolean({summary: 'Include internal topics (__consumer_offsets, __transaction_state, __share_group_state).'}),
    'metadata-api': Flags.string({
      summary: 'How to read topics: Metadata v12 (one request) or DescribeTopicPartitions (paged).',
      options: ['metadata', 'describe-topic-partitions'],
      default: 'metadata',
      hidden: true,
    }),
  }

  /** With --output the document says what was written; without, it is the metadata document itself. */
  protected override documentSchema(result: unknown): SchemaId {
    return result !== null && typeof result === 'object' && 'output' in result ? SCHEMAS.clusterSnapshotWritten : SCHEMAS.clusterSnapshot
  }

  async run(): Promise<Record<string, unknown> | SnapshotSummary> {
    const {flags} = this
    // `-o yaml` is kubectl's and rpk's output format; here -o is the file: never write JSON to a file named "yaml"
    if (flags.output && /^(json|ya?ml|table|wide|text|ndjson)$/i.test(flags.output)) {
      throw new InputError(
        `--output "${flags.output}" looks like an output format, but --output/-o is the file to write`,
        'The metadata file is JSON: give a file name (-o cluster.json), or leave -o out to print it on stdout.',
        'BAD_OUTPUT',
      )
    }
    const md = await this.withCluster(client =>
      client.clusterMetadata({
        includeInternal: flags['include-internal'],
        method: flags['metadata-api'] as 'metadata' | 'describe-topic-partitions',
      }),
    )
    const doc = toMetadataDocument(md)
    // the same JSON values, with C1/bidi controls in ids and racks written as \u escapes (safe to cat)
    const text = terminalSafeJson(`${JSON.stringify(doc, null, 2)}\n`)
    // (-o -: stdout, as without -o)
    if (!flags.output || flags.output === '-') {
      if (!this.jsonEnabled()) print(text)
      return doc
    }
    try {
      writeOutputFile(flags.output, text)
    } catch (error) {
      throw new RuntimeError(
        `could not write ${flags.output}: ${describeWriteError(error)}`,
        'Check the directory exists, is writable and has space; the previous file, if any, is unchanged.',
        'OUTPUT_WRITE',
      )
    }
    const summary: SnapshotSummary = {
      output: flags.output,
      ...(md.clusterId ? {clusterId: md.clusterId} : {}),
      ...(md.capturedAt ? {capturedAt: md.capturedAt} : {}),
      brokers: md.brokers.length,
      fencedBrokers: md.brokers.filter(b => b.fenced).length,
      topics: md.topics.length,
    }
    this.note(`wrote ${summary.topics} topics and ${summary.brokers} brokers (${summary.fencedBrokers} fenced) to ${flags.output}`)
    return summary
  }
}
