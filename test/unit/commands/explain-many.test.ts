/**
 * `group explain PATTERN` and `--all`: every matching group explained from one read of each
 * __consumer_offsets partition; JSON list document, NDJSON one report per line, text one report per group;
 * exit 4 when nothing matches, 3 with --fail-on-pending; --literal for an id with * in it; --watch stays single.
 */
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {TopicHasher} from '../../../src/core/hash.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {consumer, T1, settledConsumer} from '../../lib/records.js'
import {captureOutput, ROOT} from '../helpers.js'
import {isGroupPattern} from '../../../src/core/group-filter.js'
import {type FakeCluster, onePartitionCluster} from '../../lib/fake-cluster.js'
import {opening} from '../../lib/commands.js'

function live() {
  return parseMetadataDocument({
    clusterId: 'cid',
    brokers: [{id: 1, rack: 'a'}],
    topics: [{name: 'orders', topicId: T1, partitions: [{partition: 0, replicas: [1]}]}],
  })
}
const settled = (g: string) => settledConsumer(g, 'm1', ['orders'], new TopicHasher(live()).groupHash(['orders']), [[T1, [0]]])
function fakeClient() {
  return onePartitionCluster(live(), [
    ...settled('orders-1'),
    ...settled('orders-2'),
    // orders-2: a second member joined, its target assignment not computed yet (pending)
    consumer.member('orders-2', 'm2', {names: ['orders']}),
    consumer.metadata('orders-2', 2, new TopicHasher(live()).groupHash(['orders'])),
    ...settled('odd*id'),
    ...settled('payments'),
  ])
}

let stdout: string[] = []
let stderr: string[] = []
/** The cluster of this test: every run opens it. */
let fake: FakeCluster
beforeEach(() => {
  fake = fakeClient()
  ;({stdout, stderr} = captureOutput())
  process.exitCode = undefined
})
afterEach(() => {
  vi.restoreAllMocks()
  process.exitCode = undefined
})

async function explain(argv: string[]): Promise<{exitCode: number; error?: Error}> {
  const {default: GroupExplain} = await import('../../../src/commands/group/explain.js')
  let error: Error | undefined
  process.exitCode = undefined
  try {
    await opening(GroupExplain, fake).run([...argv, '-b', 'h:1', '--history-dir', '/nonexistent-rd-history'], ROOT)
  } catch (error_) {
    error = error_ as Error
  }
  const exitCode = (error as {oclif?: {exit?: number}} | undefined)?.oclif?.exit ?? (process.exitCode as number | undefined) ?? 0
  return {exitCode, error}
}

describe('group explain for several groups', () => {
  it('a glob: --json is one group-explain-list document with a report per matching group; the partition read once', async () => {
    const r = await explain(['orders-*', '--json'])
    expect(r.error).toBeUndefined()
    const doc = JSON.parse(stdout.join(''))
    expect(doc.schema).toEqual({name: 'rebalance-doctor/group-explain-list', version: 1})
    expect(Object.keys(doc)).toEqual(['schema', 'pattern', 'all', 'groups', 'warnings'])
    expect(doc.pattern).toBe('orders-*')
    expect(doc.groups.map((g: {group: string}) => g.group)).toEqual(['orders-1', 'orders-2'])
    expect(doc.groups[1]).toMatchObject({verdict: {code: 'ASSIGNMENT_PENDING', pending: true}, timeline: expect.any(Array)})
    expect(doc.groups[0].timeline.length).toBeGreaterThan(0)
    expect(fake.reads).toBe(1)
    expect(r.exitCode).toBe(0)
  })

  it('--fail-on-pending: exit 3 when any matching group is pending; a regex pattern too', async () => {
    expect((await explain(['orders-*', '--json', '--fail-on-pending'])).exitCode).toBe(3)
    stdout.length = 0
    const one = await explain(['/^orders-1$/', '--json', '--fail-on-pending'])
    expect(one.exitCode, stdout.join('')).toBe(0)
  })

  it('--all --ndjson: one group-explain document per line, every group', async () => {
    const r = await explain(['--all', '--ndjson'])
    expect(r.exitCode).toBe(0)
    const lines = stdout
      .join('')
      .trimEnd()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(lines.map(l => [l.schema.name, l.group])).toEqual([
      ['rebalance-doctor/group-explain', 'odd*id'],
      ['rebalance-doctor/group-explain', 'orders-1'],
      ['rebalance-doctor/group-explain', 'orders-2'],
      ['rebalance-doctor/group-explain', 'payments'],
    ])
    expect(Object.keys(lines[0]).at(-1)).toBe('warnings')
  })

  it('text: one report per group, separated, then a count', async () => {
    const r = await explain(['orders-*', '--no-color'])
    expect(r.exitCode).toBe(0)
    const out = stdout.join('')
    expect(out.match(/^verdict: /gm)).toHaveLength(2)
    expect(out.indexOf('orders-1')).toBeLessThan(out.indexOf('orders-2'))
    expect(out).toMatch(/2 groups matched orders-\*; 1 with a rebalance pending or in progress/)
  })

  it('nothing matches: exit 4 and a note; --json still one (empty) list document', async () => {
    const r = await explain(['nomatch*', '--json'])
    expect(r.exitCode).toBe(4)
    expect(JSON.parse(stdout.join('')).groups).toEqual([])
    const t = await explain(['nomatch*'])
    expect(t.exitCode).toBe(4)
    expect(stderr.join('')).toMatch(/no group matches nomatch\*.*--literal/)
  })

  it('--literal: a group id with * in it is explained as one group (its own document)', async () => {
    const r = await explain(['odd*id', '--literal', '--json'])
    expect(r.error).toBeUndefined()
    expect(r.exitCode, stderr.join('')).toBe(0)
    const doc = JSON.parse(stdout.join(''))
    expect(doc.schema).toEqual({name: 'rebalance-doctor/group-explain', version: 1})
    expect(doc.group).toBe('odd*id')
    // without --literal it is a pattern, matching that group too
    stdout.length = 0
    await explain(['odd*id', '--json'])
    expect(JSON.parse(stdout.join('')).groups.map((g: {group: string}) => g.group)).toEqual(['odd*id'])
  })

  it('what is a pattern: * or ? (with [abc] classes then), or /regex/; a [ alone stays literal', () => {
    expect(['orders-*', 'orders-?', 'o[rx]ders-*', '/^orders/i'].map(isGroupPattern)).toEqual([true, true, true, true])
    expect(['orders', 'app[prod]', 'a/b', 'g\u001b[2J'].map(isGroupPattern)).toEqual([false, false, false, false])
  })

  it.each([
    [['orders-*', '--watch', '10s'], /--watch follows one group/],
    [['--all', '--watch', '10s'], /--all is several/],
    [['--all', '--json', '--ndjson'], /choose one/],
    [['orders-1', '--all'], /not both/],
    [[], /give a group id, a pattern/],
    [['orders-1', '--ndjson'], /--ndjson is for several groups/],
  ])('usage errors: %s', async (argv, message) => {
    const r = await explain(argv)
    expect(r.exitCode).toBe(2)
    expect(r.error?.message ?? stdout.join('')).toMatch(message)
  })
})
