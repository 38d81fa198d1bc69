/**
 * Real bytes: `__consumer_offsets` segments written by an Apache Kafka 4.4.0 broker (the test
 * cluster: consumer groups with regex, share and streams groups), and what Kafka's own decoder
 * (`DumpLogSegments --offsets-decoder`) printed for them. Every record must decode to the same
 * fields; Kafka's JSON leaves out tagged fields at their default, which we read as the default.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {RECORD_TYPE_BY_ID, decodeRecord, encodeRecord, planFor, toJsonSafe, type KnownRecord} from '../../../src/core/records/index.js'
import {classifyBump, decodeBatch, replayGroup} from '../../../src/core/replay/index.js'
import {readSegment} from './segment.js'

const dir = fileURLToPath(new URL('./fixtures/kafka-4.4.0/', import.meta.url))
const partitions = readdirSync(dir).filter((f) => f.endsWith('.segment')).map((f) => f.replace('.segment', ''))

interface Dumped {
  offset: bigint
  key: {type: string; data: Record<string, unknown>}
  payload: {version: string; data: Record<string, unknown>} | null
}

/** Kafka prints int64 as bare JSON numbers; keep long ones exact as strings. */
function parseJson(text: string): unknown {
  return JSON.parse(text.replace(/([:[,])(-?\d{16,})(?=[,\]}])/g, '$1"$2"'))
}

function parseDump(text: string): Dumped[] {
  return text.split('\n').filter((l) => l.startsWith('| offset: ')).map((line) => {
    const k = line.indexOf(' key: ')
    const p = line.lastIndexOf(' payload: ')
    const payload = line.slice(p + 10).trim()
    return {
      offset: BigInt(/^\| offset: (\d+)/.exec(line)![1]),
      key: parseJson(line.slice(k + 6, p)) as Dumped['key'],
      payload: payload.startsWith('{') ? (parseJson(payload) as Dumped['payload']) : null,
    }
  })
}

const camel = (k: string) => k[0].toLowerCase() + k.slice(1)

/** Ours (JSON-safe, Kafka field names) in Kafka's JSON shape: camelCase names, `*Decoded` side fields dropped. */
function kafkaShape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(kafkaShape)
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([k]) => !k.endsWith('Decoded')).map(([k, x]) => [camel(k), kafkaShape(x)]))
  }
  return v
}

/** Kafka's JSON with numbers as strings where ours are (int64). */
function normalize(theirs: unknown, ours: unknown): unknown {
  if (Array.isArray(theirs)) return theirs.map((x, i) => normalize(x, (ours as unknown[] | undefined)?.[i]))
  if (theirs && typeof theirs === 'object') {
    return Object.fromEntries(Object.entries(theirs).map(([k, x]) => [k, normalize(x, (ours as Record<string, unknown> | undefined)?.[k])]))
  }
  return typeof theirs === 'number' && typeof ours === 'string' ? String(theirs) : theirs
}

