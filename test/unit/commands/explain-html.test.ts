/**
 * `group explain GROUP --html FILE` on a fake cluster: the page written atomically beside the text report (a note
 * says where), `-` for stdout instead of the text; one group only: a pattern, --all or --watch is a usage error
 * naming --html.
 */
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {TopicHasher} from '../../../src/core/hash.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {opening} from '../../lib/commands.js'
import {type FakeCluster, onePartitionCluster} from '../../lib/fake-cluster.js'
import {consumer, settledConsumer, T1} from '../../lib/records.js'
import {captureOutput, ROOT} from '../helpers.js'

const live = () =>
  parseMetadataDocument({
    clusterId: 'cid',
    brokers: [{id: 1, rack: 'a'}],
    topics: [{name: 'orders', topicId: T1, partitions: [0, 1].map(partition => ({partition, replicas: [1]}))}],
  })
const hash = () => new TopicHasher(live()).groupHash(['orders'])

let stdout: string[] = []
let stderr: string[] = []
let fake: FakeCluster
let dir: string
beforeEach(() => {
  fake = onePartitionCluster(live(), [
    ...settledConsumer('orders-1', 'm1', ['orders'], hash(), [[T1, [0, 1]]]),
    consumer.member('orders-1', 'm2', {names: ['orders']}),
    consumer.metadata('orders-1', 2, hash()),
  ])
  ;({stdout, stderr} = captureOutput())
  dir = mkdtempSync(join(tmpdir(), 'rd-html-'))
  process.exitCode = undefined
})
afterEach(() => {
  vi.restoreAllMocks()
  rmSync(dir, {recursive: true, force: true})
  process.exitCode = undefined
})

async function explain(argv: string[]): Promise<{exitCode: number; error?: Error}> {
  const {default: GroupExplain} = await import('../../../src/commands/group/explain.js')
  let error: Error | undefined
  try {
    await opening(GroupExplain, fake).run([...argv, '-b', 'h:1', '--history-dir', '/nonexistent-rd-history'], ROOT)
  } catch (error_) {
    error = error_ as Error
  }
  return {exitCode: (error as {oclif?: {exit?: number}} | undefined)?.oclif?.exit ?? (process.exitCode as number | undefined) ?? 0, error}
}

describe('group explain --html', () => {
  it('writes the page (replacing the file whole) and still prints the text report', async () => {
    const file = join(dir, 'orders-1.html')
    writeFileSync(file, 'old')
    const r = await explain(['orders-1', '--html', file])
    expect(r.error).toBeUndefined()
    const html = readFileSync(file, 'utf8')
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true)
    expect(html).toContain('<h1>Group <code>orders-1</code></h1>')
    expect(html.match(/<g class="lane">/g)).toHaveLength(1)
    expect(html.match(/<g class="bump">/g)).toHaveLength(2)
    expect(readdirSync(dir)).toEqual(['orders-1.html'])
    expect(stderr.join('')).toContain(`wrote the timeline of orders-1 (2 bumps, ${Buffer.byteLength(html)} bytes) to ${file}`)
    expect(stdout.join('')).toMatch(/^group orders-1 \(consumer\), group epoch 2/)
  })

  it('--html -: the page on stdout, without the text report', async () => {
    const r = await explain(['orders-1', '--html', '-'])
    expect(r.error).toBeUndefined()
    const out = stdout.join('')
    expect(out.startsWith('<!DOCTYPE html>')).toBe(true)
    expect(out.trimEnd().endsWith('</html>')).toBe(true)
  })

  it('a group with no record: the page says there is no timeline, exit 4 as without --html', async () => {
    const file = join(dir, 'nope.html')
    const r = await explain(['nope', '--html', file])
    expect(r.exitCode).toBe(4)
    const html = readFileSync(file, 'utf8')
    expect(html).toContain('No timeline: no record of the group was read')
    expect(html).not.toContain('<svg class="timeline"')
  })

  it('a directory that does not exist: an error naming the file, nothing written', async () => {
    const file = join(dir, 'missing', 'x.html')
    const r = await explain(['orders-1', '--html', file])
    expect(r.error?.message).toContain(`could not write ${file}`)
    expect(existsSync(file)).toBe(false)
  })

  it.each([
    [['orders-*', '--html', 'x.html'], /--html draws one group; "orders-\*" is several/],
    [['--all', '--html', 'x.html'], /--html/],
    [['orders-1', '--watch', '10s', '--html', 'x.html'], /--html/],
    [['orders-1', '--json', '--html', '-'], /--json and --html -/],
  ])('usage errors: %s', async (argv, message) => {
    const r = await explain(argv)
    expect(r.exitCode).toBe(2)
    expect(r.error?.message ?? stdout.join('')).toMatch(message)
    expect(existsSync('x.html')).toBe(false)
  })
})
