import {describe, expect, it} from 'vitest'
import {RecordWindow} from '../../../src/core/audit/record-window.js'

/** `n` records of `groups` groups, interleaved, a batch of three records each; every 7th a tombstone, sizes varied. */
function records(n: number, groups: number, seed: number) {
  return Array.from({length: n}, (_, i) => ({
    group: `group-${(i * 7 + seed) % groups}`,
    batch: BigInt(1000 + Math.floor(i / 3) * 3),
    offset: BigInt(1000 + i),
    timestamp: 1_700_000_000_000 + i,
    key: Uint8Array.from({length: 4 + (i % 40)}, (_, k) => (i + k + seed) & 0xff),
    value: i % 7 === 0 ? null : Uint8Array.from({length: 1 + ((i * 13) % 300)}, (_, k) => (i * 3 + k + seed) & 0xff),
  }))
}

function fill(w: RecordWindow, rs: ReturnType<typeof records>): void {
  let batch: bigint | undefined
  for (const r of rs) {
    if (r.batch !== batch) w.startBatch((batch = r.batch))
    w.add(r.group, r.offset, r.timestamp, r.key, r.value)
  }
}

type Held = {group: string; batch: bigint; offset: bigint; timestamp: number; key: Uint8Array; value: Uint8Array | null}
const hex = (b: Uint8Array | null) => (b === null ? 'null' : Buffer.from(b).toString('hex'))
/** A record as one line (quick to compare by the thousand). */
const line = (r: Held) => `${r.group} ${r.batch} ${r.offset} ${r.timestamp} ${hex(r.key)} ${hex(r.value)}`

/** The window's records read back group by group. */
function readBack(w: RecordWindow): string[] {
  return w.groups.flatMap((group, n) => {
    const out = []
    for (let i = w.first(n); i >= 0; i = w.next(i))
      out.push(line({group, batch: w.batchBaseOffset(i), offset: w.offset(i), timestamp: w.timestamp(i), key: w.key(i), value: w.value(i)}))
    return out
  })
}

/** The records grouped: each group's in their order, groups in the order of their first record. */
function byGroup(rs: ReturnType<typeof records>): string[] {
  const groups = new Map<string, string[]>()
  for (const r of rs) groups.set(r.group, [...(groups.get(r.group) ?? []), line(r)])
  return [...groups.values()].flat()
}

describe('RecordWindow', () => {
  it("gives back each group's records, bytes and positions, groups in the order of their first record", () => {
    const w = new RecordWindow()
    const rs = records(50, 4, 1)
    fill(w, rs)
    expect(w.groups).toEqual(['group-1', 'group-0', 'group-3', 'group-2'])
    expect(readBack(w)).toEqual(byGroup(rs))
    expect(w.bytes).toBe(rs.reduce((n, r) => n + r.key.length + (r.value?.length ?? 0), 0))
  })

  it('grows past its first buffers, and hands them on when emptied (the next window reads its own records)', () => {
    // (past 4,096 records and 256 KiB)
    const big = records(6_000, 300, 2)
    const a = new RecordWindow()
    fill(a, big)
    expect(a.bytes).toBeGreaterThan(512 * 1024)
    expect(readBack(a)).toEqual(byGroup(big))
    a.clear()
    expect([a.bytes, a.groups]).toEqual([0, []])
    // the next windows take the buffers: each reads its own records
    for (const seed of [3, 4]) {
      const w = seed === 3 ? a : new RecordWindow()
      const small = records(500, 9, seed)
      fill(w, small)
      expect(readBack(w)).toEqual(byGroup(small))
      w.clear()
    }
  })
})
