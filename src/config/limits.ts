/** Size bounds that an environment variable may change (REBALANCE_DOCTOR_MAX_*_BYTES): one parser, one message. */
import {InputError} from '../core/errors.js'

const MiB = 1 << 20

export function byteLimitFromEnv(name: string, defaultBytes: number, env: NodeJS.ProcessEnv = process.env, range = {min: 1024, max: 0x7fffffff}): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return defaultBytes
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw new InputError(
      `$${name} must be a number of bytes from ${range.min} to ${range.max} (got "${raw.slice(0, 40)}")`,
      `Unset it for the default of ${defaultBytes % MiB === 0 ? `${defaultBytes / MiB} MiB` : `${defaultBytes} bytes`}.`,
      'BAD_SETTING',
    )
  }
  return n
}
