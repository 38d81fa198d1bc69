/**
 * The full fuzz of the record-batch reader (test/unit/kafka/batch-fuzz.ts): `npm run fuzz:batches [-- CASES]`,
 * default 1,000,000 cases over twenty seeds. Prints each seed's counts, the total, the time and the peak RSS;
 * exits 1 on any crash (an exception other than a ProtocolDecodeError).
 */
import {availableCodecs, FUZZ_LIMIT, fuzzBatches} from '../test/unit/kafka/batch-fuzz.js'

const cases = Number(process.argv[2] ?? 1_000_000)
const seeds = Array.from({length: 20}, (_, i) => i + 1)
const total = {cases: 0, parsed: 0, decodeErrors: 0, limitErrors: 0, crashes: 0}
const t0 = performance.now()
console.log(`codecs: ${availableCodecs().join(', ')}; output bound ${FUZZ_LIMIT} bytes`)
for (const seed of seeds) {
  const s = await fuzzBatches(Math.ceil(cases / seeds.length), seed)
  for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += s[k]
  console.log(
    `seed ${seed}: ${JSON.stringify({...s, ms: Math.round(s.ms), firstCrashes: undefined})}; so far ${total.cases} cases, ${total.crashes} crashes, ${((performance.now() - t0) / 1000).toFixed(0)} s, peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
  )
  for (const c of s.firstCrashes) console.log(`  crash: ${c}`)
}
const rssMb = Math.round(process.resourceUsage().maxRSS / 1024)
console.log(`total: ${JSON.stringify(total)} in ${((performance.now() - t0) / 1000).toFixed(1)} s; peak RSS ${rssMb} MB`)
process.exitCode = total.crashes > 0 ? 1 : 0
