/**
 * The connection flags every live command spreads into its flags (help group CONNECTION). Importing this
 * file does not load the Kafka client.
 */
import * as Flags from '@oclif/core/flags'
// (the settings' names only: the resolver and its TLS, SASL and properties readers load on a live run, src/kafka/session.ts)
import {ENV, MAX_TIMEOUT_MS} from '../config/connection-settings.js'
import {PROFILE_ENV, PROFILES_FILE_ENV} from '../config/profiles.js'
import {InputError} from '../core/errors.js'
import {parseDuration} from '../core/time.js'

/**
 * A timeout: a duration with a unit (500ms, 30s, 2m, 1h) or, as Kafka's tools and earlier versions take it, bare
 * milliseconds. One syntax for every duration flag; bare numbers mean milliseconds here only.
 */
export function parseTimeout(text: string, flag = 'timeout'): number {
  const t = text.trim()
  const ms = /^\d+$/.test(t) ? Number(t) : parseDuration(t, flag)
  if (!Number.isSafeInteger(Math.round(ms)) || ms < 1)
    throw new InputError(`--${flag} "${text}" is not a positive duration`, 'Give e.g. 30s, 2m or 30000 (milliseconds).', 'BAD_TIMEOUT')
  if (ms > MAX_TIMEOUT_MS)
    throw new InputError(`--${flag} "${text}" is too long: at most ${MAX_TIMEOUT_MS} ms (about 24.8 days)`, 'Give a shorter timeout.', 'BAD_TIMEOUT')
  return Math.round(ms)
}

export const timeoutFlag = Flags.custom<number>({parse: async input => parseTimeout(input)})

export const connectionFlags = {
  'bootstrap-server': Flags.string({
    char: 'b',
    summary: 'Kafka brokers to connect to, HOST:PORT[,HOST:PORT...].',
    description: `Overrides bootstrap.servers in the --command-config file. Env: ${ENV.bootstrap}.`,
    env: ENV.bootstrap,
    helpGroup: 'CONNECTION',
    helpValue: 'HOST:PORT',
  }),
  'command-config': Flags.string({
    summary: "Kafka client properties file (the Java clients' keys: security.protocol, sasl.*, ssl.* in PKCS12/PEM, client.id).",
    description: `Keys missing from the file can come from REBALANCE_DOCTOR_<KEY> variables (e.g. REBALANCE_DOCTOR_SASL_JAAS_CONFIG). Env: ${ENV.commandConfig}.`,
    env: ENV.commandConfig,
    helpGroup: 'CONNECTION',
    helpValue: 'FILE',
  }),
  timeout: timeoutFlag({
    summary: 'Give up after this long (the whole live operation): a duration (30s, 2m) or milliseconds; default 30s.',
    description: `Env: ${ENV.timeout}. At most ${MAX_TIMEOUT_MS} ms (about 24.8 days, the longest Node timer).`,
    env: ENV.timeout,
    helpGroup: 'CONNECTION',
    helpValue: 'DURATION',
  }),
  profile: Flags.string({
    summary: 'A named cluster from the profiles file (bootstrap server, command config, timeout).',
    description: `Flags and their environment variables win over the profile. File: ${PROFILES_FILE_ENV} or $XDG_CONFIG_HOME/rebalance-doctor/profiles.yaml (~/.config/...). Env: ${PROFILE_ENV}.`,
    env: PROFILE_ENV,
    helpGroup: 'CONNECTION',
    helpValue: 'NAME',
  }),
}

/** (declared with the session that reads them: src/kafka does not depend on the CLI) */
export type {ConnectionFlagValues} from '../kafka/session.js'
