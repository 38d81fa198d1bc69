import {describe, expect, it} from 'vitest'
import {xxh64} from '@node-rs/xxhash'
import {auditContext, auditGroup, type GroupAudit, isDeleted, summarize} from '../../../src/core/audit/audit.js'
import {factsOf, StoredRow} from '../../../src/core/audit/stored-row.js'
import {noCost} from '../../../src/core/audit/cost.js'
import {
  checkpointMisfit,
  decodeCheckpoint,
  decodeGroupData,
  encodeCheckpoint,
  encodeGroupData,
  stateText,
  firstBatchMisfit,
  type PartitionCheckpoint,
  readMisfit,
  resumeOffset,
} from '../../../src/core/audit/checkpoint.js'
import {auditDocument} from '../../../src/core/audit/output.js'
import {PartitionScan} from '../../../src/core/audit/scan.js'
import type {LogBatch} from '../../../src/core/log/batch.js'
import {cluster} from '../../lib/fixtures.js'
import {batches, generate} from './generated.js'
import {jsonPieces, writeInChunks} from '../../../src/render/json-stream.js'
import {hasUnsafeControl, terminalSafeJson} from '../../../src/render/terminal.js'

/** A checkpoint of partition 0 of cluster `c` holding `groups`: the fields no test here varies at their usual values. */
function checkpointHolding(groups: PartitionCheckpoint['groups'], o: Partial<PartitionCheckpoint> = {}): PartitionCheckpoint {
  return {
    clusterId: 'c',
    partition: 0,
    keepEpochs: 3,
    nextOffset: 10n,
    logStartOffset: 0n,
    lastBatch: null,
    counters: {recordsScanned: 0, offsetCommitsSkipped: 0, decodeErrors: 0, batches: 0},
    rowsKey: 'k',
    groups,
    ...o,
  }
}

const md = cluster(3, 2)

/** The file with its first line's checksum made to fit its lines (to test what the checksum would otherwise catch first). */
function resum(file: string): string {
  const nl = file.indexOf('\n')
  const {xxh64: _, ...first} = JSON.parse(file.slice(0, nl))
  const fields = JSON.stringify(first)
  return `${JSON.stringify({...first, xxh64: xxh64(Buffer.from(`${fields}${file.slice(nl)}`)).toString()})}${file.slice(nl)}`
}

/** A cacheable audit row (in sync, nobody reconciling). */
function sampleRow(group: string): GroupAudit {
  return {
    group,
    type: 'consumer',
    verdict: {code: 'IN_SYNC', message: 'in sync', pending: false} as GroupAudit['verdict'],
    groupEpoch: 3,
    assignmentEpoch: 3,
    storedMetadataHash: '-12',
    liveMetadataHash: '-12',
    inSync: true,
    drift: [],
    topics: ['t', 'u\u0085'],
    missingTopics: ['u\u0085'],
    members: 1,
    membersReconciling: 0,
    stuckMembers: [],
    stuckAfter: {ms: 1000, source: 'flag'} as GroupAudit['stuckAfter'],
    assignmentPending: false,
    unknownRecords: 0,
    reassignments: [],
    lastEpochTime: '2026-12-01T00:00:00.000Z',
    findings: ['missing-topics'],
    cost: noCost('no-bump'),
  }
}

/** Written as the two texts of the files and read back. */
function roundTrip(cp: PartitionCheckpoint) {
  const {header, states} = encodeCheckpoint(cp, 'gen-1')
  return decodeCheckpoint(Buffer.concat(header), () => states!)
}
/** A header file's text from its pieces. */
const text = (pieces: Uint8Array[]) => Buffer.concat(pieces).toString()
const header = (cp: PartitionCheckpoint) => text(encodeCheckpoint(cp, 'gen-1').header)
/** A header file's JSON lines, parsed (a cached row's line up to the tab before its row's text). */
const lines = (file: string | Uint8Array[]) =>
  (typeof file === 'string' ? file : text(file))
    .trimEnd()
    .split('\n')
    .map(l => JSON.parse(l.split('\t')[0]))
