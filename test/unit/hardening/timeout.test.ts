/** A --timeout of 2^31 ms or more is refused (Node timers overflow there and fire at once). */
import {describe, expect, it, vi} from 'vitest'
import {MAX_TIMEOUT_MS, resolveConnectionSettings} from '../../../src/config/client-config.js'
import {cli} from './cli.js'

// child processes: a hang bound, not a speed check (the machine may be loaded)
vi.setConfig({testTimeout: 300_000})

describe('--timeout bound', () => {
  it('is 2^31-1 ms, the largest delay a Node timer takes', () => {
    expect(MAX_TIMEOUT_MS).toBe(2 ** 31 - 1)
    expect(() => resolveConnectionSettings({bootstrapServer: 'h:1', timeoutMs: 2 ** 31, env: {}})).toThrow(/at most 2147483647 ms/)
    expect(resolveConnectionSettings({bootstrapServer: 'h:1', timeoutMs: 2 ** 31 - 1, env: {}}).timeoutMs).toBe(2 ** 31 - 1)
  })

  for (const [cmd, env] of [
    [['topic-hash', 'compute'], 'REBALANCE_DOCTOR_TIMEOUT'],
    [['audit'], 'REBALANCE_DOCTOR_AUDIT_TIMEOUT'],
  ] as const) {
    it(`${cmd.join(' ')} --timeout 2147483648 is a usage error, not an instant timeout`, () => {
      const r = cli([...cmd, '-b', '127.0.0.1:9', '--timeout', '2147483648'])
      expect(r.status).toBe(2)
      expect(r.stderr).toContain('2147483647')
      expect(r.stderr).not.toContain('TimeoutOverflowWarning')
      expect(r.stderr).not.toMatch(/timed out/i)
    })
    it(`${cmd.join(' ')} with $${env}=4294967296 is a usage error too`, () => {
      const r = cli([...cmd, '-b', '127.0.0.1:9'], {env: {[env]: '4294967296'}})
      expect(r.status).toBe(2)
      expect(r.stderr).not.toContain('TimeoutOverflowWarning')
    })
  }
})
