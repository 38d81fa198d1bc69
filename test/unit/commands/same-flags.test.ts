/** The same command line everywhere: --no-color, -o and --json on every command that prints; --group as the argument. */
import {describe, expect, it} from 'vitest'
import {LONG, longIdCluster} from '../../lib/long-ids.js'
import {configFromSource, run} from '../helpers.js'

describe('the same flags on every command that prints', () => {
  it('--no-color, -o json|yaml|table and --json on each (cluster snapshot keeps -o FILE)', async () => {
    const config = await configFromSource()
    const printing = config.commands.filter(c => !c.id.startsWith('completion') && !c.hidden && c.pluginName === config.name)
    expect(printing.map(c => c.id).sort()).toEqual([
      'audit',
      'cluster:history',
      'cluster:metadata-log',
      'cluster:snapshot',
      'group:explain',
      'group:list',
      'group:records',
      'impact',
      'topic-hash:bytes',
      'topic-hash:compute',
    ])
    for (const c of printing) {
      expect(Object.keys(c.flags), c.id).toContain('no-color')
      expect(Object.keys(c.flags), c.id).toContain('json')
      if (c.id !== 'cluster:snapshot') expect((c.flags.output as {options?: string[]} | undefined)?.options, c.id).toEqual(['table', 'json', 'yaml'])
      // -f is the metadata file wherever it exists
      const f = Object.entries(c.flags).find(([, v]) => v.char === 'f')
      if (f) expect(f[0], c.id).toBe('metadata-file')
    }
  })

  it('group explain --group G is the positional G (kafka-consumer-groups habits)', async () => {
    const fake = longIdCluster()
    const positional = await run(['group:explain', LONG.drifting, '-b', 'fake:9092', '--history-dir', '/nonexistent/rd-g', '--json'], fake)
    const flag = await run(['group:explain', '--group', LONG.drifting, '-b', 'fake:9092', '--history-dir', '/nonexistent/rd-g', '--json'], fake)
    expect(flag.exitCode).toBe(positional.exitCode)
    const strip = (s: string) => ({...JSON.parse(s), generatedAt: undefined})
    expect(JSON.parse(flag.stdout).group).toBe(LONG.drifting)
    expect(strip(flag.stdout).verdict).toEqual(strip(positional.stdout).verdict)
  })

  it('group explain G --group H is a usage error; --group with --all a conflict', async () => {
    expect((await run(['group:explain', 'a', '--group', 'b', '-b', 'h:1'])).exitCode).toBe(2)
    const r = await run(['group:explain', '--group', 'b', '--all', '-b', 'h:1'])
    expect(r.error).toMatchObject({code: 'FLAG_CONFLICT'})
  })
})
