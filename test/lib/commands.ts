/**
 * Commands run on a cluster of the test's choosing: a live command's cluster is opened by its class's
 * `openCluster` (src/cli/live-command.ts), so a test runs a subclass that opens the fake one. Through oclif as a
 * user runs it (`loadOptionsOpening`: every command the run loads opens the test's cluster) or called directly
 * (`opening`). Nothing is left in place after the run: the next run opens what it is given.
 */
import type {Command, Config, Interfaces} from '@oclif/core'
import type {ClusterReader} from '../../src/kafka/cluster-reader.js'
import type {ClusterFactory} from '../../src/kafka/session.js'

/** What a test hands a run: a cluster (opened as is, never closed by the run) or a factory. */
export type ClusterSource = (ClusterReader & {close(): Promise<void>}) | ClusterFactory

export function factoryOf(source: ClusterSource): ClusterFactory {
  return typeof source === 'function' ? source : async () => source
}

/** `command` opening `source`'s cluster; a command that reads no cluster is returned as it is. */
export function opening<C extends Command.Class>(command: C, source: ClusterSource): C {
  if (!('openCluster' in command)) return command
  const open = factoryOf(source)
  const base = command as unknown as new (...args: never[]) => object
  return class extends base {
    static openCluster = open
  } as unknown as C
}

/**
 * oclif load options for one run from `config`'s plugins, where each command of the root plugin (this package)
 * opens `source`'s cluster. The plugins are wrapped, not changed: the config serves other runs unchanged.
 */
export function loadOptionsOpening(config: Config, source: ClusterSource): Interfaces.LoadOptions {
  const own = config.getPluginsList().find(p => p.isRoot)
  if (!own) throw new Error('oclif found no root plugin')
  const wrapped: Interfaces.Plugin = Object.create(own)
  const findCommand = async (id: string, opts?: {must?: boolean}) => {
    const c = await own.findCommand(id, opts as {must: true})
    return c && opening(c, source)
  }
  Object.defineProperties(wrapped, {
    findCommand: {value: findCommand},
    // each command's load() calls its plugin's findCommand: the wrapper's here
    commands: {value: own.commands.map(c => ({...c, load: () => findCommand(c.id, {must: true})}))},
  })
  const plugins = new Map(config.getPluginsList().map(p => [p.name, p === own ? wrapped : p]))
  return {...config.options, plugins}
}
