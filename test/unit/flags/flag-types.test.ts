import {describe, expect, it} from 'vitest'
import {withoutFlagParseWrapper} from '../../../src/cli/base-command.js'
import {
  durationFlag,
  groupPatternFlag,
  groupTypesFlag,
  logPointFlag,
  parseWatchInterval,
  retentionFlag,
  timeSpecFlag,
  watchIntervalFlag,
} from '../../../src/cli/flag-types.js'
import {run} from '../helpers.js'

/** What oclif does with an argument (or its environment variable) before run(): the flag's parse. */
type Parser = (input: string, ctx: never, opts: never) => Promise<unknown>
async function parse<F extends () => {parse: Parser}>(make: F, input: string, name = 'x'): Promise<NonNullable<Awaited<ReturnType<ReturnType<F>['parse']>>>> {
  return make().parse(input, {} as never, {name} as never) as never
}

const usage = (code: string, message: RegExp) => expect.objectContaining({exitCode: 2, code, message: expect.stringMatching(message)})

describe('duration flags', () => {
  it('a number with a unit, in ms; 0 and fractions allowed', async () => {
    expect(await parse(durationFlag, '500ms')).toBe(500)
    expect(await parse(durationFlag, '90s')).toBe(90_000)
    expect(await parse(durationFlag, '1.5m')).toBe(90_000)
    expect(await parse(durationFlag, '2h')).toBe(7_200_000)
    expect(await parse(durationFlag, '7d')).toBe(604_800_000)
    expect(await parse(durationFlag, '1w')).toBe(604_800_000)
    expect(await parse(durationFlag, '0s')).toBe(0)
  })
  it('bare numbers, negatives, unknown units and words are usage errors naming the flag', async () => {
    for (const bad of ['10', '-5s', '5y', 'soon', '', 's']) {
      await expect(parse(durationFlag, bad, 'stuck-after')).rejects.toEqual(usage('BAD_INPUT', new RegExp(`^--stuck-after "${bad}" is not a duration$`)))
    }
  })
})

describe('--watch interval', () => {
  it('keeps the text for messages', async () => {
    expect(await parse(watchIntervalFlag, '10s', 'watch')).toEqual({ms: 10_000, text: '10s'})
    expect(parseWatchInterval('100ms')).toEqual({ms: 100, text: '100ms'})
  })
  it('at least 100 ms, at most what a timer can wait, a unit always', async () => {
    await expect(parse(watchIntervalFlag, '99ms', 'watch')).rejects.toEqual(usage('BAD_WATCH_INTERVAL', /^--watch "99ms" is too short$/))
    await expect(parse(watchIntervalFlag, '0s', 'watch')).rejects.toEqual(usage('BAD_WATCH_INTERVAL', /too short/))
    await expect(parse(watchIntervalFlag, '30d', 'watch')).rejects.toEqual(usage('BAD_WATCH_INTERVAL', /^--watch "30d" is too long: at most 2147483647 ms$/))
    expect(parseWatchInterval('24d').ms).toBe(24 * 86_400_000)
    await expect(parse(watchIntervalFlag, '10', 'watch')).rejects.toEqual(usage('BAD_INPUT', /not a duration/))
  })
})

describe('time spec flags', () => {
  it('ISO-8601 (UTC without a zone) or a duration ago', async () => {
    expect(await parse(timeSpecFlag, '2026-11-30T10:00')).toBe(Date.parse('2026-11-30T10:00:00Z'))
    expect(await parse(timeSpecFlag, '2026-11-30T11:00+01:00')).toBe(Date.parse('2026-11-30T10:00:00Z'))
    const before = Date.now()
    const t = await parse(timeSpecFlag, '2h')
    expect(t).toBeGreaterThanOrEqual(before - 7_200_000)
    expect(t).toBeLessThanOrEqual(Date.now() - 7_200_000)
    expect(await parse(timeSpecFlag, '0s')).toBeGreaterThanOrEqual(before)
  })
  it('anything else is a usage error that shows what is accepted', async () => {
    for (const bad of ['yesterday', '-2h', '2026-13-45', '']) {
      await expect(parse(timeSpecFlag, bad, 'until')).rejects.toEqual(
        expect.objectContaining({
          exitCode: 2,
          message: `--until "${bad}" is neither an ISO-8601 time nor a duration`,
          hint: expect.stringContaining('2026-11-30T10:00:00Z'),
        }),
      )
    }
  })
  it('--at: digits are a log offset, anything else a time', async () => {
    expect(await parse(logPointFlag, '42', 'at')).toEqual({text: '42', untilOffset: 42n})
    expect(await parse(logPointFlag, '0', 'at')).toEqual({text: '0', untilOffset: 0n})
    expect(await parse(logPointFlag, '2026-11-30', 'at')).toEqual({text: '2026-11-30', untilTime: Date.parse('2026-11-30T00:00:00Z')})
    await expect(parse(logPointFlag, '-1', 'at')).rejects.toEqual(usage('BAD_INPUT', /^--at "-1" is neither/))
  })
})

