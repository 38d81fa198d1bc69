import {describe, expect, it} from 'vitest'
import {parseDuration, parseTimeSpec} from '../../../src/core/time.js'

describe('time specs: one rule, a time without a zone is UTC', () => {
  const now = Date.parse('2026-11-30T12:00:00Z')
  it.each([
    ['2026-11-30', '2026-11-30T00:00:00.000Z'],
    ['2026-11-30T13:36', '2026-11-30T13:36:00.000Z'],
    ['2026-11-30T13:36:05.250', '2026-11-30T13:36:05.250Z'],
    ['2026-11-30 13:36', '2026-11-30T13:36:00.000Z'],
    ['2026-11-30T13:36Z', '2026-11-30T13:36:00.000Z'],
    ['2026-11-30T13:36+01:00', '2026-11-30T12:36:00.000Z'],
    ['2026-11-30T13:36-0230', '2026-11-30T16:06:00.000Z'],
  ])('%s → %s', (text, iso) => {
    expect(new Date(parseTimeSpec(text, 'since', now)).toISOString()).toBe(iso)
  })
  it('whatever the TZ of the process', () => {
    const tz = process.env.TZ
    try {
      for (const zone of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
        process.env.TZ = zone
        expect(parseTimeSpec('2026-11-30T13:36', 'since', now)).toBe(Date.parse('2026-11-30T13:36:00Z'))
      }
    } finally {
      if (tz === undefined) delete process.env.TZ
      else process.env.TZ = tz
    }
  })
  it('durations ago, and errors that name the flag', () => {
    expect(parseTimeSpec('2h', 'since', now)).toBe(now - 7_200_000)
    expect(parseDuration('500ms', 'x')).toBe(500)
    expect(() => parseTimeSpec('yesterday', 'since', now)).toThrow(/--since "yesterday" is neither/)
  })
})
