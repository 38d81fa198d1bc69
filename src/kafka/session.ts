/**
 * Runs a live operation for a command: resolves the connection settings (flags, --command-config, environment),
 * opens the Kafka adapter (loaded here, lazily), runs `work`, always closes. Importing this file does not load
 * the Kafka client, nor the settings' resolver (client.properties, TLS, SASL): an offline run of a command that can
 * also run live (topic-hash compute -f) starts without them.
 */
import {forTerminal} from '../render/terminal.js'
import type {ConnectionSettings} from '../config/client-config.js'
import type {KafkaClientOptions} from './client.js'
import type {ClusterReader} from './cluster-reader.js'

export interface SessionIo {
  /** --debug: redacted progress on stderr. */
  readonly debug?: boolean
  readonly warn?: (message: string) => void
}

/** The connection flags' values (src/cli/connection-flags.ts declares the flags). */
export interface ConnectionFlagValues {
  'bootstrap-server'?: string
  'command-config'?: string
  timeout?: number
  profile?: string
}

/** True when the flags ask for a live cluster (a bootstrap server or a command config was given). */
export function wantsLive(flags: ConnectionFlagValues): boolean {
  return Boolean(flags['bootstrap-server'] || flags['command-config'] || flags.profile)
}

/** Opens a cluster for a command: the Kafka client by default; a test passes one that opens a fake cluster. */
export type ClusterFactory = (settings: ConnectionSettings, options: KafkaClientOptions) => Promise<ClusterReader & {close(): Promise<void>}>

/** `open` opens the cluster (default: the Kafka client, loaded on this first use). */
export async function withKafka<T>(flags: ConnectionFlagValues, io: SessionIo, work: (client: ClusterReader) => Promise<T>, open?: ClusterFactory): Promise<T> {
  const [{describeSettings, resolveConnectionSettings}, {loadProfile}] = await Promise.all([
    import('../config/client-config.js'),
    import('../config/profiles.js'),
  ])
  // flag (or its environment variable, which oclif folds into it) > profile
  const profile = flags.profile ? await loadProfile(flags.profile) : undefined
  const settings = resolveConnectionSettings({
    bootstrapServer: flags['bootstrap-server'] ?? profile?.bootstrapServer,
    commandConfig: flags['command-config'] ?? profile?.commandConfig,
    timeoutMs: flags.timeout ?? profile?.timeoutMs,
  })
  const warn = io.warn ?? (m => process.stderr.write(`Warning: ${forTerminal(m)}\n`))
  for (const w of settings.warnings ?? []) warn(w)
  const debug = io.debug ? (line: string) => process.stderr.write(`[debug] ${forTerminal(line)}\n`) : undefined
  debug?.(`connection settings: ${describeSettings(settings)}`)
  open ??= await loadClient(debug)
  // Timed from here: the deadline (--timeout) starts when the client opens.
  const t0 = performance.now()
  let client: (ClusterReader & {close(): Promise<void>}) | undefined
  try {
    client = await open(settings, {debug, warn})
    return await work(client)
  } catch (error) {
    debug?.(`live operation failed after ${Math.round(performance.now() - t0)} ms`)
    throw error
  } finally {
    await client?.close()
    debug?.(`live operation took ${Math.round(performance.now() - t0)} ms`)
  }
}

async function loadClient(debug: ((line: string) => void) | undefined): Promise<ClusterFactory> {
  const tLoad = performance.now()
  const {KafkaClient} = await import('./client.js')
  debug?.(`kafka client loaded in ${Math.round(performance.now() - tLoad)} ms`)
  return (settings, options) => KafkaClient.open(settings, options)
}
