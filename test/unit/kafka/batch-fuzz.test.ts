import {describe, expect, it} from 'vitest'
import {fuzzBatches} from './batch-fuzz.js'

// The quick run; `npm run fuzz:batches` runs the full million (scripts/fuzz-batches.ts).
describe('record-batch reader fuzzing (quick)', () => {
  it('5,000 mutated plain and compressed batches (bombs included) end in batches or a ProtocolDecodeError', async () => {
    const stats = await fuzzBatches(5_000, 11)
    if (stats.crashes > 0) console.log(stats.firstCrashes.join('\n'))
    expect(stats.crashes).toBe(0)
    expect(stats.cases).toBe(5_000)
    // Every outcome must be reached in quantity, or the fuzzer is not exercising much.
    expect(stats.parsed).toBeGreaterThan(500)
    expect(stats.decodeErrors).toBeGreaterThan(500)
    expect(stats.limitErrors).toBeGreaterThan(20)
    expect(stats.crcErrors).toBeGreaterThan(500)
    console.log(`batch fuzz quick: ${JSON.stringify({...stats, firstCrashes: undefined})}`)
  })
})

describe('record-batch CRC-32C', () => {
  it('every single-bit flip in the bytes a batch CRC covers (and in the CRC) is refused as a corrupt batch', async () => {
    const {seeds} = await import('./batch-fuzz.js')
    const {parseRecordBatches, CorruptBatchError} = await import('../../../src/kafka/record-batch.js')
    const {loadDecompressor} = await import('../../../src/kafka/codecs.js')
    const decompress = await loadDecompressor(1 << 20)
    const pool = seeds(3)
      .filter(s => s.bytes.length < 400)
      .slice(0, 12)
    expect(pool.length).toBe(12)
    let flips = 0
    for (const s of pool) {
      const one = s.bytes.subarray(0, 12 + s.bytes.readInt32BE(8))
      expect(parseRecordBatches(one, decompress).batches).toHaveLength(1)
      for (let i = 17; i < one.length; i++) {
        for (let bit = 0; bit < 8; bit++) {
          const b = Buffer.from(one)
          b[i] ^= 1 << bit
          expect(() => parseRecordBatches(b, decompress), `byte ${i} bit ${bit}`).toThrow(CorruptBatchError)
          flips++
        }
      }
    }
    expect(flips).toBeGreaterThan(12 * 8 * 44)
  })
})
