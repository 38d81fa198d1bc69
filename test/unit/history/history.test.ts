import {appendFileSync, mkdtempSync, readdirSync, readFileSync, truncateSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {computeGroupHash, TopicHasher} from '../../../src/core/hash.js'
import type {ClusterMetadata} from '../../../src/core/metadata.js'
import {attributeBump, exactChangesFromHistory} from '../../../src/core/explain/evidence/history.js'
import {historyView} from '../../../src/core/history/view.js'
import {crc32, encodeLine, expiredSegments, foldState, makeEntry, parseRetention, parseSegment} from '../../../src/core/history/format.js'
import {clusterDir, defaultHistoryDir, historyStamp, loadHistory, observeTopics, recordHistory} from '../../../src/history/store.js'
import {cluster, hashOf} from '../../lib/fixtures.js'

const DAY = 86_400_000
const T0 = Date.parse('2026-11-01T10:00:00Z')
const dir = () => mkdtempSync(join(tmpdir(), 'rd-hist-'))
const record = (
  root: string,
  md: ClusterMetadata,
  at: number,
  groups = new Map<string, {type: string; epoch: number; hash: string}>(),
  retentionMs = 30 * DAY,
) => recordHistory({dir: root, retentionMs, now: at}, 'cid', md, groups)
const segFile = (root: string, at: number) => join(clusterDir(root, 'cid'), `history-${new Date(at).toISOString().slice(0, 10)}.ndjson`)

describe('history format', () => {
  it('crc32 is the IEEE CRC-32', () => {
    expect(crc32('123456789')).toBe(0xcbf43926)
    expect(crc32('')).toBe(0)
  })

  it('a line round-trips; a flipped byte, a torn tail and garbage are skipped, whole lines kept', () => {
    const e = makeEntry(new Date(T0).toISOString(), 'cid', {brokers: [], topics: observeTopics(cluster()), groups: new Map()}, undefined)
    const line = encodeLine(e)
    expect(parseSegment(line)).toEqual({entries: [e], badLines: 0})
    const flipped = line.replace('"orders"', '"ordErs"')
    expect(parseSegment(flipped + line)).toMatchObject({badLines: 1, entries: [e]})
    expect(parseSegment(line + line.slice(0, 40))).toMatchObject({badLines: 1, entries: [e]})
    expect(parseSegment(`garbage\n\n${line}`)).toMatchObject({badLines: 1, entries: [e]})
    // every possible truncation of a two-line file keeps exactly the whole lines
    const two = line + line
    for (let n = 0; n <= two.length; n++) {
      const p = parseSegment(two.slice(0, n))
      expect(p.entries.length).toBe(n >= two.length ? 2 : n >= line.length ? 1 : 0)
    }
  })

  it('deltas hold only what changed; folding gives the full state back', () => {
    const a = {brokers: [{id: 1, rack: 'r'}], topics: observeTopics(cluster(3)), groups: new Map([['g', {type: 'consumer', epoch: 1, hash: '5'}]])}
    const b = {brokers: [{id: 1, rack: 'r'}], topics: observeTopics(cluster(4)), groups: new Map([['g', {type: 'consumer', epoch: 1, hash: '5'}]])}
    b.topics.delete('payments')
    const e1 = makeEntry('2026-11-01T00:00:00Z', 'cid', a, undefined)
    const e2 = makeEntry('2026-11-01T00:05:00Z', 'cid', b, foldState([e1]))
    expect(e2.full).toBe(false)
    expect(Object.keys(e2.topics)).toEqual(['orders'])
    expect(e2.deletedTopics).toEqual(['payments'])
    expect(e2.groups).toEqual({})
    expect(e2.brokers).toBeUndefined()
    const s = foldState([e1, e2])
    expect([...s.topics.keys()]).toEqual(['orders'])
    expect(s.topics.get('orders')!.partitions).toBe(4)
  })

  it('retention: whole day segments past it; parse errors name the value', () => {
    expect(parseRetention('30d')).toBe(30 * DAY)
    expect(parseRetention('2w')).toBe(14 * DAY)
    expect(() => parseRetention('30 days')).toThrow(/"30 days"/)
    expect(() => parseRetention('0d')).toThrow()
    const names = ['history-2026-10-01.ndjson', 'history-2026-10-30.ndjson', 'history-2026-10-31.ndjson', 'other.txt']
    expect(expiredSegments(names, Date.parse('2026-11-30T12:00:00Z'), 30 * DAY)).toEqual(['history-2026-10-01.ndjson', 'history-2026-10-30.ndjson'])
  })

  it('default location: env override, then XDG_STATE_HOME, then ~/.local/state', () => {
    expect(defaultHistoryDir({REBALANCE_DOCTOR_HISTORY_DIR: '/x'})).toBe('/x')
    expect(defaultHistoryDir({XDG_STATE_HOME: '/s'})).toBe('/s/rebalance-doctor/history')
    expect(defaultHistoryDir({})).toMatch(/\.local\/state\/rebalance-doctor\/history$/)
  })
})

describe('history store (files)', () => {
  it('first audit of a day writes a full segment, later ones append deltas', () => {
    const root = dir()
    expect(record(root, cluster(3), T0).full).toBe(true)
    const r2 = record(root, cluster(3), T0 + 60_000)
    expect(r2).toMatchObject({full: false, topicsWritten: 0})
    const r3 = record(root, cluster(5), T0 + 120_000)
    expect(r3).toMatchObject({full: false, topicsWritten: 1})
    const loaded = loadHistory(root, 'cid')
    expect(loaded.entries.map(e => e.full)).toEqual([true, false, false])
    expect(readdirSync(clusterDir(root, 'cid')).filter(n => n.endsWith('.ndjson'))).toHaveLength(1)
  })

  it('the stamp changes with every write and not otherwise; none without a history', () => {
    const root = dir()
    expect(historyStamp(root, 'cid')).toBe('')
    record(root, cluster(3), T0)
    const a = historyStamp(root, 'cid')
    expect(a).not.toBe('')
    expect(historyStamp(root, 'cid')).toBe(a)
    record(root, cluster(4), T0 + 60_000)
    expect(historyStamp(root, 'cid')).not.toBe(a)
  })

  it('a crash mid-append (torn last line) loses only that line; the next append repairs the tail', () => {
    const root = dir()
    record(root, cluster(3), T0)
    record(root, cluster(4), T0 + 60_000)
    const f = segFile(root, T0)
    const size = statSync(f).size
    // simulate a crash while writing the third line: only part of it reaches the disk
    appendFileSync(
      f,
      encodeLine(makeEntry(new Date(T0 + 90_000).toISOString(), 'cid', {brokers: [], topics: observeTopics(cluster(9)), groups: new Map()}, undefined)).slice(
        0,
        77,
      ),
    )
    expect(loadHistory(root, 'cid')).toMatchObject({badLines: 1})
    expect(loadHistory(root, 'cid').entries).toHaveLength(2)
    record(root, cluster(5), T0 + 120_000)
    const after = loadHistory(root, 'cid')
    expect(after.badLines).toBe(1)
    expect(after.entries.map(e => e.at)).toEqual([T0, T0 + 60_000, T0 + 120_000].map(t => new Date(t).toISOString()))
    expect(foldState(after.entries).topics.get('orders')!.partitions).toBe(5)
    expect(statSync(f).size).toBeGreaterThan(size)
  })

  it('a truncated file at any length never throws and keeps the whole lines before the cut', () => {
    const root = dir()
    record(root, cluster(3), T0)
    record(root, cluster(4), T0 + 60_000)
    const f = segFile(root, T0)
    const full = readFileSync(f, 'utf8')
    const firstLen = full.indexOf('\n') + 1
    for (const n of [0, 1, 10, firstLen - 1, firstLen, firstLen + 5, full.length - 1]) {
      writeFileSync(f, full)
      truncateSync(f, n)
      const l = loadHistory(root, 'cid')
      expect(l.entries.length).toBe(n >= firstLen ? 1 : 0)
    }
  })

  it('a segment whose full first line is lost is rewritten (temp + rename) with a full entry', () => {
    const root = dir()
    record(root, cluster(3), T0)
    const f = segFile(root, T0)
    writeFileSync(f, 'torn-without-newline')
    expect(record(root, cluster(4), T0 + 60_000).full).toBe(true)
    const l = loadHistory(root, 'cid')
    expect(l.entries.map(e => e.full)).toEqual([true])
    expect(readdirSync(clusterDir(root, 'cid')).some(n => n.includes('.tmp'))).toBe(false)
  })

  it('retention deletes segments past it when recording; reading skips them too', () => {
    const root = dir()
    record(root, cluster(3), T0)
    record(root, cluster(4), T0 + 2 * DAY)
    expect(loadHistory(root, 'cid').segments).toBe(2)
    expect(loadHistory(root, 'cid', DAY, T0 + 3 * DAY).segments).toBe(1)
    const r = record(root, cluster(5), T0 + 3 * DAY, new Map(), DAY)
    expect(r.expired).toEqual(['history-2026-11-01.ndjson'])
    expect(loadHistory(root, 'cid').segments).toBe(2)
  })
})

describe('attribution from history', () => {
  it('two topics changed at once: both named with old and new partition counts and when first seen', () => {
    const before = cluster(3, 2)
    const after = cluster(5, 4)
    const topics = ['orders', 'payments']
    const root = dir()
    record(root, before, T0)
    record(root, after, T0 + 600_000)
    const view = historyView(loadHistory(root, 'cid').entries)
    const a = attributeBump(view, {
      topicsBefore: topics,
      topicsAfter: topics,
      previousHash: hashOf(before, topics),
      hash: hashOf(after, topics),
      timestamp: T0 + 300_000,
    })
    expect(a).toBeDefined()
    expect(a!.changes.map(c => [c.topic, c.kind, c.before!.partitions, c.after!.partitions])).toEqual([
      ['orders', 'partitions', 3, 5],
      ['payments', 'partitions', 2, 4],
    ])
    expect(a!.changes[0].description).toBe(
      `orders: 3 → 5 partitions, first seen at ${new Date(T0 + 600_000).toISOString()} (last seen before at ${new Date(T0).toISOString()})`,
    )
  })

  it('narrows "first seen" to the first moment showing the new value; topic created; broker rack change', () => {
    const root = dir()
    const md0: ClusterMetadata = {...cluster(3), topics: cluster(3).topics.filter(t => t.name === 'orders')}
    record(root, md0, T0)
    record(root, cluster(3), T0 + 60_000) // payments created
    record(root, cluster(3), T0 + 120_000)
    const view = historyView(loadHistory(root, 'cid').entries)
    const a = attributeBump(view, {
      topicsBefore: ['orders', 'payments'],
      topicsAfter: ['orders', 'payments'],
      previousHash: hashOf(md0, ['orders', 'payments']),
      hash: hashOf(cluster(3), ['orders', 'payments']),
      timestamp: T0 + 30_000,
    })
    expect(a!.changes.map(c => [c.topic, c.kind, c.firstSeenAfter])).toEqual([['payments', 'created', new Date(T0 + 60_000).toISOString()]])

    const root2 = dir()
    record(root2, cluster(3, 2, 'rack-a'), T0)
    record(root2, cluster(3, 2, 'rack-b'), T0 + 60_000)
    const v2 = historyView(loadHistory(root2, 'cid').entries)
    const b = attributeBump(v2, {
      topicsBefore: ['orders'],
      topicsAfter: ['orders'],
      previousHash: hashOf(cluster(3, 2, 'rack-a'), ['orders']),
      hash: hashOf(cluster(3, 2, 'rack-b'), ['orders']),
      timestamp: T0 + 70_000,
    })
    expect(b!.changes[0]).toMatchObject({topic: 'orders', kind: 'racks'})
    expect(b!.brokers).toEqual([{id: 3, before: 'rack-a', after: 'rack-b'}])
    // both moments hold the replica lists: the partitions on broker 3 are named, with their racks then and now
    expect(b!.changes[0].description).toMatch(/^orders: partition 1: replicas \[2,3\] on racks rack-a,rack-a → rack-a,rack-b; partition 2: /)
    expect(b!.changes[0].partitions!.map(p => p.partition)).toEqual([1, 2])
  })

  it('a reassignment names the partition, its replicas and racks before and after; a reorder of the same replicas is no change', () => {
    const moved = (replicas: number[]): ClusterMetadata => {
      const md = cluster(3)
      return {
        ...md,
        topics: md.topics.map(t => (t.name === 'orders' ? {...t, partitions: t.partitions.map(p => (p.partition === 0 ? {...p, replicas} : p))} : t)),
      }
    }
    const root = dir()
    record(root, cluster(3), T0)
    record(root, moved([2, 1]), T0 + 30_000) // the same replicas reordered: recorded, but no hash change
    record(root, moved([2, 3]), T0 + 60_000)
    const view = historyView(loadHistory(root, 'cid').entries)
    const a = attributeBump(view, {
      topicsBefore: ['orders'],
      topicsAfter: ['orders'],
      previousHash: hashOf(cluster(3), ['orders']),
      hash: hashOf(moved([2, 3]), ['orders']),
      timestamp: T0 + 45_000,
    })
    expect(a!.changes).toHaveLength(1)
    // (the topic's distinct racks are rack-a and rack-b before and after: a placement change)
    expect(a!.changes[0]).toMatchObject({topic: 'orders', kind: 'placement'})
    expect(a!.changes[0].partitions).toEqual([
      {partition: 0, replicasBefore: [2, 1], replicasAfter: [2, 3], racksBefore: ['rack-a', 'rack-a'], racksAfter: ['rack-a', 'rack-b']},
    ])
    expect(a!.changes[0].description).toMatch(/^orders: partition 0: replicas \[2,1\] on rack-a,rack-a → \[2,3\] on rack-a,rack-b, first seen at /)
    expect(exactChangesFromHistory(a!)).toEqual([
      expect.objectContaining({
        kind: 'replica-placement',
        topic: 'orders',
        partitions: [0],
        then: '0: [2,1] on rack-a,rack-a',
        now: '0: [2,3] on rack-a,rack-b',
        replicasThen: [{partition: 0, replicas: [2, 1]}],
      }),
    ])
  })

  it('a broker restarted with another rack, its replicas unchanged: the partitions are a rack change, not a placement', () => {
    const root = dir()
    record(root, cluster(3, 2, 'rack-a'), T0)
    record(root, cluster(3, 2, 'rack-c'), T0 + 60_000)
    const a = attributeBump(historyView(loadHistory(root, 'cid').entries), {
      topicsBefore: ['orders'],
      topicsAfter: ['orders'],
      previousHash: hashOf(cluster(3, 2, 'rack-a'), ['orders']),
      hash: hashOf(cluster(3, 2, 'rack-c'), ['orders']),
      timestamp: T0 + 30_000,
    })
    const changes = exactChangesFromHistory(a!)
    // orders' partitions 0 [1,2], 1 [2,3], 2 [3,1]: broker 3 holds replicas of 1 and 2, which stayed where they were
    expect(changes).toEqual([
      expect.objectContaining({kind: 'replica-racks', topic: 'orders', partitions: [1, 2], then: '1: [2,3] on rack-a,rack-a; 2: [3,1] on rack-a,rack-a'}),
      expect.objectContaining({kind: 'broker-rack', broker: 3, then: 'rack-a', now: 'rack-c'}),
    ])
    expect(changes.map(c => c.kind)).not.toContain('replica-placement')
  })

  it('lines written before replica lists were kept: the change is still named, by racks only', () => {
    const root = dir()
    record(root, cluster(3, 2, 'rack-a'), T0)
    record(root, cluster(3, 2, 'rack-b'), T0 + 60_000)
    const entries = loadHistory(root, 'cid').entries.map(e => ({
      ...e,
      topics: Object.fromEntries(Object.entries(e.topics).map(([n, t]) => [n, {id: t.id, partitions: t.partitions, hash: t.hash, racks: t.racks}])),
    }))
    const a = attributeBump(historyView(entries), {
      topicsBefore: ['orders'],
      topicsAfter: ['orders'],
      previousHash: hashOf(cluster(3, 2, 'rack-a'), ['orders']),
      hash: hashOf(cluster(3, 2, 'rack-b'), ['orders']),
      timestamp: T0 + 70_000,
    })
    expect(a!.changes[0].partitions).toBeUndefined()
    expect(a!.changes[0].description).toMatch(/^orders: replica racks rack-a → rack-a,rack-b, /)
  })

  it('no attribution when history does not reproduce both hashes exactly (no guessing)', () => {
    const root = dir()
    record(root, cluster(3), T0)
    record(root, cluster(5), T0 + 60_000)
    const view = historyView(loadHistory(root, 'cid').entries)
    const topics = ['orders']
    // the bump was 4 → 5, which history never saw
    expect(
      attributeBump(view, {
        topicsBefore: topics,
        topicsAfter: topics,
        previousHash: hashOf(cluster(4), topics),
        hash: hashOf(cluster(5), topics),
        timestamp: T0 + 30_000,
      }),
    ).toBeUndefined()
    // the old state recorded only after the bump: cannot be the state before it
    expect(
      attributeBump(view, {
        topicsBefore: topics,
        topicsAfter: topics,
        previousHash: hashOf(cluster(3), topics),
        hash: hashOf(cluster(5), topics),
        timestamp: T0 - 1,
      }),
    ).toBeUndefined()
    expect(attributeBump(historyView([]), {topicsBefore: topics, topicsAfter: topics, previousHash: 1n, hash: 2n, timestamp: T0})).toBeUndefined()
  })

  it('topic hashes in history equal the live hasher, and a missing topic is left out of the group hash', () => {
    const md = cluster(3)
    const obs = observeTopics(md)
    const h = new TopicHasher(md)
    expect(obs.get('orders')!.hash).toBe(h.topicHash('orders').toString())
    expect(obs.get('orders')!.racks).toEqual(['rack-a', 'rack-b'])
    expect(computeGroupHash(new Map([['orders', BigInt(obs.get('orders')!.hash)]]))).toBe(h.groupHash(['orders', 'nope']))
  })
})
