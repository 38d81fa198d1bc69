/**
 * The connection flags every live command spreads into its flags (help group CONNECTION). Importing this
 * file does not load the Kafka client.
 */
import {Flags} from '@oclif/core'
import {DEFAULT_TIMEOUT_MS, ENV, MAX_TIMEOUT_MS} from '../config/client-config.js'

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
    summary: "Kafka client properties file (the Java clients' keys: security.protocol, sasl.*, ssl.* in PEM form, client.id).",
    description: `Keys missing from the file can come from REBALANCE_DOCTOR_<KEY> variables (e.g. REBALANCE_DOCTOR_SASL_JAAS_CONFIG). Env: ${ENV.commandConfig}.`,
    env: ENV.commandConfig,
    helpGroup: 'CONNECTION',
    helpValue: 'FILE',
  }),
  timeout: Flags.integer({
    summary: 'Give up after this many milliseconds (the whole live operation).',
    description: `Env: ${ENV.timeout}. At most ${MAX_TIMEOUT_MS} (about 24.8 days, the longest Node timer).`,
    env: ENV.timeout,
    default: DEFAULT_TIMEOUT_MS,
    min: 1,
    max: MAX_TIMEOUT_MS,
    helpGroup: 'CONNECTION',
    helpValue: 'MS',
  }),
}

export interface ConnectionFlagValues {
  'bootstrap-server'?: string
  'command-config'?: string
  timeout?: number
}
