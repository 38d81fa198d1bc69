/**
 * Real bytes: `__consumer_offsets` segments written by Apache Kafka 4.1.2 and 4.4.0 brokers (the
 * test cluster's scenarios: consumer groups with regex, partition additions, topic recreation,
 * missing topics, share and streams groups), and what that release's own decoder
 * (`DumpLogSegments --offsets-decoder`) printed for them. Every record must decode to the same
 * fields; Kafka's JSON leaves out tagged fields at their default (or not in its release), which we
 * read as the default.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {decodeRecord, encodeRecord, type KnownRecord} from '../../../src/core/records/index.js'
import {classifyBump, decodeBatch, replayGroup} from '../../../src/core/replay/index.js'
import {readSegment} from './segment.js'
import {expectSameAsKafka} from '../../lib/kafka-json.js'

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const RELEASES = readdirSync(fixtures)
  .filter(d => /^kafka-\d/.test(d))
  .sort()
const partitionsOf = (dir: string) =>
  readdirSync(dir)
    .filter(f => f.endsWith('.segment'))
    .map(f => f.replace('.segment', ''))
const dir = `${fixtures}kafka-4.4.0/`
const partitions = partitionsOf(dir)

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
  return text
    .split('\n')
    .filter(l => l.startsWith('| offset: '))
    .map(line => {
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

for (const release of RELEASES) {
  const dir = `${fixtures}${release}/`
  describe(`${release} broker segments decode exactly as its DumpLogSegments --offsets-decoder prints them`, () => {
    for (const partition of partitionsOf(dir)) {
      it(partition, () => {
        const dumped = new Map(parseDump(readFileSync(`${dir}${partition}.dump.txt`, 'utf8')).map(d => [d.offset, d]))
        let n = 0
        for (const b of readSegment(`${dir}${partition}.segment`)) {
          if (b.isControl) continue
          for (const r of b.records) {
            const ours = decodeRecord(r.key, r.value, r.offset) as KnownRecord
            const theirs = dumped.get(r.offset)!
            expectSameAsKafka(
              ours,
              {
                type: Number(theirs.key.type),
                key: theirs.key.data,
                version: theirs.payload === null ? null : Number(theirs.payload.version),
                value: theirs.payload === null ? null : theirs.payload.data,
              },
              `offset ${r.offset}`,
            )
            n++
          }
        }
        expect(n).toBe(dumped.size)
      })
    }

    it("re-encoding every decoded record gives the broker's bytes back", () => {
      let n = 0
      for (const partition of partitionsOf(dir)) {
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

    it('replays every group: timelines end at the last stored epoch, every bump has a cause', () => {
      for (const partition of partitionsOf(dir)) {
        const records = readSegment(`${dir}${partition}.segment`)
          .filter(b => !b.isControl)
          .flatMap(b => decodeBatch(b))
        const groups = new Set(records.map(r => (r.record.kind === 'record' ? r.record.groupId : undefined)).filter((g): g is string => g !== undefined))
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
}

describe('Kafka 4.4.0 coverage', () => {
  let total = 0
  for (const partition of partitions) for (const b of readSegment(`${dir}${partition}.segment`)) total += b.records.length

  it('covers the record types a 4.4.0 broker writes for all group types', () => {
    const types = new Set<number>()
    for (const partition of partitions) {
      for (const b of readSegment(`${dir}${partition}.segment`)) for (const r of b.records) if (!b.isControl) types.add(decodeRecord(r.key, r.value).type)
    }
    expect([...types].sort((a, b) => a - b)).toEqual([3, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 19, 20, 21, 22, 23])
    expect(total).toBeGreaterThan(100)
  })
})

describe('causes on the 4.4.0 broker log', () => {
  const records = (p: string) =>
    readSegment(`${dir}${p}.segment`)
      .filter(b => !b.isControl)
      .flatMap(b => decodeBatch(b))
  const find = (suffix: string) => {
    for (const p of partitions) {
      const rs = records(p)
      const g = rs.map(r => (r.record.kind === 'record' ? r.record.groupId : '')).find(x => x.endsWith(suffix))
      if (g) return replayGroup(g, rs).timeline
    }
    throw new Error(`no group *${suffix}`)
  }
  const kinds = (t: ReturnType<typeof find>) => t.map(e => classifyBump(e).map(c => c.kind))

  it('consumer group: created with a joining member (regex "" means none), then the member left', () => {
    const t = find('yrt-consumer')
    expect(kinds(t)).toEqual([['group-created', 'member-joined'], ['member-left']])
    expect(classifyBump(t[0])[1]).toMatchObject({subscribedTopicRegex: null})
    expect(t.map(e => e.epoch)).toEqual([2, 3]) // 4.3+: new groups persist epoch 2 first
  })

  it('regex group: the member record came first (no bump), the resolution bumped; one batch, two writes', () => {
    const t = find('dop-regex')
    expect(kinds(t)).toEqual([
      ['group-created', 'member-joined', 'regex-resolution-changed'],
      ['member-left', 'regex-resolution-deleted'],
    ])
    // The broker put both writes in one batch (append linger), a millisecond apart.
    expect(t[0].write.batchBaseOffset).toBe(0n)
    expect(t[0].records.map(r => r.record.type)).toEqual([16, 3])
  })

  it('share group: initialization bump after the state record', () => {
    expect(kinds(find('yrt-share'))).toEqual([['group-created', 'member-joined'], ['share-initialization'], ['member-left']])
  })

  it('streams group: topology, then validation once internal topics exist (hash moves), fencing keeps the hash', () => {
    const t = find('yrt-streams')
    expect(kinds(t)).toEqual([
      ['group-created', 'member-joined', 'streams-topology-changed'],
      ['streams-topology-validated', 'metadata-hash-changed'],
      ['member-left'],
    ])
    expect(t[2].metadataHash).toBe(t[2].previousMetadataHash)
  })
})

describe('causes on the 4.1.2 broker log', () => {
  const dir412 = `${fixtures}kafka-4.1.2/`
  const timelineOf = (group: string) => {
    for (const p of partitionsOf(dir412)) {
      const rs = readSegment(`${dir412}${p}.segment`)
        .filter(b => !b.isControl)
        .flatMap(b => decodeBatch(b))
      if (rs.some(r => r.record.groupId === group)) return replayGroup(group, rs).timeline
    }
    throw new Error(`no group ${group}`)
  }
  const kinds = (t: ReturnType<typeof timelineOf>) => t.map(e => classifyBump(e).map(c => c.kind))

  it('4.1 groups persist epoch 1 first', () => {
    expect(timelineOf('it-add-partitions').map(e => [e.previousEpoch, e.epoch])).toEqual([
      [undefined, 1],
      [1, 2],
      [2, 3],
    ])
  })

  it('partitions added: the hash moves, the topic set does not', () => {
    expect(kinds(timelineOf('it-add-partitions'))).toEqual([['group-created', 'member-joined'], ['metadata-hash-changed'], ['member-left']])
  })

  it('topic recreated: the target assignment loses the old topic id, then gains the new one', () => {
    const t = timelineOf('it-recreate')
    expect(kinds(t)).toEqual([['group-created', 'member-joined'], ['metadata-hash-changed'], ['metadata-hash-changed'], ['member-left']])
    expect(t[1].diff.targetAssignmentTopicIds.removed).toHaveLength(1)
    expect(t[2].diff.targetAssignmentTopicIds.added).toHaveLength(1)
    expect(t[2].diff.targetAssignmentTopicIds.added).not.toEqual(t[1].diff.targetAssignmentTopicIds.removed)
  })

  it('a subscribed topic created later: the hash moves and a new topic id enters the assignment', () => {
    const t = timelineOf('it-missing-topic')
    expect(kinds(t)[1]).toEqual(['metadata-hash-changed'])
    expect(t[1].diff.targetAssignmentTopicIds.added).toHaveLength(1)
  })

  it('regex: each resolution that adds a topic bumps', () => {
    const t = timelineOf('it-regex')
    expect(kinds(t)).toEqual([
      ['group-created', 'member-joined'],
      ['regex-resolution-changed'],
      ['regex-resolution-changed'],
      ['member-left', 'regex-resolution-deleted'],
    ])
    expect(classifyBump(t[2])[0]).toEqual({kind: 'regex-resolution-changed', regex: 're-orders-.*', added: ['re-orders-2'], removed: []})
    // the last member left: the coordinator deleted the resolution; the regex still matches both topics
    expect(classifyBump(t[3])[1]).toEqual({kind: 'regex-resolution-deleted', regex: 're-orders-.*', topics: ['re-orders-1', 're-orders-2']})
  })
})
