import {existsSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {type Command, Config} from '@oclif/core'
import {runCommand} from '@oclif/test'
import {vi} from 'vitest'
import {type ClusterSource, loadOptionsOpening} from '../lib/commands.js'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

let srcConfig: Promise<Config> | undefined

/**
 * oclif's Config for this package whose own commands load from `src/commands/*.ts` (through vitest's transform),
 * not from the compiled dist/: a command test exercises the source beside it, without a build. The manifest
 * (flags, help) still comes from oclif.manifest.json; test/unit/manifest.test.ts keeps it equal to the source.
 */
export function configFromSource(): Promise<Config> {
  srcConfig ??= (async () => {
    const config = await Config.load({root: ROOT})
    const own = config.getPluginsList().find(p => p.isRoot)
    if (!own) throw new Error('oclif found no root plugin')
    const fromDist = own.findCommand.bind(own)
    own.findCommand = (async (id: string, opts?: {must?: boolean}) => {
      const file = join(ROOT, 'src', 'commands', ...id.split(':')) + '.ts'
      if (!existsSync(file)) return fromDist(id, opts as {must: true})
      const command = (await import(file)).default as Command.Class
      command.id = id
      command.plugin = own
      return command
    }) as typeof own.findCommand
    return config
  })()
  return srcConfig
}

/**
 * Runs a command through oclif as a user would (colon id), capturing output, error and exit code. A live command
 * opens `cluster` (a fake, test/lib/fake-cluster.ts); without it, the Kafka client.
 */
export async function run(args: string[], cluster?: ClusterSource) {
  process.exitCode = undefined
  const config = await configFromSource()
  const r = await runCommand(args, cluster ? loadOptionsOpening(config, cluster) : config)
  const exitCode = (r.error as {oclif?: {exit?: number}} | undefined)?.oclif?.exit ?? (process.exitCode as number | undefined) ?? 0
  process.exitCode = undefined
  return {...r, exitCode}
}

export function tempFile(name: string, content: string | object): string {
  const dir = mkdtempSync(join(tmpdir(), 'rd-test-'))
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

/** The worked example of hash-spec.md. */
export const WORKED = {
  brokers: [
    {id: 1, rack: 'rack-a'},
    {id: 2, rack: 'rack-a'},
    {id: 3, rack: 'rack-b'},
    {id: 4, rack: null},
  ],
  topics: [
    {
      name: 'orders',
      topicId: 'AAECAwQFBgcICQoLDA0ODw',
      partitions: [
        {partition: 0, replicas: [1, 3]},
        {partition: 1, replicas: [3, 2, 1]},
        {partition: 2, replicas: [4]},
      ],
    },
  ],
}

/**
 * Captures what a command run in-process writes (process.stdout/stderr and console), from now until
 * vi.restoreAllMocks(); the arrays fill as it writes. Call it in beforeEach.
 */
export function captureOutput(): {stdout: string[]; stderr: string[]} {
  const out = {stdout: [] as string[], stderr: [] as string[]}
  const text = (c: unknown) => (typeof c === 'string' ? c : c instanceof Uint8Array ? Buffer.from(c).toString() : String(c))
  vi.spyOn(process.stdout, 'write').mockImplementation(((c: unknown) => (out.stdout.push(text(c)), true)) as never)
  vi.spyOn(process.stderr, 'write').mockImplementation(((c: unknown) => (out.stderr.push(text(c)), true)) as never)
  vi.spyOn(console, 'log').mockImplementation(((c: unknown) => void out.stdout.push(text(c))) as never)
  vi.spyOn(console, 'error').mockImplementation(((c: unknown) => void out.stderr.push(text(c))) as never)
  return out
}
