/**
 * snappy and lz4 decompression with @platformatic/wasm-utils' WebAssembly module (its native.wasm, next to the
 * package's entry: the `exports` map exposes only the entry, whose glue we do not use), driven here so that a corrupt input cannot poison the process. In the package's own glue a Rust panic on bad
 * data ("unreachable") leaves its allocations behind, and after a few thousand of them the module fails every
 * call, good data included ("memory access out of bounds"). Here each call allocates and frees its own input and
 * output, and a trapped instance is dropped: the next call starts a fresh one (the compiled module is kept).
 */
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'

// The WebAssembly global (tsconfig's lib has no DOM types for it).
const WA = (globalThis as unknown as {WebAssembly: {Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => {exports: unknown}}})
  .WebAssembly

interface Exports {
  memory: {buffer: ArrayBuffer}
  alloc(size: number): number
  dealloc(ptr: number, size: number): void
  snappy_decompress(ptr: number, size: number): bigint
  lz4_decompress(ptr: number, size: number): bigint
}

let compiled: object | undefined
let live: Exports | undefined

function wasmPath(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@platformatic/wasm-utils')), 'native.wasm')
}

function instance(): Exports {
  compiled ??= new WA.Module(readFileSync(wasmPath()))
  live ??= new WA.Instance(compiled).exports as unknown as Exports
  return live
}

function run(fn: 'snappy_decompress' | 'lz4_decompress', data: Buffer): Buffer {
  const x = instance()
  try {
    const input = x.alloc(Math.max(1, data.length))
    new Uint8Array(x.memory.buffer, input, data.length).set(data)
    const combined = x[fn](input, data.length)
    x.dealloc(input, Math.max(1, data.length))
    const length = Number(BigInt.asUintN(32, combined))
    const output = Number(combined >> 32n)
    const out = Buffer.from(new Uint8Array(x.memory.buffer, output, length)) // a copy: the wasm memory is reused
    x.dealloc(output, length)
    return out
  } catch (error) {
    live = undefined // a trap can leave the allocator in any state: never reuse this instance
    throw error
  }
}

/** Bytes of the live instance's memory (0 when none): what the hardening test bounds to catch allocations left behind. */
export function wasmMemoryBytes(): number {
  return live ? live.memory.buffer.byteLength : 0
}

export function snappyDecompress(data: Buffer): Buffer {
  return run('snappy_decompress', data)
}

export function lz4Decompress(data: Buffer): Buffer {
  return run('lz4_decompress', data)
}
