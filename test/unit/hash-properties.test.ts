import {xxh3} from '@node-rs/xxhash'
import {describe, expect, it} from 'vitest'
import {annotateTopicHash, computeTopicHash, RackTable, TopicHasher} from '../../src/core/hash.js'
import {type ClusterMetadata, parseMetadataDocument} from '../../src/core/metadata.js'

/** Small deterministic PRNG (mulberry32) so failures reproduce. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const RACKS = ['rack-a', 'rack-b', 'AZ1', 'zürich', '\ue000', '😀', '', 'a,b']

interface Doc {
  brokers: Array<{id: number; rack: string | null; fenced?: boolean}>
  topics: Array<{name: string; topicId: string; partitions: Array<{partition: number; replicas: number[]}>}>
}

function randomDoc(seed: number): Doc {
  const rnd = prng(seed)
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]
  const nBrokers = 1 + Math.floor(rnd() * 6)
  const brokers = Array.from({length: nBrokers}, (_, i) => ({id: i + 1, rack: rnd() < 0.15 ? null : pick(RACKS), fenced: rnd() < 0.2}))
  const topics = Array.from({length: 1 + Math.floor(rnd() * 4)}, (_, t) => {
    const id = Buffer.alloc(16)
    for (let i = 0; i < 16; i++) id[i] = Math.floor(rnd() * 256)
    id[0] |= 1 // never the zero Uuid
    return {
      name: `topic-${seed}-${t}${rnd() < 0.3 ? '-é中' : ''}`,
      topicId: id.toString('base64url'),
      partitions: Array.from({length: Math.floor(rnd() * 8)}, (_, p) => {
        // replicas may include unregistered broker ids (nBrokers + 1..)
        const ids = [...Array(nBrokers + 2).keys()].map(i => i + 1).sort(() => rnd() - 0.5)
        return {partition: p, replicas: ids.slice(0, 1 + Math.floor(rnd() * 4))}
      }),
    }
  })
  return {brokers, topics}
}

/** An independent, naive transcription of Utils.computeTopicHash: racks sorted as strings per partition. */
function referenceTopicHash(doc: Doc, name: string): bigint {
  const t = doc.topics.find(x => x.name === name)!
  const racks = new Map(doc.brokers.filter(b => b.rack !== null).map(b => [b.id, b.rack as string]))
  const parts: Buffer[] = []
  const int = (v: number) => {
    const b = Buffer.alloc(4)
    b.writeInt32LE(v)
    parts.push(b)
  }
  const str = (s: string) => {
    parts.push(Buffer.from(s, 'utf16le'))
    int(s.length)
  }
  parts.push(Buffer.from([0]))
  const id = Buffer.from(t.topicId, 'base64url')
  parts.push(Buffer.from(id.subarray(0, 8)).reverse(), Buffer.from(id.subarray(8, 16)).reverse())
  str(t.name)
  int(t.partitions.length)
  const sorted = [...t.partitions].sort((a, b) => a.partition - b.partition)
  for (const p of sorted) {
    int(p.partition)
    const rs = p.replicas.flatMap(r => (racks.has(r) ? [racks.get(r)!] : [])).sort()
    for (const r of rs) {
      int(r.length)
      str(r)
    }
  }
  return BigInt.asIntN(64, xxh3.xxh64(Buffer.concat(parts)))
}

const hashesOf = (doc: unknown): Map<string, bigint> => {
  const md = parseMetadataDocument(doc)
  const h = new TopicHasher(md)
  return new Map(md.topics.map(t => [t.name, h.topicHash(t.name)]))
}

