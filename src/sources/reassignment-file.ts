/**
 * `impact --reassignment FILE`: the JSON kafka-reassign-partitions --execute takes, read as a metadata file is (an
 * untrusted file): its size bounded before it is read (the metadata files' bound, $REBALANCE_DOCTOR_MAX_METADATA_BYTES),
 * strict UTF-8 with a BOM allowed (editors on Windows write one), "-" for stdin.
 */
import {InputError} from '../core/errors.js'
import {parseReassignmentJson, type PlannedChange} from '../core/impact/index.js'
import {decodeUtf8, MAX_METADATA_BYTES_ENV, maxMetadataBytes, readInput} from './metadata-file.js'

const HINT = 'Give the path of the JSON file kafka-reassign-partitions --execute would take.'

export async function readReassignmentFile(path: string, stdin: AsyncIterable<Buffer | string> = process.stdin): Promise<PlannedChange> {
  const limit = maxMetadataBytes()
  const source = path === '-' ? '--reassignment (stdin)' : `--reassignment ${path}`
  const tooBig = () =>
    new InputError(
      `${source} is larger than ${limit} bytes`,
      `A reassignment plan is far smaller (at most 1,000,000 partitions); if this one is genuine, raise the bound with $${MAX_METADATA_BYTES_ENV}=BYTES.`,
      'BAD_REASSIGNMENT',
    )
  const bytes = await readInput(
    path,
    stdin,
    limit,
    tooBig,
    error => new InputError(`cannot read ${source}: ${(error as Error).message}`, HINT, 'BAD_REASSIGNMENT'),
  )
  return parseReassignmentJson(decodeUtf8(bytes, source, 'Save the file as UTF-8 (JSON is UTF-8).', 'BAD_REASSIGNMENT'), path === '-' ? 'stdin' : path)
}
