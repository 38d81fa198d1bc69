/**
 * Damaged metadata-log directories: a changed byte (CRC-32C), a damaged batch length
 * mid-segment, a gap between segments or within one, an undecodable record, another topic's directory, and files
 * that are not regular files. Damage ends what is claimed exact at its offset, in text and JSON; a directory or
 * file that is not a metadata log is a usage error naming it (exit 2), in bounded time.
 */
import {mkdirSync, mkdtempSync, symlinkSync, writeFileSync} from 'node:fs'
import {execFileSync} from 'node:child_process'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {encodeBatch} from '../../../src/core/metadata-log/batch-writer.js'
import {attributeDrift, attributeFromLog} from '../../../src/core/metadata-log/attribute.js'
import {computeGroupHash} from '../../../src/core/hash.js'
import * as metadataLog from '../../../src/sources/metadata-log.js'
import {run} from '../helpers.js'
import {cli} from './cli.js'
import {brokerRegistration, partitionChange, partitionRecord as part, topicRecord as topic} from '../../lib/metadata-records.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {cluster, hashOf} from '../../lib/fixtures.js'
import {T1, settledConsumer} from '../../lib/records.js'

const ORDERS = 'AAECAwQFBgcICQoLDA0ODw'
const PAYMENTS = 'EBESExQVFhcYGRobHB0eHw'
const T = Date.parse('2026-11-30T14:00:00Z')
const reg = (id: number, rack: string) => brokerRegistration(id, rack, {fenced: false})
const change = (id: string, p: number, replicas: number[]) => partitionChange(id, p, {Replicas: replicas, Isr: replicas})

/**
 * Two segments: 0-8 (brokers, topic orders) and 9-12 (a rack change at 9, topic payments at 10-11, a reassignment
 * of orders at 12). `seg1` gives the batches of the second segment, to damage one of them.
 */
function segments(): {seg0: Buffer[]; seg1: Buffer[]} {
  return {
    seg0: [
      encodeBatch(0n, T, [reg(1, 'rack-a'), reg(2, 'rack-a'), reg(3, 'rack-b')]),
      encodeBatch(3n, T + 1000, [topic('orders', ORDERS), part(ORDERS, 0, [1, 2]), part(ORDERS, 1, [2, 3])]),
      encodeBatch(6n, T + 2000, [part(ORDERS, 2, [3, 1]), part(ORDERS, 3, [1, 2]), part(ORDERS, 4, [2, 3])]),
    ],
    seg1: [
      encodeBatch(9n, T + 3000, [reg(3, 'rack-c')]),
      encodeBatch(10n, T + 4000, [topic('payments', PAYMENTS), part(PAYMENTS, 0, [1])]),
      encodeBatch(12n, T + 5000, [change(ORDERS, 0, [2, 3])]),
    ],
  }
}

function write(seg0: Buffer[], seg1: Buffer[], name1 = '00000000000000000009.log'): string {
  const dir = mkdtempSync(join(tmpdir(), 'rd-mdlog-damage-'))
  writeFileSync(join(dir, '00000000000000000000.log'), Buffer.concat(seg0))
  writeFileSync(join(dir, name1), Buffer.concat(seg1))
  return dir
}

const {replayMetadataLog} = metadataLog
const descriptions = (r: Awaited<ReturnType<typeof replayMetadataLog>>) => r.replay.changes.filter(c => c.movesHash).map(c => `${c.offset}`)

