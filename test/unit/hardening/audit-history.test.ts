/**
 * `audit` always writes its output (table, JSON, NDJSON,
 * Prometheus) even when its history cannot be written; the history failure is on stderr, a JSON field and a
 * Prometheus metric, and exits 5 when there is no finding to exit 3. The Prometheus file and
 * `cluster snapshot --output` go through the atomic writer: a full disk fails them and keeps the old file.
 */
import * as fs from 'node:fs'
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {clusterDir} from '../../../src/history/store.js'
import {nodeFileOps} from '../../../src/io/atomic-file.js'
import {T1, settledConsumer} from '../../lib/records.js'
import {captureOutput, ROOT} from '../helpers.js'
import {onePartitionCluster} from '../../lib/fake-cluster.js'
import {opening} from '../../lib/commands.js'
import type {ClusterFactory} from '../../../src/kafka/session.js'

const CID = 'test-cluster-id'
function live() {
  return parseMetadataDocument({
    clusterId: CID,
    brokers: [{id: 1, rack: 'a'}],
    topics: [{name: 'orders', topicId: T1, partitions: [{partition: 0, replicas: [1]}]}],
  })
}
let storedHash = 0n
function fakeClient() {
  const g = 'g1'
  return onePartitionCluster(live(), settledConsumer(g, 'm1', ['orders'], storedHash, [[T1, [0]]]))
}

let stdout: string[] = []
let stderr: string[] = []
beforeEach(async () => {
  const {TopicHasher} = await import('../../../src/core/hash.js')
  storedHash = new TopicHasher(live()).groupHash(['orders'])
  ;({stdout, stderr} = captureOutput())
  process.exitCode = undefined
})
afterEach(() => {
  vi.restoreAllMocks()
  process.exitCode = undefined
})

/** `audit` on the cluster `open` opens (default: one group, built when the run opens it, with the stored hash of that moment). */
async function audit(argv: string[], open: ClusterFactory = async () => fakeClient()): Promise<{exitCode: number; error?: Error}> {
  const {default: Audit} = await import('../../../src/commands/audit.js')
  let error: Error | undefined
  try {
    await opening(Audit, open).run(['-b', 'h:1', ...argv], ROOT)
  } catch (error_) {
    error = error_ as Error
  }
  const exitCode = (error as {oclif?: {exit?: number}} | undefined)?.oclif?.exit ?? (process.exitCode as number | undefined) ?? 0
  return {exitCode, error}
}

const tmp = () => mkdtempSync(join(tmpdir(), 'rd-audit-'))
function unwritableHistory(): string {
  const f = join(tmp(), 'not-a-dir')
  writeFileSync(f, 'x')
  return join(f, 'history') // mkdir fails with ENOTDIR, as root too
}

describe('audit output when history cannot be written', () => {
  it('table: written, the failure on stderr, exit 5', async () => {
    const r = await audit(['--all', '--history-dir', unwritableHistory()])
    expect(r.error).toBeUndefined()
    expect(stdout.join('')).toMatch(/g1\s+│\s+consumer\s+│\s+IN_SYNC/)
    expect(stderr.join('')).toMatch(/history could not be written to .*: a part of the path is not a directory \(ENOTDIR\)/)
    expect(r.exitCode).toBe(5)
  })

  it('--json: the document, with summary.history {recorded: false, error}, exit 5', async () => {
    const r = await audit(['--json', '--history-dir', unwritableHistory()])
    const doc = JSON.parse(stdout.join(''))
    expect(doc.groups.map((g: {group: string}) => g.group)).toEqual(['g1'])
    expect(doc.summary.history).toEqual({recorded: false, dir: expect.any(String), error: expect.stringContaining('ENOTDIR')})
    expect(doc.summary.exitCode).toBe(5)
    expect(r.exitCode).toBe(5)
  })

  it('--ndjson and --prometheus: written, with the history metric', async () => {
    const prom = join(tmp(), 'rd.prom')
    const r = await audit(['--ndjson', '--prometheus', prom, '--history-dir', unwritableHistory()])
    const lines = stdout
      .join('')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(lines.at(-1).history.recorded).toBe(false)
    const text = readFileSync(prom, 'utf8')
    expect(text).toMatch(/^rebalance_doctor_history_write_failed\{cluster_id="test-cluster-id"\} 1$/m)
    expect(text).toMatch(/^rebalance_doctor_audit_exit_code\{cluster_id="test-cluster-id"\} 5$/m)
    expect(r.exitCode).toBe(5)
  })

  it('a lock held by another run: output written after a bounded wait, exit 5', async () => {
    const root = tmp()
    mkdirSync(clusterDir(root, CID), {recursive: true})
    writeFileSync(join(clusterDir(root, CID), '.lock'), 'other-run\n')
    const t0 = Date.now()
    const r = await audit(['--json', '--history-dir', root])
    expect(Date.now() - t0).toBeLessThan(120_000) // a bounded wait (5 s), not a hang; generous for a loaded machine
    const doc = JSON.parse(stdout.join(''))
    expect(doc.summary.history.error).toMatch(/held by another audit/)
    expect(r.exitCode).toBe(5)
  })

  it('findings keep exit 3 (the history failure is still reported)', async () => {
    storedHash = 7n // drift
    const r = await audit(['--json', '--history-dir', unwritableHistory()])
    const doc = JSON.parse(stdout.join(''))
    expect(doc.summary.history.recorded).toBe(false)
    expect(r.exitCode).toBe(3)
  })

  it('history written: recorded true, exit 0, metric 0', async () => {
    const root = tmp()
    const prom = join(tmp(), 'rd.prom')
    const r = await audit(['--json', '--history-dir', root, '--prometheus', prom])
    expect(JSON.parse(stdout.join('')).summary.history).toMatchObject({recorded: true})
    expect(readFileSync(prom, 'utf8')).toMatch(/^rebalance_doctor_history_write_failed\{cluster_id="test-cluster-id"\} 0$/m)
    expect(r.exitCode).toBe(0)
  })
})

