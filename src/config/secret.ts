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
