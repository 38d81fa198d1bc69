/**
 * The batch codecs, loaded lazily so that commands reading no batch never load them: gzip from zlib, snappy and
 * lz4 from @platformatic/wasm-utils' WebAssembly module (./wasm-codecs.ts), zstd from fzstd (pure JavaScript: Node's
 * zlib has zstd only from 22.15, and one decoder on every Node line reads the same batches the same way).
 */
import {maxBatchBytes, boundedDecompressor} from './decompress.js'
import type {Decompress} from './record-batch.js'

/** Batch decompression bounded to `limit` output bytes per batch (./decompress.ts; default $REBALANCE_DOCTOR_MAX_BATCH_BYTES or 64 MiB). */
export async function loadDecompressor(limit = maxBatchBytes()): Promise<Decompress> {
  const [wasm, fzstd] = await Promise.all([import('./wasm-codecs.js'), import('fzstd')])
  return boundedDecompressor(limit, {snappy: wasm.snappyDecompress, lz4: wasm.lz4Decompress, zstd: fzstd.Decompress})
}
