/**
 * topic-hash compute, topic-hash bytes and impact fit the terminal's columns (COLUMNS here, as ls and git honour
 * it), as audit, group list and group explain do; without a width they keep their natural width.
 */
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {ROOT, run, tempFile} from '../helpers.js'

const SEGMENTS = [0, 3, 4].map(p => join(ROOT, `test/unit/records/fixtures/kafka-4.4.0/__consumer_offsets-${p}.segment`))
const topic = (name: string, id: string) => ({
  name,
  topicId: id,
  partitions: [
    {partition: 0, replicas: [1, 2, 3]},
    {partition: 1, replicas: [2, 3, 1]},
  ],
})
const md = tempFile('md-width.json', {
  brokers: [
    {id: 1, rack: 'eu-west-1a-rack-with-a-long-name'},
    {id: 2, rack: 'eu-west-1b-rack-with-a-long-name'},
    {id: 3, rack: 'eu-west-1c-rack-with-a-long-name'},
  ],
  topics: [
    topic('rdamx367dop-orders', 'AAAAAAAAAAAAAAAAAAAAAQ'),
    topic('rdamx367dop-payments', 'AAAAAAAAAAAAAAAAAAAAAg'),
    topic('rdamx368yrt-orders', 'AAAAAAAAAAAAAAAAAAAAAw'),
  ],
})

const COMMANDS: Array<[string, string[]]> = [
  ['topic-hash compute', ['topic-hash:compute', '-f', md]],
  ['topic-hash bytes', ['topic-hash:bytes', 'rdamx367dop-orders', '-f', md]],
  [
    'impact',
    [
      'impact',
      '--metadata-file',
      md,
      ...SEGMENTS.flatMap(s => ['--offsets-segment', s]),
      '--delete-topic',
      'rdamx367dop-payments',
      '--broker-rack',
      '1=x',
      '--all',
    ],
  ],
]
const widest = (text: string) => Math.max(...text.split('\n').map(l => [...l].length))
const saved = process.env.COLUMNS

afterEach(() => {
  if (saved === undefined) delete process.env.COLUMNS
  else process.env.COLUMNS = saved
})

describe('80 columns', () => {
  it.each(COMMANDS)('%s: every line within 80 columns (wider than 80 without a width)', async (_, args) => {
    delete process.env.COLUMNS
    const natural = await run(args)
    expect(natural.error).toBeUndefined()
    expect(widest(natural.stdout)).toBeGreaterThan(80)
    process.env.COLUMNS = '80'
    const fitted = await run(args)
    expect(fitted.error).toBeUndefined()
    expect(widest(fitted.stdout)).toBeLessThanOrEqual(80)
  })
})

describe('help texts in 80 columns', () => {
  it('every summary, the description of the tool and every example (after "  $ ") fit in 80 columns', async () => {
    const {configFromSource} = await import('../helpers.js')
    const config = await configFromSource()
    expect(config.pjson.description?.length).toBeLessThanOrEqual(80)
    for (const c of config.commands.filter(c => c.pluginName === config.name)) {
      expect((c.summary ?? '').length, c.id).toBeLessThanOrEqual(80)
      for (const e of c.examples ?? []) {
        const text = (typeof e === 'string' ? e : e.command)
          .replaceAll('<%= config.bin %>', config.bin)
          .replaceAll('<%= command.id %>', c.id.replaceAll(':', ' '))
        expect(`  $ ${text}`.length, text).toBeLessThanOrEqual(80)
      }
    }
  })
})
