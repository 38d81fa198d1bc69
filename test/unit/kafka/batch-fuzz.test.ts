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
    console.log(`batch fuzz quick: ${JSON.stringify({...stats, firstCrashes: undefined})}`)
  })
})
