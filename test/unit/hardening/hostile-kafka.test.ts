/**
 * Brokers that speak Kafka's protocol but answer one request as no broker should
 * (test/lib/hostile-broker.ts `startHostileKafka`), against the built CLI in a child process. Each run must end
 * with the documented exit code and a one-line error naming the broker (and the partition, for reads), within a
 * small --timeout plus start-up slack — or, for a throttled fetch, complete the read.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {type HostileBroker, PROTOCOL_PROBES, type ProtocolProbe, RECORDS, startHostileKafka} from '../../lib/hostile-broker.js'
import {ROOT} from '../helpers.js'

// child processes: a hang bound, not a speed check (the machine may be loaded)
vi.setConfig({testTimeout: 120_000})

const TIMEOUT_MS = 2000
/** Start-up of the CLI and slack on a loaded machine, beyond --timeout. */
const SLACK_MS = 15_000

interface Run {
  status: number | null
  stdout: string
  stderr: string
  ms: number
}

/** The built CLI, asynchronously: the servers run in this process and must keep answering. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const t0 = Date.now()
  return new Promise((resolve, reject) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REBALANCE_DOCTOR_') && k !== 'DEBUG'))
    const p = spawn(process.execPath, ['--max-old-space-size=1024', join(ROOT, 'bin', 'run.js'), ...args], {
      env: {...clean, NODE_OPTIONS: '', REBALANCE_DOCTOR_HISTORY_DIR: join(dir, 'history'), ...env},
    })
    let stdout = ''
    let stderr = ''
    const kill = setTimeout(() => p.kill('SIGKILL'), TIMEOUT_MS + SLACK_MS + 30_000)
    p.stdout.setEncoding('utf8').on('data', d => (stdout += d))
    p.stderr.setEncoding('utf8').on('data', d => (stderr += d))
    p.on('error', reject)
    p.on('close', status => {
      clearTimeout(kill)
      resolve({status, stdout, stderr, ms: Date.now() - t0})
    })
  })
}

let dir: string
const brokers = new Map<ProtocolProbe, HostileBroker>()

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rd-hostile-kafka-'))
  // 200,000 partitions already overflow the stack as push(...) arguments, and encode 5 times faster than 1,000,000
  for (const p of PROTOCOL_PROBES) brokers.set(p, await startHostileKafka(p, 600_000, {hugePage: 200_000}))
})

afterAll(async () => {
  for (const b of brokers.values()) await b.stop()
  rmSync(dir, {recursive: true, force: true})
})

const at = (p: ProtocolProbe) => brokers.get(p)!.address
const live = (p: ProtocolProbe, ...args: string[]) => [...args, '-b', at(p), '--timeout', String(TIMEOUT_MS)]
/** For a read that must complete: a --timeout that a loaded machine's start-up cannot use up. */
const patient = (p: ProtocolProbe, ...args: string[]) => [...args, '-b', at(p), '--timeout', '20000']
const errorLine = (r: Run) =>
  r.stderr
    .split('\n')
    .find(l => /Error: /.test(l))
    ?.trim() ?? ''

/** Exit 1, one line naming the broker, no stack trace, within --timeout and slack. */
function expectNamedFailure(r: Run, probe: ProtocolProbe, code: RegExp): void {
  expect(r.status, r.stderr).toBe(1)
  expect(errorLine(r)).toContain(at(probe))
  expect(r.stderr).toMatch(/Try this:/)
  expect(/Code:\s*(\S+)/.exec(r.stderr)?.[1]).toMatch(code)
  expect(r.stderr).not.toMatch(/^\s+at /m)
  expect(r.stderr).not.toMatch(/UNEXPECTED|TypeError/)
  expect(r.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS)
}

describe('a Fetch that never advances', () => {
  for (const cmd of [
    ['group', 'records', 'g1'],
    ['audit', '--no-record'],
  ]) {
    it(`${cmd[0]}: fails within --timeout naming the partition and broker, instead of fetching for ever`, async () => {
      const r = await cli(live('fetch-never-advances', ...cmd))
      expectNamedFailure(r, 'fetch-never-advances', /^(INCOMPLETE_READ|TIMEOUT)$/)
      expect(errorLine(r)).toContain('__consumer_offsets-0')
    })
  }
})

describe('empty Fetches below the end offset', () => {
  it('audit: fails naming the partition, not "0 groups · no findings · exit 0"', async () => {
    const r = await cli(live('empty-fetches', 'audit', '--no-record'))
    expectNamedFailure(r, 'empty-fetches', /^(INCOMPLETE_READ|TIMEOUT)$/)
    expect(errorLine(r)).toContain('__consumer_offsets-0')
  })

  it('group explain: fails naming the partition, not NOT_FOUND (exit 4)', async () => {
    const r = await cli(live('empty-fetches', 'group', 'explain', 'g1'))
    expectNamedFailure(r, 'empty-fetches', /^(INCOMPLETE_READ|TIMEOUT)$/)
    expect(r.stdout).not.toContain('NOT_FOUND')
  })
})

describe('throttled Fetches', () => {
  it('group records: the throttle time is waited out and every record is read', async () => {
    const r = await cli(patient('throttled-fetches', 'group', 'records', 'g1', '--json'))
    expect(r.status, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as {records: unknown[]}
    expect(doc.records).toHaveLength(RECORDS)
  })

  it('audit: completes (exit 0), no "failed: NONE"', async () => {
    const r = await cli(patient('throttled-fetches', 'audit', '--no-record'))
    expect(r.stderr).not.toContain('NONE')
    expect(r.status, r.stderr).toBe(0)
  })
})

describe('a FindCoordinator answer without the group', () => {
  it('group list: a named PROTOCOL_ERROR, not "TypeError … reading \'host\'"', async () => {
    const r = await cli(live('coordinator-without-group', 'group', 'list'))
    expectNamedFailure(r, 'coordinator-without-group', /^PROTOCOL_ERROR$/)
    expect(errorLine(r)).toContain('FindCoordinator without group "g1"')
  })
})

describe('DescribeTopicPartitions cursors', () => {
  const dtp = ['cluster', 'snapshot', '--metadata-api', 'describe-topic-partitions']

  it('a cursor that does not move forward: PROTOCOL_ERROR on the second page', async () => {
    const r = await cli(live('endless-cursor', ...dtp))
    expectNamedFailure(r, 'endless-cursor', /^PROTOCOL_ERROR$/)
    expect(errorLine(r)).toContain('(page 2) with a cursor that does not move forward')
  })

  it('a cursor that advances for ever: stops at the response byte bound, not at --timeout with every page kept', async () => {
    const r = await cli(patient('endless-advancing-cursor', ...dtp), {REBALANCE_DOCTOR_MAX_RESPONSE_BYTES: String(256 * 1024)})
    expect(r.status, r.stderr).toBe(1)
    expect(errorLine(r)).toMatch(/answered DescribeTopicPartitions with more than 262144 bytes in \d+ pages \(the cursor does not end\)/)
  })

  it('a page of 200,000 partitions (2,000 asked for): PROTOCOL_ERROR, no stack overflow', async () => {
    const r = await cli(patient('million-partition-page', ...dtp))
    expect(r.status, r.stderr).toBe(1)
    expect(errorLine(r)).toContain('(page 2) with 200000 partitions, more than the 2000 asked for')
    expect(r.stderr).not.toMatch(/call stack/i)
  })
})
