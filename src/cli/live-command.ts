/**
 * The base of every command that reads a live cluster: it owns the connection flags (-b, --command-config,
 * --timeout, --profile: help group CONNECTION, after --debug), opens the cluster for a piece of work with the
 * run's --debug and warnings, and shows a progress spinner meanwhile (stderr, only on a terminal, never under
 * --json). Importing this file does not load the Kafka client.
 */
import type {Command} from '@oclif/core/command'
import type * as Interfaces from '@oclif/core/interfaces'
import {type ArgsOf, BaseCommand} from './base-command.js'
import {connectionFlags} from './connection-flags.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'
import {type ClusterFactory, withKafka} from '../kafka/session.js'
import type {Progress, startProgress} from '../render/progress.js'
import type {Session} from '../operations/session.js'

export type LiveFlagsOf<T extends typeof Command> = Interfaces.InferredFlags<(typeof LiveCommand)['baseFlags'] & T['flags']>

/** What a progress-less piece of work is given: updates go nowhere. */
const SILENT: Progress = {update() {}, stop() {}}

export abstract class LiveCommand<T extends typeof Command> extends BaseCommand<T> {
  static override baseFlags = {
    ...BaseCommand.baseFlags,
    ...connectionFlags,
  }

  /**
   * Opens this command's cluster: undefined for the Kafka client. A subclass that sets it runs the command on
   * another cluster (the unit tests' fake, test/lib/commands.ts), with the flags and session as a user gets them.
   */
  static openCluster: ClusterFactory | undefined = undefined

  declare protected flags: LiveFlagsOf<T>
  declare protected args: ArgsOf<T>

  /** The cluster and the warning and stderr channels, for an operation (src/operations). */
  protected get session(): Session {
    return {withCluster: (work, o) => this.withCluster(work, o), warn: m => void this.warn(m), report: line => this.report(line)}
  }

  /**
   * Runs `work` on the cluster the connection flags name (always closed after). With `progress`, a spinner shows
   * that text until the work ends, unless `quiet` (default: under --json); `work` may update it.
   */
  protected async withCluster<R>(work: (client: ClusterReader, progress: Progress) => Promise<R>, o: {progress?: string; quiet?: boolean} = {}): Promise<R> {
    const progress =
      o.progress === undefined
        ? SILENT
        : await showProgress(o.progress, !(o.quiet ?? this.jsonEnabled()), (this.flags as {'no-color'?: boolean})['no-color'] === true)
    try {
      const {openCluster} = this.constructor as typeof LiveCommand
      return await withKafka(this.flags, {debug: this.flags.debug, warn: m => this.warn(m)}, client => work(client, progress), openCluster)
    } finally {
      progress.stop()
    }
  }
}

/** startProgress, its module loaded by the first piece of work that shows progress (an offline run never does). */
async function showProgress(...args: Parameters<typeof startProgress>): Promise<Progress> {
  return (await import('../render/progress.js')).startProgress(...args)
}