/** Every group's state as text (the second file read): comparable with toEqual. */
/** A decoded checkpoint with every group's state text read (a failed decode as it is). */
function resolved(cp: PartitionCheckpoint): PartitionCheckpoint
function resolved(cp: PartitionCheckpoint | {error: string}): PartitionCheckpoint | {error: string}
function resolved(cp: PartitionCheckpoint | {error: string}): PartitionCheckpoint | {error: string} {
  return 'error' in cp
    ? cp
    : {...cp, groups: cp.groups.map(([id, g]) => [id, {data: stateText(id, g), row: g.row}] as [string, PartitionCheckpoint['groups'][number][1]])}
}

/** The audit JSON document of a finished scan (time and duration fixed: they differ between any two runs). */
function auditJson(scan: PartitionScan, now: number): string {
  const ctx = auditContext(md, now, 10 * 60_000)
  const rows = []
  let deleted = 0
  for (const [id, g] of [...scan.finish()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (isDeleted(g)) deleted++
    else rows.push(auditGroup(id, g, ctx))
  }
  const c = scan.counters
  const summary = summarize(
    rows,
    {partitions: 1, recordsScanned: c.recordsScanned, decodeErrors: c.decodeErrors, durationMs: 0, deletedGroupsSkipped: deleted},
    ['drift'],
    'test-cluster-id',
    now,
  )
  return JSON.stringify(auditDocument(summary, rows))
}

function checkpointOf(scan: PartitionScan, last: LogBatch, nextOffset: bigint): PartitionCheckpoint {
  return {
    clusterId: 'test-cluster-id',
    partition: 0,
    keepEpochs: scan.keepEpochs,
    nextOffset,
    logStartOffset: 0n,
    lastBatch: {baseOffset: last.baseOffset, lastOffset: last.lastOffset, leaderEpoch: 0},
    counters: scan.counters,
    rowsKey: null,
    groups: scan.data(),
  }
}

describe('incremental audit (checkpoint)', () => {
  it('full run = runs resumed from checkpoints (written as text and read back) at any batch, over generated logs', () => {
    let resumed = 0
    for (let seed = 1; seed <= 12; seed++) {
      const bs = batches(generate(seed), seed)
      const now = Number(bs.at(-1)!.records.at(-1)!.timestamp) + 600_000
      const full = new PartitionScan()
      for (const b of bs) full.onBatch(b)
      const expected = auditJson(full, now)
      // two resumes: up to a, then a..b, then the rest (each audit in between, as consecutive runs would)
      const a = 1 + ((seed * 37) % (bs.length - 2))
      const b = a + 1 + ((seed * 11) % (bs.length - a - 1))
      let scan = new PartitionScan()
      let from = 0
      for (const cut of [a, b]) {
        for (const x of bs.slice(from, cut)) scan.onBatch(x)
        auditJson(scan, now) // an audit at the checkpoint finishes every group's pending write
        const cp = roundTrip(checkpointOf(scan, bs[cut - 1], bs[cut].baseOffset))
        if ('error' in cp) throw new Error(cp.error)
        expect(checkpointMisfit(cp, {clusterId: 'test-cluster-id', partition: 0, keepEpochs: 3})).toBeUndefined()
        expect(resumeOffset(cp)).toBe(bs[cut - 1].baseOffset)
        scan = new PartitionScan({}, cp)
        from = cut
        resumed++
      }
      for (const x of bs.slice(from)) scan.onBatch(x)
      expect(auditJson(scan, now), `seed ${seed}`).toBe(expected)
    }
    expect(resumed).toBe(24)
  })

  it('tagged values survive the file: bigints, bytes, Maps, keys starting with $', () => {
    const data = {
      state: {
        groupId: 'g',
        consumer: null,
        share: null,
        streams: null,
        classic: {value: {x: new Uint8Array([1, 2, 255]), $odd: 1n, m: new Map([['k', {TopicId: 'a'}]])}} as never,
        offsets: new Map(),
      },
      skipped: [],
      recent: [],
    }
    const cp: PartitionCheckpoint = {
      clusterId: 'c',
      partition: 3,
      keepEpochs: 3,
      nextOffset: 2n ** 62n,
      logStartOffset: 5n,
      lastBatch: null,
      counters: {recordsScanned: 1, offsetCommitsSkipped: 2, decodeErrors: 3, batches: 4},
      rowsKey: '0.1.0;x',
      groups: [
        ['g', {data: encodeGroupData(data), row: {deleted: true}}],
        ['$h', {data: encodeGroupData({...data, state: {...data.state, groupId: '$h'}}), row: null}],
      ],
    }
    const {header: h, states: written} = encodeCheckpoint(cp, 'gen-1')
    const states = written!
    // the group with a cached entry is kept in the second file, the other in the header
    expect(
      lines(h)
        .slice(1)
        .map((g: unknown[]) => g[2] === null),
    ).toEqual([true, false])
    expect(JSON.parse(states).groups.map((g: unknown[]) => g[0])).toEqual(['g'])
    let reads = 0
    const back = decodeCheckpoint(Buffer.concat(h), () => (reads++, states))
    expect(reads).toBe(0)
    expect(resolved(back)).toEqual({...cp, statesFile: {generation: 'gen-1', bytes: states.length, xxh64: xxh64(Buffer.from(states)).toString()}})
    expect(reads).toBe(1)
    expect(decodeGroupData(stateText('g', (back as PartitionCheckpoint).groups[0][1]), 'g')).toEqual(data)
    // a states file of another write (a crash between the two files), damaged or missing: that group's state throws
    // (and one digit changed: still JSON, same length, same generation; only its checksum tells)
    const digit = states.search(/\$n\\":\\"\d/) + 7
    expect(states[digit]).toMatch(/\d/)
    const flipped = `${states.slice(0, digit)}${states[digit] === '9' ? '8' : String(Number(states[digit]) + 1)}${states.slice(digit + 1)}`
    for (const [what, text] of [
      ['another generation', states.replace('gen-1', 'gen-2')],
      ['damaged', states.slice(0, 20)],
      ['missing', undefined],
      ['a digit changed', flipped],
    ] as const) {
      const cp2 = decodeCheckpoint(Buffer.concat(h), () => {
        if (text === undefined) throw new Error('ENOENT')
        return text
      }) as PartitionCheckpoint
      expect(() => stateText(cp2.groups[0][0], cp2.groups[0][1]), what).toThrow(/states file/)
      expect(stateText(cp2.groups[1][0], cp2.groups[1][1]), what).toBe(cp.groups[1][1].data)
    }
    // a group's text is checked when it is parsed: damaged, or another group's
    expect(() => decodeGroupData('{"state":', 'g')).toThrow(/group "g" is damaged/)
    expect(() => decodeGroupData(encodeGroupData(data), 'other')).toThrow(/group "other" is damaged/)
  })

  it('a changed partition rewrites only its header until the states kept there outgrow half the states file', () => {
    const data = (id: string, n = 0) =>
      encodeGroupData({
        state: {groupId: id, consumer: null, share: null, streams: null, classic: {value: {pad: 'x'.repeat(n)}} as never, offsets: new Map()},
        skipped: [],
        recent: [],
      })
    const entry = {deleted: true} as const
    const base: PartitionCheckpoint = checkpointHolding([
      ['a', {data: data('a', 100_000), row: entry}],
      ['b', {data: data('b'), row: null}],
    ])
    // no states file yet: written, with the cached group
    const first = encodeCheckpoint(base, 'g1')
    expect(JSON.parse(first.states!).groups.map((g: string[]) => g[0])).toEqual(['a'])
    const read = decodeCheckpoint(Buffer.concat(first.header), () => first.states!) as PartitionCheckpoint
    expect(read.statesFile).toEqual({generation: 'g1', bytes: first.states!.length, xxh64: xxh64(Buffer.from(first.states!)).toString()})
    // 'a' not read, 'c' new with an entry (its state small), 'b' changed: header only, naming the same states file
    const next: PartitionCheckpoint = {...read, groups: [read.groups[0], ['b', {data: data('b', 10), row: null}], ['c', {data: data('c', 10), row: entry}]]}
    const second = encodeCheckpoint(next, 'g2')
    expect(second.states).toBeUndefined()
    const h = lines(second.header)
    expect(h[0].statesFile.generation).toBe('g1')
    expect(h.slice(1).map((g: unknown[]) => [g[0], g[1] !== null, g[2] !== null])).toEqual([
      ['a', true, false],
      ['b', false, true],
      ['c', true, true],
    ])
    const back = decodeCheckpoint(Buffer.concat(second.header), () => first.states!) as PartitionCheckpoint
    expect(resolved(back).groups).toEqual(resolved(next).groups)
    // the states in the header outgrow half the states file: a new one, with every cached group
    const big: PartitionCheckpoint = {...read, groups: [read.groups[0], ['c', {data: data('c', 300_000), row: entry}]]}
    const third = encodeCheckpoint(big, 'g3')
    expect(JSON.parse(third.states!).groups.map((g: string[]) => g[0])).toEqual(['a', 'c'])
    expect(
      lines(third.header)
        .slice(1)
        .every((g: unknown[]) => g[2] === null),
    ).toBe(true)
  })

  it('a group read and not changed is written back as the very line read; a changed one is encoded anew', () => {
    const data = (id: string) =>
      encodeGroupData({state: {groupId: id, consumer: null, share: null, streams: null, classic: null, offsets: new Map()}, skipped: [], recent: []})
    const base: PartitionCheckpoint = checkpointHolding([
      ['a', {data: data('a'), row: {deleted: true}}],
      ['b', {data: data('b'), row: {deleted: true}}],
      ['c', {data: data('c'), row: null}],
    ])
    const first = encodeCheckpoint(base, 'g1')
    const read = decodeCheckpoint(Buffer.concat(first.header), () => first.states!) as PartitionCheckpoint
    const firstText = text(first.header)
    expect(read.groups.map(([, g]) => Buffer.from(g.lineIn!.subarray(g.lineStart, g.lineEnd)).toString())).toEqual(
      firstText
        .split('\n')
        .slice(1, 4)
        .map(l => `${l}\n`),
    )
    // a line read is written back verbatim (here: made recognisable), a group whose entry changed is encoded
    const marked: PartitionCheckpoint = {
      ...read,
      nextOffset: 20n,
      groups: [
        ['a', {...read.groups[0][1], lineIn: Buffer.from('["a",{"deleted":true},null]   \n'), lineStart: 0, lineEnd: 31}],
        ['b', {data: read.groups[1][1].data, row: {type: 'consumer', row: sampleRow('b')}}],
        read.groups[2],
      ],
    }
    const again = text(encodeCheckpoint(marked, 'g2').header)
    expect(again.split('\n').slice(1, 4)).toEqual([
      '["a",{"deleted":true},null]   ',
      `["b",${JSON.stringify(factsOf('consumer', sampleRow('b')))},null]\t${JSON.stringify(sampleRow('b'))}`,
      firstText.split('\n')[3],
    ])
    expect(lines(again)[0].nextOffset).toEqual({$n: '20'})
    // a file cut short, or with lines missing, is damaged: the partition is read in full
    expect(decodeCheckpoint(firstText.slice(0, -5), () => first.states!)).toEqual({error: 'damaged (its last line is incomplete)'})
    expect(decodeCheckpoint(firstText.split('\n').slice(0, 3).join('\n') + '\n', () => first.states!)).toEqual({
      error: 'damaged (its checksum does not match its lines)',
    })
    expect(decodeCheckpoint(resum(firstText.split('\n').slice(0, 3).join('\n') + '\n'), () => first.states!)).toEqual({
      error: 'damaged (2 group lines, its first line says 3)',
    })
    // the lines read are adjacent slices of the file: written back as few pieces, not one per group (the first line,
    // a and b as read, c encoded again: a group without a cached entry is rebuilt every run)
    const pieces = encodeCheckpoint(read, 'g3').header
    expect(pieces.length).toBe(3)
    expect(text(pieces)).toBe(firstText)
  })

  it('a cached row is read back as its text, parsed only when needed, and written back as read; its facts and text are checked', () => {
    const row = sampleRow('g\u202e\u0085"x')
    const cp: PartitionCheckpoint = checkpointHolding([
      [row.group, {data: '{}', row: {type: 'consumer', row}}],
      ['d', {data: '{}', row: {deleted: true}}],
    ])
    const {header: h, states} = encodeCheckpoint(cp, 'g1')
    const back = decodeCheckpoint(Buffer.concat(h), () => states!) as PartitionCheckpoint
    const entry = back.groups[0][1].row as {type: string; row: StoredRow}
    expect(entry.type).toBe('consumer')
    expect(entry.row).toBeInstanceOf(StoredRow)
    expect(entry.row.jsonText()).toBe(JSON.stringify(row))
    expect(entry.row.row()).toEqual(row)
    expect(JSON.stringify(entry.row)).toBe(JSON.stringify(row))
    // every fact the audit reads of a row without parsing it
    for (const k of [
      'group',
      'type',
      'groupEpoch',
      'assignmentEpoch',
      'storedMetadataHash',
      'liveMetadataHash',
      'inSync',
      'topics',
      'missingTopics',
      'members',
      'membersReconciling',
      'assignmentPending',
      'unknownRecords',
      'findings',
      'stuckMembers',
      'reassignments',
    ] as const) {
      expect(entry.row[k], k).toEqual(row[k])
    }
    expect(entry.row.verdict.code).toBe(row.verdict.code)
    // written back: the same bytes, also when the line must be made again (compacted into a new states file)
    expect(text(encodeCheckpoint(back, 'g2').header)).toBe(text(h))
    const compacted = encodeCheckpoint({...back, statesFile: null, groups: back.groups.map(([id, g]) => [id, {...g, lineIn: undefined}] as const)}, 'g3')
    expect(text(compacted.header).split('\n').slice(1)).toEqual(text(h).split('\n').slice(1))
    // one byte changed anywhere after the first line: the checksum says so (the row's text goes to --json as read)
    const file = text(h)
    const at = file.indexOf('"members":1') + 11
    expect(decodeCheckpoint(`${file.slice(0, at - 1)}2${file.slice(at)}`, () => states!)).toEqual({error: 'damaged (its checksum does not match its lines)'})
    // with the checksum made to fit: facts of the wrong shape, a text that is not an object, a tab where none belongs
    const tab = file.indexOf('\t')
    expect(decodeCheckpoint(resum(file.replace('"IN_SYNC"', '7')), () => states!)).toEqual({
      error: `damaged (the cached row of group ${JSON.stringify(row.group)} is of the wrong shape)`,
    })
    expect(decodeCheckpoint(resum(file.replace('["missing-topics"]', '["nonsense"]')), () => states!)).toHaveProperty('error')
    expect(decodeCheckpoint(resum(`${file.slice(0, tab + 1)}[${file.slice(tab + 2)}`), () => states!)).toHaveProperty('error')
    expect(decodeCheckpoint(resum(`${file.slice(0, tab)}${file.slice(file.indexOf('\n', tab))}`), () => states!)).toHaveProperty('error')
    expect(decodeCheckpoint(resum(file.replace('["d",{"deleted":true},null]', '["d",{"deleted":true},null]\t{}')), () => states!)).toHaveProperty('error')
    expect(decodeCheckpoint(resum(file), () => states!)).not.toHaveProperty('error')
  })

  it('the values rows repeat are kept once per file (shared, frozen): the facts read equal the facts written', () => {
    const rows = ['a', 'b', 'c'].map(g => sampleRow(g))
    rows[2] = {...rows[2], findings: [], missingTopics: ['["t","u\u0085"]']}
    const cp: PartitionCheckpoint = checkpointHolding(rows.map(r => [r.group, {data: '{}', row: {type: 'consumer', row: r}}] as const))
    const {header: h, states} = encodeCheckpoint(cp, 'g1')
    const [a, b, c] = (decodeCheckpoint(Buffer.concat(h), () => states!) as PartitionCheckpoint).groups.map(([, g]) => (g.row as {row: StoredRow}).row)
    for (const [i, r] of [a, b, c].entries()) expect(r.facts).toEqual(factsOf('consumer', rows[i]))
    expect(a.topics).toBe(b.topics)
    expect(a.missingTopics).toBe(b.missingTopics)
    expect(a.storedMetadataHash).toBe(c.storedMetadataHash)
    expect(c.findings).toEqual([])
    expect(c.findings).toBe(b.reassignments)
    // a one-element list whose element reads as another list's JSON is not taken for that list
    expect(c.missingTopics).toEqual(['["t","u\u0085"]'])
    expect(c.topics).toEqual(['t', 'u\u0085'])
    expect(Object.isFrozen(a.topics) && Object.isFrozen(c.findings)).toBe(true)
    expect(() => (a.topics as string[]).push('x')).toThrow()
    expect(b.topics).toEqual(rows[1].topics)
  })

  it("a cached row's bytes go to --json as read only when they are printable ASCII (else its text, made terminal-safe)", () => {
    const plain: GroupAudit = {...sampleRow('plain-group'), topics: ['t'], missingTopics: [], findings: []}
    const odd = sampleRow('g\u202e\u0085"é')
    const cp: PartitionCheckpoint = checkpointHolding([
      [plain.group, {data: '{}', row: {type: 'consumer', row: plain}}],
      [odd.group, {data: '{}', row: {type: 'consumer', row: odd}}],
    ])
    const {header: h, states} = encodeCheckpoint(cp, 'g1')
    const rowsOf = (file: string) =>
      (decodeCheckpoint(resum(file), () => states!) as PartitionCheckpoint).groups.map(([, g]) => (g.row as {row: StoredRow}).row)
    const [a, b] = rowsOf(text(h))
    expect(Buffer.from(a.jsonBytes()!).toString()).toBe(JSON.stringify(plain))
    expect(b.jsonBytes()).toBeUndefined()
    // a control character the file should not hold (JSON.stringify escapes C0; DEL it leaves raw) is never passed on as bytes
    for (const c of ['\x7f', '\x1b', '\x00']) {
      const [damaged] = rowsOf(text(h).replace('"verdict":', `"verdict${c}":`))
      expect(damaged.jsonBytes(), JSON.stringify(c)).toBeUndefined()
    }
    const doc = {groups: [a, b], n: 1}
    const out: Uint8Array[] = []
    writeInChunks(jsonPieces(doc), parts => out.push(...parts), terminalSafeJson, 64)
    const written = Buffer.concat(out).toString()
    expect(written).toBe(terminalSafeJson(JSON.stringify({groups: [plain, odd], n: 1})))
    expect(hasUnsafeControl(written)).toBe(false)
    expect(JSON.parse(written)).toEqual({groups: [plain, odd], n: 1})
  })

  it('the checksum covers the first line too: a bit flipped in a counter is damage, not carried on', () => {
    const cp: PartitionCheckpoint = checkpointHolding([], {nextOffset: 100n, lastBatch: {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 4}, rowsKey: null})
    const none = () => '{}'
    // one bit flipped in a counter (0x30 -> 0x31) is
    // damage (a full read, reported once), not "1 undecodable record(s)" carried into every later run
    const flipped = header(cp).replace('"decodeErrors":0', '"decodeErrors":1')
    expect(flipped).not.toBe(header(cp))
    expect(decodeCheckpoint(flipped, none)).toEqual({error: 'damaged (its checksum does not match its lines)'})
    for (const [from, to] of [
      ['"nextOffset":{"$n":"100"}', '"nextOffset":{"$n":"101"}'],
      ['"keepEpochs":3', '"keepEpochs":2'],
      ['"clusterId":"c"', '"clusterId":"d"'],
    ]) {
      expect(header(cp)).toContain(from)
      expect(decodeCheckpoint(header(cp).replace(from, to), none)).toEqual({error: 'damaged (its checksum does not match its lines)'})
    }
    expect(decodeCheckpoint(header(cp), none)).not.toHaveProperty('error')
  })

  it('misfits: another cluster or keep, log start past it, truncated, last batch changed or gone; damaged files', () => {
    const cp: PartitionCheckpoint = checkpointHolding([], {nextOffset: 100n, lastBatch: {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 4}, rowsKey: null})
    expect(checkpointMisfit(cp, {clusterId: 'other', partition: 0, keepEpochs: 3})).toMatch(/another cluster/)
    expect(checkpointMisfit(cp, {clusterId: 'c', partition: 0, keepEpochs: 5})).toMatch(/keeps 3/)
    expect(firstBatchMisfit(cp, {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 4})).toBeUndefined()
    expect(firstBatchMisfit(cp, {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 5})).toMatch(/diverged/)
    expect(firstBatchMisfit(cp, {baseOffset: 120n, lastOffset: 130n, leaderEpoch: 4})).toMatch(/diverged/)
    const first = {baseOffset: 90n, lastOffset: 99n, leaderEpoch: 4}
    expect(readMisfit(cp, {logStartOffset: 0n, endOffset: 150n, firstBatch: first})).toBeUndefined()
    expect(readMisfit(cp, {logStartOffset: 101n, endOffset: 150n, firstBatch: first})).toMatch(/moved past/)
    expect(readMisfit(cp, {logStartOffset: 0n, endOffset: 95n, firstBatch: first})).toMatch(/truncated/)
    expect(readMisfit(cp, {logStartOffset: 0n, endOffset: 100n, firstBatch: undefined})).toMatch(/gone/)
    const none = () => '{}'
    expect(decodeCheckpoint('{', none)).toHaveProperty('error')
    expect(decodeCheckpoint('{"schema":"x"}', none)).toHaveProperty('error')
    expect(decodeCheckpoint(`${JSON.stringify({schema: 'rebalance-doctor/audit-checkpoint-v6', clusterId: 'c', groups: 0})}\n`, none)).toHaveProperty('error')
    // the last versions' files are not read: a full read, reported (v4's checksum did not cover its first line; v5's
    // group states carry no cost fold state, so resumed rows could not have their costs)
    for (const v of ['v2', 'v3', 'v4', 'v5'])
      expect(decodeCheckpoint(`${JSON.stringify({schema: `rebalance-doctor/audit-checkpoint-${v}`, groups: []})}\n`, none)).toEqual({
        error: 'not a rebalance-doctor/audit-checkpoint-v6 file',
      })
    expect(decodeCheckpoint(JSON.stringify({schema: 'rebalance-doctor/audit-checkpoint-v2', groups: []}), none)).toEqual({
      error: 'damaged (its last line is incomplete)',
    })
    expect(roundTrip({...cp, groups: [['g', {data: '{}', row: null}]]})).not.toHaveProperty('error')
    expect(decodeCheckpoint(resum(header({...cp, groups: [['g', {data: '{}', row: null}]]}).replace('null,"{}"', 'null,{}')), none)).toEqual({
      error: 'damaged (a group line of the wrong shape)',
    })
    expect(decodeCheckpoint(resum(header({...cp, groups: [['g', {data: '{}', row: null}]]}).replace('null,"{}"', '"{}","{}"')), none)).toEqual({
      error: 'damaged (a group line of the wrong shape)',
    })
    expect(decodeCheckpoint(resum(header({...cp, groups: [['g', {data: '{}', row: null}]]}).replace('null,"{}"', '{"deleted":false},"{}"')), none)).toEqual({
      error: 'damaged (a group line of the wrong shape)',
    })
    expect(decodeCheckpoint(header(cp).replace('"100"', '"1x"'), none)).toHaveProperty('error')
  })
})