describe('Kafka 4.4.0 broker segments decode exactly as DumpLogSegments --offsets-decoder prints them', () => {
  let total = 0
  for (const partition of partitions) {
    it(partition, () => {
      const dumped = new Map(parseDump(readFileSync(`${dir}${partition}.dump.txt`, 'utf8')).map((d) => [d.offset, d]))
      const batches = readSegment(`${dir}${partition}.segment`).filter((b) => !b.isControl)
      let n = 0
      for (const b of batches) {
        for (const r of b.records) {
          const ours = decodeRecord(r.key, r.value, r.offset) as KnownRecord
          const theirs = dumped.get(r.offset)!
          expect(ours.kind, `offset ${r.offset}`).toBe('record')
          expect(ours.type).toBe(Number(theirs.key.type))
          expect(kafkaShape(ours.key)).toEqual(theirs.key.data)
          if (theirs.payload === null) {
            expect(ours.value).toBeNull()
          } else {
            expect(ours.version).toBe(Number(theirs.payload.version))
            const mine = kafkaShape(toJsonSafe(ours.value)) as Record<string, unknown>
            // Fields Kafka left out must be tagged fields at their default.
            const plan = planFor(RECORD_TYPE_BY_ID.get(ours.type)!.value, ours.version!)
            for (const f of plan.fields) {
              if (camel(f.name) in theirs.payload.data) continue
              expect(f.tag, `${ours.name}.${f.name} omitted by Kafka but not tagged`).toBeDefined()
              expect(mine[camel(f.name)]).toEqual(kafkaShape(toJsonSafe(f.defaultValue())))
              delete mine[camel(f.name)]
            }
            expect(mine, `${ours.name} at ${r.offset}`).toEqual(normalize(theirs.payload.data, mine))
          }
          n++
        }
      }
      expect(n).toBe(dumped.size)
      total += n
    })
  }

  it('re-encoding every decoded record gives the broker\'s bytes back', () => {
    let n = 0
    for (const partition of partitions) {
      for (const b of readSegment(`${dir}${partition}.segment`)) {
        if (b.isControl) continue
        for (const r of b.records) {
          const d = decodeRecord(r.key, r.value) as KnownRecord
          const enc = encodeRecord({type: d.type, key: d.key, value: d.value, version: d.version})
          expect(Buffer.from(enc.key).equals(Buffer.from(r.key!))).toBe(true)
          expect(enc.value === null ? null : Buffer.from(enc.value).toString('hex')).toBe(r.value === null ? null : Buffer.from(r.value).toString('hex'))
          n++
        }
      }
    }
    expect(n).toBeGreaterThan(100)
  })

  it('covers the record types a 4.4.0 broker writes for all group types', () => {
    const types = new Set<number>()
    for (const partition of partitions) {
      for (const b of readSegment(`${dir}${partition}.segment`)) for (const r of b.records) if (!b.isControl) types.add(decodeRecord(r.key, r.value).type)
    }
    expect([...types].sort((a, b) => a - b)).toEqual([3, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 19, 20, 21, 22, 23])
    expect(total).toBeGreaterThan(100)
  })

  it('replays every group in them: timelines end at the last stored epoch, every bump has a cause', () => {
    for (const partition of partitions) {
      const records = readSegment(`${dir}${partition}.segment`).filter((b) => !b.isControl).flatMap((b) => decodeBatch(b))
      const groups = new Set(records.map((r) => (r.record.kind === 'record' ? r.record.groupId : undefined)).filter((g): g is string => g !== undefined))
      for (const g of groups) {
        const {timeline, state} = replayGroup(g, records)
        const last = timeline.at(-1)
        if (!last) continue
        const section = state[last.groupType as 'consumer' | 'share' | 'streams']
        if (section) expect(section.epoch).toBe(last.epoch)
        for (const e of timeline) expect(classifyBump(e).length, `${g} epoch ${e.epoch}`).toBeGreaterThan(0)
      }
    }
  })
})

describe('causes on the 4.4.0 broker log', () => {
  const records = (p: string) => readSegment(`${dir}${p}.segment`).filter((b) => !b.isControl).flatMap((b) => decodeBatch(b))
  const find = (suffix: string) => {
    for (const p of partitions) {
      const rs = records(p)
      const g = rs.map((r) => (r.record.kind === 'record' ? r.record.groupId : '')).find((x) => x.endsWith(suffix))
      if (g) return replayGroup(g, rs).timeline
    }
    throw new Error(`no group *${suffix}`)
  }
  const kinds = (t: ReturnType<typeof find>) => t.map((e) => classifyBump(e).map((c) => c.kind))

  it('consumer group: created with a joining member (regex "" means none), then the member left', () => {
    const t = find('yrt-consumer')
    expect(kinds(t)).toEqual([['group-created', 'member-joined'], ['member-left']])
    expect(classifyBump(t[0])[1]).toMatchObject({subscribedTopicRegex: null})
    expect(t.map((e) => e.epoch)).toEqual([2, 3]) // 4.3+: new groups persist epoch 2 first
  })

  it('regex group: the member record came first (no bump), the resolution bumped; one batch, two writes', () => {
    const t = find('dop-regex')
    expect(kinds(t)).toEqual([['group-created', 'member-joined', 'regex-resolution-changed'], ['member-left', 'regex-resolution-changed']])
    // The broker put both writes in one batch (append linger), a millisecond apart.
    expect(t[0].write.batchBaseOffset).toBe(0n)
    expect(t[0].records.map((r) => r.record.type)).toEqual([16, 3])
  })

  it('share group: initialization bump after the state record', () => {
    expect(kinds(find('yrt-share'))).toEqual([['group-created', 'member-joined'], ['share-initialization'], ['member-left']])
  })

  it('streams group: topology, then validation once internal topics exist (hash moves), fencing keeps the hash', () => {
    const t = find('yrt-streams')
    expect(kinds(t)).toEqual([['group-created', 'member-joined', 'streams-topology-changed'], ['streams-topology-validated', 'metadata-hash-changed'], ['member-left']])
    expect(t[2].metadataHash).toBe(t[2].previousMetadataHash)
  })
})
