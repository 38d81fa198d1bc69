import {describe, expect, it} from 'vitest'
import {fuzz} from './fuzz.js'

const CASES = Number(process.env.FUZZ_CASES ?? 1_000_000)

describe('codec fuzzing (full)', () => {
  it(`${CASES.toLocaleString('en')} cases over several seeds, no other exception, no hang`, () => {
    let total = 0
    let ms = 0
    const per = Math.ceil(CASES / 4)
    for (const seed of [1, 2, 3, 4]) {
      const s = fuzz(per, seed)
      total += s.cases
      ms += s.ms
      console.log(`fuzz seed ${seed}: ${JSON.stringify(s)}`)
    }
    expect(total).toBeGreaterThanOrEqual(CASES)
    console.log(`fuzz full: ${total} cases in ${Math.round(ms)} ms`)
  }, 300_000) // ≈10 s on an idle 2-core box; 70–80 s seen with the integration cluster running alongside
})