describe('metadata log damage ends exact history at its offset', () => {
  it('healthy: both segments read to offset 12, no damage', async () => {
    const {seg0, seg1} = segments()
    const r = await replayMetadataLog(write(seg0, seg1))
    expect(r.damage).toBeNull()
    expect(r.replay.lastOffset).toBe(12n)
  })

  it('a byte changed in a RegisterBrokerRecord (CRC-32C mismatch): not history; exact to offset 8, damage named with file and byte', async () => {
    const {seg0, seg1} = segments()
    const i = seg1[0].indexOf('rack-c')
    seg1[0][i + 5] = 'X'.charCodeAt(0) // rack-c -> rack-X, the CRC left as it was
    const dir = write(seg0, seg1)
    const r = await replayMetadataLog(dir)
    expect(r.replay.lastOffset).toBe(8n)
    expect(r.replay.image.toClusterMetadata().brokers.find(b => b.id === 3)?.rack).toBe('rack-b')
    expect(r.damage).toMatchObject({file: join(dir, '00000000000000000009.log'), byte: 0, offset: '9'})
    expect(r.damage!.reason).toMatch(/^record batch at offset 9 is corrupt: stored CRC-32C 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}$/)

    const json = await run(['cluster:history', '--metadata-log', dir, '--json'])
    expect(json.exitCode).toBe(0)
    const doc = JSON.parse(json.stdout)
    expect(doc.changes.map((c: {description: string}) => c.description).join('\n')).not.toContain('rack-X')
    expect(doc.source).toMatchObject({lastOffset: '8', damage: {offset: '9', byte: 0}})
    expect(doc.warnings[0]).toMatch(/^metadata log damaged at offset 9 \(.*00000000000000000009\.log byte 0: record batch at offset 9 is corrupt/)
    const text = await run(['cluster:history', '--metadata-log', dir])
    expect(text.stdout.split('\n')[0]).toMatch(/exact history from offset 0 \(.*\) to 8 \(/)
    expect(text.stdout.split('\n')[1]).toMatch(
      /^DAMAGED at offset 9: .*00000000000000000009\.log byte 0: record batch at offset 9 is corrupt: .*Exact history ends at offset 8; nothing after it was read\.$/,
    )
    expect(text.stdout).not.toContain('rack-X')
  })

  it('a damaged batch length in the middle of a segment that another follows: damage, not a tolerated partial tail', async () => {
    const {seg0, seg1} = segments()
    seg0[1].writeInt32BE(seg0[1].readInt32BE(8) + 10_000, 8) // claims more than the segment holds
    const dir = write(seg0, seg1)
    const r = await replayMetadataLog(dir, {trackTopics: new Set(['orders'])})
    expect(r.replay.lastOffset).toBe(2n)
    expect(r.replay.image.topicsByName.has('orders')).toBe(false)
    expect(r.damage).toMatchObject({file: join(dir, '00000000000000000000.log'), byte: seg0[0].length, offset: '3'})
    expect(r.damage!.reason).toMatch(/not a complete batch .*segment 00000000000000000009\.log follows/)
    // the reassignment of orders at offset 12 is not reported as history
    expect(descriptions(r)).toEqual(['0', '1', '2'])
    const hash = await run(['topic-hash:compute', 'orders', '--metadata-log', dir])
    expect(hash.exitCode).toBe(2)
    expect(hash.error?.message).toMatch(
      /^the metadata log is damaged at offset 3 \(.*00000000000000000000\.log byte \d+: .*\), before its end: its state is exact up to offset 2/,
    )
    expect((hash.error as {code?: string}).code).toBe('METADATA_LOG_CORRUPT')
    expect((await run(['topic-hash:compute', '--metadata-log', dir, '--at', '2', '--json'])).exitCode).toBe(0)
  })

  it('a batch length that cannot be (less than a header, or over the bound) mid-segment: damage at that byte', async () => {
    for (const len of [10, 0x7fff_fff0]) {
      const {seg0, seg1} = segments()
      seg1[1].writeInt32BE(len, 8)
      const dir = write(seg0, seg1)
      const r = await replayMetadataLog(dir)
      expect(r.replay.lastOffset, `length ${len}`).toBe(9n)
      expect(r.damage, `length ${len}`).toMatchObject({byte: seg1[0].length, offset: '10'})
      expect(r.damage!.reason).toContain(`claims length ${len}`)
    }
  })

  it('in the last segment, an incomplete last batch is reported in text and JSON, and history ends before it', async () => {
    const {seg0, seg1} = segments()
    const dir = write(seg0, [seg1[0], seg1[1], seg1[2].subarray(0, 40)])
    const r = await replayMetadataLog(dir)
    expect(r.damage).toBeNull()
    expect(r.partialTail).toEqual({file: join(dir, '00000000000000000009.log'), byte: seg1[0].length + seg1[1].length, bytes: 40})
    expect(r.replay.lastOffset).toBe(11n)
    const text = await run(['cluster:history', '--metadata-log', dir])
    expect(text.stdout).toMatch(
      /\nincomplete last batch: .*00000000000000000009\.log, 40 bytes from byte \d+ \(a file being written when copied, or damage\): not read\./,
    )
    // (oclif wraps warnings at the terminal width)
    expect(text.stderr.replace(/\s*›\s*/g, ' ')).toMatch(/the last 40 bytes \(from byte \d+\) are not a complete batch/)
  })

  it('offsets missing between segments (a gap): exact history ends before the gap', async () => {
    const {seg0, seg1} = segments()
    // the second segment starts at 12: offsets 9 to 11 are not in the log
    const dir = write(seg0, [seg1[2]], '00000000000000000012.log')
    const r = await replayMetadataLog(dir)
    expect(r.replay.lastOffset).toBe(8n)
    expect(r.damage).toMatchObject({
      file: join(dir, '00000000000000000012.log'),
      byte: 0,
      offset: '9',
      reason: 'offsets 9 to 11 are missing: this segment starts at 12',
    })
    const text = await run(['cluster:history', '--metadata-log', dir])
    expect(text.stdout).toContain('DAMAGED at offset 9')
    expect(text.stdout).not.toContain('[1,2] → [2,3]')
  })

  it('offsets missing within a segment: the same', async () => {
    const {seg0, seg1} = segments()
    const dir = write(seg0, [seg1[0], seg1[2]])
    const r = await replayMetadataLog(dir)
    expect(r.replay.lastOffset).toBe(9n)
    expect(r.damage).toMatchObject({byte: seg1[0].length, offset: '10', reason: 'offsets 10 to 11 are missing: the batch there starts at 12'})
  })

  it('an undecodable record (CRC intact): exact history ends before it, shown in text too', async () => {
    const {seg0, seg1} = segments()
    seg1[1] = encodeBatch(10n, T + 4000, [topic('payments', PAYMENTS).slice(0, 6), part(PAYMENTS, 0, [1])])
    const dir = write(seg0, seg1)
    const r = await replayMetadataLog(dir)
    expect(r.replay.lastOffset).toBe(9n)
    expect(r.damage).toMatchObject({offset: '10', byte: seg1[0].length})
    expect(r.damage!.reason).toMatch(/^a record does not decode: /)
    const text = await run(['cluster:history', '--metadata-log', dir])
    expect(text.stdout.split('\n')[1]).toMatch(/^DAMAGED at offset 10: .* byte \d+: a record does not decode: /)
  })

  it('attribution: no bump after the damage and no drift is exact; a bump well before it still is', async () => {
    const {seg0, seg1} = segments()
    seg1[0][seg1[0].indexOf('rack-c') + 5] ^= 1
    const r = await replayMetadataLog(write(seg0, seg1), {trackTopics: new Set(['orders'])})
    const view = metadataLog.metadataLogView(r)
    const seq = r.replay.hashes.get('orders')!
    const group = (p: {hash: bigint}) => computeGroupHash(new Map([['orders', p.hash]]))
    const bump = {topicsBefore: ['orders'], topicsAfter: ['orders'], previousHash: group(seq[0]), hash: group(seq[1]), timestamp: T + 10_000}
    // the same bump on the log without its damage is exact: only the damage makes it inferred
    expect(attributeFromLog({...view, damage: null}, bump).exact).toBe(true)
    const late = attributeFromLog(view, bump)
    expect(late).toMatchObject({exact: false})
    expect(late.message).toMatch(
      /^the metadata log is damaged at offset 9 \(.* byte 0: record batch at offset 9 is corrupt.*\): exact history ends at 2026-11-30T14:00:02/,
    )
    expect(attributeDrift({...view, damage: null}, ['orders'], group(seq[0]), group(seq[1]), T + 60_000).exact).toBe(true)
    expect(attributeDrift(view, ['orders'], group(seq[0]), group(seq[1]), T + 60_000)).toMatchObject({exact: false})
  })
})

describe('a directory that is not a metadata log, and files that are not regular files', () => {
  it('a __consumer_offsets-0 directory, and a renamed copy of one: usage error, exit 2, naming it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'rd-mdlog-wrong-'))
    const offsets = join(parent, '__consumer_offsets-0')
    mkdirSync(offsets)
    // an offset commit: a keyed record, as every __consumer_offsets data record is
    const keyed = encodeBatch(0n, T, [[new Uint8Array([0, 1, 0, 1, 0x67]), new Uint8Array([0, 3, 0, 0])]])
    writeFileSync(join(offsets, '00000000000000000000.log'), keyed)
    for (const dir of [offsets, join(parent, 'copy')]) {
      if (dir.endsWith('copy')) {
        mkdirSync(dir)
        writeFileSync(join(dir, '00000000000000000000.log'), keyed)
      }
      const hash = await run(['topic-hash:compute', '--metadata-log', dir])
      expect(hash.exitCode, dir).toBe(2)
      expect(hash.error?.message, dir).toMatch(new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a KRaft metadata log: `))
      expect((hash.error as {code?: string}).code).toBe('NO_METADATA_LOG')
      expect((await run(['cluster:history', '--metadata-log', dir])).exitCode).toBe(2)
    }
  })

  it('a FIFO, a directory, a dangling symlink or a symlink loop named *.log: exit 2 naming the file, in bounded time', () => {
    const cases: Array<[string, (p: string) => void, RegExp]> = [
      ['fifo', p => execFileSync('mkfifo', [p]), /is not a regular file \(a named pipe\)/],
      ['dir', p => mkdirSync(p), /is not a regular file \(a directory\)/],
      ['dangling', p => symlinkSync(join(p, '..', 'nowhere'), p), /cannot be read: a symbolic link to nothing/],
      ['loop', p => symlinkSync(p, p), /cannot be read: a symbolic link loop/],
    ]
    for (const [what, make, message] of cases) {
      const {seg0} = segments()
      const dir = mkdtempSync(join(tmpdir(), `rd-mdlog-odd-${what}-`))
      writeFileSync(join(dir, '00000000000000000000.log'), Buffer.concat(seg0))
      const odd = join(dir, '00000000000000000009.log')
      make(odd)
      for (const args of [
        ['cluster', 'history', '--metadata-log', dir],
        ['topic-hash', 'compute', '--metadata-log', dir],
      ]) {
        const r = cli(args, {timeoutMs: 30_000})
        expect(r.signal, `${what} ${args[0]}: ${r.stderr}`).toBeNull()
        expect(r.status, `${what} ${args[0]}: ${r.stderr}`).toBe(2)
        expect(r.stderr).toContain(odd)
        expect(r.stderr).toMatch(message)
        expect(r.stderr).toContain('Try this:')
        expect(r.stderr).not.toContain('UNEXPECTED')
      }
    }
  }, 240_000)
})

describe('audit and group explain with a damaged metadata log say so, in text and JSON', () => {
  function damagedDir(): string {
    const {seg0, seg1} = segments()
    seg1[0][seg1[0].indexOf('rack-c') + 5] ^= 1
    return write(seg0, seg1)
  }

  function fakeWithGroup(): FakeCluster {
    const fake = new FakeCluster(cluster())
    const h = hashOf(fake.md, ['orders'])
    fake.write('g1', settledConsumer('g1', 'm1', ['orders'], h, [[T1, [0, 1, 2]]]))
    return fake
  }

  it('group explain --metadata-log: a warning naming the damage on stderr and in --json (metadataLog.damage)', async () => {
    const dir = damagedDir()
    const hist = mkdtempSync(join(tmpdir(), 'rd-live-'))
    const text = await run(['group:explain', 'g1', '-b', 'fake:9092', '--history-dir', hist, '--metadata-log', dir], fakeWithGroup())
    expect(text.exitCode, text.stderr).toBe(0)
    expect(text.stderr.replace(/\s*›\s*/g, ' ')).toMatch(
      /metadata log damaged at offset 9 \(.*00000000000000000009\.log byte 0: record batch at offset 9 is corrupt.*\): exact history ends at offset 8/,
    )
    const json = await run(['group:explain', 'g1', '-b', 'fake:9092', '--history-dir', hist, '--metadata-log', dir, '--json'], fakeWithGroup())
    const doc = JSON.parse(json.stdout)
    expect(doc.metadataLog).toMatchObject({lastOffset: '8', damage: {offset: '9', byte: 0}})
    expect(doc.warnings.join('\n')).toMatch(/metadata log damaged at offset 9/)
  })

  it('audit --metadata-log: the same warning; a __consumer_offsets-0 directory is a usage error before connecting', async () => {
    const dir = damagedDir()
    const hist = mkdtempSync(join(tmpdir(), 'rd-live-'))
    const json = await run(['audit', '-b', 'fake:9092', '--history-dir', hist, '--metadata-log', dir, '--json'], fakeWithGroup())
    const doc = JSON.parse(json.stdout)
    expect(JSON.stringify(doc.warnings)).toMatch(/metadata log damaged at offset 9/)
    const parent = mkdtempSync(join(tmpdir(), 'rd-mdlog-wrong-'))
    const offsets = join(parent, '__consumer_offsets-0')
    mkdirSync(offsets)
    writeFileSync(join(offsets, '00000000000000000000.log'), encodeBatch(0n, T, [[new Uint8Array([0, 1, 0, 1, 0x67]), new Uint8Array([0, 3, 0, 0])]]))
    const wrong = await run(['audit', '-b', '127.0.0.1:1', '--timeout', '60000', '--metadata-log', offsets])
    expect(wrong.exitCode).toBe(2)
    expect(wrong.error?.message).toContain(`${offsets} is not a KRaft metadata log: it is a partition directory of __consumer_offsets`)
  })
})
