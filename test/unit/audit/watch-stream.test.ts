/**
 * audit --watch through the long-id fake cluster: it says what it watches after its first pass (stderr), and a
 * member stuck reconciling appears in the stream once (a stuck member writes no record: no bump shows it).
 * @slow: each case watches for 6 s of wall time (its first pass must finish on a loaded machine)
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {run} from '../helpers.js'
import {LONG, longIdCluster} from '../../lib/long-ids.js'

async function watch(...extra: string[]) {
  const timer = setTimeout(() => process.emit('SIGTERM', 'SIGTERM'), 6000)
  try {
    return await run(['audit', '-b', 'fake:9092', '--no-record', '--watch', '300ms', ...extra], longIdCluster())
  } finally {
    clearTimeout(timer)
  }
}

describe('audit --watch stream', () => {
  it('text: what it watches on stderr once; the stuck member once on stdout, though every pass finds it', async () => {
    const r = await watch('--history-dir', mkdtempSync(join(tmpdir(), 'rd-watch-')))
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr.match(/^watching 2 groups of cluster test-cluster-id every 300ms: /gm)).toHaveLength(1)
    const stuck = r.stdout.split('\n').filter(l => l.includes(' stuck: '))
    expect(stuck).toHaveLength(1)
    expect(stuck[0]).toMatch(
      new RegExp(
        `^\\S+Z ${LONG.stuck} \\(consumer\\) member ${LONG.memberA} \\(client ${LONG.clientA} on /10.0.0.1\\) stuck: UNREVOKED_PARTITIONS since \\S+ \\(longer than \\d+ s\\), blocks ${LONG.memberB}$`,
      ),
    )
  }, 30_000)

  it('--ndjson: a rebalance-doctor/stuck-member document', async () => {
    const r = await watch('--ndjson')
    const docs = r.stdout
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l))
    const stuck = docs.filter(d => d.schema.name === 'rebalance-doctor/stuck-member')
    expect(stuck).toHaveLength(1)
    expect(stuck[0]).toMatchObject({
      schema: {name: 'rebalance-doctor/stuck-member', version: 1},
      clusterId: 'test-cluster-id',
      group: LONG.stuck,
      type: 'consumer',
      memberId: LONG.memberA,
      clientId: LONG.clientA,
      state: 'UNREVOKED_PARTITIONS',
      blocking: [LONG.memberB],
      warnings: [],
    })
  }, 30_000)
})
