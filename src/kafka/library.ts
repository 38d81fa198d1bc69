/**
 * Lazy loading of @platformatic/kafka 1.35. Only live code paths call `loadKafkaLibrary()`, so offline commands
 * never load it.
 *
 * Start-up cost: the package index (`import '@platformatic/kafka'`) loads every client, ajv and its schema
 * compilation (~0.4 s on the test machine, ~1 s on slower ones). We need only the network Connection,
 * `createAPI`, the Writer and the protocol error table, so we import those files directly. The package's
 * `exports` map only exposes the index, so the files are addressed by URL next to the resolved index.
 */
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'
import type {Connection} from '@platformatic/kafka'
import {boundedDecompressor, maxBatchBytes} from './decompress.js'
import type {Decompress} from './record-batch.js'

export type KafkaConnection = Connection

export interface KafkaLibrary {
  Connection: typeof Connection
  createAPI: (
    apiKey: number,
    apiVersion: number,
    createRequest: (...args: any[]) => unknown,
    parseResponse: (correlationId: number, apiKey: number, apiVersion: number, reader: LibraryReader) => unknown,
    hasRequestHeaderTaggedFields?: boolean,
    hasResponseHeaderTaggedFields?: boolean,
  ) => LibraryApi
  /** Wraps our encoded body in the library's Writer (what Connection.send expects). */
  writerOf(body: Buffer): unknown
  /** Protocol error code → name (e.g. 29 → TOPIC_AUTHORIZATION_FAILED). */
  errorName(code: number): string
}

export interface LibraryReader {
  buffer: {slice(start?: number, end?: number): Buffer; length: number}
  position: number
  length: number
}

export interface LibraryApi {
  (connection: Connection, ...args: any[]): void
  key: number
  version: number
}

let loading: Promise<KafkaLibrary> | undefined

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

export function loadKafkaLibrary(): Promise<KafkaLibrary> {
  loading ??= load()
  return loading
}

async function load(): Promise<KafkaLibrary> {
  const url = libraryFile
  const [connection, definitions, writer, errors, utils] = await Promise.all([
    import(url('./network/connection.js')),
    import(url('./apis/definitions.js')),
    import(url('./protocol/writer.js')),
    import(url('./protocol/errors.js')),
    import(url('./utils.js')),
  ])
  // The library's debug loggers print whole requests (SASL PLAIN bytes included) when DEBUG=plt:kafka:* is set.
  // Our --debug has its own, redacted log; silence theirs so no secret can reach stderr through them.
  for (const name of Object.keys(utils.loggers)) utils.loggers[name] = () => {}
  const names = errors.protocolErrorsCodesById as Record<number, string>
  return {
    Connection: connection.Connection,
    createAPI: definitions.createAPI,
    writerOf: (body: Buffer) => writer.Writer.create().append(body),
    errorName: (code: number) => names[code] ?? `error code ${code}`,
  }
}
