/**
 * Profiles: named clusters in a YAML file under the user's config dir, so that on-call does not retype bootstrap
 * servers and property files. Selected with --profile NAME or $REBALANCE_DOCTOR_PROFILE; a flag or its environment
 * variable wins over the profile (flag > env > profile). Secrets stay in the command-config file it names.
 *
 *   # ~/.config/rebalance-doctor/profiles.yaml
 *   profiles:
 *     prod:
 *       bootstrap-server: kafka-1:9093,kafka-2:9093
 *       command-config: prod.properties      # relative to this file
 *       timeout: 60s                         # or milliseconds
 */
import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, isAbsolute, join, resolve} from 'node:path'
import {InputError} from '../core/errors.js'
import {parseDuration} from '../core/time.js'

export const PROFILE_ENV = 'REBALANCE_DOCTOR_PROFILE'
export const PROFILES_FILE_ENV = 'REBALANCE_DOCTOR_PROFILES_FILE'
const KEYS = ['bootstrap-server', 'command-config', 'timeout'] as const
/** A profiles file is a few lines; anything this big is not one. */
const MAX_BYTES = 1 << 20

export interface Profile {
  readonly name: string
  readonly file: string
  readonly bootstrapServer?: string
  readonly commandConfig?: string
  readonly timeoutMs?: number
}

export function profilesFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env[PROFILES_FILE_ENV]) return env[PROFILES_FILE_ENV]!
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), '.config')
  return join(base, 'rebalance-doctor', 'profiles.yaml')
}

export async function loadProfile(name: string, opts: {env?: NodeJS.ProcessEnv; readFile?: (path: string) => string} = {}): Promise<Profile> {
  const file = profilesFile(opts.env)
  const hint = `Profiles live in ${file} (or $${PROFILES_FILE_ENV}): "profiles:" then one entry per name with bootstrap-server, command-config, timeout.`
  let text: string
  try {
    text = (opts.readFile ?? (p => readFileSync(p, 'utf8')))(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new InputError(`--profile ${name}: cannot read the profiles file ${file}${code ? ` (${code})` : ''}`, hint, 'BAD_PROFILE')
  }
  if (text.length > MAX_BYTES) throw new InputError(`the profiles file ${file} is larger than ${MAX_BYTES} bytes`, hint, 'BAD_PROFILE')
  const {parseDocument} = await import('yaml') // loaded only when a profile is asked for: fast start
  const doc = parseDocument(text, {uniqueKeys: true, prettyErrors: true})
  if (doc.errors.length > 0) {
    // the parser's message quotes the text; say only where it is
    const e = doc.errors[0]
    const where = e.linePos?.[0] ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : `offset ${e.pos[0]}`
    throw new InputError(`the profiles file ${file} is not valid YAML (${e.code} at ${where})`, hint, 'BAD_PROFILE')
  }
  const root = doc.toJS({maxAliasCount: 10}) as unknown
  const profiles = isObject(root) ? root.profiles : undefined
  if (!isObject(profiles)) throw new InputError(`the profiles file ${file} has no "profiles:" map`, hint, 'BAD_PROFILE')
  const entry = Object.hasOwn(profiles, name) ? profiles[name] : undefined
  if (!isObject(entry)) {
    const known = Object.keys(profiles).sort()
    throw new InputError(`no profile "${name}" in ${file}`, known.length ? `Known profiles: ${known.join(', ')}.` : hint, 'UNKNOWN_PROFILE')
  }
  const where = `profile ${name} in ${file}`
  for (const key of Object.keys(entry)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw new InputError(
        `${where}: unknown key "${key}"`,
        `A profile takes ${KEYS.join(', ')}; security settings go in the command-config properties file.`,
        'BAD_PROFILE',
      )
    }
  }
  const str = (key: string): string | undefined => {
    const v = entry[key]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'string' || v.trim() === '') throw new InputError(`${where}: ${key} must be a non-empty string`, hint, 'BAD_PROFILE')
    return v.trim()
  }
  const commandConfig = str('command-config')
  const timeout = entry.timeout
  let timeoutMs: number | undefined
  if (timeout !== undefined && timeout !== null) {
    if (typeof timeout === 'number' && Number.isInteger(timeout) && timeout > 0) timeoutMs = timeout
    else if (typeof timeout === 'string') timeoutMs = Math.round(parseDuration(timeout, `timeout (${where})`))
    else throw new InputError(`${where}: timeout must be milliseconds or a duration (60s, 2m)`, hint, 'BAD_PROFILE')
  }
  return {
    name,
    file,
    bootstrapServer: str('bootstrap-server'),
    // a relative path is relative to the profiles file, not to wherever the command runs
    ...(commandConfig ? {commandConfig: resolve(dirname(file), commandConfig.replace(/^~(?=\/)/, homedir()))} : {}),
    ...(timeoutMs !== undefined ? {timeoutMs} : {}),
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
