/**
 * @platformatic/kafka 1.35 depends on @platformatic/dynamic-buffer 0.3.1 and @platformatic/wasm-utils 0.2.1, whose
 * package.json say node >= 22.19. No older release declares less (0.3.0 and 0.1.0 say the same), so an npm
 * `overrides` cannot help. Their code uses nothing newer than Node 20: this runs the parts the library uses on
 * our paths (DynamicBuffer for every request and response; crc32c, snappy and lz4 from the WebAssembly module for
 * record batches) on the Node running the tests (20.x in CI).
 */
import {DynamicBuffer} from '@platformatic/dynamic-buffer'
import {crc32c, lz4Compress, lz4Decompress, snappyCompress, snappyDecompress} from '@platformatic/wasm-utils'
import {describe, expect, it} from 'vitest'

describe(`@platformatic deps on Node ${process.version}`, () => {
  it('wasm-utils: CRC-32C check value, snappy and lz4 round trips', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283)
    const data = Buffer.from('x'.repeat(10_000) + 'rebalance-doctor'.repeat(100))
    expect(snappyDecompress(snappyCompress(data))).toEqual(data)
    expect(lz4Decompress(lz4Compress(data))).toEqual(data)
  })

  it('dynamic-buffer: append, varints, 64-bit ints, subarray and consume across chunks', () => {
    const b = new DynamicBuffer()
    b.writeUnsignedVarInt(300)
    b.writeVarInt(-1)
    b.writeBigInt64BE(-5n)
    b.append(Buffer.from('hello'))
    b.append(Buffer.from('world'))
    expect(b.readUnsignedVarInt(0)).toEqual([300, 2])
    expect(b.readVarInt(2)).toEqual([-1, 1])
    expect(b.readBigInt64BE(3)).toBe(-5n)
    expect(b.slice(11, 21).toString()).toBe('helloworld')
    expect(b.subarray(14, 18).buffer.toString()).toBe('lowo')
    b.consume(11)
    expect(b.buffer.toString()).toBe('helloworld')
  })
})
