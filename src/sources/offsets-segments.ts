/**
 * `__consumer_offsets` log segment files (copied from a broker's log.dirs, `__consumer_offsets-N/*.log`) replayed
 * into every group on them, offline. Read in bounded windows: memory follows groups, not the file size. Aborted
 * transactions need the .txnindex, which is not read: only offset commits are ever transactional, and replay
 * skips offset commits, so group state is unaffected. Every batch's CRC-32C is checked; a damaged batch or an
 * incomplete last batch is a usage error naming the file and byte, never a partial read taken for the whole.
 */
import {closeSync, constants, fstatSync, openSync, readSync} from 'node:fs'
import {PartitionScan} from '../core/audit/scan.js'
import {InputError} from '../core/errors.js'
import type {GroupSummary} from '../core/replay/index.js'
import {loadDecompressor} from '../kafka/codecs.js'
import {type Compression, CorruptBatchError, parseRecordBatches} from '../kafka/record-batch.js'

const WINDOW = 8 << 20
/** A batch claiming more than this is corrupt (Kafka's message.max.bytes is 1 MiB by default; allow far more). */
const MAX_BATCH = 256 << 20

/** The groups of the segment files (a partition's files are read in name order, which is offset order). */
export async function readOffsetsSegments(files: readonly string[]): Promise<Map<string, GroupSummary>> {
  const decompress = await loadDecompressor()
  const groups = new Map<string, GroupSummary>()
  const byDir = new Map<string, string[]>()
  for (const f of files) {
    // Kafka names a partition's segments by base offset (20 digits): those of one directory are one partition
    const name = f.replace(/^.*[/\\]/, '')
    const key = /^\d{20}\.log$/.test(name) ? f.slice(0, f.length - name.length) : f
    byDir.set(key, [...(byDir.get(key) ?? []), f])
  }
  for (const list of byDir.values()) {
    const scan = new PartitionScan()
    for (const file of [...list].sort()) {
      let fd: number
      try {
        // non-blocking: a FIFO given as a segment must not block the open; it is refused just below
        fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
      } catch (error) {
        throw new InputError(
          `cannot read segment file ${file}: ${(error as Error).message}`,
          'Give __consumer_offsets-N/*.log files copied from a broker.',
          'BAD_SEGMENT',
        )
      }
      if (!fstatSync(fd).isFile()) {
        closeSync(fd)
        throw new InputError(`segment file ${file} is not a regular file`, 'Give __consumer_offsets-N/*.log files copied from a broker.', 'BAD_SEGMENT')
      }
      try {
        let buf = Buffer.alloc(0)
        let pos = 0
        for (;;) {
          const chunk = Buffer.allocUnsafe(WINDOW)
          const n = readSync(fd, chunk, 0, WINDOW, pos)
          pos += n
          buf = buf.length ? Buffer.concat([buf, chunk.subarray(0, n)]) : chunk.subarray(0, n)
          let parsed
          try {
            parsed = parseRecordBatches(buf, (c: Compression, d: Buffer) => decompress(c, d))
          } catch (error) {
            if (error instanceof CorruptBatchError) {
              throw new InputError(
                `${file}: the batch at byte ${pos - buf.length + error.position} is damaged: ${error.message}`,
                'Copy the segment again from a healthy replica (kafka-dump-log.sh --deep-iteration shows the damage).',
                'BAD_SEGMENT',
              )
            }
            throw new InputError(
              `${file}: not a record batch log segment near byte ${pos - buf.length}: ${(error as Error).message}`,
              'Give __consumer_offsets-N/*.log files (not .index or .timeindex).',
              'BAD_SEGMENT',
            )
          }
          let used = 0
          for (const b of parsed.batches) {
            scan.onBatch(b)
            used += 12 + buf.readInt32BE(used + 8)
          }
          buf = buf.subarray(used)
          if (buf.length >= 12 && buf.readInt32BE(8) > MAX_BATCH)
            throw new InputError(
              `${file}: a batch near byte ${pos - buf.length} claims ${buf.readInt32BE(8)} bytes`,
              'The file is corrupt or not a log segment.',
              'BAD_SEGMENT',
            )
          if (n === 0) {
            // never a partial read taken for the whole: a cut copy or a damaged length would drop records unseen
            if (buf.length > 0)
              throw new InputError(
                `${file}: the last ${buf.length} bytes (from byte ${pos - buf.length}) are not a complete batch (a segment copied while it was written, or a damaged batch length)`,
                `Copy the segment again once the broker has rolled it, or cut it there (truncate -s ${pos - buf.length} FILE) to read only what is complete.`,
                'BAD_SEGMENT',
              )
            break
          }
        }
      } finally {
        closeSync(fd)
      }
    }
    for (const [id, r] of scan.finish()) groups.set(id, r)
  }
  return groups
}
