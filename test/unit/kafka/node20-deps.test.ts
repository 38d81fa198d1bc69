/**
 * @platformatic/wasm-utils 0.2.1 (our snappy and lz4: its WebAssembly module, driven by src/kafka/wasm-codecs.ts)
 * says node >= 22.19 in its package.json; no older release declares less, so an npm `overrides` cannot help. Its
 * module and glue use nothing newer than Node 20: this runs them on the Node running the tests (20.x in CI, and
 * 26 through scripts/node-compat.sh). The decoders we use on every line are tested in decompress.test.ts and
 * codec-fixtures.test.ts.
 */
import {crc32c, lz4Compress, lz4Decompress, snappyCompress, snappyDecompress} from '@platformatic/wasm-utils'
import {describe, expect, it} from 'vitest'

describe(`@platformatic/wasm-utils on Node ${process.version}`, () => {
  it('CRC-32C check value, snappy and lz4 round trips', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283)
    const data = Buffer.from('x'.repeat(10_000) + 'rebalance-doctor'.repeat(100))
    expect(snappyDecompress(snappyCompress(data))).toEqual(data)
    expect(lz4Decompress(lz4Compress(data))).toEqual(data)
  })
})
