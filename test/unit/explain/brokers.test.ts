/** group explain says which brokers are fenced or gone, and which of the group's topics they hold replicas of. */
import {describe, expect, it} from 'vitest'
import {brokerHealth, brokerHealthText} from '../../../src/core/explain/report/brokers.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {T1, T2} from '../../lib/records.js'
import {run} from '../helpers.js'
import {longIdCluster, LONG} from '../../lib/long-ids.js'

const md = parseMetadataDocument({
  clusterId: 'c',
  brokers: [
    {id: 1, rack: 'rack-a'},
    {id: 2, rack: 'rack-a'},
    {id: 3, rack: 'rack-b', fenced: true},
  ],
  topics: [
    {
      name: 'orders',
      topicId: T1,
      partitions: [
        {partition: 0, replicas: [1, 3]},
        {partition: 1, replicas: [4, 2]},
      ],
    },
    {name: 'payments', topicId: T2, partitions: [{partition: 0, replicas: [3]}]},
  ],
})

describe('broker health', () => {
  it("up, fenced with the group's topics on it, unregistered replicas", () => {
    const h = brokerHealth(md, ['orders'])
    expect(h).toEqual({up: [1, 2], fenced: [{id: 3, rack: 'rack-b', topics: ['orders']}], unregistered: [{id: 4, topics: ['orders']}]})
    expect(brokerHealthText(h)).toBe('brokers: 1, 2 up; 3 FENCED (down, rack rack-b; replicas of orders); 4 NOT REGISTERED (replicas of orders)')
    expect(brokerHealthText(brokerHealth(md, ['payments']))).toBe('brokers: 1, 2 up; 3 FENCED (down, rack rack-b; replicas of payments)')
  })

  it('group explain prints it (and --json has it)', async () => {
    const fake = longIdCluster()
    fake.md = {...fake.md, brokers: fake.md.brokers.map(b => (b.id === 3 ? {...b, fenced: true} : b))}
    const r = await run(['group:explain', LONG.drifting, '-b', 'fake:9092', '--history-dir', '/nonexistent/rd-b'], fake)
    expect(r.stdout).toMatch(/^brokers: 1, 2 up; 3 FENCED \(down, rack rack-b; replicas of orders\)$/m)
    const j = await run(['group:explain', LONG.drifting, '-b', 'fake:9092', '--history-dir', '/nonexistent/rd-b', '--json'], fake)
    expect(JSON.parse(j.stdout).brokers).toEqual({up: [1, 2], fenced: [{id: 3, rack: 'rack-b', topics: ['orders']}], unregistered: []})
  })
})
