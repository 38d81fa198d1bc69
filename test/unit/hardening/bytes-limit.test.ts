/** `topic-hash bytes` on a huge topic refuses with a clear message (JSON error under --json). */
import {writeFileSync} from 'node:fs'
import {describe, expect, it, vi} from 'vitest'
import {MAX_BYTES_SEGMENTS} from '../../../src/commands/topic-hash/bytes.js'
import {tempFile} from '../helpers.js'
import {cli} from './cli.js'

// child processes: a hang bound, not a speed check (the machine may be loaded)
vi.setConfig({testTimeout: 300_000})

function topicFile(partitions: number): string {
  const file = tempFile('big.json', '')
  const parts: string[] = []
  for (let i = 0; i < partitions; i++) parts.push(`{"partition":${i},"replicas":[1,2,3]}`)
  writeFileSync(
    file,
    `{"brokers":[{"id":1,"rack":"a"},{"id":2,"rack":"b"},{"id":3,"rack":"c"}],"topics":[{"name":"big","topicId":"AAECAwQFBgcICQoLDA0ODw","partitions":[${parts.join(',')}]}]}`,
  )
  return file
}

describe('topic-hash bytes bound', () => {
  it('a topic over the bound is refused with a message naming the bound (table)', () => {
    const r = cli(['topic-hash', 'bytes', 'big', '-f', topicFile(60_000)])
    expect(r.signal).toBeNull()
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('topic big has 60000 partitions and 180000 replicas')
    expect(r.stderr).toContain('topic-hash compute')
    expect(r.stderr).not.toMatch(/RangeError|\n\s+at /)
  })

  it('a 1,000,000-partition topic under --json: the refusal is the documented JSON error', () => {
    const huge = topicFile(1_000_000)
    const r = cli(['topic-hash', 'bytes', 'big', '-f', huge, '--json'], {heapMb: 1024})
    expect(r.status).toBe(2)
    expect(JSON.parse(r.stdout)).toEqual({
      schema: {name: 'rebalance-doctor/error', version: 1},
      error: {code: 'TOO_MANY_BYTES_TO_SHOW', message: expect.stringContaining('1000000 partitions'), hint: expect.any(String), exitCode: 2},
      warnings: [],
    })
  })

  it('a topic just over the bound is refused, a smaller one shown', () => {
    const over = cli(['topic-hash', 'bytes', 'big', '-f', topicFile(Math.ceil(MAX_BYTES_SEGMENTS / 4)), '--json'])
    expect(over.status).toBe(2)
    expect(JSON.parse(over.stdout).error.code).toBe('TOO_MANY_BYTES_TO_SHOW')
    const r = cli(['topic-hash', 'bytes', 'big', '-f', topicFile(1000), '--json'])
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).segments.length).toBe(6 + 1000 * 4)
  })
})