describe('--history-retention', () => {
  it('whole hours, days or weeks, positive', async () => {
    expect(await parse(retentionFlag, '48h')).toBe(172_800_000)
    expect(await parse(retentionFlag, '30d')).toBe(2_592_000_000)
    expect(await parse(retentionFlag, '12w')).toBe(12 * 604_800_000)
    for (const bad of ['0d', '30m', '1.5d', '-1d', '30']) {
      await expect(parse(retentionFlag, bad)).rejects.toEqual(
        usage('BAD_RETENTION', new RegExp(`^--history-retention "${bad.replace('.', '\\.')}": use a positive duration`)),
      )
    }
  })
})

describe('group pattern and type flags', () => {
  it('a glob over the whole id, or /regex/flags', async () => {
    const glob = await parse(groupPatternFlag, 'orders-*')
    expect(glob.text).toBe('orders-*')
    expect(['orders-1', 'orders-', 'x-orders-1'].map(glob.accept)).toEqual([true, true, false])
    const rx = await parse(groupPatternFlag, '/^pay/i')
    expect(['Payments', 'repay'].map(rx.accept)).toEqual([true, false])
  })
  it('a broken regular expression is a usage error with what to give', async () => {
    await expect(parse(groupPatternFlag, '/[/')).rejects.toEqual(
      expect.objectContaining({
        exitCode: 2,
        code: 'BAD_GROUP_PATTERN',
        message: expect.stringContaining('/[/'),
        hint: 'Give a glob over the whole group id (orders-*) or /regex/flags.',
      }),
    )
  })
  it('types: a comma list of the four', async () => {
    expect([...(await parse(groupTypesFlag, 'share, consumer'))]).toEqual(['share', 'consumer'])
    await expect(parse(groupTypesFlag, 'consumer,nope')).rejects.toEqual(usage('BAD_GROUP_TYPE', /"nope"/))
    await expect(parse(groupTypesFlag, ',')).rejects.toEqual(usage('BAD_GROUP_TYPE', /empty value/))
  })
})

describe("through a command: exit 2, the flag type's own message", () => {
  it('oclif\'s "Parsing --x" wrapper is dropped', () => {
    expect(withoutFlagParseWrapper('Parsing --since \n\t--since "x" is bad\nSee more help with --help')).toBe('--since "x" is bad')
    expect(withoutFlagParseWrapper('something else')).toBe('something else')
  })
  it('text and --json', async () => {
    const text = await run(['group:records', 'g', '-b', '127.0.0.1:1', '--since', 'yesterday'])
    expect(text.exitCode).toBe(2)
    expect(text.error?.message).toBe('--since "yesterday" is neither an ISO-8601 time nor a duration')
    const json = await run(['audit', '-b', '127.0.0.1:1', '--stuck-after', '5', '--json'])
    expect(json.exitCode).toBe(2)
    const doc = JSON.parse(json.stdout)
    expect(doc.error).toMatchObject({code: 'BAD_INPUT', message: '--stuck-after "5" is not a duration', exitCode: 2})
  })
  it('a bad value from the environment is a usage error too', async () => {
    process.env.REBALANCE_DOCTOR_AUDIT_TIMEOUT = 'soon'
    try {
      const r = await run(['audit', '-b', '127.0.0.1:1'])
      expect(r.exitCode).toBe(2)
      expect(r.error?.message).toBe('--timeout "soon" is not a duration')
    } finally {
      delete process.env.REBALANCE_DOCTOR_AUDIT_TIMEOUT
    }
  })
})
