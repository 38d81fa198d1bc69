/**
 * Runs a live operation for a command: resolves the connection settings (flags, --command-config, environment),
 * opens the Kafka adapter (loaded here, lazily), runs `work`, always closes. Importing this file does not load
 * the Kafka client.
 */
import {describeSettings, resolveConnectionSettings} from '../config/client-config.js'
import {loadProfile} from '../config/profiles.js'
import {forTerminal} from '../render/terminal.js'
import type {KafkaClient} from './client.js'
import type {ConnectionFlagValues} from './flags.js'

export interface SessionIo {
  /** --debug: redacted progress on stderr. */
  readonly debug?: boolean
  readonly warn?: (message: string) => void
}

/** True when the flags ask for a live cluster (a bootstrap server or a command config was given). */
export function wantsLive(flags: ConnectionFlagValues): boolean {
  return Boolean(flags['bootstrap-server'] || flags['command-config'] || flags.profile)
}

export async function withKafka<T>(flags: ConnectionFlagValues, io: SessionIo, work: (client: KafkaClient) => Promise<T>): Promise<T> {
  // flag (or its environment variable, which oclif folds into it) > profile
  const profile = flags.profile ? await loadProfile(flags.profile) : undefined
  const settings = resolveConnectionSettings({
    bootstrapServer: flags['bootstrap-server'] ?? profile?.bootstrapServer,
    commandConfig: flags['command-config'] ?? profile?.commandConfig,
    timeoutMs: flags.timeout ?? profile?.timeoutMs,
  })
  const debug = io.debug ? (line: string) => process.stderr.write(`[debug] ${forTerminal(line)}\n`) : undefined
  debug?.(`connection settings: ${describeSettings(settings)}`)
  const tLoad = performance.now()
  const [{KafkaClient}, {loadKafkaLibrary}] = await Promise.all([import('./client.js'), import('./library.js')])
  await loadKafkaLibrary()
  debug?.(`kafka client loaded in ${Math.round(performance.now() - tLoad)} ms`)
  // Timed from here: the deadline (--timeout) starts when the client opens.
  const t0 = performance.now()
  let client: KafkaClient | undefined
  try {
    client = await KafkaClient.open(settings, {debug, warn: io.warn ?? (m => process.stderr.write(`Warning: ${forTerminal(m)}\n`))})
    return await work(client)
  } catch (error) {
    debug?.(`live operation failed after ${Math.round(performance.now() - t0)} ms`)
    throw error
  } finally {
    await client?.close()
    debug?.(`live operation took ${Math.round(performance.now() - t0)} ms`)
  }
}
