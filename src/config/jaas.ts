/**
 * `sasl.jaas.config` values: `<LoginModuleClass> <flag> [name=value ...];` with values quoted ("…", backslash
 * escapes) or bare. Errors name the problem and the option names, never option values.
 */
import {InputError} from '../core/errors.js'

export interface JaasEntry {
  readonly loginModule: string
  readonly flag: string
  readonly options: ReadonlyMap<string, string>
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional'])

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
  if (!FLAGS.has(flag.toLowerCase())) throw bad(`expected a control flag (required, requisite, sufficient, optional) after ${loginModule}`)
  const options = new Map<string, string>()
  for (;;) {
    skipWs()
    if (i >= text.length) throw bad('missing the closing ";"')
    if (text[i] === ';') {
      i++
      break
    }
    const name = word()
    if (!name) throw bad(`unexpected character at position ${i}`)
    skipWs()
    if (text[i] !== '=') throw bad(`option ${name} has no "=value"`)
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
  }
  skipWs()
  if (i < text.length) throw bad('only one login module is allowed (text after ";")')
  return {loginModule, flag: flag.toLowerCase(), options}
}
