/**
 * What we take from @platformatic/kafka 1.35, loaded lazily so offline commands never load it: the protocol
 * error table (code → name) and the WebAssembly snappy/lz4 codecs (./wasm-codecs.ts).
 *
 * Start-up cost: the package index (`import '@platformatic/kafka'`) loads every client, ajv and its schema
 * compilation (~0.4 s on the test machine, ~1 s on slower ones), and so does its network Connection (every API
 * module, ajv): the connection is ours (./broker-connection.ts). The files we use are addressed by URL next to
 * the resolved index, as the package's `exports` map only exposes the index.
 */
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'
import {boundedDecompressor, maxBatchBytes} from './decompress.js'
import type {Decompress} from './record-batch.js'

function libraryFile(rel: string): string {
  return new URL(rel, pathToFileURL(createRequire(import.meta.url).resolve('@platformatic/kafka'))).href
}

/**
 * Batch decompression: gzip and zstd (when Node has it) with zlib, snappy and lz4 with the library's WebAssembly
 * module (./wasm-codecs.ts), bounded to `limit` output bytes per batch (./decompress.ts; default
 * $REBALANCE_DOCTOR_MAX_BATCH_BYTES or 64 MiB).
 */
export async function loadDecompressor(limit = maxBatchBytes()): Promise<Decompress> {
  const wasm = await import('./wasm-codecs.js')
  return boundedDecompressor(limit, (codec, data) => {
    if (codec === 'snappy') return wasm.snappyDecompress(data)
    if (codec === 'lz4') return wasm.lz4Decompress(data)
    throw new Error(`${codec} compression is not supported by this Node.js (${process.version})`)
  })
}

let names: Promise<(code: number) => string> | undefined

/** Kafka protocol error code → name (e.g. 29 → TOPIC_AUTHORIZATION_FAILED): one data file of the library. */
export function loadErrorNames(): Promise<(code: number) => string> {
  names ??= import(libraryFile('./protocol/errors.js')).then(m => {
    const table = m.protocolErrorsCodesById as Record<number, string>
    return (code: number) => table[code] ?? `error code ${code}`
  })
  return names
}
