/**
 * A secret value (password, private key, token) that cannot leak by accident: printing, string
 * interpolation, JSON.stringify and util.inspect all show "[redacted]". Only `reveal()` gives the value,
 * and it is called only where a connection is opened.
 */
const REDACTED = '[redacted]'

export class Secret {
  readonly #value: string

  constructor(value: string) {
    this.#value = value
  }

  reveal(): string {
    return this.#value
  }

  get length(): number {
    return this.#value.length
  }

  toString(): string {
    return REDACTED
  }

  toJSON(): string {
    return REDACTED
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return REDACTED
  }
}

/** Property keys whose values are secrets (never printed, never quoted in errors). */
export function isSecretKey(key: string): boolean {
  return /password|secret|token|jaas|\.key$|credential/i.test(key)
}

/**
 * A setting's value as an error may quote it: only a plain token. A broken file (a lost newline, a stray
 * continuation) can join a secret onto a harmless key's value, and such a value always holds a separator.
 */
const PLAIN_TOKEN = /^[\w.-]{0,64}$/
export const BOOTSTRAP_SHOWN = /^[\w.\-[\]:/]{0,300}$/
export function shown(value: string | undefined, ok = PLAIN_TOKEN): string {
  return value !== undefined && ok.test(value) && !isSecretKey(value) ? `"${value}"` : '(value not shown: it may hold a secret)'
}

/** A name for --debug: shown when it is a plain name (a broken line can join a secret onto it). */
export function shownPlain(value: string): string {
  return /^[\w.@-]{0,128}$/.test(value) && !isSecretKey(value) ? value : '(not shown)'
}
