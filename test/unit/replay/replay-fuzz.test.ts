import {describe, expect, it} from 'vitest'
import {RECORD_TYPES, decodeRecord, encodeRecord, parseVersions, planFor, type RecordToEncode} from '../../../src/core/records/index.js'
import {classifyBump, replayGroup, type LoggedRecord} from '../../../src/core/replay/index.js'
import {toJsonSafe} from '../../../src/core/records/index.js'
import {arbitraryStruct, rng} from '../records/arbitrary.js'

// Replay must survive any sequence of well-formed records (out-of-order epochs, tombstones of
// unknown members, legacy layouts, every type interleaved), and classify every bump it reports.
describe('replay on random record sequences', () => {
  it('never throws; every bump has causes; state and timeline are JSON-safe', () => {
    const rand = rng(99)
    let bumps = 0
    for (let run = 0; run < 100; run++) {
      const records: LoggedRecord[] = []
      let offset = 0n
      let time = 0
      const members = ['m1', 'm2', 'm3']
      for (let w = 0; w < 30; w++) {
        time += rand() < 0.2 ? 0 : 1000
        const base = offset
        for (let i = 0, n = 1 + Math.floor(rand() * 5); i < n; i++) {
          const spec = RECORD_TYPES[Math.floor(rand() * RECORD_TYPES.length)]
          const {min, max} = parseVersions(spec.value.validVersions)
          const version = min + Math.floor(rand() * (max - min + 1))
          const key: Record<string, unknown> = {
            ...arbitraryStruct(planFor(spec.key, 0), rand),
            group: 'g',
            GroupId: 'g',
            MemberId: members[Math.floor(rand() * 3)],
          }
          const value = rand() < 0.25 ? null : arbitraryStruct(planFor(spec.value, version), rand)
          if (value && 'Epoch' in value) value.Epoch = Math.floor(rand() * 5)
          const keyFields = Object.fromEntries(spec.key.fields.map(f => [f.name, key[f.name]]))
          const enc = encodeRecord({type: spec.type, key: keyFields, value, version} as RecordToEncode)
          records.push({offset, timestamp: time, batchBaseOffset: rand() < 0.1 ? undefined : base, record: decodeRecord(enc.key, enc.value, offset)})
          offset++
        }
      }
      const {timeline, state} = replayGroup('g', records)
      for (const e of timeline) {
        expect(classifyBump(e).length).toBeGreaterThan(0)
        bumps++
      }
      JSON.stringify(toJsonSafe({state, timeline}))
    }
    expect(bumps).toBeGreaterThan(250)
  })
})
