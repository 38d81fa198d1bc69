/**
 * `impact` offline: real __consumer_offsets segments written by Kafka 4.4.0 (test/unit/records/fixtures) and a
 * metadata file naming their topics; usage errors and exit codes.
 */
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT, run, tempFile} from '../helpers.js'

const SEGMENTS = [0, 3, 4].map(p => join(ROOT, `test/unit/records/fixtures/kafka-4.4.0/__consumer_offsets-${p}.segment`))
const topic = (name: string, id: string) => ({
  name,
  topicId: id,
  partitions: [
    {partition: 0, replicas: [1, 2]},
    {partition: 1, replicas: [2, 3]},
  ],
})
const md = tempFile('md.json', {
  brokers: [
    {id: 1, rack: 'rack-a'},
    {id: 2, rack: 'rack-a'},
    {id: 3, rack: 'rack-b'},
  ],
  topics: [
    topic('rdamx367dop-orders', 'AAAAAAAAAAAAAAAAAAAAAQ'),
    topic('rdamx367dop-payments', 'AAAAAAAAAAAAAAAAAAAAAg'),
    topic('rdamx368yrt-orders', 'AAAAAAAAAAAAAAAAAAAAAw'),
  ],
})
// each segment is its own partition directory for the source (files of one directory are one partition)
const args = (...more: string[]) => ['impact', '--metadata-file', md, ...SEGMENTS.flatMap(s => ['--offsets-segment', s]), ...more]

describe('impact command (offline)', () => {
  it('--json: the documented shape, hashes as strings, only groups on the changed topic', async () => {
    const {stdout, exitCode} = await run(args('--delete-topic', 'rdamx367dop-payments', '--json'))
    expect(exitCode).toBe(0)
    const out = JSON.parse(stdout)
    expect(Object.keys(out)[0]).toBe('schema')
    expect(Object.keys(out).at(-1)).toBe('warnings')
    expect(out).toMatchObject({
      schema: {name: 'rebalance-doctor/impact', version: 1},
      warnings: [],
      changes: ['delete topic rdamx367dop-payments'],
      phases: [{phase: 'topics', transient: false, topics: ['rdamx367dop-payments']}],
    })
    expect(out.summary.groups).toBeGreaterThan(0)
    for (const g of out.groups) {
      expect(g.touchedTopics).toEqual(['rdamx367dop-payments'])
      expect(typeof g.storedMetadataHash).toBe('string')
      for (const s of g.steps) expect(s.metadataHash === null || /^-?\d+$/.test(s.metadataHash)).toBe(true)
    }
  })

  it('--fail-on-rebalance: bare means 0; exit 3 only above N', async () => {
    const base = JSON.parse((await run(args('--broker-rack', '1=rack-z', '--json'))).stdout)
    const n = base.summary.rebalancing as number
    const bare = await run(args('--broker-rack', '1=rack-z', '--fail-on-rebalance'))
    expect(bare.exitCode).toBe(n > 0 ? 3 : 0)
    expect(bare.stdout).toContain(`exit ${n > 0 ? 3 : 0} (--fail-on-rebalance 0)`)
    expect((await run(args('--broker-rack', '1=rack-z', '--fail-on-rebalance', String(n)))).exitCode).toBe(0)
  })

  it('usage errors name the input: no change, a bad spec, an unknown topic', async () => {
    const none = await run(args())
    expect(none.exitCode).toBe(2)
    expect(none.error?.message).toContain('no planned change given')
    const bad = await run(args('--add-partitions', 'orders'))
    expect(bad.exitCode).toBe(2)
    expect(bad.error?.message).toContain('expected TOPIC=N')
    const unknown = await run(args('--delete-topic', 'nope'))
    expect(unknown.exitCode).toBe(2)
    expect(unknown.error?.message).toContain('the cluster has no topic nope')
    const file = await run([
      'impact',
      '--reassignment',
      tempFile('r.json', '{"version":1,"partitions":[{"topic":"t"}]}'),
      '--metadata-file',
      md,
      '--offsets-segment',
      SEGMENTS[0],
    ])
    expect(file.exitCode).toBe(2)
    expect(file.error?.message).toContain('$.partitions[0].partition')
  })
})
