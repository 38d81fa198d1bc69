/**
 * Retrying within the client's deadline, as Kafka's own clients do (retry.backoff.ms, retry.backoff.max.ms:
 * exponential from 100 ms, here capped at 2 s, with 20 % jitter): a broker that was just killed still
 * leads partitions and coordinates groups until the controller fences it (broker.session.timeout.ms, ~9 s),
 * so a refused connection or a missing leader is worth waiting for — but only until the deadline, with a
 * bounded, counted backoff and never for errors every broker would repeat (credentials, certificates).
 */
import {RdError} from '../core/errors.js'
import {timeoutError} from './errors.js'

export interface BackoffPolicy {
  readonly baseMs: number
  readonly maxMs: number
  /** ± this fraction of the delay, so that many waiting reads do not retry in lockstep. */
  readonly jitter: number
}

export const DEFAULT_BACKOFF: BackoffPolicy = {baseMs: 100, maxMs: 2000, jitter: 0.2}

/** The delay before retry number `attempt` (0-based): base·2^attempt, capped at max, with jitter. */
export function backoffMs(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const raw = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt, 30))
  return Math.max(1, Math.round(raw * (1 - policy.jitter + 2 * policy.jitter * random())))
}

/**
 * Connection failures that may pass: the broker is down or restarting, its address is being re-published, or
 * the connection dropped. TLS, SASL and the deadline itself are not here: every retry would fail alike.
 */
const RETRIABLE_CONNECTION = new Set(['CONNECTION_REFUSED', 'CONNECTION_CLOSED', 'CONNECTION_FAILED', 'HOST_UNREACHABLE', 'UNKNOWN_HOST'])

export function isRetriableConnection(error: unknown): error is RdError {
  return error instanceof RdError && RETRIABLE_CONNECTION.has(error.code)
}

export interface RetryClock {
  now(): number
  sleep(ms: number): Promise<void>
}

export const SYSTEM_CLOCK: RetryClock = {now: () => Date.now(), sleep: ms => new Promise(r => setTimeout(r, ms))}

export interface RetrierOptions {
  /** When to give up (ms since the epoch); read at each wait, since a long read moves it forward. */
  readonly deadline: () => number
  /** For the timeout message ("timed out after N ms …"). */
  readonly timeoutMs: number
  readonly clock?: RetryClock
  readonly policy?: BackoffPolicy
  readonly random?: () => number
  readonly debug?: (line: string) => void
}

/** One operation's retries: each wait backs off further; a wait that would end past the deadline throws instead. */
export class Retrier {
  readonly #o: RetrierOptions
  #waits = 0

  constructor(options: RetrierOptions) {
    this.#o = options
  }

  /** Retries waited so far. */
  get waits(): number {
    return this.#waits
  }

  /**
   * Sleeps before the next attempt, or throws a TIMEOUT naming `what` was waited for and the last `reason` when
   * the deadline would pass first.
   */
  async wait(what: string, reason: string): Promise<void> {
    const clock = this.#o.clock ?? SYSTEM_CLOCK
    const delay = backoffMs(this.#waits, this.#o.policy, this.#o.random)
    const left = this.#o.deadline() - clock.now()
    if (left <= delay) throw timeoutError(this.#o.timeoutMs, `waiting for ${what} (${this.#waits + 1} attempts): ${reason}`)
    this.#waits++
    this.#o.debug?.(`retry ${this.#waits} in ${delay} ms: waiting for ${what}: ${reason}`)
    await clock.sleep(delay)
  }

  /**
   * Sleeps `ms` (a broker's throttle time) unless the deadline would pass first, then throws a TIMEOUT naming
   * `what`. Not counted as a retry: the broker asked for the pause.
   */
  async pause(ms: number, what: string): Promise<void> {
    const clock = this.#o.clock ?? SYSTEM_CLOCK
    if (this.#o.deadline() - clock.now() <= ms) throw timeoutError(this.#o.timeoutMs, what)
    this.#o.debug?.(`pausing ${ms} ms: ${what}`)
    await clock.sleep(ms)
  }
}

/** The partition's leader moved or is being elected: look it up again (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER,
 * FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, OFFSET_NOT_AVAILABLE). */
export const RETRIABLE_LEADER = new Set([5, 6, 74, 75, 78])
/** Leader changes met during one read (or one ListOffsets) before it gives up (a partition whose leader never settles). */
export const LEADER_MOVES = 10
