/**
 * LiveCommand owns the connection flags, opens the cluster for a piece of work (always closed after) and shows
 * progress only where it may: every command that reads a cluster goes through it.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {LiveCommand} from '../../../src/cli/live-command.js'
import type {ClusterReader} from '../../../src/kafka/cluster-reader.js'
import type {ClusterFactory} from '../../../src/kafka/session.js'
import {ROOT} from '../helpers.js'
import {opening} from '../../lib/commands.js'

const CONNECTION = ['bootstrap-server', 'command-config', 'timeout', 'profile']

function commandFiles(dir = join(ROOT, 'src', 'commands')): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap(e =>
    e.isDirectory() ? commandFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

describe('live commands', () => {
  it('every command with the connection flags is a LiveCommand, and none opens the cluster or a spinner itself', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, {flags: Record<string, {helpGroup?: string}>}>
    }
    const live = Object.entries(manifest.commands)
      .filter(([, c]) => 'bootstrap-server' in c.flags)
      .map(([id]) => id)
      .sort()
    expect(live).toEqual([
      'audit',
      'cluster:metadata-log',
      'cluster:snapshot',
      'group:explain',
      'group:list',
      'group:records',
      'impact',
      'topic-hash:bytes',
      'topic-hash:compute',
    ])
    for (const id of live) for (const f of CONNECTION) expect(manifest.commands[id].flags[f]?.helpGroup, `${id} --${f}`).toBe('CONNECTION')
    for (const file of commandFiles()) {
      const src = readFileSync(file, 'utf8')
      const rel = file.slice(ROOT.length + 1)
      // completion-values is no command a user runs: it reads the connection flags of the line being completed
      if (rel.endsWith('completion-values.ts')) continue
      expect(src, rel).not.toMatch(/\bwithKafka\b|\bstartProgress\b|\bconnectionFlags\b/)
      if (/\bthis\.withCluster\b/.test(src)) expect(src, rel).toMatch(/extends LiveCommand</)
    }
  })
})

describe('LiveCommand.withCluster', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  class Probe extends LiveCommand<typeof Probe> {
    static override flags = {}
    static work: (client: ClusterReader, progress: {update(t: string): void}) => Promise<unknown> = async () => 'ok'
    async run(): Promise<unknown> {
      return this.withCluster((client, progress) => Probe.work(client, progress), {progress: 'probing'})
    }
  }

  function fake() {
    const closed: number[] = []
    const cluster = {clusterAddress: 'fake:1', close: async () => void closed.push(1)} as unknown as ClusterReader & {close(): Promise<void>}
    const open: ClusterFactory = async settings => {
      expect(settings.bootstrap).toEqual([{host: 'fake', port: 1}])
      return cluster
    }
    return {cluster, closed, probe: opening(Probe, open)}
  }

  it('opens the cluster the flags name, gives the work a progress handle, closes it after', async () => {
    const {cluster, closed, probe} = fake()
    Probe.work = async (client, progress) => {
      expect(client).toBe(cluster)
      progress.update('half way')
      return 'done'
    }
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    await expect(probe.run(['-b', 'fake:1', '--timeout', '5s'], {root: ROOT})).resolves.toBe('done')
    expect(closed).toEqual([1])
    // not a terminal here: no spinner frames on stderr
    expect(stderr.mock.calls.map(c => String(c[0])).join('')).not.toMatch(/probing|half way/)
  })

  it("closes the cluster when the work fails, and the failure is the command's", async () => {
    const {closed, probe} = fake()
    Probe.work = async () => {
      throw new Error('boom')
    }
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    await expect(probe.run(['-b', 'fake:1'], {root: ROOT})).rejects.toThrow(/boom/)
    expect(closed).toEqual([1])
    process.exitCode = undefined
  })
})