describe('atomic writers on a full disk', () => {
  const realWrite = nodeFileOps.writeSync
  afterEach(() => {
    nodeFileOps.writeSync = realWrite
  })
  const fullDisk = () => {
    nodeFileOps.writeSync = (fd, buf, off = 0, len = buf.length - off, pos) =>
      len > 8
        ? fs.writeSync(fd, buf, off, 8, pos)
        : (() => {
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC'})
          })()
  }

  it('--prometheus: the old file stays whole, no temp file, the stdout output is still written', async () => {
    const dir = tmp()
    const prom = join(dir, 'rd.prom')
    writeFileSync(prom, 'old\n')
    fullDisk()
    const r = await audit(['--json', '--no-record', '--prometheus', prom])
    const doc = JSON.parse(stdout.join(''))
    expect(doc.groups).toHaveLength(1)
    expect(doc.summary.prometheus).toEqual({file: prom, written: false, error: 'no space left on the device (ENOSPC)'})
    expect(r.exitCode).toBe(1)
    expect(stderr.join('')).toMatch(/could not write .*rd\.prom: no space left on the device \(ENOSPC\)/)
    expect(readFileSync(prom, 'utf8')).toBe('old\n')
    expect(readdirSync(dir)).toEqual(['rd.prom'])
  })

  it('cluster snapshot --output: exit 1 with a message, the old file stays whole, no temp file', async () => {
    const dir = tmp()
    const out = join(dir, 'cluster.json')
    writeFileSync(out, '{"old": true}\n')
    fullDisk()
    const {default: Snapshot} = await import('../../../src/commands/cluster/snapshot.js')
    const err = await opening(Snapshot, async () => fakeClient())
      .run(['-b', 'h:1', '--output', out], ROOT)
      .then(
        () => undefined,
        (e: Error) => e,
      )
    expect(err?.message).toMatch(/could not write .*cluster\.json: no space left on the device \(ENOSPC\)/)
    expect(readFileSync(out, 'utf8')).toBe('{"old": true}\n')
    expect(readdirSync(dir)).toEqual(['cluster.json'])
  })
})

describe('audit --incremental where no checkpoint can be written (a cron user without a home directory)', () => {
  it('one warning, not one per partition, and the hint names --history-dir', async () => {
    const {FakeCluster} = await import('../../lib/fake-cluster.js')
    const open = async () => {
      const fake = new FakeCluster(live(), {offsetsPartitions: 5})
      fake.write('g1', settledConsumer('g1', 'm1', ['orders'], storedHash, [[T1, [0]]]))
      return fake
    }
    const r = await audit(['--incremental', '--history-dir', unwritableHistory()], open)
    expect(r.error).toBeUndefined()
    // one entry per warning (oclif wraps a warning at 80 columns off a terminal in tests: "\n ›   " joins its pieces)
    const lines = stderr
      .join('')
      .replaceAll('\n ›   ', '')
      .split(/Warning: /)
      .map(l => l.trim())
      .filter(l => l !== '')
    // the checkpoints (under the history directory) failed for the cause the history did: one warning says both
    expect(
      lines.filter(l => /checkpoint|history/.test(l)),
      lines.join('\n'),
    ).toHaveLength(1)
    expect(lines.find(l => /history/.test(l))).toMatch(
      /the audit history could not be written to .*: a part of the path is not a directory \(ENOTDIR\), nor the --incremental checkpoints \(the next run reads every partition in full\)\. .*Try this: --history-dir DIR \(or \$REBALANCE_DOCTOR_HISTORY_DIR\)/,
    )
    expect(r.exitCode).toBe(5)
  })
})