describe('topic hash properties (random clusters)', () => {
  const seeds = Array.from({length: 300}, (_, i) => i + 1)

  it("equals a naive transcription of Kafka's algorithm", () => {
    for (const seed of seeds) {
      const doc = randomDoc(seed)
      const hashes = hashesOf(doc)
      for (const t of doc.topics) expect(hashes.get(t.name), `seed ${seed} ${t.name}`).toBe(referenceTopicHash(doc, t.name))
    }
  })

  it('does not depend on the order of partitions in the file', () => {
    for (const seed of seeds) {
      const doc = randomDoc(seed)
      const shuffled = structuredClone(doc)
      for (const t of shuffled.topics) t.partitions.reverse()
      expect(hashesOf(shuffled), `seed ${seed}`).toEqual(hashesOf(doc))
    }
  })

  it('does not depend on the order of replicas within a partition (racks are sorted)', () => {
    for (const seed of seeds) {
      const doc = randomDoc(seed)
      const permuted = structuredClone(doc)
      for (const t of permuted.topics) for (const p of t.partitions) p.replicas.reverse()
      expect(hashesOf(permuted), `seed ${seed}`).toEqual(hashesOf(doc))
    }
  })

  it('does not depend on whether a broker is fenced, but does on whether it is registered', () => {
    let differs = 0
    for (const seed of seeds) {
      const doc = randomDoc(seed)
      const flipped = structuredClone(doc)
      for (const b of flipped.brokers) b.fenced = !b.fenced
      expect(hashesOf(flipped), `seed ${seed}`).toEqual(hashesOf(doc))
      // dropping fenced brokers (what a tool using Metadata API brokers would do) changes the hash
      const dropped = structuredClone(doc)
      dropped.brokers = dropped.brokers.filter(b => !b.fenced)
      const a = hashesOf(doc)
      const b = hashesOf(dropped)
      for (const t of doc.topics) if (a.get(t.name) !== b.get(t.name)) differs++
    }
    expect(differs).toBeGreaterThan(50)
  })

  it('the annotated byte stream hashes to the same value and covers every byte once', () => {
    for (const seed of seeds.slice(0, 50)) {
      const md = parseMetadataDocument(randomDoc(seed))
      const table = new RackTable(md.brokers)
      for (const t of md.topics) {
        const a = annotateTopicHash(t, table)
        expect(a.hash).toBe(computeTopicHash(t, table))
        expect(a.segments.map(s => s.hex).join('')).toBe(a.bytes.toString('hex'))
        let next = 0
        for (const s of a.segments) {
          expect(s.offset).toBe(next)
          next += s.hex.length / 2
        }
      }
    }
  })
})

describe('topic hash: the cases the coordinator distinguishes', () => {
  const base = (replicas: number[], brokers: Doc['brokers']): Doc => ({
    brokers,
    topics: [{name: 't', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: [{partition: 0, replicas}]}],
  })
  const h = (d: Doc) => hashesOf(d).get('t')
  const racked = [
    {id: 1, rack: 'a'},
    {id: 2, rack: 'a'},
    {id: 3, rack: 'b'},
  ]

  it('a duplicate rack is written twice (a list, not a set)', () => {
    expect(h(base([1, 2], racked))).not.toBe(h(base([1], racked)))
    expect(h(base([1, 2, 3], racked))).not.toBe(h(base([1, 3], racked)))
  })

  it('an unregistered replica and a rackless broker add nothing', () => {
    expect(h(base([1, 9], racked))).toBe(h(base([1], racked)))
    expect(h(base([1, 4], [...racked, {id: 4, rack: null}]))).toBe(h(base([1], racked)))
  })

  it('an empty rack string is a rack', () => {
    expect(h(base([1, 4], [...racked, {id: 4, rack: ''}]))).not.toBe(h(base([1], racked)))
  })

  it("a fenced broker's rack counts", () => {
    const fenced = racked.map(b => (b.id === 3 ? {...b, fenced: true} : b))
    expect(h(base([1, 3], fenced))).toBe(h(base([1, 3], racked)))
    expect(h(base([1, 3], fenced))).not.toBe(h(base([1], racked)))
  })
})

describe('group hash', () => {
  const md: ClusterMetadata = parseMetadataDocument(randomDoc(7))
  const names = md.topics.map(t => t.name)

  it('ignores the order and repetition of topic names, and topics that do not exist', () => {
    const h = new TopicHasher(md)
    const g = h.groupHash(names)
    expect(h.groupHash([...names].reverse())).toBe(g)
    expect(h.groupHash([...names, ...names, 'does-not-exist'])).toBe(g)
  })

  it('is 0 for no existing topic', () => {
    expect(new TopicHasher(md).groupHash(['nope'])).toBe(0n)
    expect(new TopicHasher(md).groupHash([])).toBe(0n)
  })
})
