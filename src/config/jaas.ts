/**
 * `sasl.jaas.config` values: `<LoginModuleClass> <flag> [name=value ...];` with values quoted ("…", backslash
 * escapes) or bare. Errors name the problem, a character position and well-formed option names only: in a
 * malformed config any other word may be a password (`password:SECRET`, a stray quote), so none is echoed.
 */
import {InputError} from '../core/errors.js'

export interface JaasEntry {
  readonly loginModule: string
  readonly flag: string
  readonly options: ReadonlyMap<string, string>
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional'])
/** Option names common enough to name when a typo follows them (`password:…`); any other word is never shown. */
const KNOWN_OPTIONS = new Set(['username', 'password', 'unsecuredLoginStringClaim_sub', 'tokenauth', 'clientId', 'clientSecret', 'scope'])
const OPTION_NAME = /^[A-Za-z_][\w.-]*$/

export const LOGIN_MODULES = {
  plain: 'org.apache.kafka.common.security.plain.PlainLoginModule',
  scram: 'org.apache.kafka.common.security.scram.ScramLoginModule',
  oauthbearer: 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule',
  kerberos: 'com.sun.security.auth.module.Krb5LoginModule',
} as const

export function parseJaasConfig(text: string, source = 'sasl.jaas.config'): JaasEntry {
  const bad = (what: string) =>
    new InputError(
      `${source}: ${what}`,
      `Write it as Kafka does, e.g. sasl.jaas.config=${LOGIN_MODULES.scram} required username="alice" password="…";`,
      'BAD_JAAS',
    )
  let i = 0
  const skipWs = () => {
    while (i < text.length && /\s/.test(text[i])) i++
  }
  const word = (): string => {
    const start = i
    while (i < text.length && !/[\s=;"]/.test(text[i])) i++
    return text.slice(start, i)
  }
  skipWs()
  const loginModule = word()
  if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(loginModule)) throw bad('expected a login module class name first')
  skipWs()
  const flag = word()
  if (!FLAGS.has(flag.toLowerCase())) throw bad('expected a control flag (required, requisite, sufficient, optional) after the login module class name')
  const options = new Map<string, string>()
  let previous: string | undefined
  const after = () => (previous ? ` after option ${previous}` : ' after the control flag')
  for (;;) {
    skipWs()
    if (i >= text.length) throw bad(`missing the closing ";"${after()}`)
    if (text[i] === ';') {
      i++
      break
    }
    const at = i
    const name = word()
    if (!name) throw bad(`expected an option name=value${after()} (character ${at + 1})`)
    skipWs()
    if (text[i] !== '=' || !OPTION_NAME.test(name)) {
      const typo = /^([A-Za-z_]\w*)[:]/.exec(name)
      if (typo && KNOWN_OPTIONS.has(typo[1])) throw bad(`option ${typo[1]} is followed by ":" (character ${at + typo[1].length + 1}); write ${typo[1]}="…"`)
      throw bad(`expected an option name=value${after()} (character ${at + 1}); the text there is not shown, it may be a secret`)
    }
    i++
    skipWs()
    let value: string
    if (text[i] === '"') {
      i++
      value = ''
      let closed = false
      while (i < text.length) {
        const c = text[i++]
        if (c === '\\' && i < text.length) value += text[i++]
        else if (c === '"') {
          closed = true
          break
        } else value += c
      }
      if (!closed) throw bad(`the value of option ${name} has no closing quote`)
    } else {
      value = word()
    }
    options.set(name, value)
    previous = name
  }
  skipWs()
  if (i < text.length) throw bad('only one login module is allowed (text after ";")')
  return {loginModule, flag: flag.toLowerCase(), options}
}
