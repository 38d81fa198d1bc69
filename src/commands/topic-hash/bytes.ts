import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {SCHEMAS} from '../../core/documents.js'
import {InputError, NotFoundError} from '../../core/errors.js'
import {TopicHasher} from '../../core/hash.js'
import {uuidToString} from '../../core/uuid.js'
import {renderTopicHashBytes} from '../../render/topic-hash.js'
import {readMetadataFile} from '../../sources/metadata-file.js'
import {wantsLive} from '../../kafka/session.js'
import {LiveCommand} from '../../cli/live-command.js'
import {colorFlags, outputFlags, terminalWidth} from '../../cli/output-flags.js'

/**
 * The most byte segments (one per header field, partition index and replica with a rack) shown: 200,000 is about
 * 50,000 partitions of three replicas, a 20 MB JSON document; far more than anyone checks by hand, and the whole
 * annotation of a 1,000,000-partition topic would not fit in a JS string. `topic-hash compute` hashes any size.
 */
export const MAX_BYTES_SEGMENTS = 200_000

export interface TopicHashBytes {
  name: string
  topicId: string
  /** Number of bytes hashed. */
  length: number
  /** All hashed bytes, hex. */
  bytes: string
  /** Consecutive byte ranges and what Kafka wrote there. */
  segments: Array<{offset: number; hex: string; note: string}>
  /** XXH3-64 (seed 0) of the bytes as a signed 64-bit decimal, and unsigned hex. */
  hash: string
  hashHex: string
}

export default class TopicHashBytesCommand extends LiveCommand<typeof TopicHashBytesCommand> {
  static override schema = SCHEMAS.topicHashBytes
  static override summary = 'Show the annotated bytes that make one topic hash, to check it by hand.'
  static override description = `Prints every byte the coordinator feeds to XXH3-64 (seed 0) for TOPIC, in order, with what it is:
magic byte, topic id halves (little-endian), the name as UTF-16LE followed by its length, the partition count, and per
partition its index and its replicas' racks in Java String order (each rack: length, UTF-16LE chars, length).
Hash the hex with any XXH3-64 implementation to reproduce the topic hash.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders --metadata-file cluster.json',
    '<%= config.bin %> <%= command.id %> orders --bootstrap-server kafka-1:9092',
  ]

  static override args = {
    topic: Args.string({description: 'topic name', required: true}),
  }

  static override flags = {
    'metadata-file': Flags.string({char: 'f', description: 'metadata file (JSON); "-" reads stdin. Wins over a live cluster', helpValue: 'FILE'}),
    ...colorFlags,
    ...outputFlags(),
  }

  async run(): Promise<TopicHashBytes> {
    const file = this.flags['metadata-file']
    const name = this.args.topic
    const live = !file && wantsLive(this.flags)
    if (!file && !live) throw new InputError('no metadata source given', 'Pass --metadata-file FILE or --bootstrap-server HOST:PORT.', 'NO_SOURCE')
    const md = file ? await readMetadataFile(file) : await this.withCluster(c => c.clusterMetadata({topics: [name]}))
    const hasher = new TopicHasher(md)
    const topic = hasher.topic(name)
    if (!topic) {
      throw new NotFoundError(
        `topic "${name}" is not in ${file ?? 'the live cluster'}`,
        'A topic that does not exist has hash 0 and adds nothing to a group hash; check the name (case matters).',
        'UNKNOWN_TOPIC',
      )
    }
    // bound what is built before building it: a segment per partition and per replica (at most)
    let replicas = 0
    for (const p of topic.partitions) replicas += p.replicas.length
    if (6 + topic.partitions.length + replicas > MAX_BYTES_SEGMENTS) {
      throw new InputError(
        `topic ${name} has ${topic.partitions.length} partitions and ${replicas} replicas: too many to annotate byte by byte (at most ${MAX_BYTES_SEGMENTS} segments, one per partition and per replica)`,
        `Use \`rebalance-doctor topic-hash compute ${name}\` (same source flags) for its hash, or check the bytes on a smaller topic.`,
        'TOO_MANY_BYTES_TO_SHOW',
      )
    }
    const annotated = hasher.annotate(name)!
    const result: TopicHashBytes = {
      name,
      topicId: uuidToString(hasher.topic(name)!.topicId),
      length: annotated.bytes.length,
      bytes: annotated.bytes.toString('hex'),
      segments: annotated.segments,
      hash: annotated.hash.toString(),
      hashHex: BigInt.asUintN(64, annotated.hash).toString(16).padStart(16, '0'),
    }
    if (!this.jsonEnabled()) {
      this.log(renderTopicHashBytes(result, terminalWidth()))
    }
    return result
  }
}
