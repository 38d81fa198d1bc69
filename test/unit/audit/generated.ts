/** Generated `__consumer_offsets` logs of many groups of every type, as record batches (audit tests). */
import type {LogBatch} from '../../../src/core/log/batch.js'
import {encodeRecord, type RecordToEncode} from '../../../src/core/records/index.js'
import {classic, consumer, share, streams, T1, T2, T3} from '../../lib/records.js'
import {cluster, hashOf} from '../../lib/fixtures.js'

type Raw = {key: Uint8Array; value: Uint8Array | null}

function rng(seed: number) {
  let s = seed >>> 0
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    return s / 2 ** 32
  }
  return {next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]}
}

/** An unknown record type (99) keyed by group id: replay skips and reports it. */
function unknownRecord(g: string): Raw {
  const id = new TextEncoder().encode(g)
  return {key: Uint8Array.from([0, 99, 0, id.length, ...id]), value: Uint8Array.from([0, 0, 1, 2])}
}

const enc = (r: RecordToEncode): Raw => encodeRecord(r)

/** Writes (lists of records) of `groups` groups, interleaved; each group's writes keep their order. */
export function generate(seed: number, groups = 10, steps = 60): Raw[][] {
  const r = rng(seed)
  const live = cluster(3, 2)
  const hashes = [
    hashOf(live, ['orders']),
    hashOf(live, ['orders', 'payments']),
    hashOf(cluster(2, 2), ['orders']),
    hashOf(cluster(3, 2, 'rack-z'), ['orders', 'payments']),
    0n,
    12345n,
  ]
  const topicSets = [['orders'], ['orders', 'payments'], ['orders', 'gone']]
  const ids = [T1, T2, T3]
  const racks = [null, 'rack-a', 'rack-z']
  const queues: Raw[][][] = []
  for (let i = 0; i < groups; i++) {
    const g = `g-${seed}-${i}`
    const kind = r.pick(['consumer', 'consumer', 'consumer', 'share', 'streams', 'classic'] as const)
    const q: Raw[][] = []
    let epoch = 0
    const members: string[] = []
    let nextMember = 0
    const tps = (k: number): [string, number[]][] => [[r.pick(ids), [k % 3]]]
    for (let s = 0; s < steps; s++) {
      const ev = r.int(10)
      if (kind === 'classic') {
        if (ev < 8)
          q.push([
            enc(
              classic.group(
                g,
                ++epoch,
                Array.from({length: 1 + r.int(3)}, (_, k) => `c${k}`),
              ),
            ),
          ])
        else if (ev === 8) q.push([enc(classic.tombstone(g))])
        else q.push([enc(consumer.offsetCommit(g, 'orders', r.int(3), BigInt(s)))])
        continue
      }
      if (kind === 'share') {
        if (ev < 4 || members.length === 0) {
          const m = `s${nextMember++}`
          members.push(m)
          q.push([
            enc(share.member(g, m, r.pick(topicSets))),
            enc(share.metadata(g, ++epoch, r.pick(hashes))),
            ...members.map((x, k) => enc(share.target(g, x, tps(k)))),
            ...(r.next() < 0.7 ? [enc(share.targetMetadata(g, epoch))] : []),
          ])
        } else if (ev < 7) q.push([enc(share.current(g, r.pick(members), epoch - r.int(2), tps(0)))])
        else if (ev < 9) q.push([enc(share.metadata(g, ++epoch, r.pick(hashes)))])
        else q.push([enc(share.targetMetadata(g, epoch))])
        continue
      }
      if (kind === 'streams') {
        if (ev < 4 || epoch === 0)
          q.push([
            enc(streams.member(g, `t${nextMember++}`, 1)),
            enc(streams.topology(g, 1, r.pick(topicSets))),
            enc(streams.metadata(g, ++epoch, r.pick(hashes))),
            ...(r.next() < 0.6 ? [enc(streams.targetMetadata(g, epoch))] : []),
          ])
        else if (ev < 8) q.push([enc(streams.metadata(g, ++epoch, r.pick(hashes)))])
        else if (ev === 8) q.push([unknownRecord(g)])
        else q.push([enc(streams.targetMetadata(g, epoch))])
        continue
      }
      // consumer
      if (ev < 3 || members.length === 0) {
        const m = `m${nextMember++}`
        members.push(m)
        q.push([
          enc(consumer.member(g, m, {names: r.pick(topicSets), rack: r.pick(racks), instanceId: r.next() < 0.3 ? `i${r.int(3)}` : null})),
          enc(consumer.metadata(g, ++epoch, r.pick(hashes))),
          ...members.map((x, k) => enc(consumer.target(g, x, tps(k)))),
          ...(r.next() < 0.75 ? [enc(consumer.targetMetadata(g, epoch))] : []),
        ])
      } else if (ev === 3) {
        const m = members.splice(r.int(members.length), 1)[0]
        q.push([
          enc(consumer.memberTombstone(g, m)),
          enc(consumer.targetTombstone(g, m)),
          enc(consumer.currentTombstone(g, m)),
          enc(consumer.metadata(g, ++epoch, r.pick(hashes))),
        ])
      } else if (ev === 4) {
        q.push([enc(consumer.current(g, r.pick(members), Math.max(1, epoch - r.int(3)), tps(1)))])
      } else if (ev === 5) {
        // a hash recomputation, maybe with the assignment in the same write
        q.push([enc(consumer.metadata(g, ++epoch, r.pick(hashes))), ...(r.next() < 0.5 ? [enc(consumer.targetMetadata(g, epoch))] : [])])
      } else if (ev === 6) {
        q.push(Array.from({length: 1 + r.int(4)}, (_, k) => enc(consumer.offsetCommit(g, 'orders', k, BigInt(s)))))
      } else if (ev === 7) {
        q.push([enc(consumer.targetMetadata(g, epoch))])
      } else if (ev === 8 && r.next() < 0.3) {
        // deleted: every member and the group tombstoned (a later join re-creates it)
        q.push([
          ...members.flatMap(m => [enc(consumer.memberTombstone(g, m)), enc(consumer.targetTombstone(g, m)), enc(consumer.currentTombstone(g, m))]),
          enc(consumer.metadataTombstone(g)),
        ])
        members.length = 0
      } else if (ev === 9 && r.next() < 0.2) {
        q.push([unknownRecord(g)])
      } else {
        // the same epoch again (no bump), and a member's regex
        q.push([
          enc(consumer.member(g, r.pick(members), {names: r.pick(topicSets), rack: r.pick(racks)})),
          enc(consumer.metadata(g, Math.max(1, epoch), r.pick(hashes))),
        ])
      }
    }
    queues.push(q)
  }
  // interleave: each step takes the next write of a random group that has one
  const out: Raw[][] = []
  const pos = queues.map(() => 0)
  for (;;) {
    const open = queues.map((_q, i) => i).filter(i => pos[i] < queues[i].length)
    if (open.length === 0) return out
    const i = r.pick(open)
    out.push(queues[i][pos[i]++])
  }
}

/** Batches: one to three consecutive writes each (several groups' writes can share a batch and a timestamp). */
export function batches(writes: Raw[][], seed: number): LogBatch[] {
  const r = rng(seed * 7 + 1)
  const out: LogBatch[] = []
  let offset = 0n
  let time = 1_700_000_000_000
  for (let i = 0; i < writes.length; ) {
    const n = 1 + r.int(3)
    time += r.next() < 0.2 ? 1 : 60_000 + r.int(600_000)
    const base = offset
    const records = writes
      .slice(i, i + n)
      .flat()
      .map(w => ({offset: offset++, timestamp: BigInt(time), key: w.key, value: w.value, headers: []}))
    i += n
    out.push({baseOffset: base, lastOffset: offset - 1n, producerId: -1n, isTransactional: false, isControl: false, records} as unknown as LogBatch)
  }
  return out
}
